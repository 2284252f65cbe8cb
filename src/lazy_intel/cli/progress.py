"""Progress of long commands on a terminal: files captured, parsed and resolved (then chunks
embedded), the current stage's rate and an ETA, redrawn in place on stderr.

Drawn only when both stdout and stderr are terminals and ``--json`` is not given: piped or
redirected output, and JSON output, stay exactly what they would be without it (nothing on stderr
either). The sync calls the progress callback from its own thread; drawing is serialised and
throttled to :data:`REDRAW_S`, except that a stage's first and last step are always drawn.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

REDRAW_S = 0.1
ETA_AFTER_S = 0.5  # a rate measured over less time than this is noise: no ETA yet
STAGES: dict[str, tuple[str, str, str]] = {  # stage -> (doing, done, unit)
    "capture": ("capturing", "captured", "files"),
    "parse": ("parsing", "parsed", "files"),
    "resolve": ("resolving", "resolved", "files"),
    "prepare": ("building the embedding table (once)", "built the embedding table", "entries"),
    "embed": ("embedding", "embedded", "chunks"),
}
ALIASES = {"graph": "resolve"}  # the sync announces the graph stage as ("graph", 0, n)


@dataclass
class Stage:
    name: str
    done: int
    total: int
    started: float
    updated: float


def duration_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def eta_seconds(stage: Stage, now: float) -> float | None:
    """Time left in ``stage`` at its average rate so far; ``None`` while there is no rate yet."""
    elapsed = now - stage.started
    if stage.done <= 0 or stage.total <= stage.done or elapsed < ETA_AFTER_S:
        return None
    return (stage.total - stage.done) * elapsed / stage.done


def progress_line(stages: list[Stage], now: float, label: str = "index") -> str:
    """One status line: finished stages as counts, the current one with its share and ETA."""
    parts: list[str] = []
    for i, stage in enumerate(stages):
        doing, done, unit = STAGES[stage.name]
        current = i == len(stages) - 1 and stage.done < stage.total
        if not current:
            parts.append(f"{done} {stage.done}" + (f" {unit}" if i == 0 else ""))
            continue
        share = 100 * stage.done // stage.total if stage.total else 0
        text = f"{doing} {stage.done}/{stage.total} {unit} ({share}%)"
        eta = eta_seconds(stage, now)
        if eta is not None:
            text += f" · ETA {duration_text(eta)}"
        parts.append(text)
    return f"{label}: " + " · ".join(parts)


def summary_line(stages: list[Stage], seconds: float, label: str = "index", interrupted: bool = False) -> str:
    if not stages:
        return f"{label}: nothing to do ({duration_text(seconds)})"
    first_unit = STAGES[stages[0].name][2]
    parts = []
    for i, stage in enumerate(stages):
        _, done, unit = STAGES[stage.name]
        count = f"{stage.done}/{stage.total}" if stage.done < stage.total else str(stage.done)
        shown_unit = f" {unit}" if i == 0 or unit != first_unit else ""
        parts.append(f"{count}{shown_unit} {done}")
    tail = "interrupted after" if interrupted else "in"
    return f"{label}: " + ", ".join(parts) + f" {tail} {duration_text(seconds)}"


class TerminalProgress:
    """The ``Progress`` callback of a CLI command (``stage, done, total``)."""

    def __init__(
        self,
        stream: TextIO,
        *,
        enabled: bool,
        label: str = "index",
        clock: Callable[[], float] = time.monotonic,
        width: int | None = None,
    ) -> None:
        self.stream = stream
        self.enabled = enabled
        self.label = label
        self.clock = clock
        self.width = width
        self.started = clock()
        self.stages: list[Stage] = []
        self._drawn_at = -1.0
        self._drawn = False
        self._closed = False
        self._lock = threading.Lock()

    @classmethod
    def for_command(cls, as_json: bool, label: str = "index") -> TerminalProgress:
        interactive = sys.stdout.isatty() and sys.stderr.isatty()
        return cls(sys.stderr, enabled=interactive and not as_json, label=label)

    def __call__(self, stage: str, done: int, total: int) -> None:
        name = ALIASES.get(stage, stage)
        if not self.enabled or name not in STAGES:
            return
        with self._lock:
            if self._closed:
                return
            now = self.clock()
            first = not self.stages or self.stages[-1].name != name
            if first:
                self.stages = [s for s in self.stages if s.name != name]
                self.stages.append(Stage(name, done, total, now, now))
            else:
                current = self.stages[-1]
                current.done, current.total, current.updated = done, total, now
            if first or done >= total or now - self._drawn_at >= REDRAW_S:
                self._draw(progress_line(self.stages, now, self.label))
                self._drawn_at = now

    def _draw(self, line: str) -> None:
        width = self.width or shutil.get_terminal_size((100, 24)).columns
        if len(line) >= width:
            line = line[: max(10, width - 2)] + "…"
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self, *, interrupted: bool = False) -> None:
        """Replace the live line by a one-line summary (once; nothing when disabled)."""
        with self._lock:
            if not self.enabled or self._closed:
                return
            self._closed = True
            line = summary_line(self.stages, self.clock() - self.started, self.label, interrupted)
            self.stream.write(("\r\x1b[K" if self._drawn else "") + line + "\n")
            self.stream.flush()

"""Progress on a terminal: the line's content and ETA, throttling, and the real ``lazy-intel index``
under a pseudo-terminal (drawn) versus piped or ``--json`` (nothing on stderr)."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

from lazy_intel.cli.progress import (
    REDRAW_S,
    Stage,
    TerminalProgress,
    duration_text,
    eta_seconds,
    progress_line,
    summary_line,
)
from tests.conftest import write_tree
from tests.faults import cli

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_line_counts_stages_and_estimates_time_left() -> None:
    stages = [Stage("capture", 200, 200, 0, 1), Stage("parse", 50, 200, 1.0, 3.0)]
    # 50 files in 2 s: 150 more take 6 s
    assert eta_seconds(stages[1], 3.0) == 6.0
    assert progress_line(stages, 3.0) == "index: captured 200 files · parsing 50/200 files (25%) · ETA 6s"
    assert eta_seconds(Stage("parse", 1, 200, 0.0, 0.1), 0.1) is None  # too early to tell
    assert eta_seconds(Stage("parse", 0, 200, 0.0, 5.0), 5.0) is None
    done = [*stages[:1], Stage("parse", 200, 200, 1, 4), Stage("resolve", 200, 200, 4, 5)]
    assert summary_line(done, 5.0) == "index: 200 files captured, 200 parsed, 200 resolved in 5s"
    assert summary_line([*done, Stage("embed", 10, 40, 5, 6)], 6, interrupted=True) == (
        "index: 200 files captured, 200 parsed, 200 resolved, 10/40 chunks embedded interrupted after 6s"
    )
    assert [duration_text(s) for s in (0.4, 59, 61, 3599, 3600, 7384)] == [
        "0s",
        "59s",
        "1m01s",
        "59m59s",
        "1h00m",
        "2h03m",
    ]


def test_redraws_are_throttled_but_stage_ends_always_drawn() -> None:
    clock = Clock()
    out = io.StringIO()
    progress = TerminalProgress(out, enabled=True, clock=clock, width=200)
    progress("capture", 10, 10)
    for done in range(1, 101):
        clock.now += REDRAW_S / 10
        progress("parse", done, 100)
    progress("graph", 0, 100)  # the sync's announcement of the graph stage counts as resolving
    progress("resolve", 100, 100)
    progress.close()
    frames = out.getvalue().split("\r")
    drawn = [ANSI.sub("", f) for f in frames if f]
    assert 10 < len(drawn) < 30  # ~100 updates over 1 s at one redraw per REDRAW_S
    assert any("parsing 1/100" in f for f in drawn) and any("parsed 100" in f for f in drawn)
    assert any("resolving 0/100" in f for f in drawn)
    assert drawn[-1] == "index: 10 files captured, 100 parsed, 100 resolved in 1s\n"
    quiet = io.StringIO()
    off = TerminalProgress(quiet, enabled=False)
    off("parse", 1, 2)
    off.close()
    assert quiet.getvalue() == ""


def test_long_lines_are_cut_to_the_terminal() -> None:
    out = io.StringIO()
    progress = TerminalProgress(out, enabled=True, width=30)
    progress("parse", 1, 100_000)
    assert all(len(ANSI.sub("", f)) <= 30 for f in out.getvalue().split("\r") if f)


def many_files(root: Path, n: int = 120) -> None:
    write_tree(root, {f"pkg{i % 6}/mod{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(n)})


def run_in_terminal(args: list[str], timeout_s: float = 240) -> tuple[int, str]:
    """Run with stdout and stderr on one pseudo-terminal (both are TTYs); return exit code and screen."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process is gone
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(leader)
    code = proc.wait(timeout=30)
    return code, b"".join(chunks).decode("utf-8", "replace")


def test_index_on_a_terminal_shows_captured_parsed_resolved(tmp_path: Path) -> None:
    root = tmp_path / "many"
    many_files(root)
    code, screen = run_in_terminal([cli(), "index", str(root)])
    assert code == 0, screen
    lines = [ANSI.sub("", part) for part in re.split(r"[\r\n]", screen)]
    assert any(line.startswith("index: captur") for line in lines)
    summary = next(line for line in lines if line.startswith("index: 120 files captured"))
    assert re.fullmatch(r"index: 120 files captured, 120 parsed, 120 resolved in \d+s", summary), summary
    # an up-to-date index captures and has nothing to parse
    code, screen = run_in_terminal([cli(), "index", str(root)])
    lines = [ANSI.sub("", part) for part in re.split(r"[\r\n]", screen)]
    assert any(re.fullmatch(r"index: 120 files captured in \d+s", line) for line in lines), lines


def test_index_is_silent_when_piped_and_json_only_with_json(tmp_path: Path) -> None:
    root = tmp_path / "many"
    many_files(root, 40)
    piped = subprocess.run(
        [cli(), "index", str(root)], capture_output=True, text=True, timeout=240, check=False
    )
    assert piped.returncode == 0 and piped.stderr == ""
    assert "index:" not in piped.stdout
    write_tree(root, {"pkg0/new.py": "def g():\n    return 1\n"})
    code, screen = run_in_terminal([cli(), "index", str(root), "--json"])
    assert code == 0
    assert json.loads(screen.replace("\r\n", "\n"))["operation"] == "status"  # nothing but the answer

"""The source watcher (``watchfiles``, recursive); the set of paths it saw change is
:class:`~lazy_intel.service.indexing.dirty.DirtyTracker`.

Events pass through the same scope policy as indexing (derived directories — the state directory
among them — lockfiles, ``.lazy-intel-ignore``); the ignore file itself always passes, and reloads
the policy. A batch of events, debounced by ``LAZY_INTEL_DEBOUNCE_MS``, becomes one sync request.
New directories, deletions and renames arrive as events like any other; the sync that follows
re-lists the whole scope, so a file created inside a new directory is found even if its own event
was lost.

When the watcher cannot start or dies, ``on_failure`` is told once and the workspace falls back to
periodic reconciliation; :attr:`SourceWatcher.state` says which, for ``status``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import watchfiles

from lazy_intel.service.indexing.dirty import FAILED, RUNNING, STARTING, STOPPED
from lazy_intel.workspace.scope import IGNORE_FILE, ScopePolicy, load_policy

logger = logging.getLogger(__name__)

RUST_TIMEOUT_MS = 250
STEP_MS = 25


class SourceWatcher:
    def __init__(
        self,
        root: Path,
        state_dir: Path,
        on_change: Callable[[list[str]], None],
        on_failure: Callable[[str], None],
        *,
        debounce_ms: int,
        on_ready: Callable[[], None] = lambda: None,
    ) -> None:
        self.root = root
        self.state_dir = state_dir
        self._on_change = on_change
        self._on_failure = on_failure
        self._on_ready = on_ready
        self.debounce_ms = debounce_ms
        self._policy: ScopePolicy = load_policy(root)
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self.state = STOPPED
        self.error: str | None = None
        self.batches = 0
        self.started_at: float | None = None
        self.last_event_at: float | None = None  # time.monotonic() of the last relevant batch
        try:
            rel_state = state_dir.resolve().relative_to(root)
            self._state_rel: str | None = rel_state.as_posix()
        except ValueError:
            self._state_rel = None

    def start(self) -> None:
        """Start watching in a thread; ``on_ready`` is called once the watches are in place."""
        self._stop.clear()
        self.state = STARTING
        self._thread = threading.Thread(
            target=self._run, name=f"lazy-intel-watch:{self.root.name}", daemon=True
        )
        self._thread.start()

    def wait_ready(self, timeout_s: float) -> bool:
        """True once the watches are in place (False: failed, or still starting after ``timeout_s``)."""
        self._ready.wait(timeout_s)
        return self.state == RUNNING

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)
        if self.state != FAILED:
            self.state = STOPPED

    def last_event_ms_ago(self) -> int | None:
        """Milliseconds since the last relevant change was reported, ``None`` before the first."""
        at = self.last_event_at
        return None if at is None else int((time.monotonic() - at) * 1000)

    def settling(self) -> int | None:
        """``last_event_ms_ago`` while it is under one debounce interval, else ``None``.

        watchfiles groups the events of a burst for up to ``debounce_ms`` before it reports them, so
        until one interval has passed since the last reported change, more of that burst may be held
        unreported: an answer then must not claim the view is clean (issue 14).
        """
        ago = self.last_event_ms_ago()
        return ago if ago is not None and ago < self.debounce_ms else None

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {
            "state": self.state,
            "debounce_ms": self.debounce_ms,
            "batches": self.batches,
            "last_event_ms_ago": self.last_event_ms_ago(),
        }
        if self.error:
            out["error"] = self.error
        return out

    def relevant(self, path: str) -> str | None:
        """The root-relative path of an event worth a sync, or ``None``."""
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        if rel in ("", "."):
            return None
        if self._state_rel and (rel == self._state_rel or rel.startswith(self._state_rel + "/")):
            return None
        if rel == IGNORE_FILE:
            return rel
        if self._policy.excluded_reason(rel, is_dir=os.path.isdir(path)) is not None:
            return None
        return rel

    def _run(self) -> None:
        try:
            for changes in watchfiles.watch(
                self.root,
                watch_filter=None,
                debounce=self.debounce_ms,
                step=min(STEP_MS, self.debounce_ms),
                stop_event=self._stop,
                rust_timeout=RUST_TIMEOUT_MS,
                yield_on_timeout=True,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                if not self._ready.is_set():
                    self.state = RUNNING
                    self.started_at = time.time()
                    self._ready.set()
                    self._on_ready()
                if not changes:
                    continue
                paths = sorted({rel for _change, path in changes if (rel := self.relevant(path)) is not None})
                if IGNORE_FILE in paths:
                    self._policy = load_policy(self.root)
                if paths:
                    self.last_event_at = time.monotonic()
                    self.batches += 1
                    self._on_change(paths)
            if not self._stop.is_set():
                raise RuntimeError("the watch loop ended on its own")
        except Exception as exc:
            self.state = FAILED
            self.error = f"{type(exc).__name__}: {exc}"
            logger.warning(
                "watcher of %s failed: %s; falling back to periodic reconciliation", self.root, exc
            )
            self._ready.set()
            self._on_failure(self.error)

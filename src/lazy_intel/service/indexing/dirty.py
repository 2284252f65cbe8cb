"""What the source watcher saw change and no sync has published yet, and the watcher's states.

Apart from :mod:`watcher` so that a process which never watches (a CLI call) does not import
``watchfiles`` and the scope policy just to hold an empty tracker (issue 14: CLI start-up).
"""

from __future__ import annotations

import threading

MAX_TRACKED_PATHS = 10_000

STARTING = "starting"
RUNNING = "running"
FAILED = "failed"
STOPPED = "stopped"


class DirtyTracker:
    """Paths seen changing since the last sync that started after them (bounded; overflow = "many")."""

    def __init__(self, limit: int = MAX_TRACKED_PATHS) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._paths: dict[str, int] = {}
        self._seq = 0
        self._overflow_seq = 0

    def record(self, paths: list[str]) -> int:
        with self._lock:
            self._seq += 1
            for rel in paths:
                self._paths[rel] = self._seq
            if len(self._paths) > self._limit:
                self._paths.clear()
                self._overflow_seq = self._seq
            return self._seq

    @property
    def seq(self) -> int:
        with self._lock:
            return self._seq

    def synced_through(self, seq: int) -> None:
        """A sync that started at ``seq`` published: forget what it captured."""
        with self._lock:
            self._paths = {p: s for p, s in self._paths.items() if s > seq}
            if self._overflow_seq <= seq:
                self._overflow_seq = 0

    def pending(self, limit: int) -> tuple[tuple[str, ...], bool]:
        """(up to ``limit`` paths, whether more changed than were tracked)."""
        with self._lock:
            return tuple(sorted(self._paths)[:limit]), bool(self._overflow_seq)

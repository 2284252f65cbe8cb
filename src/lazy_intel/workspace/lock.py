"""The cross-process writer lock: ``flock`` on ``<state>/runtime/writer.lock`` with the holder's pid.

``flock`` belongs to an open file description, so two ``WriterLock`` objects of one process would
refuse each other; :func:`shared_writer_lock` hands every workspace of a process the same object,
whose :attr:`WriterLock.mutex` serialises their syncs inside the process.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

from lazy_intel.errors import WorkspaceOwned

# A holder writes its pid right after it takes the lock: a contender that reads an empty file in that
# window reads again, for at most this long, before it names no pid.
HOLDER_PID_WAIT_S = 0.5
HOLDER_PID_PAUSE_S = 0.01

_shared: dict[str, WriterLock] = {}
_shared_guard = threading.Lock()


def shared_writer_lock(path: Path) -> WriterLock:
    """The one :class:`WriterLock` of this process for ``path``."""
    key = os.path.realpath(path)
    with _shared_guard:
        lock = _shared.get(key)
        if lock is None:
            lock = _shared[key] = WriterLock(path)
        return lock


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WriterLock:
    """Exclusive, non-blocking. ``acquire`` raises ``WORKSPACE_OWNED`` naming the holder's pid."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self.mutex = threading.RLock()  # held for the length of one sync
        self.last_used = 0.0  # monotonic time the last sync under this lock ended

    def touch(self) -> None:
        self.last_used = time.monotonic()

    def live_holder(self) -> int | None:
        """The pid written by the current holder if it is another live process (advisory, for status)."""
        if self.held:
            return os.getpid()
        pid = self.holder_pid()
        return pid if pid is not None and pid != os.getpid() and pid_alive(pid) else None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def holder_pid(self) -> int | None:
        try:
            text = self.path.read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def acquire(self) -> None:
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            pid = self.holder_pid()
            deadline = time.monotonic() + HOLDER_PID_WAIT_S
            while pid is None and time.monotonic() < deadline:
                time.sleep(HOLDER_PID_PAUSE_S)
                pid = self.holder_pid()
            raise WorkspaceOwned(
                f"workspace is being written by another process (pid {pid}); lock {self.path}",
                pid=pid,
                next_step="reads still work; retry the write when that process is idle",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        os.fsync(fd)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

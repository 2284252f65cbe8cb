"""Launching and reaping one language-server process.

Each server runs in its own session and process group (``start_new_session``), so ``close`` can
kill every process it spawned. On Linux the child also gets ``PR_SET_PDEATHSIG`` (SIGKILL): if
this process dies without cleaning up, the kernel kills the server. The parent-death signal fires
when the *thread* that forked the child exits, so every launch happens on one long-lived launcher
thread, never on a short-lived request thread.

The environment is minimal and built from scratch: a fixed system ``PATH`` (never the user's or a
repository's), a fresh temporary ``HOME`` with XDG cache/config/data directories inside it, offline
switches for npm and Go, and nothing else — no credentials, no shell profile. The ``HOME`` is removed
when the server is reaped; one whose lazy-intel process was killed before it could (SIGKILL, a crash)
is removed by the next server start of any lazy-intel process (:func:`sweep_orphaned_homes`: the
directory's name carries the pid of the process that made it).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
HOME_PREFIX = "lazy-intel-lsp-"  # then the making process's pid, "-", mkdtemp's suffix
STDERR_LINES_KEPT = 64
_PR_SET_PDEATHSIG = 1

_libc: Any = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - exotic libc
        _libc = None


def _set_parent_death_signal() -> None:  # runs in the child between fork and exec
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def sweep_orphaned_homes(directory: Path | None = None) -> int:
    """Remove the temporary ``HOME`` directories (under ``directory``, default the system's temporary
    directory) that this user's lazy-intel processes made and could not remove: the pid in the name
    is no running process. Another user's directories, ones named otherwise and ones whose process
    runs are kept. Returns how many were removed."""
    base = directory if directory is not None else Path(tempfile.gettempdir())
    removed = 0
    for entry in base.glob(HOME_PREFIX + "*"):
        pid_text, dash, _ = entry.name[len(HOME_PREFIX) :].partition("-")
        if not dash or not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            if entry.is_symlink() or not entry.is_dir() or entry.stat().st_uid != os.getuid():
                continue
            shutil.rmtree(entry)
            removed += 1
    if removed:
        log.info("removed %d language-server home(s) left by killed processes", removed)
    return removed


def new_home() -> Path:
    """A fresh temporary ``HOME`` for one server, named after this process (after a sweep of those
    killed processes left)."""
    sweep_orphaned_homes()
    return Path(tempfile.mkdtemp(prefix=f"{HOME_PREFIX}{os.getpid()}-"))


def minimal_environment(home: Path) -> dict[str, str]:
    """The whole environment a server gets."""
    env = {
        "PATH": SYSTEM_PATH,
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "npm_config_offline": "true",
        "npm_config_update_notifier": "false",
        "GOPROXY": "off",
        "GOFLAGS": "-mod=mod",
        "GOTOOLCHAIN": "local",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "DO_NOT_TRACK": "1",
        "NO_COLOR": "1",
    }
    for sub in ("tmp", "cache", "config", "data", "state"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return env


class _Launcher:
    """One daemon thread that performs every ``Popen`` (see the module docstring)."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], queue.Queue[Any]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="lsp-launcher", daemon=True)
                self._thread.start()
        reply: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._jobs.put((job, reply))
        outcome = reply.get()
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _loop(self) -> None:
        while True:
            job, reply = self._jobs.get()
            try:
                reply.put(job())
            except BaseException as exc:
                reply.put(exc)


_LAUNCHER = _Launcher()


class ServerProcess:
    """A running server: its pipes, its process group, a bounded tail of its stderr."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.home = new_home()
        env = minimal_environment(self.home)

        def spawn() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=str(cwd),
                env=env,
                start_new_session=True,
                close_fds=True,
                # only prctl(2) runs in the child; the launcher thread holds no locks the child needs
                preexec_fn=_set_parent_death_signal if _libc is not None else None,  # noqa: PLW1509
            )

        try:
            self.proc: subprocess.Popen[bytes] = _LAUNCHER.run(spawn)
        except BaseException:
            shutil.rmtree(self.home, ignore_errors=True)
            raise
        self.pid = self.proc.pid
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_LINES_KEPT)
        self._reaped = False
        self._lock = threading.Lock()
        self._stderr_thread = threading.Thread(
            target=self._drain_stderr, name=f"lsp-stderr-{self.pid}", daemon=True
        )
        self._stderr_thread.start()

    def _drain_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            for raw in iter(lambda: stream.readline(4096), b""):
                line = raw.decode("utf-8", errors="replace").rstrip()
                self.stderr_tail.append(line[:500])
                log.debug("server %s stderr: %s", self.pid, line[:500])

    def write(self, data: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def exit_code(self) -> int | None:
        """The exit status if the leader has exited, without reaping it (the group id stays ours)."""
        if self._reaped:
            return self.proc.returncode
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self.proc.poll()
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the leader to exit (without reaping)."""
        stop = threading.Event()
        deadline = timeout
        step = 0.01
        while deadline > 0:
            if self.exit_code() is not None:
                return True
            stop.wait(step)
            deadline -= step
            step = min(step * 2, 0.1)
        return self.exit_code() is not None

    def kill_group(self) -> None:
        """Kill every process of the group, then reap the leader and remove the temporary HOME."""
        with self._lock:
            if self._reaped:
                return
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError, ValueError):
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            self._reaped = True
        self._stderr_thread.join(timeout=2)
        with contextlib.suppress(OSError, ValueError):
            if self.proc.stderr is not None:
                self.proc.stderr.close()
        shutil.rmtree(self.home, ignore_errors=True)

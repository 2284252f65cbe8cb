"""Helpers for fault tests: run the real CLI in a subprocess, pause it at a named point, kill -9 it."""

from __future__ import annotations

import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from lazy_intel.faultpoints import ENV_VAR, MARKER
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect


def chained_modules(count: int = 240) -> dict[str, str]:
    """A repository for resumable-build tests: ``count`` Python modules, each importing and calling
    the next (so every file has graph edges to resolve), plus a README (no graph)."""
    files = {
        f"pkg/mod_{i:03d}.py": (
            f'"""Module {i}."""\n\nfrom pkg.mod_{(i + 1) % count:03d} import helper_{(i + 1) % count}\n\n\n'
            f"class Thing{i}:\n    def run(self, x):\n        return helper_{(i + 1) % count}(x) + {i}\n\n\n"
            f"def helper_{i}(value):\n    return Thing{i}().run(value)\n"
        )
        for i in range(count)
    }
    files["README.md"] = "# Resumable build\n"
    return files


def cli() -> str:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    assert exe is not None, "the lazy-intel console script is installed next to this Python"
    return exe


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [cli(), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )


def run_json(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    done = run_cli(*args, "--json", env=env)
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(
            f"not JSON (exit {done.returncode}): {done.stdout[-800:]} {done.stderr[-2000:]}"
        ) from None


class Paused:
    """A CLI process started with ``LAZY_INTEL_TEST_PAUSE_AT=point``, waited for until it pauses."""

    def __init__(
        self, point: str, *args: str, env: dict[str, str] | None = None, timeout_s: float = 120
    ) -> None:
        self.proc = psutil.Popen(
            [cli(), *args],
            env={**os.environ, **(env or {}), ENV_VAR: point},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.stderr.append(line)
                lines.put(line)

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        end = time.monotonic() + timeout_s
        while True:
            left = end - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise AssertionError(
                    f"no pause at {point} (exit {self.proc.poll()}): {''.join(self.stderr)[-2000:]}"
                )
            try:
                line = lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if line.startswith(f"{MARKER} {point} "):
                break
        self.descendants = [p.pid for p in self.proc.children(recursive=True)]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)
        self._reader.join(30)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def wait_gone(pids: list[int], timeout_s: float) -> list[int]:
    """Wait (bounded) for every pid to be gone (or a zombie); returns those still alive."""
    end = time.monotonic() + timeout_s
    alive = list(pids)
    while alive:
        alive = [p for p in alive if _alive(p)]
        if not alive or time.monotonic() >= end:
            break
        _wait_exit(alive[0], min(0.1, max(0.0, end - time.monotonic())))
    return alive


def _wait_exit(pid: int, timeout_s: float) -> None:
    """Wait (bounded) for ``pid`` to exit, without reaping it.

    ``psutil.wait_procs`` reaps a child: when that child was a ``ProcessPoolExecutor`` worker,
    multiprocessing's own ``waitpid`` then fails with ECHILD, ``is_alive()`` stays True for ever
    and the executor's manager thread spins in ``shutdown_workers`` (CPython 3.11), hanging the test
    run at exit. A pidfd turns readable when the process exits and leaves its status to its parent.
    """
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # gone already, or no pidfd here: a plain bounded wait
        threading.Event().wait(timeout_s)
        return
    try:
        select.select([fd], [], [], timeout_s)
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def store_dump(state_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    catalog = json.loads((state_dir / "catalog.json").read_text())
    conn = connect(str(state_dir / catalog["store"]), readonly=True)
    try:
        return canonical_dump(conn)
    finally:
        conn.close()


def clean_dump(root: Path, scratch: Path) -> dict[str, list[tuple[object, ...]]]:
    """The dump of a clean rebuild of ``root`` into a scratch state directory (in this process)."""
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    ws = Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=0), state_dir=scratch)
    try:
        ws.sync(rebuild=True)
    finally:
        ws.close()
    return store_dump(scratch)


WAIT_S = 20

HOLDER = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "os.ftruncate(fd, 0); os.write(fd, str(os.getpid()).encode())\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


def try_lock(path: Path) -> bool:
    """Can another process take the writer lock right now?"""
    code = "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
    return (
        subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, check=False).returncode
        == 0
    )


class Holder:
    """Another process holding the writer lock until released."""

    def __init__(self, lock_path: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(lock_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "locked"

    def release(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(30)
        self.proc.stdout.close()


def parse_workers(parent: psutil.Process) -> list[int]:
    """Pids of the live parse-pool workers (``spawn`` children) under ``parent``."""
    out = []
    for child in parent.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "spawn_main" in " ".join(child.cmdline()):
                out.append(child.pid)
        except psutil.Error:
            continue
    return out

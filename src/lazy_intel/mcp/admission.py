"""Admission of MCP requests: 4 running, 32 waiting, ``BUSY`` beyond, a deadline for each.

Each admitted request becomes a job in the server's own task group, so the request (the MCP
handler, which the client may cancel or which may time out) only *waits* for it:

- a request that stops waiting before its job started marks it abandoned: the job never runs;
- a job that already runs goes on in its thread until its work is done (its deadline interrupts
  long queries, and a sync it waits for belongs to the workspace, not to it), and it keeps its slot
  until then, so at most :data:`MAX_ACTIVE` operations ever run at once;
- jobs run in daemon threads, so a server whose client went away never waits for one to exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.abc

MAX_ACTIVE = 4
MAX_QUEUED = 32

T = TypeVar("T")


async def run_in_daemon_thread(func: Callable[[], T], name: str = "lazy-intel-request") -> T:
    """Run ``func`` in a new daemon thread and wait for it (cancelling the wait abandons the thread)."""
    loop = asyncio.get_running_loop()
    done = anyio.Event()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = func()
        except BaseException as exc:
            box["error"] = exc
        finally:
            with contextlib.suppress(RuntimeError):  # the event loop is gone: the server is exiting
                loop.call_soon_threadsafe(done.set)

    threading.Thread(target=target, name=name, daemon=True).start()
    await done.wait()
    if "error" in box:
        raise box["error"]
    return box["value"]


@dataclass
class _Job:
    done: anyio.Event = field(default_factory=anyio.Event)
    abandoned: bool = False
    started: bool = False
    result: Any = None


class Admission:
    """Bounded concurrency for blocking work started from async request handlers."""

    def __init__(self, max_active: int = MAX_ACTIVE, max_queued: int = MAX_QUEUED) -> None:
        self.max_active = max_active
        self.max_queued = max_queued
        self._slots = anyio.Semaphore(max_active)
        self.queued = 0
        self.running = 0
        self._group: anyio.abc.TaskGroup | None = None

    def attach(self, group: anyio.abc.TaskGroup) -> None:
        self._group = group

    def full(self) -> bool:
        return self.queued >= self.max_queued

    async def run(self, work: Callable[[], T], timeout_s: float) -> tuple[bool, T | None]:
        """(finished, result) of ``work``; (False, None) when ``timeout_s`` passed first.

        The caller checks :meth:`full` first (``BUSY``). Cancelling the caller abandons the wait only.
        """
        job = _Job()
        self.queued += 1
        if self._group is None:  # no server task group (embedded use): run inline, still bounded
            await self._job(work, job)
        else:
            self._group.start_soon(self._job, work, job)
        try:
            with anyio.move_on_after(timeout_s):
                await job.done.wait()
        finally:
            if not job.done.is_set():
                job.abandoned = True
        return (True, job.result) if job.done.is_set() else (False, None)

    async def _job(self, work: Callable[[], T], job: _Job) -> None:
        try:
            await self._slots.acquire()
        finally:
            self.queued -= 1
        try:
            if job.abandoned:
                return  # the caller left before a slot freed: nothing started, nothing to cancel
            job.started = True
            self.running += 1
            try:
                job.result = await run_in_daemon_thread(work)
            finally:
                self.running -= 1
        finally:
            self._slots.release()
            job.done.set()


def deadline_after(timeout_s: float) -> float:
    return time.monotonic() + timeout_s

"""One thread per workspace runs every sync: asked for, watcher-triggered, retried, or periodic.

- **Coalescing.** Callers get a :class:`Ticket`; every ticket handed in before a sync starts is
  answered by that sync (a ticket handed in while one runs waits for the next: the running one may
  have captured the files before the caller's edit).
- **Cancellation never reaches shared work.** A caller that stops waiting (timeout, MCP cancel)
  only abandons its ticket; the sync goes on for everyone else. Only :meth:`close` and the
  ``LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS`` deadline stop a running sync (it rolls back, nothing published).
- **Writer lock.** Taken for the first sync and held while syncs keep coming; released after
  ``LAZY_INTEL_WRITER_IDLE_MS`` without one. Whoever takes it first recovers interrupted
  publications. ``WORKSPACE_OWNED`` fails the waiting tickets at once (naming the pid) and, if the
  sync was wanted by the watcher or a background request, is retried every :data:`OWNED_RETRY_S`.
- **Reconciliation.** Without a watcher, a sync runs every ``LAZY_INTEL_RECONCILE_MS``.
- **Clean-up.** ``after_sync`` runs on this thread after every sync, once its tickets are answered
  and the writer mutex is released (the workspace frees the sync's garbage there).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lazy_intel.errors import LazyIntelError, Timeout, WorkspaceOwned
from lazy_intel.workspace.lock import WriterLock

if TYPE_CHECKING:  # the sync machinery is the runner's: a CLI read never imports it (issue 14)
    from lazy_intel.service.indexing.sync import Progress, SyncReport

logger = logging.getLogger(__name__)

OWNED_RETRY_S = 5.0
CLOSE_JOIN_S = 3.0


@dataclass
class Ticket:
    """One caller's wait for the next sync."""

    rebuild: bool = False
    repair: bool = False  # check the store thoroughly first; rebuild it if a check fails
    progress: Progress | None = None
    done: threading.Event = field(default_factory=threading.Event)
    report: SyncReport | None = None
    error: BaseException | None = None

    def wait(self, timeout_s: float | None = None) -> SyncReport:
        """The report of the sync that served this ticket; raises its error, or ``TIMEOUT``."""
        if not self.done.wait(timeout_s):
            raise Timeout(
                "the sync did not finish in time; it goes on in the background",
                next_step="retry shortly; status shows progress",
            )
        if self.error is not None:
            raise self.error
        assert self.report is not None
        return self.report


class _Deadline:
    """``is_set()`` once the scheduler closes or the sync's deadline passes (duck-types an Event)."""

    def __init__(self, closing: threading.Event, deadline: float) -> None:
        self.closing = closing
        self.deadline = deadline

    def is_set(self) -> bool:
        return self.closing.is_set() or time.monotonic() > self.deadline


SyncRunner = Callable[[bool, bool, "Progress", _Deadline], "SyncReport"]  # (rebuild, repair, …)
LockHook = Callable[[], bool]  # called right after the lock is taken; returns "rebuild needed"


class SyncScheduler:
    def __init__(
        self,
        name: str,
        lock: WriterLock,
        runner: SyncRunner,
        on_lock_taken: LockHook,
        *,
        before_lock: Callable[[], None] = lambda: None,
        after_sync: Callable[[], None] = lambda: None,
        idle_release_s: float,
        sync_timeout_s: float,
    ) -> None:
        self.name = name
        self.lock = lock
        self._runner = runner
        self._on_lock_taken = on_lock_taken
        self._before_lock = before_lock
        self._after_sync = after_sync
        self._cleaning_up = False  # between a sync's answers and the end of its clean-up
        self.idle_release_s = idle_release_s
        self.sync_timeout_s = sync_timeout_s
        self._cond = threading.Condition()
        self._tickets: list[Ticket] = []
        self._demand = False  # a sync is wanted with nobody waiting (watcher, background, retry)
        self._demand_rebuild = False
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._retry_at: float | None = None
        self.reconcile_s: float | None = None
        self._next_reconcile: float | None = None
        self.running_since: float | None = None
        self.progress: tuple[str, int, int] | None = None
        self.last_report: SyncReport | None = None
        self.report_started_at: float | None = None  # time.monotonic() the sync of last_report started
        self.answering = False  # the running sync answers waiting callers (not only background demand)
        self.last_error: BaseException | None = None
        self.owner_pid: int | None = None  # the pid that refused us the lock, until we get it
        self.syncs = 0

    # ---- requests
    def submit(
        self, *, rebuild: bool = False, repair: bool = False, progress: Progress | None = None
    ) -> Ticket:
        ticket = Ticket(rebuild=rebuild, repair=repair, progress=progress)
        with self._cond:
            if self._closing.is_set():
                ticket.error = LazyIntelError("the workspace is closing", code="INTERNAL")
                ticket.done.set()
                return ticket
            self._tickets.append(ticket)
            self._ensure_thread()
            self._cond.notify_all()
        return ticket

    def request(self, *, rebuild: bool = False, unless_running: bool = False) -> bool:
        """Ask for a sync nobody waits for; False when one is already pending (or, with
        ``unless_running``, running: checked under the same lock the sync thread takes work with,
        so a caller racing the start of a build never queues a second one)."""
        with self._cond:
            if self._closing.is_set():
                return False
            if unless_running and self.running_since is not None:
                return False
            fresh = not self._demand
            self._demand = True
            self._demand_rebuild = self._demand_rebuild or rebuild
            self._ensure_thread()
            self._cond.notify_all()
            return fresh

    def set_reconcile(self, interval_s: float | None) -> None:
        with self._cond:
            self.reconcile_s = interval_s
            self._next_reconcile = time.monotonic() + interval_s if interval_s else None
            if interval_s:
                self._ensure_thread()
            self._cond.notify_all()

    # ---- state
    @property
    def busy(self) -> bool:
        return self.running_since is not None or self.wanted()

    @property
    def syncing(self) -> bool:
        """A sync is running or wanted — not the clean-up after one, which runs once its callers are
        answered (a status read then must not say `building` about a sync that already failed)."""
        return (self.running_since is not None and not self._cleaning_up) or self.wanted()

    def wanted(self) -> bool:
        """A sync is waiting to start (asked for, not yet taken): work done on the sync thread between
        syncs checks this to step aside."""
        return bool(self._tickets) or self._demand

    def wait_until(self, predicate: Callable[[], bool], timeout_s: float) -> bool:
        """Wait (bounded) until ``predicate()`` holds; re-checked after every sync."""
        end = time.monotonic() + timeout_s
        with self._cond:
            while not predicate():
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.25))
        return True

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait (bounded) while a sync runs or is wanted; True when none is. Background work that
        shares the interpreter with the syncs (the catch-up's comparison) calls it between steps, so
        a watched edit's sync does not share the GIL with it."""
        return self.wait_until(lambda: not self.busy, timeout_s)

    def close(self) -> bool:
        """Stop: cancel a running sync, fail waiting tickets, release the lock. True if stopped cleanly."""
        with self._cond:
            self._closing.set()
            self._cond.notify_all()
            thread = self._thread
        stopped = True
        if thread is not None and thread is not threading.current_thread():
            thread.join(CLOSE_JOIN_S)
            stopped = not thread.is_alive()
        self._fail(self._take_tickets(), LazyIntelError("the workspace closed", code="INTERNAL"))
        if stopped:
            self.lock.release()
        return stopped

    # ---- the thread
    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._loop, name=f"lazy-intel-sync:{self.name}", daemon=True
            )
            self._thread.start()

    def _take_tickets(self) -> list[Ticket]:
        with self._cond:
            taken, self._tickets = self._tickets, []
            return taken

    def _next_wakeup(self, now: float) -> float | None:
        times = [t for t in (self._retry_at, self._next_reconcile) if t is not None]
        if self.lock.held:
            times.append(self.lock.last_used + self.idle_release_s)
        return max(0.01, min(times) - now) if times else None

    def _release_if_idle(self, now: float) -> None:
        lock = self.lock
        if not lock.held or now - lock.last_used < self.idle_release_s:
            return
        if lock.mutex.acquire(blocking=False):  # another workspace of this process may be syncing
            try:
                lock.release()
            finally:
                lock.mutex.release()
            logger.info("%s: writer lock released after %.1fs idle", self.name, self.idle_release_s)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._closing.is_set():
                        return
                    now = time.monotonic()
                    if self._tickets:
                        break
                    if self._demand and (self._retry_at is None or now >= self._retry_at):
                        break
                    if self._next_reconcile is not None and now >= self._next_reconcile:
                        self._demand = True
                        break
                    self._release_if_idle(now)
                    self._cond.wait(self._next_wakeup(now))
                tickets, self._tickets = self._tickets, []
                wanted = self._demand
                rebuild = any(t.rebuild for t in tickets) or (wanted and self._demand_rebuild)
                self._demand = False
                self._demand_rebuild = False if wanted else self._demand_rebuild
                self._retry_at = None
                if self.reconcile_s:
                    self._next_reconcile = time.monotonic() + self.reconcile_s
                self.running_since = time.monotonic()  # busy from the moment the work is taken
            self._run(tickets, rebuild, retry_on_owned=wanted)

    def _run(self, tickets: list[Ticket], rebuild: bool, *, retry_on_owned: bool) -> None:
        try:
            with self.lock.mutex:
                self._run_locked(tickets, rebuild, retry_on_owned=retry_on_owned)
            self._cleaning_up = True
            try:  # the tickets are answered: clean-up never delays a caller
                self._after_sync()
            except Exception:
                logger.exception("%s: clean-up after the sync failed", self.name)
        finally:
            with self._cond:
                self._cleaning_up = False
                self.running_since = None
                self.progress = None
                self._cond.notify_all()

    def _run_locked(self, tickets: list[Ticket], rebuild: bool, *, retry_on_owned: bool) -> None:
        try:
            if not self.lock.held:
                self._before_lock()
                self.lock.acquire()
                self.owner_pid = None
                rebuild = self._on_lock_taken() or rebuild
        except WorkspaceOwned as exc:
            self.owner_pid = exc.pid
            self._fail(tickets, exc)
            with self._cond:
                if retry_on_owned:
                    self._demand = True
                    self._retry_at = time.monotonic() + OWNED_RETRY_S
                self._cond.notify_all()
            return
        except BaseException as exc:
            self.last_error = exc
            self._fail(tickets, exc)
            return

        def progress(stage: str, done: int, total: int) -> None:
            self.progress = (stage, done, total)
            for ticket in tickets:
                if ticket.progress is not None:
                    ticket.progress(stage, done, total)

        self.running_since = time.monotonic()  # the sync itself starts now (after lock and recovery)
        self.answering = bool(tickets)
        deadline = _Deadline(self._closing, self.running_since + self.sync_timeout_s)
        try:
            report = self._runner(rebuild, any(t.repair for t in tickets), progress, deadline)
        except BaseException as exc:
            if isinstance(exc, Timeout) and not self._closing.is_set() and deadline.is_set():
                exc = Timeout(
                    f"the sync ran longer than {self.sync_timeout_s:g}s (LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS) "
                    "and was stopped; nothing was published (a full build keeps the files it had committed)",
                    next_step="sync again: a full build continues from the files it had committed; or raise "
                    "LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS, or narrow the scope with .lazy-intel-ignore",
                )
            self.last_error = exc
            if isinstance(exc, LazyIntelError):
                logger.info("%s: sync did not complete: %s", self.name, exc)
            else:
                logger.exception("%s: sync failed", self.name)
            self._fail(tickets, exc)
        else:
            self.last_report = report
            self.report_started_at = self.running_since
            self.last_error = None
            for ticket in tickets:
                ticket.report = report
                ticket.done.set()
        finally:
            self.syncs += 1
            self.lock.touch()
            if self.idle_release_s <= 0:
                self.lock.release()
            with self._cond:
                self._cond.notify_all()

    @staticmethod
    def _fail(tickets: list[Ticket], exc: BaseException) -> None:
        for ticket in tickets:
            ticket.error = exc
            ticket.done.set()

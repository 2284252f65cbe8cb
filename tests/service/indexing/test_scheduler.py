"""The sync scheduler: coalescing, cancellation that never reaches shared work, the writer lock held
while active and released when idle, retries while another process owns the workspace."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from lazy_intel.errors import Timeout, WorkspaceOwned
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.registry import WorkspaceRegistry
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.journal import PublicationJournal
from tests.faults import WAIT_S, Holder
from tests.faults import try_lock as _try_lock

FILES = {"pkg/a.py": "def a():\n    return 1\n", "pkg/b.py": "def b():\n    return 2\n"}


def test_a_caller_that_stops_waiting_cancels_nothing(make_repo, gated: threading.Event) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    first = ws.submit_sync()
    assert ws.scheduler.wait_until(lambda: ws.scheduler.running_since is not None, WAIT_S)
    # these arrive while a sync runs: one more sync serves them all
    impatient, patient, third = ws.submit_sync(), ws.submit_sync(), ws.submit_sync()
    with pytest.raises(Timeout):
        impatient.wait(0.05)  # gives up; the sync it waits for goes on
    gated.set()
    report = patient.wait(WAIT_S)
    assert first.wait(WAIT_S).generation == 1
    assert report.generation == 1 and third.wait(WAIT_S) is report
    assert impatient.done.is_set() and impatient.report is report
    assert ws.scheduler.syncs == 2
    ws.close()


def test_the_lock_is_held_while_active_and_released_when_idle(make_repo) -> None:
    root = make_repo(FILES)
    # idle for a minute first: on a loaded machine 300 ms can pass between a sync and the assertion
    ws = Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=60_000))
    ws.sync()
    lock_path = ws.state.writer_lock
    assert ws.lock.held and not _try_lock(lock_path)
    ws.scheduler.idle_release_s = 0.3
    ws.sync()  # a second sync reuses the held lock, then the 300 ms idle window lets it go
    assert ws.scheduler.wait_until(lambda: not ws.lock.held, WAIT_S)
    assert _try_lock(lock_path), "another process can take over once this one is idle"
    ws.close()


def test_a_second_process_retries_until_the_owner_lets_go(make_repo) -> None:
    root = make_repo(FILES)
    settings = load_settings(env={}, debounce_ms=50)
    ws = Workspace.open(root, settings=settings)
    ws.sync()
    ws.lock.release()
    holder = Holder(ws.state.writer_lock)
    try:
        ws.start_serving()
        assert ws.watcher is not None and ws.watcher.wait_ready(WAIT_S)
        (root / "pkg" / "a.py").write_text("def a():\n    return 'changed'\n")
        assert ws.scheduler.wait_until(lambda: ws.scheduler.owner_pid == holder.proc.pid, WAIT_S)
        with pytest.raises(WorkspaceOwned) as refused:
            ws.sync()
        assert refused.value.pid == holder.proc.pid and str(holder.proc.pid) in refused.value.message
        # reads go on from the published view, which says it is dirty (found by a stat pass)
        answer = execute({"operation": "symbol", "symbol": "a"}, lambda _r: ws, settings).to_dict()
        assert answer["status"] == "ok" and answer["view"]["dirty"] is True
        status = execute({"operation": "status"}, lambda _r: ws, settings).to_dict()
        assert status["data"]["writer"]["holder_pid"] == holder.proc.pid
    finally:
        holder.release()

    def published() -> bool:
        with ws.read() as view:
            return view.generation == 2

    assert ws.scheduler.wait_until(published, WAIT_S), "the retry publishes once the lock is free"
    assert ws.scheduler.owner_pid is None
    ws.close()


def test_a_sync_over_its_deadline_is_stopped_reported_and_resumed(make_repo) -> None:
    root = make_repo(FILES)
    settings = load_settings(env={})
    ws = Workspace.open(root, settings=settings)
    ws.scheduler.sync_timeout_s = 0.0  # every sync is already late
    with pytest.raises(Timeout, match="LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS"):
        ws.sync()
    assert not ws.has_view()
    journal = PublicationJournal(ws.state.runtime)
    # nothing was published; the full build's fresh store is kept for the next one to continue
    assert journal.pending() == [] and len(journal.resumable()) == 1
    assert [p.name for p in ws.state.stores.glob("*.sqlite")] == [Path(journal.resumable()[0].store).name]
    # the caller is answered before the sync thread's clean-up ends; status reads `building` until
    # then (a loaded machine made that window visible): the settled state is what this asserts
    assert ws.wait_background(WAIT_S)
    status = execute({"operation": "status"}, lambda _r: ws, settings).to_dict()
    lexical = status["data"]["projections"]["lexical"]
    assert lexical["verdict"] == "failing" and "BOOTSTRAP" in lexical["error"]
    assert status["data"]["recovery"]["decision"] == "resumable"
    ws.scheduler.sync_timeout_s = 600.0
    report = ws.sync()
    assert report.full_rebuild and ws.has_view()
    assert journal.decisions()[-1]["decision"] == "resumed" and journal.resumable() == []
    ws.close()


def test_status_during_the_clean_up_after_a_failed_sync_says_failing_not_building(make_repo) -> None:
    """The caller of a sync is answered before the sync thread's clean-up ends; a status read in
    that window reports the failure, not a build that is no longer running."""
    root = make_repo(FILES)
    settings = load_settings(env={})
    ws = Workspace.open(root, settings=settings)
    entered, release = threading.Event(), threading.Event()
    real = ws.scheduler._after_sync

    def held_clean_up() -> None:
        entered.set()
        release.wait(WAIT_S)
        real()

    ws.scheduler._after_sync = held_clean_up
    ws.scheduler.sync_timeout_s = 0.0
    try:
        with pytest.raises(Timeout):
            ws.sync()
        assert entered.wait(WAIT_S)
        assert ws.is_building(), "the clean-up is still running"
        status = execute({"operation": "status"}, lambda _r: ws, settings).to_dict()
        projections = status["data"]["projections"]
        assert projections["lexical"]["verdict"] == "failing", projections["lexical"]
        assert projections["graph"]["verdict"] == "absent", projections["graph"]
    finally:
        release.set()
    assert ws.wait_background(WAIT_S)
    ws.close()


def test_more_roots_than_allowed_close_the_least_recent(make_repo) -> None:
    roots = [make_repo(FILES) for _ in range(3)]
    registry = WorkspaceRegistry(load_settings(env={}, max_roots=2), None, serving=True)
    first = registry.resolve(str(roots[0]))
    first.sync()
    assert first.lock.held
    second = registry.resolve(str(roots[1]))
    assert first.wait_background(WAIT_S) and second.wait_background(WAIT_S)  # idle: may be closed
    third = registry.resolve(str(roots[2]))
    assert [w.root for w in registry.workspaces()] == [roots[1], roots[2]]
    assert first.closed and not first.lock.held and first.watcher is not None
    assert first.watcher.state == "stopped"
    assert _try_lock(first.state.writer_lock)
    # idle roots are closed too (a root still building its first store is not idle: wait for it)
    assert third.wait_background(WAIT_S)
    closed = registry.close_idle(now=10**9)
    assert closed == [roots[1], roots[2]] and registry.workspaces() == []
    assert registry.close_all()


def test_clean_up_runs_after_the_callers_are_answered_and_its_failure_fails_nobody(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from lazy_intel.service.indexing.scheduler import SyncScheduler
    from lazy_intel.service.indexing.sync import SyncReport
    from lazy_intel.workspace.lock import WriterLock

    def runner(rebuild: bool, repair: bool, progress: object, cancel: object) -> SyncReport:
        return SyncReport(1, True, False, 1, 0, 0, 0, 0, 0.0, "store.sqlite")

    seen: list[bool] = []
    tickets = []

    def after_sync() -> None:
        seen.append(tickets[-1].done.is_set() and not scheduler.lock.mutex._is_owned())  # type: ignore[attr-defined]
        if len(seen) == 1:
            raise RuntimeError("clean-up broke")

    scheduler = SyncScheduler(
        "t",
        WriterLock(tmp_path / "writer.lock"),
        runner,
        lambda: False,
        after_sync=after_sync,
        idle_release_s=0,
        sync_timeout_s=WAIT_S,
    )
    try:
        for _ in range(2):
            tickets.append(scheduler.submit())
            assert tickets[-1].wait(WAIT_S).generation == 1
            assert scheduler.wait_until(lambda: not scheduler.busy, WAIT_S)
        assert seen == [True, True]
        assert "clean-up after the sync failed" in caplog.text and scheduler.last_error is None
    finally:
        scheduler.close()


def test_wait_idle_waits_while_a_sync_runs_and_returns_once_none_is_wanted(tmp_path: Path) -> None:
    from lazy_intel.service.indexing.scheduler import SyncScheduler
    from lazy_intel.service.indexing.sync import SyncReport
    from lazy_intel.workspace.lock import WriterLock

    release = threading.Event()
    entered = threading.Event()

    def runner(rebuild: bool, repair: bool, progress: object, cancel: object) -> SyncReport:
        entered.set()
        assert release.wait(WAIT_S)
        return SyncReport(1, True, False, 1, 0, 0, 0, 0, 0.0, "store.sqlite")

    scheduler = SyncScheduler(
        "t",
        WriterLock(tmp_path / "writer.lock"),
        runner,
        lambda: False,
        idle_release_s=0,
        sync_timeout_s=WAIT_S,
    )
    try:
        assert scheduler.wait_idle(0.0)  # nothing running, nothing wanted
        scheduler.request()
        assert entered.wait(WAIT_S)
        assert not scheduler.wait_idle(0.05)  # bounded: a running sync holds it back
        waited = threading.Thread(target=lambda: seen.append(scheduler.wait_idle(WAIT_S)))
        seen: list[bool] = []
        waited.start()
        release.set()
        waited.join(WAIT_S)
        assert seen == [True] and not scheduler.busy
    finally:
        scheduler.close()

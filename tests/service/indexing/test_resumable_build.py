"""A full build killed with ``kill -9`` resumes from the batches it had committed (issue 15): the
resumed run parses only what was not written (or changed since), and its store equals a clean
build's; a reader never sees the unfinished store."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

from lazy_intel.store.schema import connect
from tests.faults import Paused, chained_modules, clean_dump, cli, run_json, store_dump, wait_gone

if TYPE_CHECKING:
    from lazy_intel.workspace.state import StateDir

BATCH = 8


ENV = {
    "LAZY_INTEL_STORE_GRACE_MS": "0",
    "LAZY_INTEL_PARSE_WORKERS": "2",
    "LAZY_INTEL_BUILD_BATCH_FILES": str(BATCH),
}


def _fresh_store(state: Path) -> Path:
    stores = [p for p in (state / "stores").glob("store-*.sqlite")]
    assert len(stores) == 1, stores
    return stores[0]


def _committed_files(store: Path) -> int:
    """The build journal's count of files committed to a fresh store (another process writes it)."""
    conn = connect(str(store), readonly=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='build_files'").fetchone()
        return int(row[0]) if row else 0
    finally:
        conn.close()


def _journal(state: Path) -> dict[str, list[dict[str, object]]]:
    path = state / "runtime" / "publication.journal"
    return json.loads(path.read_text()) if path.exists() else {}


def _resume_and_check(root: Path, state: Path, tmp_path: Path, killed_pid: int, written: int) -> None:
    total = len(chained_modules())
    code, status = run_json("status", "--root", str(root), env=ENV)
    assert code == 0 and "generation" not in status["data"], "nothing was published"
    assert status["data"]["projections"]["lexical"]["verdict"] == "needs_recovery"

    # since the kill: one written file changed, one removed, one file added
    (root / "pkg" / "mod_000.py").write_text("def replaced():\n    return 'new'\n")
    (root / "pkg" / "mod_001.py").unlink()
    (root / "pkg" / "zz_added.py").write_text("def added():\n    return 1\n")

    code, after = run_json("index", str(root), env=ENV)
    assert code == 0, after
    recovery = after["data"]["recovery"]
    assert recovery["decision"] == "resumed", recovery
    assert recovery["intent"]["pid"] == killed_pid
    report = after["data"]["last_sync"]
    assert report["full_rebuild"] is True
    # README.md, mod_000 and mod_001 sort first: they were in the first committed batch
    assert report["modified"] == 1 and report["removed"] == 1
    parsed = report["added"] + report["modified"]
    assert parsed == total - (written - 2), report
    assert parsed < total
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")
    assert _journal(state).get("resumable") is None and _journal(state)["pending"] == []
    live = json.loads((state / "catalog.json").read_text())["store"].split("/")[1]
    names = {p.name.removesuffix("-wal").removesuffix("-shm") for p in (state / "stores").iterdir()}
    assert names == {live}, "the resumed store is the live one; nothing else is left"


@pytest.mark.slow
def test_a_build_killed_after_committed_batches_resumes_from_them(make_repo, tmp_path: Path) -> None:
    root = make_repo(chained_modules())
    state = root / ".lazy-intel"
    paused = Paused("batch", "index", str(root), env=ENV)
    store = _fresh_store(state)
    paused.kill9()
    assert wait_gone(paused.descendants, 30) == []
    assert not (state / "catalog.json").exists(), "the unfinished store was never published"
    written = _committed_files(store)
    assert BATCH <= written < len(chained_modules())
    _resume_and_check(root, state, tmp_path, paused.pid, written)


@pytest.mark.slow
def test_a_build_killed_at_an_arbitrary_moment_resumes(make_repo, tmp_path: Path) -> None:
    """No pause point: the build runs freely and is killed once its store holds three batches —
    most likely in the middle of writing the fourth."""
    root = make_repo(chained_modules())
    state = root / ".lazy-intel"
    proc = psutil.Popen(
        [cli(), "index", str(root)],
        env={**os.environ, **ENV},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    written = 0
    try:
        while written < 3 * BATCH:
            assert time.monotonic() < deadline, "the build committed no batches in time"
            assert proc.poll() is None, "the build finished before it could be killed"
            stores = list((state / "stores").glob("store-*.sqlite")) if (state / "stores").is_dir() else []
            if stores:
                try:
                    written = _committed_files(stores[0])
                except Exception:  # created but not yet holding its schema
                    written = 0
            if written < 3 * BATCH:
                with contextlib.suppress(psutil.TimeoutExpired):
                    proc.wait(0.02)  # a bounded wait on the process, not a sleep
        descendants = [p.pid for p in proc.children(recursive=True)]
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.is_running():
            proc.kill()
    assert wait_gone(descendants, 30) == []
    written = _committed_files(_fresh_store(state))  # the last commit before the kill
    assert 3 * BATCH <= written < len(chained_modules())
    _resume_and_check(root, state, tmp_path, proc.pid, written)


@pytest.mark.slow
def test_a_killed_build_under_another_profile_starts_over(make_repo, tmp_path: Path) -> None:
    root = make_repo(chained_modules())
    state = root / ".lazy-intel"
    paused = Paused("batch", "index", str(root), env=ENV)
    paused.kill9()
    (root / ".lazy-intel-ignore").write_text("pkg/mod_1*\n")  # the scope it was built for is gone
    code, after = run_json("index", str(root), env=ENV)
    assert code == 0, after
    recovery = after["data"]["recovery"]
    assert recovery["decision"] == "abandoned" and "profile" in recovery["reason"], recovery
    assert after["data"]["last_sync"]["added"] == after["data"]["counts"]["files"]
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")


@pytest.mark.slow
def test_an_incremental_sync_discards_a_killed_rebuild(make_repo, tmp_path: Path) -> None:
    root = make_repo(chained_modules())
    state = root / ".lazy-intel"
    assert run_json("index", str(root), env=ENV)[0] == 0
    paused = Paused("batch", "index", str(root), "--rebuild", env=ENV)
    paused.kill9()
    (root / "pkg" / "mod_005.py").write_text("def edited():\n    return 5\n")
    code, after = run_json("index", str(root), env=ENV)
    assert code == 0, after
    assert after["data"]["recovery"]["decision"] == "abandoned"
    assert after["data"]["last_sync"]["full_rebuild"] is False
    assert _journal(state).get("resumable") is None
    live = json.loads((state / "catalog.json").read_text())["store"].split("/")[1]
    names = {p.name.removesuffix("-wal").removesuffix("-shm") for p in (state / "stores").iterdir()}
    assert names == {live}
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")


def cancelled_build(make_repo, tmp_path: Path, *, batches: int) -> tuple[Path, StateDir]:
    """A full build of :func:`_files` cancelled once ``batches`` batches are parsed: (root, state)."""
    import threading

    from lazy_intel.service.indexing.parse_pool import SyncCancelled
    from lazy_intel.service.indexing.sync import run_sync
    from lazy_intel.settings import load_settings
    from lazy_intel.workspace.state import StateDir

    root = make_repo(chained_modules())
    state = StateDir(tmp_path / "state")
    cancel = threading.Event()

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "parse" and done >= batches * BATCH:
            cancel.set()

    with pytest.raises(SyncCancelled):
        run_sync(
            root,
            state,
            max_file_bytes=load_settings(env={}).max_file_bytes,
            progress=progress,
            cancel=cancel,
            build_batch_files=BATCH,
        )
    return root, state


def test_a_cancelled_build_keeps_its_batches_for_the_next(make_repo, tmp_path: Path) -> None:
    """A build stopped from outside (serve closing the workspace, a deadline, Ctrl-C) is resumable
    as a killed one is: the next full build parses only what it had not written."""
    from lazy_intel.service.indexing.sync import run_sync
    from lazy_intel.settings import load_settings
    from lazy_intel.store.journal import PublicationJournal

    root, state = cancelled_build(make_repo, tmp_path, batches=4)
    journal = PublicationJournal(state.runtime)
    assert journal.pending() == [] and len(journal.resumable()) == 1
    assert state.read_catalog() is None or "store" not in (state.read_catalog() or {})
    written = _committed_files(state.path / journal.resumable()[0].store)
    assert 3 * BATCH <= written < len(chained_modules())

    report = run_sync(
        root, state, max_file_bytes=load_settings(env={}).max_file_bytes, build_batch_files=BATCH
    )
    assert report.full_rebuild and report.added == len(chained_modules()) - written
    assert journal.decisions()[-1]["decision"] == "resumed"
    assert journal.resumable() == []
    assert store_dump(state.path) == clean_dump(root, tmp_path / "clean")


def _meta(store: Path, key: str) -> str | None:
    conn = connect(str(store), readonly=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


@pytest.mark.slow
def test_a_build_killed_while_resolving_resumes_from_its_last_committed_batch(
    make_repo, tmp_path: Path
) -> None:
    """Graph resolution commits every batch of files: a build killed with ``kill -9`` half way through
    resolving (its resolve workers with it) resumes there — nothing parsed, nothing described or
    resolved again but the files past its last commit — and its store equals a clean build's."""
    root = make_repo(chained_modules())
    state = root / ".lazy-intel"
    paused = Paused("resolved", "index", str(root), env=ENV)
    store = _fresh_store(state)
    paused.kill9()
    assert wait_gone(paused.descendants, 30) == []
    assert not (state / "catalog.json").exists(), "the unfinished store was never published"
    assert _meta(store, "build_graph") == "described"
    resolved = int(_meta(store, "build_resolved") or 0)
    parsed_files = len(chained_modules()) - 1  # README.md has no graph
    assert BATCH <= resolved < parsed_files
    assert _meta(store, "generation") == "0"

    code, after = run_json("index", str(root), env=ENV)
    assert code == 0, after
    assert after["data"]["recovery"]["decision"] == "resumed", after["data"]["recovery"]
    report = after["data"]["last_sync"]
    assert report["full_rebuild"] is True and report["added"] + report["modified"] == 0, report
    assert report["graph"]["resumed_files"] == resolved, report["graph"]
    assert report["graph"]["resolve_workers"] == 2
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")
    live = json.loads((state / "catalog.json").read_text())["store"]
    assert _meta(state / live, "build_graph") is None and _meta(state / live, "build_resolved") is None


@pytest.mark.slow
def test_a_build_killed_while_resolving_describes_again_when_a_file_changed(
    make_repo, tmp_path: Path
) -> None:
    """The committed resolution read the facts as they were: once a resumed build writes a changed
    file, it forgets the graph's steps in that same commit and resolves every file again."""
    root = make_repo(chained_modules())
    state = root / ".lazy-intel"
    paused = Paused("resolved", "index", str(root), env=ENV)
    paused.kill9()
    assert wait_gone(paused.descendants, 30) == []
    (root / "pkg" / "mod_100.py").write_text("def helper_100(value):\n    return value\n")
    code, after = run_json("index", str(root), env=ENV)
    assert code == 0, after
    assert after["data"]["recovery"]["decision"] == "resumed"
    report = after["data"]["last_sync"]
    assert report["modified"] == 1 and report["graph"]["resumed_files"] == 0, report
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")

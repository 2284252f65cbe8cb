"""A starting ``serve``'s catch-up (what changed while nobody watched) runs beside watched edits.

Real watcher, real tree, real SQLite store; the catch-up's comparison is held at a gate so that an
edit lands while it has not finished, and every wait is bounded.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lazy_intel.service.freshness import reading
from lazy_intel.service.indexing import reconcile
from lazy_intel.service.indexing.reconcile import changed_while_unwatched
from lazy_intel.service.indexing.sync import run_sync
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings, load_settings
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect
from lazy_intel.workspace.capture import sha256_bytes
from lazy_intel.workspace.state import StateDir
from tests.conftest import write_tree

WAIT_S = 60.0
MAX_BYTES = 1 << 20
FILES = {
    "app/__init__.py": "from .a import fa\n",
    "app/a.py": "def fa(x):\n    return x + 1\n",
    "app/b.py": "from app.a import fa\n\n\ndef fb(x):\n    return fa(x) * 2\n",
    "app/c.py": "from app.b import fb\n\n\ndef fc(x):\n    return fb(x) - 3\n",
}


def _later(path: Path) -> None:
    """Move the mtime well past the capture (out of the racy window) so stat alone decides."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))


def _published_sha(ws: Workspace, rel: str) -> str | None:
    with ws.read() as view:
        row = view.conn.execute("SELECT sha256 FROM files WHERE path = ?", (rel,)).fetchone()
    return row[0] if row else None


def _wait_for(predicate: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + WAIT_S
    pause = threading.Event()
    while not predicate():
        assert time.monotonic() < end, f"not within {WAIT_S}s: {what}"
        pause.wait(0.02)


def _view_of(ws: Workspace, settings: Settings, freshness: str) -> dict[str, object]:
    with reading(ws, settings, freshness, needs_view=True, dirty_check=True, deadline=None) as got:
        return got.info.to_dict()


def _dump(state: StateDir) -> dict[str, list[tuple[object, ...]]]:
    catalog = state.read_catalog()
    assert catalog is not None
    conn = connect(str(state.path / catalog["store"]), readonly=True)
    try:
        return canonical_dump(conn)
    finally:
        conn.close()


@contextmanager
def _gated_catch_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Hold the catch-up's comparison until the test opens the gate (then compare as ever)."""
    entered, gate = threading.Event(), threading.Event()
    real = reconcile.changed_while_unwatched

    def held(*args: object, **kwargs: object) -> reconcile.Unwatched:
        entered.set()
        assert gate.wait(WAIT_S), "the test never opened the gate"
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reconcile, "changed_while_unwatched", held)
    try:
        yield entered, gate
    finally:
        gate.set()


def _served_after_changes_while_down(tmp_path: Path) -> tuple[Path, Settings, Path]:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, FILES)
    settings = load_settings(env={}, debounce_ms=50)
    state_dir = tmp_path / "state"
    first = Workspace.open(root, settings=settings, state_dir=state_dir)
    try:
        first.sync()
    finally:
        first.close()
    # while no server runs: a.py edited, c.py deleted
    (root / "app" / "a.py").write_text("def fa(x):\n    return x + 100  # changed while down\n")
    _later(root / "app" / "a.py")
    (root / "app" / "c.py").unlink()
    return root, settings, state_dir


def test_a_watched_edit_is_published_while_the_catch_up_has_not_compared_and_no_answer_claims_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, settings, state_dir = _served_after_changes_while_down(tmp_path)
    down_sha = sha256_bytes((root / "app" / "a.py").read_bytes())
    with _gated_catch_up(monkeypatch) as (entered, gate):
        ws = Workspace.open(root, settings=settings, state_dir=state_dir)
        try:
            ws.start_serving()
            assert ws.watcher is not None and ws.watcher.wait_ready(WAIT_S)
            assert entered.wait(WAIT_S)
            assert ws.catching_up()
            for freshness in ("auto", "fast"):
                view = _view_of(ws, settings, freshness)
                assert view["dirty"] is None and view["catching_up"] is True, view  # never false
            # an edit the watcher reports is published while the catch-up is still held
            b = root / "app" / "b.py"
            b.write_text(b.read_text() + "\n\ndef fb2(x):\n    return fb(x)\n")
            edited = sha256_bytes(b.read_bytes())
            _wait_for(lambda: _published_sha(ws, "app/b.py") == edited, "the watched edit published")
            assert ws.scheduler.wait_until(lambda: not ws.scheduler.busy, WAIT_S)
            report = ws.last_report
            assert report is not None and report.scoped and report.modified == 1
            assert not gate.is_set() and ws.catching_up()
            # what changed while down is not published yet, and no answer says the view is clean
            assert _published_sha(ws, "app/a.py") != down_sha
            assert _published_sha(ws, "app/c.py") is not None
            view = _view_of(ws, settings, "auto")
            assert view["dirty"] is None and view["catching_up"] is True, view
            gate.set()
            assert ws.wait_background(WAIT_S)
            assert not ws.catching_up()
            assert _published_sha(ws, "app/a.py") == down_sha
            assert _published_sha(ws, "app/c.py") is None
            last = ws.last_report
            assert last is not None and last.scoped, "the catch-up's findings were synced scoped"
            # compared with the view it opened before the gate (generation 1): b.py differs there too
            assert ws.last_catch_up is not None
            assert (ws.last_catch_up["generation"], ws.last_catch_up["changed"]) == (1, 3)
            view = _view_of(ws, settings, "auto")
            assert view["dirty"] is False and "catching_up" not in view, view
        finally:
            ws.close()
    clean = StateDir(tmp_path / "clean")
    run_sync(root, clean, max_file_bytes=settings.max_file_bytes)
    assert _dump(StateDir(state_dir)) == _dump(clean)  # incremental == clean


def test_a_caller_waiting_for_a_current_view_during_the_catch_up_gets_a_listed_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, settings, state_dir = _served_after_changes_while_down(tmp_path)
    down_sha = sha256_bytes((root / "app" / "a.py").read_bytes())
    with _gated_catch_up(monkeypatch) as (entered, _gate):
        ws = Workspace.open(root, settings=settings, state_dir=state_dir)
        try:
            ws.start_serving()
            assert ws.watcher is not None and ws.watcher.wait_ready(WAIT_S)
            assert entered.wait(WAIT_S) and ws.catching_up()
            report = ws.sync(timeout_s=WAIT_S)  # what a strict read does
            assert not report.scoped and report.modified == 1 and report.removed == 1
            assert _published_sha(ws, "app/a.py") == down_sha
            assert not ws.catching_up(), "a listed scope after the watches were in place reconciles"
        finally:
            ws.close()


def test_a_file_created_while_down_makes_the_catch_up_list_the_scope(tmp_path: Path) -> None:
    root, settings, state_dir = _served_after_changes_while_down(tmp_path)
    (root / "app" / "d.py").write_text("def fd():\n    return 4\n")
    ws = Workspace.open(root, settings=settings, state_dir=state_dir)
    try:
        ws.start_serving()
        assert ws.wait_background(WAIT_S) and not ws.catching_up()
        report = ws.last_report
        assert report is not None and not report.scoped and report.added == 1 and report.removed == 1
        assert ws.last_catch_up is not None and "d.py is new" in str(ws.last_catch_up["needs_listing"])
        assert _view_of(ws, settings, "auto")["dirty"] is False
    finally:
        ws.close()
    clean = StateDir(tmp_path / "clean")
    run_sync(root, clean, max_file_bytes=settings.max_file_bytes)
    assert _dump(StateDir(state_dir)) == _dump(clean)


def test_the_comparison_decides_as_capture_does(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, FILES)
    state = StateDir(tmp_path / "state")
    run_sync(root, state, max_file_bytes=MAX_BYTES)

    def compare() -> reconcile.Unwatched:
        catalog = state.read_catalog()
        assert catalog is not None
        conn = connect(str(state.path / catalog["store"]), readonly=True)
        try:
            return changed_while_unwatched(conn, 1, root, MAX_BYTES)
        finally:
            conn.close()

    # fresh files are racy (mtime within the clock's granularity of their capture): hashed, not named
    assert compare().paths == () and not compare().needs_listing
    (root / "app" / "b.py").write_text(FILES["app/b.py"].replace("2", "3"))  # same size, racy
    assert compare().paths == ("app/b.py",)
    _later(root / "app" / "a.py")  # only the mtime moved: capture re-hashes, so it is named
    (root / "app" / "c.py").unlink()
    assert compare().paths == ("app/a.py", "app/b.py", "app/c.py")
    (root / "app" / "new.py").write_text("x = 1\n")
    found = compare()
    assert found.needs_listing and "new.py" in found.reason
    (root / "app" / "new.py").unlink()
    (root / ".lazy-intel-ignore").write_text("app/c.py\n")
    found = compare()
    assert found.needs_listing and "policy" in found.reason


def test_callers_asking_at_once_share_one_full_check_of_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A starting serve's first answer, its catch-up and its first sync all ask for the verdict."""
    from lazy_intel.service import workspace as workspace_module

    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, FILES)
    state = StateDir(tmp_path / "state")
    run_sync(root, state, max_file_bytes=MAX_BYTES)
    catalog = state.read_catalog()
    assert catalog is not None
    store = state.path / catalog["store"]
    real = workspace_module.check_store
    calls: list[Path] = []
    inside, release = threading.Event(), threading.Event()

    def slow_check(path: Path, **kwargs: object) -> list[object]:
        calls.append(path)
        inside.set()
        assert release.wait(WAIT_S)
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(workspace_module, "check_store", slow_check)
    verdicts: list[str] = []
    callers = [
        threading.Thread(target=lambda: verdicts.append(workspace_module._first_problem(store)))
        for _ in range(3)
    ]
    for caller in callers:
        caller.start()
    assert inside.wait(WAIT_S)
    release.set()
    for caller in callers:
        caller.join(WAIT_S)
    assert verdicts == ["", "", ""] and calls == [store]


def test_the_comparison_pauses_between_steps_and_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lazy_intel.workspace import scope

    root, _settings, state_dir = _served_after_changes_while_down(tmp_path)
    state = StateDir(state_dir)
    catalog = state.read_catalog()
    assert catalog is not None
    conn = connect(str(state.path / catalog["store"]), readonly=True)
    try:
        plain = changed_while_unwatched(conn, 1, root, MAX_BYTES)
        monkeypatch.setattr(reconcile, "PAUSE_EVERY_FILES", 1)
        monkeypatch.setattr(scope, "PAUSE_EVERY_DIRS", 1)
        calls: list[int] = []
        paused = changed_while_unwatched(conn, 1, root, MAX_BYTES, pause=lambda: calls.append(1))
    finally:
        conn.close()
    assert paused == plain and plain.paths == ("app/a.py", "app/c.py")
    # one call per directory walked (the root, app) and per file compared
    assert len(calls) == 2 + plain.files


def test_the_catch_up_pause_waits_while_syncs_run_within_a_budget() -> None:
    from lazy_intel.service.workspace import CatchUpPause

    waits: list[float] = []
    clock = {"now": 0.0}

    def wait_idle(timeout_s: float) -> bool:
        waits.append(timeout_s)
        clock["now"] += min(timeout_s, 4.0)  # a sync that keeps the interpreter 4 s each time
        return timeout_s >= 4.0

    monkey_time = pytest.MonkeyPatch()
    monkey_time.setattr("lazy_intel.service.workspace.time.monotonic", lambda: clock["now"])
    try:
        pause = CatchUpPause(wait_idle, budget_s=10.0)
        for _ in range(5):
            pause()
    finally:
        monkey_time.undo()
    assert waits == [10.0, 6.0, 2.0]  # then the budget is spent: the comparison goes on
    assert pause.spent_s == 10.0

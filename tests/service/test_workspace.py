"""Memory a long-running process gets back after a sync.

- A full rebuild hands the freed bulk page cache back to the system: run in a fresh interpreter
  (malloc state is process-wide) with serve's malloc bounds, one more ``malloc_trim(0)`` after the
  rebuild must find next to nothing left to return.
- An edit's sync leaves none of its graph working set behind (it is built in reference cycles).
"""

from __future__ import annotations

import functools
import gc
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lazy_intel.allocator import arena_usage
from lazy_intel.service import warm_up, workspace
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.faults import WAIT_S

REBUILD = """
import json, sys
from pathlib import Path
from lazy_intel.allocator import bound_malloc, bounds_from_settings, release_free_memory
from lazy_intel.service.registry import WorkspaceRegistry
from lazy_intel.settings import load_settings

def anon_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon"))

settings = load_settings({"LAZY_INTEL_PARSE_WORKERS": "1"})
bound_malloc(bounds_from_settings(settings))
root = Path(sys.argv[1])
for n in range(50):
    body = "".join(
        f"def handler_{n}_{k}(request, value_{k}):\\n    return request.get('f{k}', value_{k}) + {k}\\n\\n\\n"
        for k in range(60)
    )
    path = root / f"pkg{n % 8}" / f"mod_{n}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
registry = WorkspaceRegistry(settings, str(root), serving=False)
try:
    report = registry.resolve(None).sync(rebuild=True, timeout_s=120)
    assert report.full_rebuild
    before = anon_kb()
    release_free_memory()
    print(json.dumps({"left_kb": before - anon_kb()}))
finally:
    registry.close_all()
"""


@pytest.mark.skipif(arena_usage() is None, reason="the C library is not glibc")
def test_a_full_rebuild_leaves_no_free_page_cache_resident(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", REBUILD, str(tmp_path / "repo")],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    left_kb = json.loads(done.stdout.strip().splitlines()[-1])["left_kb"]
    assert left_kb < 2048  # it was about 8 MB before the rebuild released it


GRAPH_WORKING_SET = ("FactStore", "FileModel", "Flow", "Program")


def _graph_objects() -> list[object]:
    """The objects of the graph's working-set classes alive (reachable or uncollected) now."""
    found = []
    for obj in gc.get_objects():
        kind = type(obj)
        module = kind.__dict__.get("__module__")
        if (
            isinstance(module, str)
            and module.startswith("lazy_intel.graph.")
            and kind.__name__ in GRAPH_WORKING_SET
        ):
            found.append(obj)
    return found


def test_an_edit_sync_leaves_none_of_its_graph_working_set_behind(make_repo) -> None:
    """The graph update of an edit builds its fact store, file models and flows in reference cycles;
    once the sync is over (its clean-up included) none of them may be left, collected or not."""
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": "class Base:\n    @property\n    def size(self):\n        return 1\n",
        "pkg/use.py": "from pkg.base import Base\n\n\ndef use(b: Base):\n    return b.size + helper()\n\n\n"
        "def helper():\n    return [x for x in range(3)]\n",
    }
    root = make_repo(files)
    ws = Workspace.open(root, settings=load_settings(env={}))
    try:
        ws.sync()
        # held, so their ids stay theirs: what other tests left alive is not this sync's
        before = _graph_objects()
        (root / "pkg/base.py").write_text(files["pkg/base.py"] + "\n\ndef added():\n    return Base()\n")
        report = ws.sync()
        assert report.modified == 1 and report.graph is not None and report.graph.nodes > 0
        assert ws.wait_background(WAIT_S)
        known = {id(obj) for obj in before}
        left = sorted(type(obj).__name__ for obj in _graph_objects() if id(obj) not in known)
        assert left == []
    finally:
        ws.close()


def test_prepare_for_edits_loads_the_parser_of_each_language_given(monkeypatch: pytest.MonkeyPatch) -> None:
    from lazy_intel.parse import extract

    loaded: list[str] = []
    real = extract._parser.__wrapped__

    def counted(lang: str) -> object:
        loaded.append(lang)
        return real(lang)

    monkeypatch.setattr(extract, "_parser", functools.cache(counted))
    assert warm_up.prepare_for_edits(["python", "go", "markdown", "python"], 1 << 20) == []
    assert sorted(loaded) == ["go", "python"], "parsed languages only, each once; text needs no parser"


def test_a_watching_workspace_prepares_for_edits_once_after_its_first_sync(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []

    def recorded(languages: list[str], _max: int, **_kw: object) -> list[str]:
        calls.append(sorted(languages))
        return []

    monkeypatch.setattr(warm_up, "prepare_for_edits", recorded)
    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def a():\n    return 1\n", "README.md": "# r\n"})
    plain = Workspace.open(root, settings=load_settings(env={}))
    try:
        plain.sync()
        assert plain.wait_background(WAIT_S)
        assert calls == [], "a workspace that does not watch (the CLI) loads nothing more"
    finally:
        plain.close()
    ws = Workspace.open(root, settings=load_settings(env={}, debounce_ms=50))
    try:
        ws.start_serving()
        assert ws.watcher is not None and ws.watcher.wait_ready(30)
        assert ws.scheduler.wait_until(lambda: bool(calls) and not ws.scheduler.busy, WAIT_S)
        (root / "pkg/a.py").write_text("def a():\n    return 2\n")
        ws.sync()
        assert ws.wait_background(WAIT_S)
        assert calls == [["markdown", "python"]], "once, with the languages of the view"
    finally:
        ws.close()


def test_a_watching_workspaces_first_edit_starts_from_a_primed_listing(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a full build the first edit's graph update read every parsed file's row (at 100k files,
    ~48k rows and the path index); a watching workspace now reads the listing once it has a view,
    before any edit, so that update starts from it (and it equals a fresh read)."""
    from lazy_intel.graph import build as build_module
    from lazy_intel.graph import listing

    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def a():\n    return 1\n", "pkg/b.py": "B = 1\n"})
    plain = Workspace.open(root, settings=load_settings(env={}))
    try:
        plain.sync(rebuild=True)
    finally:
        plain.close()
    listing.forget_listings()
    reads: list[bool] = []
    real = build_module.read_listing

    def checked(conn, changed):  # type: ignore[no-untyped-def]
        token = dict(conn.execute("SELECT key, value FROM meta")).get(listing.LISTING_KEY)
        reads.append(changed is not None and token in listing._kept)
        found = real(conn, changed)
        assert found[0] == real(conn, None)[0]
        return found

    monkeypatch.setattr(build_module, "read_listing", checked)
    ws = Workspace.open(root, settings=load_settings(env={}, debounce_ms=50))
    try:
        ws.start_serving()
        assert ws.watcher is not None and ws.watcher.wait_ready(30)
        assert ws.scheduler.wait_until(lambda: ws._prepared_for_edits and not ws.scheduler.busy, WAIT_S)
        (root / "pkg/a.py").write_text("def a():\n    return 2\n")
        ws.sync()
        assert ws.wait_background(WAIT_S)
        assert reads and all(reads), "every update of the serving process started from a kept listing"
    finally:
        ws.close()


def test_a_watching_workspace_freezes_its_warm_heap_once(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit's after-sync collection walked the server's whole life-long heap (~60 ms of CPU on
    Django); once warm it is frozen, so the collections after an edit see only what came since."""
    frozen: list[bool] = []
    release = workspace.release_sync_garbage

    def recording(*, freeze: bool = False) -> None:
        frozen.append(freeze)
        release(freeze=False)

    monkeypatch.setattr(workspace, "release_sync_garbage", recording)
    root = make_repo({"pkg/__init__.py": "", "pkg/a.py": "def a():\n    return 1\n"})
    plain = Workspace.open(root, settings=load_settings(env={}))
    try:
        plain.sync()
        assert plain.wait_background(WAIT_S)
        assert True not in frozen, "the CLI freezes nothing"
    finally:
        plain.close()
    ws = Workspace.open(root, settings=load_settings(env={}, debounce_ms=50))
    try:
        ws.start_serving()
        assert ws.watcher is not None and ws.watcher.wait_ready(30)
        assert ws.scheduler.wait_until(lambda: True in frozen and not ws.scheduler.busy, WAIT_S)
        for value in (2, 3):
            (root / "pkg/a.py").write_text(f"def a():\n    return {value}\n")
            ws.sync()
            assert ws.wait_background(WAIT_S)
        assert frozen.count(True) == 1 and len(frozen) >= 3, "once, when warm"
        with ws.read() as view:
            assert view.generation >= 3
    finally:
        ws.close()


def test_waiting_for_background_work_includes_the_catch_up_a_starting_watcher_owes(
    make_repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watcher requests its catch-up sync from its own thread once its watches are in place, later
    than ``start_serving`` returns: a wait in between must not report the workspace idle."""
    from lazy_intel.service.indexing.watcher import SourceWatcher

    started: list[SourceWatcher] = []

    def never_ready(self: SourceWatcher) -> None:  # the watches are never in place
        started.append(self)

    monkeypatch.setattr(SourceWatcher, "start", never_ready)
    ws = Workspace.open(make_repo({"pkg/a.py": "def a():\n    return 1\n"}), settings=load_settings(env={}))
    try:
        ws.start_serving()
        assert started and not ws.scheduler.busy
        assert not ws.wait_background(0.2), "the catch-up is still owed"
        ws._catch_up()  # what the watcher's on_ready does
        assert ws.wait_background(WAIT_S) and ws.has_view()
    finally:
        ws.close()
    assert ws.wait_background(WAIT_S), "a closed workspace owes nothing"


def test_the_warm_up_gives_way_to_a_wanted_sync_and_finishes_later() -> None:
    """At 100k files the warm-up costs ~3 s; done in one piece after the catch-up's sync, a watched
    edit written meanwhile waited for all of it. The reads run on a thread of their own; the parsers
    load one language at a time and stop while a sync is wanted; freezing comes once, at the end."""
    from contextlib import contextmanager

    prepared: list[str] = []
    release_reads = threading.Event()
    read_on: list[str] = []

    class View:
        def languages(self) -> list[str]:
            return ["python", "go", "markdown"]

    @contextmanager
    def read():  # type: ignore[no-untyped-def]
        yield View()

    def prime(_view: object) -> None:
        read_on.append(threading.current_thread().name)
        assert release_reads.wait(WAIT_S)

    parsed_all = threading.Event()

    def prepare(languages: list[str], _max: int, *, stop) -> list[str]:  # type: ignore[no-untyped-def]
        left = list(languages)
        while left and not stop():
            prepared.append(left.pop(0))
        if not left:
            parsed_all.set()
        return left

    wanted = {"now": False}
    steps = warm_up.EditWarmUp(read, 1 << 20, prepare=prepare, prime=prime)
    wanted["now"] = True  # an edit's sync is waiting: nothing is parsed, the reads start anyway
    assert steps.step(lambda: wanted["now"]) is False and prepared == []
    wanted["now"] = False
    done = threading.Thread(target=lambda: results.append(steps.step(lambda: wanted["now"])))
    results: list[bool] = []
    done.start()
    # the parsers are loaded; the step waits for the reads, looking for a wanted sync meanwhile
    assert parsed_all.wait(WAIT_S)
    wanted["now"] = True
    done.join(WAIT_S)
    assert results == [False] and prepared == ["go", "markdown", "python"]
    wanted["now"] = False
    release_reads.set()
    assert steps.step(lambda: wanted["now"]) is True and steps.done
    assert steps.step(lambda: False) is False, "true once: the caller freezes once"
    assert read_on == ["lazy-intel-warm-up"], "the reads ran once, on their own thread"

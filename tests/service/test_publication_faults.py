"""kill -9 of a real indexing process at each pause point, then recovery to a store equal to a clean
rebuild; two processes indexing one root; a reader holding a view while another process publishes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.faults import Paused, clean_dump, parse_workers, run_cli, run_json, store_dump, wait_gone

# enough files that a full build parses in a pool of worker processes (64 files per worker)
MODULES = 140


def _files() -> dict[str, str]:
    files = {
        f"pkg/mod_{i:03d}.py": (
            f'"""Module {i}."""\n\n\nclass Thing{i}:\n    def run(self, x):\n        return x + {i}\n\n\n'
            f"def helper_{i}(value):\n    return Thing{i}().run(value)\n"
        )
        for i in range(MODULES)
    }
    files["README.md"] = "# Fault test\n"
    return files


def _edit(root: Path) -> None:
    (root / "pkg" / "mod_000.py").write_text("def replaced():\n    return 'new'\n")
    (root / "pkg" / "mod_001.py").unlink()
    (root / "pkg" / "added.py").write_text("def added():\n    return 1\n")


def _stores(state: Path) -> list[str]:
    """Store files in the state directory (a live store may have -wal and -shm files beside it)."""
    return sorted({p.name.removesuffix("-wal").removesuffix("-shm") for p in (state / "stores").iterdir()})


def _pending(state: Path) -> list[dict[str, object]]:
    path = state / "runtime" / "publication.journal"
    return json.loads(path.read_text())["pending"] if path.exists() else []


CASES = [
    # (pause point, full rebuild?, the decision recovery must take)
    ("parse", False, "abandoned"),
    ("commit", False, "abandoned"),
    ("parse", True, "abandoned"),
    ("commit", True, "abandoned"),
    ("switch", True, "rolled_forward"),
    ("retire", True, "rolled_forward"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("point", "rebuild", "decision"), CASES)
def test_kill_9_at_each_point_recovers_to_a_clean_store(
    make_repo, tmp_path: Path, point: str, rebuild: bool, decision: str
) -> None:
    root = make_repo(_files())
    state = root / ".lazy-intel"
    env = {"LAZY_INTEL_STORE_GRACE_MS": "0", "LAZY_INTEL_PARSE_WORKERS": "2"}
    assert run_cli("index", str(root), env=env).returncode == 0
    before = store_dump(state)
    _edit(root)
    args = ["index", str(root), *(["--rebuild"] if rebuild else [])]
    paused = Paused(point, *args, env=env)
    if rebuild and point == "parse":
        assert len(parse_workers(paused.proc)) >= 2, "a full build parses in worker processes"
    paused.kill9()
    # the kernel took the parse workers with their parent (PR_SET_PDEATHSIG)
    assert wait_gone(paused.descendants, 30) == []
    assert len(_pending(state)) == 1

    code, status = run_json("status", "--root", str(root), env=env)
    assert code == 0 and status["status"] == "partial"
    lexical = status["data"]["projections"]["lexical"]
    assert lexical["verdict"] == "needs_recovery", lexical
    assert lexical["interrupted"][0]["pid"] == paused.pid
    # the view served meanwhile is whole: the old one, or (killed after the switch) the new one
    served = store_dump(state)
    assert served == (clean_dump(root, tmp_path / "meanwhile") if point == "retire" else before)

    code, after = run_json("index", str(root), env=env)
    assert code == 0, after
    recovery = after["data"]["recovery"]
    assert recovery["decision"] == decision, recovery
    assert recovery["intent"]["pid"] == paused.pid
    assert after["data"]["projections"]["lexical"]["verdict"] == "ready"
    assert _pending(state) == []
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")
    live = json.loads((state / "catalog.json").read_text())["store"].split("/")[1]
    assert _stores(state) == [live], "orphan, abandoned and retired stores are gone"


@pytest.mark.slow
def test_a_rebuild_built_under_another_profile_is_abandoned(make_repo, tmp_path: Path) -> None:
    root = make_repo(_files())
    state = root / ".lazy-intel"
    env = {"LAZY_INTEL_STORE_GRACE_MS": "0"}
    assert run_cli("index", str(root), env=env).returncode == 0
    old_store = json.loads((state / "catalog.json").read_text())["store"]
    paused = Paused("switch", "index", str(root), "--rebuild", env=env)
    paused.kill9()
    (root / ".lazy-intel-ignore").write_text("pkg/mod_1*\n")  # the scope the rebuild captured is gone
    code, after = run_json("index", str(root), env=env)
    assert code == 0
    recovery = after["data"]["recovery"]
    assert recovery["decision"] == "abandoned" and "profile" in recovery["reason"]
    # the old view was kept, then brought up to date by an ordinary sync
    assert json.loads((state / "catalog.json").read_text())["store"] == old_store
    # mod_100..mod_139 left the scope; README.md and the ignore file itself are in it
    assert after["data"]["counts"]["files"] == MODULES - 40 + 2
    assert store_dump(state) == clean_dump(root, tmp_path / "clean")


@pytest.mark.slow
def test_two_processes_indexing_one_root(make_repo, tmp_path: Path) -> None:
    root = make_repo(_files())
    assert run_cli("index", str(root)).returncode == 0
    _edit(root)
    owner = Paused("parse", "index", str(root), "--rebuild")
    # a second writer is refused, naming the owner; its reads still work from the published view
    code, refused = run_json("index", str(root))
    assert code == 1 and refused["code"] == "WORKSPACE_OWNED"
    assert str(owner.pid) in refused["message"]
    code, read = run_json("symbol", "helper_7", "--root", str(root), "--freshness", "fast")
    assert code == 0 and read["status"] == "ok"
    # strict freshness waits (bounded) for the owner to publish the edits; an owner stuck mid-rebuild
    # never does, so the answer is the published view, partial, naming the owner and the files it lacks
    code, strict = run_json(
        "symbol", "helper_7", "--root", str(root), env={"LAZY_INTEL_OWNER_WAIT_MS": "500"}
    )
    assert code == 0 and strict["status"] == "partial", strict
    assert strict["view"]["dirty_paths"] == ["pkg/added.py", "pkg/mod_000.py", "pkg/mod_001.py"]
    assert any(str(owner.pid) in w for w in strict["warnings"])
    owner.kill9()
    code, after = run_json("index", str(root))
    assert code == 0 and after["data"]["recovery"]["decision"] == "abandoned"
    assert store_dump(root / ".lazy-intel") == clean_dump(root, tmp_path / "clean")


@pytest.mark.slow
def test_two_processes_racing_to_index_a_fresh_root(make_repo, tmp_path: Path) -> None:
    import subprocess

    from tests.faults import cli

    root = make_repo(_files())
    procs = [
        subprocess.Popen([cli(), "index", str(root), "--json"], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outcomes = []
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        outcomes.append((proc.returncode, json.loads(out), proc.pid))
    oks = [o for o in outcomes if o[0] == 0]
    assert oks, outcomes
    for code, answer, _pid in outcomes:
        if code != 0:
            assert answer["code"] == "WORKSPACE_OWNED"
            other = next(p for c, a, p in outcomes if a is not answer)
            assert str(other) in answer["message"]
    assert store_dump(root / ".lazy-intel") == clean_dump(root, tmp_path / "clean")


@pytest.mark.slow
@pytest.mark.parametrize("rebuild", [False, True])
def test_a_reader_keeps_its_view_while_another_process_publishes(make_repo, rebuild: bool) -> None:
    root = make_repo(_files())
    assert run_cli("index", str(root)).returncode == 0
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    target = root / "pkg" / "mod_005.py"
    with ws.read() as view:
        old_generation = view.generation
        (old,) = view.symbols_by_qualified("helper_5")
        old_file = view.file("pkg/mod_005.py")
        assert old_file is not None
        # another process publishes an edit (and, for a rebuild, deletes the store this view reads)
        target.write_text("def helper_5(value):\n    return 'edited'\n")
        args = ["index", str(root), *(["--rebuild"] if rebuild else [])]
        assert run_cli(*args, env={"LAZY_INTEL_STORE_GRACE_MS": "0"}).returncode == 0
        # this view still sees its generation, whole: rows and bytes agree with each other
        assert view.generation == old_generation
        (same,) = view.symbols_by_qualified("helper_5")
        assert same == old
        data = view.content(old_file.sha256)
        assert data is not None and hashlib.sha256(data).hexdigest() == old_file.sha256
        assert b"Thing5().run(value)" in data[old.start_byte : old.end_byte]
        assert len(view.files()) == MODULES + 1
    with ws.read() as fresh:
        assert fresh.generation > old_generation or rebuild
        (new,) = fresh.symbols_by_qualified("helper_5")
        new_file = fresh.file("pkg/mod_005.py")
        assert new_file is not None and new_file.sha256 == hashlib.sha256(target.read_bytes()).hexdigest()
        data = fresh.content(new_file.sha256)
        assert data is not None and b"'edited'" in data[new.start_byte : new.end_byte]
    if rebuild:
        assert not any(p.name.endswith(".retired") for p in (root / ".lazy-intel" / "stores").iterdir())
    assert os.environ.get("LAZY_INTEL_TEST_PAUSE_AT") is None

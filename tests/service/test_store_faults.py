"""A truncated or corrupted store is detected, never served from, and rebuilt."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from lazy_intel.service import workspace as workspace_module
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import connect
from tests.faults import clean_dump, run_json, store_dump

FILES = {
    f"pkg/m{i:02d}.py": f"def func_{i}(x):\n    '''Marker-{i:02d}-zq.'''\n    return x * {i}\n"
    for i in range(30)
}


def _anchors_hold(root: Path, answer: dict[str, Any]) -> None:
    assert answer["status"] == "ok" and answer["items"], answer
    for item in answer["items"]:
        anchor = item["anchor"]
        data = (root / anchor["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == anchor["sha256"]
        assert item["text"] == data[anchor["start_byte"] : anchor["end_byte"]].decode()


def _indexed(make_repo) -> tuple[Path, Workspace, Any]:
    root = make_repo(FILES)
    settings = load_settings(env={}, store_grace_ms=0)
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        return execute(args, lambda _r: ws, settings).to_dict()

    return root, ws, run


def test_a_truncated_store_is_never_served_and_is_rebuilt(make_repo) -> None:
    root, ws, run = _indexed(make_repo)
    store = ws.store_path()
    assert store is not None
    _anchors_hold(root, run(operation="symbol", symbol="func_3"))
    with open(store, "r+b") as fh:
        fh.truncate(store.stat().st_size // 2)
    refused = run(operation="symbol", symbol="func_3")
    assert refused["status"] == "error" and refused["code"] == "STORE_CORRUPT", refused
    assert "truncated" in refused["message"] and not refused["items"]
    status = run(operation="status", freshness="fast")
    assert status["status"] == "partial"
    assert status["data"]["projections"]["lexical"]["verdict"] in ("failing", "building")
    assert ws.wait_background(60)
    rebuilt = run(operation="symbol", symbol="func_3")
    _anchors_hold(root, rebuilt)
    assert ws.store_path() != store and not store.exists(), "the truncated store is deleted at once"
    assert run(operation="status")["data"]["projections"]["lexical"]["verdict"] == "ready"
    ws.close()


def test_a_blob_altered_behind_a_verified_store_is_refused(make_repo) -> None:
    root, ws, run = _indexed(make_repo)
    _anchors_hold(root, run(operation="symbol", symbol="func_4"))  # the store was checked and used
    store = ws.store_path()
    assert store is not None
    conn = connect(str(store))
    try:
        conn.execute(
            "UPDATE contents SET data = CAST(replace(CAST(data AS TEXT), 'x * 4', 'x * 5') AS BLOB) "
            "WHERE sha256 = (SELECT sha256 FROM files WHERE path = 'pkg/m04.py')"
        )
    finally:
        conn.close()
    refused = run(operation="symbol", symbol="func_4")
    assert refused["code"] == "STORE_CORRUPT" and "does not hash" in refused["message"], refused
    assert ws.wait_background(60)
    _anchors_hold(root, run(operation="symbol", symbol="func_4"))
    ws.close()


def _flip_marker(store: Path, marker: bytes) -> int:
    """Alter every copy of ``marker`` inside the store file (its pages stay well-formed)."""
    data = store.read_bytes()
    count = data.count(marker)
    store.write_bytes(data.replace(marker, marker.upper()))
    return count


def test_corruption_found_by_a_new_process_then_repaired(make_repo) -> None:
    root = make_repo(FILES)
    state = root / ".lazy-intel"
    code, _ = run_json("index", str(root))
    assert code == 0
    store = next(p for p in (state / "stores").iterdir() if p.suffix == ".sqlite")
    assert _flip_marker(store, b"Marker-07-zq") >= 1
    # a fresh process checks the store before serving it: the altered bytes never reach an answer
    code, refused = run_json("symbol", "func_7", "--root", str(root), "--freshness", "fast")
    assert code == 1 and refused["code"] == "STORE_CORRUPT" and refused["items"] == [], refused
    code, status = run_json("status", "--root", str(root))
    assert status["data"]["projections"]["lexical"]["verdict"] == "failing"
    code, repaired = run_json("repair", "--root", str(root))
    assert code == 0, repaired
    assert repaired["data"]["problems"] and repaired["data"]["action"].startswith("rebuilt into")
    code, answer = run_json("symbol", "func_7", "--root", str(root), "--freshness", "fast")
    assert code == 0
    _anchors_hold(root, answer)


def test_damaged_pages_are_rebuilt_by_a_strict_read(make_repo) -> None:
    root = make_repo(FILES)
    code, _ = run_json("index", str(root))
    store = next(p for p in (root / ".lazy-intel" / "stores").iterdir() if p.suffix == ".sqlite")
    data = bytearray(store.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[3 * page : 5 * page] = b"\xa5" * (2 * page)
    store.write_bytes(bytes(data))
    # strict freshness syncs first; the sync refuses to write into a store failing its checks
    code, answer = run_json("symbol", "func_9", "--root", str(root))
    assert code == 0, answer
    _anchors_hold(root, answer)
    assert not store.exists()
    code, repaired = run_json("repair", "--root", str(root))
    assert repaired["data"]["problems"] == [] and repaired["data"]["action"] == "none needed"


def test_counts_that_disagree_are_repaired_into_a_store_equal_to_a_clean_rebuild(
    make_repo, tmp_path: Path
) -> None:
    root, ws, run = _indexed(make_repo)
    store = ws.store_path()
    assert store is not None
    conn = connect(str(store))
    try:  # the pages stay well-formed: only a check of the counts sees the disagreement
        conn.execute("DELETE FROM chunks_fts WHERE rowid = (SELECT min(id) FROM chunks)")
    finally:
        conn.close()
    # as in a fresh `lazy-intel repair` process: no store has been checked yet, so a read would
    # check this one (and schedule a rebuild of its own); repair must still report what it found
    workspace_module._checked.clear()
    repaired = run(operation="repair")
    assert repaired["status"] == "ok", repaired
    problems = repaired["data"]["problems"]
    assert any("chunks but" in p["detail"] for p in problems), problems
    assert repaired["data"]["action"].startswith("rebuilt into")
    assert ws.store_path() != store
    _anchors_hold(root, run(operation="symbol", symbol="func_0"))
    ws.close()
    assert store_dump(root / ".lazy-intel") == clean_dump(root, tmp_path / "clean")
    again = Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=0))
    try:
        second = execute({"operation": "repair"}, lambda _r: again, again.settings).to_dict()
        assert second["data"]["problems"] == [] and second["data"]["action"] == "none needed"
    finally:
        again.close()

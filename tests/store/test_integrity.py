"""Integrity checks on real stores damaged in the ways they get damaged."""

from __future__ import annotations

from pathlib import Path

import pytest

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.integrity import check_store, header_problem
from lazy_intel.store.schema import connect

FILES = {f"pkg/m{i}.py": f"def func_{i}(x):\n    return x * {i}  # unique-{i:04d}\n" for i in range(40)}


@pytest.fixture
def store(make_repo) -> Path:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=0))
    ws.sync()
    path = ws.store_path()
    ws.close()
    assert path is not None
    return path


def _checks(path: Path) -> set[tuple[str, str]]:
    return {(p.projection, p.check) for p in check_store(path)}


def test_a_whole_store_passes(store: Path) -> None:
    assert header_problem(store) is None
    assert check_store(store) == []
    conn = connect(str(store))
    try:
        assert check_store(store, thorough=True, conn=conn) == []
    finally:
        conn.close()


def test_a_truncated_store_is_caught_by_its_header(store: Path) -> None:
    size = store.stat().st_size
    with open(store, "r+b") as fh:
        fh.truncate(size // 2)
    problem = header_problem(store)
    assert problem is not None and "truncated" in problem
    assert _checks(store) == {("store", "header")}


def test_garbage_instead_of_a_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    path.write_bytes(b"not a database at all" * 300)
    assert "not a SQLite database" in (header_problem(path) or "")


def test_counts_that_disagree(store: Path) -> None:
    conn = connect(str(store))
    try:
        conn.execute("DELETE FROM chunks_fts WHERE rowid = (SELECT min(id) FROM chunks)")
        conn.execute("DELETE FROM files WHERE path = 'pkg/m3.py'")  # its symbols and chunks stay behind
    finally:
        conn.close()
    details = [p.detail for p in check_store(store)]
    assert any("chunks but" in d for d in details), details
    assert any("belong to no file" in d for d in details), details


def test_missing_and_altered_content_blobs(store: Path) -> None:
    conn = connect(str(store))
    try:
        conn.execute(
            "DELETE FROM contents WHERE sha256 = (SELECT sha256 FROM files WHERE path = 'pkg/m1.py')"
        )
        conn.execute(
            "UPDATE contents SET data = CAST('tampered' AS BLOB) "
            "WHERE sha256 = (SELECT sha256 FROM files WHERE path = 'pkg/m2.py')"
        )
    finally:
        conn.close()
    details = [p.detail for p in check_store(store)]
    assert any("pkg/m1.py is missing" in d for d in details), details
    assert any("does not hash to its key" in d for d in details), details


def test_a_damaged_page_fails_the_sqlite_check(store: Path) -> None:
    data = bytearray(store.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    # overwrite the b-tree pages after the first two with garbage (the header stays valid)
    for offset in range(2 * page, min(len(data), 6 * page)):
        data[offset] = 0xA5
    store.write_bytes(bytes(data))
    problems = check_store(store)
    assert problems and problems[0].projection == "store", problems

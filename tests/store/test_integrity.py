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


def _torn_checkpoint(tmp_path: Path) -> Path:
    """A store as a writer killed in the middle of a checkpoint leaves it: the write-ahead log holds
    every committed frame, and the main file has the new page 1 (its header counting the grown file)
    but not yet the pages that extend it."""
    import shutil
    import sqlite3

    work = tmp_path / "work"
    work.mkdir()
    db = work / "s.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(400)])
    conn.commit()  # frames in the log, nothing checkpointed: the main file is still small
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    torn = crashed / "s.sqlite"
    shutil.copyfile(db, torn)
    shutil.copyfile(f"{db}-wal", f"{torn}-wal")
    conn.execute("PRAGMA wal_checkpoint(FULL)")  # the whole file, to take its page 1 from
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(torn, "r+b") as fh:
        fh.write(db.read_bytes()[:page_size])  # page 1 first, as a checkpoint writes it
    return torn


def test_a_checkpoint_cut_short_by_a_crash_is_not_a_truncated_store(tmp_path: Path) -> None:
    """The size check cannot judge a file whose write-ahead log still holds frames: a checkpoint
    killed after page 1 leaves the header counting pages only the log has; SQLite replays the log on
    the next writable open. (A build killed at an arbitrary moment was abandoned, not resumed, when
    the kill fell inside a checkpoint.)"""
    import sqlite3

    torn = _torn_checkpoint(tmp_path)
    pages = int.from_bytes(torn.read_bytes()[28:32], "big")
    assert torn.stat().st_size < pages * 4096 or torn.stat().st_size < pages * 1024  # really torn
    assert header_problem(torn) is None
    conn = sqlite3.connect(torn)  # writable: SQLite recovers the log
    try:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 400
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    assert header_problem(torn) is None  # whole again once the log is replayed
    with open(torn, "r+b") as fh:  # and a file really cut short is still caught
        fh.truncate(torn.stat().st_size // 2)
    assert "truncated" in (header_problem(torn) or "")

"""A clean verdict follows the writer's own syncs, so a new process on a store another process wrote
does not re-check it (issue 15: ~45 s at 100k); any byte another hand changed is still checked."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service import workspace as workspace_module
from lazy_intel.service.indexing import check_memo
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.faults import run_json

FILES = {f"pkg/m{i:02d}.py": f"def func_{i}(x):\n    return x * {i}\n" for i in range(12)}


def _counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = workspace_module.check_store

    def counted(path: Path, **kwargs: Any):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path, **kwargs)

    monkeypatch.setattr(workspace_module, "check_store", counted)
    return calls


def _new_process() -> None:
    """What a fresh process starts with: no store checked by it yet."""
    workspace_module._checked.clear()


def _open(root: Path) -> Workspace:
    return Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=0))


def _generation(ws: Workspace) -> int:
    with ws.read() as view:
        return int(view.generation)


def _edit_and_sync(root: Path, ws: Workspace, n: int) -> None:
    (root / "pkg" / "m00.py").write_text(f"def func_0(x):\n    return x + {n}\n")
    ws.sync()


def _memo(root: Path) -> Path:
    return root / ".lazy-intel" / "runtime" / check_memo.MEMO_FILE


def test_a_sync_carries_the_clean_verdict_to_the_next_process(make_repo, monkeypatch) -> None:
    root = make_repo(FILES)
    calls = _counting_checks(monkeypatch)
    ws = _open(root)
    ws.sync()
    store = ws.store_path()
    assert store is not None
    _generation(ws)  # the first read checks the new store
    assert calls == [store]
    for n in range(3):
        _edit_and_sync(root, ws, n)
    ws.close()
    entry = check_memo._read(_memo(root))[store.name]
    assert entry["carried"] == 3 and entry["identity"] == check_memo.identity(store)
    _new_process()
    again = _open(root)
    try:
        assert _generation(again) >= 4
        _edit_and_sync(root, again, 9)  # its sync starts from the carried verdict and carries it on
    finally:
        again.close()
    assert calls == [store], "the next process took the carried verdict"
    assert check_memo._read(_memo(root))[store.name]["carried"] == 4


def test_a_foreign_write_between_syncs_breaks_the_chain(make_repo, monkeypatch) -> None:
    root = make_repo(FILES)
    ws = _open(root)
    ws.sync()
    _generation(ws)
    store = ws.store_path()
    assert store is not None
    conn = sqlite3.connect(store)  # a well-formed transaction by another hand: only the counts see it
    conn.execute(  # a file the next sync leaves alone
        "DELETE FROM chunks_fts WHERE rowid = "
        "(SELECT min(c.id) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'pkg/m11.py')"
    )
    conn.commit()
    conn.close()
    _edit_and_sync(root, ws, 1)  # this process trusts its first check; it must not vouch for the file
    ws.close()
    assert check_memo.recall(_memo(root), store) is None
    _new_process()
    calls = _counting_checks(monkeypatch)
    again = _open(root)
    try:
        with pytest.raises(workspace_module.StoreCorrupt, match="chunks but"):
            _generation(again)
    finally:
        again.close()
    assert calls == [store]


def _damage_pages(store: Path) -> None:
    data = bytearray(store.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[3 * page : 5 * page] = b"\xa5" * (2 * page)
    with open(store, "r+b") as fh:  # in place: the same inode, as a disk fault or a stray write
        fh.write(bytes(data))


def test_pages_damaged_after_a_carried_verdict_are_caught(make_repo) -> None:
    root = make_repo(FILES)
    assert run_json("index", str(root))[0] == 0
    (root / "pkg" / "m01.py").write_text("def func_1(x):\n    return x - 1\n")
    assert run_json("index", str(root))[0] == 0  # an incremental sync: the verdict is carried
    store = next(p for p in (root / ".lazy-intel" / "stores").iterdir() if p.suffix == ".sqlite")
    assert check_memo._read(_memo(root))[store.name]["carried"] >= 1
    assert check_memo.recall(_memo(root), store) == ""
    stamp = store.stat()
    _damage_pages(store)
    os.utime(store, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # even with its old mtime back
    code, refused = run_json("symbol", "func_1", "--root", str(root), "--freshness", "fast")
    assert code == 1 and refused["code"] == "STORE_CORRUPT" and refused["items"] == [], refused


def test_a_memo_from_another_file_is_not_trusted(make_repo, tmp_path: Path) -> None:
    root = make_repo(FILES)
    assert run_json("index", str(root))[0] == 0
    state = root / ".lazy-intel"
    store = next(p for p in (state / "stores").iterdir() if p.suffix == ".sqlite")
    assert check_memo.recall(_memo(root), store) == ""
    # the state copied elsewhere (timestamps kept), the copy's store damaged, its old mtime restored:
    # the memo came along but names another file (inode, ctime)
    copied_root = tmp_path / "copied"
    shutil.copytree(root, copied_root, copy_function=shutil.copy2)
    copy = copied_root / ".lazy-intel" / "stores" / store.name
    stamp = copy.stat()
    _damage_pages(copy)
    os.utime(copy, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert check_memo.recall(_memo(copied_root), copy) is None
    code, refused = run_json("symbol", "func_2", "--root", str(copied_root), "--freshness", "fast")
    assert code == 1 and refused["code"] == "STORE_CORRUPT", refused
    # the original is untouched and still served on its verdict
    code, answer = run_json("symbol", "func_2", "--root", str(root), "--freshness", "fast")
    assert code == 0 and answer["items"], answer


def test_a_log_with_frames_is_part_of_the_identity(make_repo) -> None:
    root = make_repo(FILES)
    assert run_json("index", str(root))[0] == 0
    store = next(p for p in (root / ".lazy-intel" / "stores").iterdir() if p.suffix == ".sqlite")
    before = check_memo.identity(store)
    writer = sqlite3.connect(store)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO meta(key, value) VALUES ('in_the_log', '1')")
    writer.commit()  # committed to the log only, while this connection stays open
    try:
        assert check_memo.identity(store) != before
        assert check_memo.recall(_memo(root), store) is None
        assert not check_memo.carry(_memo(root), store, check_memo.identity(store) or [])
    finally:
        writer.close()


def test_a_store_written_while_it_is_checked_gets_no_verdict(make_repo, monkeypatch) -> None:
    """A reader checks its snapshot; a publication meanwhile is bytes it did not check."""
    root = make_repo(FILES)
    ws = _open(root)
    ws.sync()
    store = ws.store_path()
    assert store is not None
    real = workspace_module.check_store

    def publishing_meanwhile(path: Path, **kwargs: Any):  # type: ignore[no-untyped-def]
        problems = real(path, **kwargs)
        conn = sqlite3.connect(path)
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('meanwhile', '1')")
        conn.commit()
        conn.close()
        return problems

    monkeypatch.setattr(workspace_module, "check_store", publishing_meanwhile)
    _new_process()
    try:
        _generation(ws)
    finally:
        ws.close()
    assert check_memo.recall(_memo(root), store) is None


def test_a_reader_opening_the_log_keeps_a_carried_verdict(make_repo) -> None:
    """SQLite running as root fchown()s the log whenever a connection opens it, which moves the log's
    ctime: a verdict carried over a sync that ran beside a reader (so the log kept its frames) was
    lost to the next read, and the next process re-checked the whole store (~20 s at 100k files)."""
    root = make_repo(FILES)
    ws = _open(root)
    try:
        ws.sync()
        store = ws.store_path()
        assert store is not None
        _generation(ws)
        reader = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM files").fetchone()  # holds a snapshot: the log keeps frames
        try:
            _edit_and_sync(root, ws, 1)
            log = store.with_name(store.name + "-wal")
            assert log.stat().st_size > 0
            assert check_memo.recall(_memo(root), store) == "", "carried over the sync"
            info = log.stat()
            os.chown(log, info.st_uid, info.st_gid)  # what SQLite does as root when it opens the log
            assert log.stat().st_ctime_ns != info.st_ctime_ns or os.geteuid() != 0
            assert check_memo.recall(_memo(root), store) == "", "the verdict survives a reader"
            log.write_bytes(log.read_bytes()[:-8] + b"\x00" * 8)  # its bytes changed: mtime moves
            assert check_memo.recall(_memo(root), store) is None
        finally:
            reader.rollback()
            reader.close()
    finally:
        ws.close()

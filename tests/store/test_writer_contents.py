"""Captured bytes (``contents``) follow the files: an incremental publication drops exactly the
hashes no file references any more, looked up by hash, never by scanning every file's bytes
(``store/writer.py`` ``_drop_unreferenced_contents``; issue 15: at 100k files that scan read the
whole tree's text on each edit)."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import connect
from tests.conftest import write_tree

SHARED = "def shared(x):\n    return x\n"


def _contents_and_files(store: Path) -> tuple[set[str], set[str]]:
    conn = connect(str(store), readonly=True)
    try:
        contents = {r[0] for r in conn.execute("SELECT sha256 FROM contents")}
        files = {r[0] for r in conn.execute("SELECT sha256 FROM files")}
        return contents, files
    finally:
        conn.close()


def _scans_contents(store: Path, statements: list[str]) -> list[str]:
    """The statements touching ``contents`` whose plan scans the table (no lookup by hash)."""
    conn = connect(str(store), readonly=True)
    try:
        scanning = []
        for sql in statements:
            if "contents" not in sql or not sql.lstrip().upper().startswith(("DELETE", "SELECT")):
                continue
            plan = " ".join(str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
            if "SCAN contents" in plan:
                scanning.append(sql)
        return scanning
    finally:
        conn.close()


def test_an_edit_drops_only_unreferenced_bytes_looked_up_by_hash(tmp_path: Path, traced: list[str]) -> None:
    root = tmp_path / "repo"
    write_tree(
        root,
        {
            "a/one.py": SHARED,
            "b/one.py": SHARED,  # the same bytes: one contents row for both
            "c/two.py": "def two():\n    return 2\n",
            "d/three.py": "def three():\n    return 3\n",
        },
    )
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=tmp_path / "state")
    try:
        ws.sync(rebuild=True)
        store = ws.store_path()
        assert store is not None
        contents, files = _contents_and_files(store)
        assert contents == files and len(contents) == 3

        traced.clear()
        (root / "a" / "one.py").write_text(
            SHARED + "\n\ndef more():\n    return 1\n"
        )  # b/one.py keeps SHARED
        (root / "c" / "two.py").write_text(
            "def two():\n    return 22\n"
        )  # its old bytes lose their last file
        (root / "d" / "three.py").unlink()
        report = ws.sync()
        assert report.modified == 2 and report.removed == 1
        contents, files = _contents_and_files(store)
        assert contents == files and len(contents) == 3  # SHARED kept, the old two.py and three.py gone
        assert any("contents" in sql and sql.startswith("DELETE") for sql in traced)
        assert _scans_contents(store, traced) == []
    finally:
        ws.close()


def test_a_full_rebuild_still_keeps_only_referenced_bytes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, {"x.py": "X = 1\n", "y.py": "Y = 2\n"})
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=tmp_path / "state")
    try:
        ws.sync(rebuild=True)
        (root / "y.py").write_text("Y = 3\n")
        ws.sync(rebuild=True)
        store = ws.store_path()
        assert store is not None
        contents, files = _contents_and_files(store)
        assert contents == files and len(contents) == 2
    finally:
        ws.close()

"""A store filled from empty builds its indexes after the rows: it ends with every index the schema
declares, used by the queries that need them, and an incremental sync keeps them up to date."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import connect, create_schema
from tests.conftest import write_tree


def _indexes(conn: sqlite3.Connection) -> set[tuple[str, str, str]]:
    return set(
        conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")
    )


def test_a_full_build_ends_with_every_declared_index_and_syncs_keep_them(tmp_path: Path) -> None:
    fresh = sqlite3.connect(":memory:")
    create_schema(fresh)
    declared = _indexes(fresh)
    assert {name for name, _, _ in declared} >= {"refs_file", "refs_name", "symbols_name", "flows_file"}
    root = tmp_path / "repo"
    root.mkdir()
    files = {
        f"pkg/m{i}.py": f"def f{i}(x):\n    return g{i}(x)\n\n\ndef g{i}(y):\n    return y\n"
        for i in range(5)
    }
    write_tree(root, files)
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=tmp_path / "state")
    try:
        ws.sync(rebuild=True)
        (root / "pkg" / "m1.py").write_text("def f1(x):\n    return renamed(x)\n")
        ws.sync()
        store = ws.store_path()
    finally:
        ws.close()
    assert store is not None
    conn = connect(str(store), readonly=True)
    try:
        assert _indexes(conn) == declared
        plan = " ".join(
            str(r) for r in conn.execute("EXPLAIN QUERY PLAN SELECT * FROM refs WHERE name='renamed'")
        )
        assert "refs_name" in plan
        assert conn.execute("SELECT count(*) FROM refs WHERE name='renamed'").fetchone() == (1,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()

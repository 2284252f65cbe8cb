"""A store written by the previous schema (3: no ``stems`` column) is rebuilt on first use, and
served until the rebuilt store is published: nothing published is lost before the new one is ready."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service.indexing import sync as sync_module
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import FTS_COLUMNS_BY_VERSION, NAMED_DEFINITION_WHERE, SCHEMA_VERSION, connect
from tests.faults import WAIT_S

FILES = {
    "pkg/__init__.py": "",
    "pkg/model.py": "class Estimator:\n    def fit(self, samples):\n        self.coef = sum(samples)\n",
    "pkg/report.py": "def render(rows):\n    return '\\n'.join(rows)\n",
    **{f"pkg/part{i}.py": f"def step_{i}(state):\n    return state.advance({i})\n" for i in range(6)},
}
QUERY = "Estimator crashes when it was fitted twice"


def downgrade_to_schema_3(store: Path) -> None:
    """Make ``store`` what the previous version wrote: chunks_fts without ``stems``, schema 3."""
    columns = ", ".join(FTS_COLUMNS_BY_VERSION[3])
    conn = connect(str(store))
    try:
        conn.executescript(
            f"""
            BEGIN;
            CREATE VIRTUAL TABLE chunks_fts_old USING fts5({columns},
                tokenize = "unicode61 remove_diacritics 2 tokenchars '_'");
            INSERT INTO chunks_fts_old(rowid, {columns}) SELECT rowid, {columns} FROM chunks_fts;
            DROP TABLE chunks_fts;
            ALTER TABLE chunks_fts_old RENAME TO chunks_fts;
            UPDATE meta SET value = '3' WHERE key = 'schema_version';
            COMMIT;
            """
        )
    finally:
        conn.close()


def _columns(store: Path) -> list[str]:
    conn = connect(str(store), readonly=True)
    try:
        return [r[1] for r in conn.execute("PRAGMA table_info(chunks_fts)")]
    finally:
        conn.close()


def _run(ws: Workspace, **args: Any) -> dict[str, Any]:
    return execute(args, lambda _r: ws, ws.settings).to_dict()


@pytest.fixture
def old_store(make_repo) -> tuple[Workspace, Path]:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    ws.sync()
    store = ws.state.published_store()
    assert store is not None
    downgrade_to_schema_3(store)
    assert _columns(store) == list(FTS_COLUMNS_BY_VERSION[3])
    yield ws, store
    ws.close()


def test_the_old_store_answers_while_the_rebuild_runs_then_the_new_one_does(
    old_store: tuple[Workspace, Path], monkeypatch
) -> None:
    ws, old = old_store
    gate = threading.Event()
    real = sync_module.run_sync

    def held(*args: Any, **kwargs: Any) -> Any:
        assert gate.wait(60), "test gate never opened"
        return real(*args, **kwargs)

    monkeypatch.setattr(sync_module, "run_sync", held)
    before = ws.scheduler.syncs
    answer = _run(ws, operation="search", query=QUERY, freshness="auto")
    # served from the old store: results, the reason, and a rebuild under way
    assert answer["status"] == "ok", answer
    assert answer["items"] and answer["items"][0]["anchor"]["path"] == "pkg/model.py"
    assert any("store schema 3" in w and "rebuild is running" in w for w in answer["warnings"])
    assert not any("stems" in c for c in answer["coverage"])  # the old index has none
    assert ws.is_building() and ws.state.published_store() == old and old.is_file()
    again = _run(ws, operation="symbol", symbol="Estimator.fit", freshness="auto")
    assert again["status"] == "ok" and ws.scheduler.syncs == before  # the rebuild is still held
    gate.set()
    assert ws.wait_background(WAIT_S)
    new = ws.state.published_store()
    assert new is not None and new != old
    assert _columns(new) == list(FTS_COLUMNS_BY_VERSION[SCHEMA_VERSION])
    assert ws.last_report is not None and ws.last_report.full_rebuild
    after = _run(ws, operation="search", query=QUERY, freshness="auto")
    assert after["status"] == "ok" and not any("schema" in w for w in after["warnings"])
    assert any("English stems" in c for c in after["coverage"])
    assert after["items"][0]["anchor"]["path"] == "pkg/model.py"
    assert ws.scheduler.syncs == before + 1  # one rebuild for both reads


def test_a_strict_read_rebuilds_first(old_store: tuple[Workspace, Path]) -> None:
    ws, old = old_store
    answer = _run(ws, operation="search", query=QUERY, freshness="strict")
    assert answer["status"] == "ok" and not any("schema" in w for w in answer["warnings"])
    new = ws.state.published_store()
    assert new is not None and new != old and "stems" in _columns(new)


def test_a_failed_rebuild_keeps_serving_the_old_store(old_store: tuple[Workspace, Path], monkeypatch) -> None:
    ws, old = old_store

    def broken(conn: Any) -> None:
        raise OSError("disk full while creating the schema")

    monkeypatch.setattr(sync_module, "create_schema", broken)
    first = _run(ws, operation="search", query=QUERY, freshness="auto")
    assert first["status"] == "ok"
    assert ws.wait_background(WAIT_S) and ws.last_error is not None
    assert ws.state.published_store() == old and old.is_file()
    second = _run(ws, operation="search", query=QUERY, freshness="auto")
    assert second["status"] == "ok" and second["items"][0]["anchor"]["path"] == "pkg/model.py"
    assert any("store schema 3" in w for w in second["warnings"])
    # the second auto read may have scheduled the rebuild again: once it has failed too, the failed
    # files are gone and the old store is the only one
    assert ws.wait_background(WAIT_S)
    assert [p.name for p in ws.state.stores.glob("*.sqlite")] == [old.name]


def test_auto_index_off_says_how_to_rebuild(make_repo) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_AUTO_INDEX": "0"}))
    ws.sync()
    store = ws.state.published_store()
    assert store is not None
    downgrade_to_schema_3(store)
    answer = _run(ws, operation="search", query=QUERY, freshness="auto")
    assert answer["status"] == "ok" and not ws.is_building()
    assert any("auto-index is off" in w and "lazy-intel index" in w for w in answer["warnings"])
    ws.close()


def test_a_schema_this_build_cannot_read_is_rebuilt_not_served(make_repo) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    ws.sync()
    store = ws.state.published_store()
    assert store is not None
    conn = connect(str(store))
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()
    answer = _run(ws, operation="search", query=QUERY, freshness="auto")
    assert answer["code"] == "STORE_CORRUPT" and "schema_version is '2'" in answer["message"]
    assert ws.wait_background(WAIT_S)
    assert _run(ws, operation="search", query=QUERY, freshness="auto")["status"] == "ok"
    ws.close()


def downgrade_to_schema_4(store: Path) -> None:
    """Make ``store`` what schema 4 wrote: no ``graph_deps``, no index of unresolved last names."""
    conn = connect(str(store))
    try:
        conn.executescript(
            """
            BEGIN;
            DROP TABLE graph_deps;
            DROP INDEX graph_files_key;
            DROP INDEX edges_unresolved_name;
            UPDATE meta SET value = '4' WHERE key = 'schema_version';
            COMMIT;
            """
        )
    finally:
        conn.close()


def _tables(store: Path) -> set[str]:
    conn = connect(str(store), readonly=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    finally:
        conn.close()


def test_a_schema_4_store_answers_the_graph_then_is_rebuilt_with_the_deps_index(make_repo) -> None:
    files = {
        **FILES,
        "pkg/use.py": "from pkg.model import Estimator\n\n\ndef run():\n    Estimator().fit([1])\n",
    }
    ws = Workspace.open(make_repo(files), settings=load_settings(env={}))
    try:
        ws.sync()
        old = ws.state.published_store()
        assert old is not None
        fresh = _run(ws, operation="impact", symbol="Estimator.fit", freshness="fast")
        downgrade_to_schema_4(old)
        assert "graph_deps" not in _tables(old)
        served = _run(ws, operation="impact", symbol="Estimator.fit", freshness="auto")
        assert served["status"] == "ok", served
        assert served["items"] == fresh["items"]  # the graph reads need none of the new indexes
        assert any("store schema 4" in w for w in served["warnings"])
        assert ws.wait_background(WAIT_S)
        new = ws.state.published_store()
        assert new is not None and new != old
        assert {"graph_deps", "graph_files_key", "edges_unresolved_name"} <= _tables(new)
        conn = connect(str(new), readonly=True)
        try:
            assert conn.execute("SELECT count(*) FROM graph_deps").fetchone()[0] > 0
        finally:
            conn.close()
        after = _run(ws, operation="impact", symbol="Estimator.fit", freshness="auto")
        assert after["status"] == "ok" and not any("schema" in w for w in after["warnings"])
        assert after["items"] == fresh["items"]
    finally:
        ws.close()


# what each older schema lacks that the writer adds in place
ADDED_SINCE: dict[int, tuple[str, ...]] = {5: ("files_sha256", "nodes_named"), 6: ("nodes_named",)}
NAMED_LOOKUP = (
    "SELECT id, path, qualified_name, kind, json_extract(properties, '$.parent'), "
    "json_extract(properties, '$.getter') IS NOT NULL FROM nodes "
    f"WHERE name='fit' AND {NAMED_DEFINITION_WHERE} ORDER BY path, qualified_name, id"
)


def downgrade_to_schema(store: Path, version: int) -> None:
    """Make ``store`` what schema ``version`` (5 or 6) wrote: without the indexes added since."""
    drops = "".join(f"DROP INDEX {name};\n" for name in ADDED_SINCE[version])
    conn = connect(str(store))
    try:
        conn.executescript(
            f"""
            BEGIN;
            {drops}
            UPDATE meta SET value = '{version}' WHERE key = 'schema_version';
            COMMIT;
            """
        )
    finally:
        conn.close()


def _plan(store: Path, sql: str) -> str:
    conn = connect(str(store), readonly=True)
    try:
        return " ".join(str(r[3]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
    finally:
        conn.close()


@pytest.mark.parametrize("version", sorted(ADDED_SINCE))
def test_an_older_schema_store_is_upgraded_in_place_not_rebuilt(make_repo, version: int) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    try:
        ws.sync()
        old = ws.state.published_store()
        assert old is not None
        fresh = _run(ws, operation="search", query=QUERY, freshness="fast")
        fresh_impact = _run(ws, operation="impact", symbol="Estimator.fit", depth=3, freshness="fast")
        downgrade_to_schema(old, version)
        assert not set(ADDED_SINCE[version]) & set(_tables(old))
        assert "nodes_named" not in _plan(old, NAMED_LOOKUP)
        inode = old.stat().st_ino
        served = _run(ws, operation="search", query=QUERY, freshness="fast")  # a reader of the old store
        assert served["status"] == "ok" and served["items"] == fresh["items"]
        assert any(f"store schema {version}" in w and "in place" in w for w in served["warnings"])
        assert ws.wait_background(WAIT_S)  # the sync that read started: the upgrade
        assert ws.state.published_store() == old and old.stat().st_ino == inode  # the same store
        assert set(ADDED_SINCE[version]) <= set(_tables(old))
        conn = connect(str(old), readonly=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        finally:
            conn.close()
        assert meta["schema_version"] == str(SCHEMA_VERSION) and meta["schema_upgraded_from"] == str(version)
        assert "files_sha256" in _plan(old, "SELECT 1 FROM files WHERE sha256 IN ('a', 'b')")
        assert "COVERING INDEX nodes_named" in _plan(old, NAMED_LOOKUP)  # the table is not read
        assert ws.state.read_catalog()["schema_version"] == SCHEMA_VERSION
        after = _run(ws, operation="search", query=QUERY, freshness="fast")
        assert after["status"] == "ok" and not any("schema" in w for w in after["warnings"])
        assert after["items"] == fresh["items"]
        impact = _run(ws, operation="impact", symbol="Estimator.fit", depth=3, freshness="fast")
        assert impact["items"] == fresh_impact["items"]
        (root / "pkg" / "report.py").write_text("def render(rows, sep):\n    return sep.join(rows)\n")
        report = ws.sync()
        assert report.published and not report.full_rebuild and ws.state.published_store() == old
    finally:
        ws.close()

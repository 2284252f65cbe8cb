"""A PostgreSQL store of schema 5 or 6 is upgraded in place by its writer, as SQLite's is (no rebuild)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import SCHEMA_VERSION
from tests.conftest import pg_env

FILES = {f"pkg/mod_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(6)}
# what each older schema lacks that the writer adds in place
ADDED_SINCE: dict[int, tuple[str, ...]] = {5: ("files_sha256", "nodes_named"), 6: ("nodes_named",)}


def _search(ws: Workspace) -> dict[str, Any]:
    return execute(
        {"operation": "search", "query": "helper value", "freshness": "fast"}, lambda _r: ws, ws.settings
    ).to_dict()


@pytest.mark.parametrize("version", sorted(ADDED_SINCE))
def test_an_older_schema_postgresql_store_is_upgraded_in_place(make_repo, pg_dsn: str, version: int) -> None:
    root = make_repo(FILES)
    env = {
        **pg_env(pg_dsn),
        "LAZY_INTEL_EMBEDDING": "none",
        "LAZY_INTEL_WATCH": "false",
        "LAZY_INTEL_AUTO_INDEX": "false",
    }
    ws = Workspace.open(root, settings=load_settings(env=env))
    try:
        ws.sync()
        with ws.read() as view:
            schema, name = view.conn.schema, view.store_path.name
        fresh = _search(ws)
        with psycopg.connect(pg_dsn, autocommit=True) as raw:
            for index in ADDED_SINCE[version]:
                raw.execute(f'DROP INDEX "{schema}".{index}')
            raw.execute(f"UPDATE \"{schema}\".meta SET value = '{version}' WHERE key = 'schema_version'")
        served = _search(ws)  # a reader of the older store
        assert served["status"] == "ok" and served["items"] == fresh["items"]
        (root / "pkg" / "mod_1.py").write_text("def helper_1(value, more):\n    return value + more\n")
        report = ws.sync()
        assert report.published and not report.full_rebuild
        with ws.read() as view:
            assert (view.conn.schema, view.store_path.name) == (schema, name)  # the same store
            assert view.meta("schema_version") == str(SCHEMA_VERSION) and view.meta(
                "schema_upgraded_from"
            ) == str(version)
        with psycopg.connect(pg_dsn) as raw:
            found = {
                row[0]
                for row in raw.execute("SELECT indexname FROM pg_indexes WHERE schemaname = %s", [schema])
            }
        assert set(ADDED_SINCE[version]) <= found
        assert _search(ws)["items"] != [] and _search(ws)["status"] == "ok"
    finally:
        ws.close()


def test_a_postgresql_serve_catches_up_with_a_file_changed_while_down(make_repo, pg_dsn: str) -> None:
    """The catch-up's comparison reads the published files through the PostgreSQL view too."""
    root = make_repo(FILES)
    env = {**pg_env(pg_dsn), "LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_DEBOUNCE_MS": "50"}
    first = Workspace.open(root, settings=load_settings(env=env))
    try:
        first.sync()
    finally:
        first.close()
    (root / "pkg" / "mod_2.py").write_text("def helper_2(value):\n    return value * 200\n")
    ws = Workspace.open(root, settings=load_settings(env=env))
    try:
        ws.start_serving()
        assert ws.watcher is not None and ws.watcher.wait_ready(60)
        assert ws.wait_background(60) and not ws.catching_up()
        assert ws.last_catch_up is not None and "error" not in ws.last_catch_up, ws.last_catch_up
        assert ws.last_catch_up["changed"] == 1
        with ws.read() as view:
            row = view.conn.execute("SELECT sha256 FROM files WHERE path = 'pkg/mod_2.py'").fetchone()
        from lazy_intel.workspace.capture import sha256_bytes

        assert row[0] == sha256_bytes((root / "pkg" / "mod_2.py").read_bytes())
        answer = execute(
            {"operation": "search", "query": "helper value", "freshness": "auto"}, lambda _r: ws, ws.settings
        ).to_dict()
        assert answer["view"]["dirty"] is False and "catching_up" not in answer["view"]
    finally:
        ws.close()

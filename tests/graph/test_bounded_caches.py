"""The resolver's per-process caches are bounded, and their bounds never change what is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from lazy_intel.graph import program
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from tests.conftest import write_tree
from tests.service.indexing.test_parallel_build import _build, _tree


def test_shared_results_stay_within_their_bound_oldest_dropped_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(program, "SHARED_RESULTS", 8)
    store = FactStore(None, PathIndex({}))  # type: ignore[arg-type]
    for i in range(30):
        store.share(("k", i), i, frozenset({f"n:{i}"}))
        assert len(store.shared) <= 8
    assert ("k", 29) in store.shared and ("k", 0) not in store.shared
    assert store.shared[("k", 29)] == (29, frozenset({"n:29"}), frozenset(), 1)  # no file's content read


def test_a_shared_result_knows_the_files_whose_content_it_read() -> None:
    tokens = frozenset({"o:a/b.py:Cls", "r:c.py:f.g", "f:d.py", "n:name", "s:e.py", "ds:pkg"})
    assert program.content_paths(tokens) == {"a/b.py", "c.py", "d.py"}


def test_tiny_caches_build_the_same_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, _tree())
    roomy, _ = _build(root, tmp_path / "roomy", 1)
    monkeypatch.setattr(program, "INTERFACE_CACHE", 3)
    monkeypatch.setattr(program, "SHARED_RESULTS", 4)
    monkeypatch.setattr(program, "MODEL_CACHE", 2)
    monkeypatch.setattr(program, "NAMED_DEFINITIONS", 1)
    monkeypatch.setattr(program, "WHERE_ENTRIES", 2)
    tiny, _ = _build(root, tmp_path / "tiny", 1)
    for table in roomy:
        assert tiny[table] == roomy[table], table


def test_name_and_node_lookups_stay_within_their_bounds_and_answer_from_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name table and the node-id -> path map are read from the store on demand: past their
    bounds the oldest entries go, and a lookup answers the same from the store (issue 15: kept
    whole, they were gigabytes per process at 100k files)."""
    import sqlite3

    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, _tree())
    _build(root, tmp_path / "state", 1)
    (store_path,) = (tmp_path / "state" / "stores").glob("store-*.sqlite")
    conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    names = [
        row[0] for row in conn.execute("SELECT DISTINCT name FROM nodes WHERE kind='function' ORDER BY name")
    ]
    symbols = conn.execute(
        "SELECT id, path FROM nodes WHERE file_key != 0 AND label NOT IN ('File', 'Route') ORDER BY id"
    ).fetchall()
    assert len(names) > 6 and len(symbols) > 6
    roomy = FactStore(conn, PathIndex({}))
    expected = {name: roomy.named(name) for name in names}
    monkeypatch.setattr(program, "NAMED_DEFINITIONS", 3)
    monkeypatch.setattr(program, "WHERE_ENTRIES", 4)
    store = FactStore(conn, PathIndex({}))
    for _ in range(2):
        for name in names:
            assert store.named(name) == expected[name]
            assert sum(len(found) for found in store._names.values()) <= max(3, len(expected[name]))
        for node_id, path in symbols:
            assert store.where.get(node_id) == path
            assert len(store.where) <= 4
    assert store.where.get(12345) is None  # no such node
    conn.close()

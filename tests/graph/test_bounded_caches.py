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
    assert store.shared[("k", 29)] == (29, frozenset({"n:29"}))


def test_tiny_caches_build_the_same_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, _tree())
    roomy, _ = _build(root, tmp_path / "roomy", 1)
    monkeypatch.setattr(program, "INTERFACE_CACHE", 3)
    monkeypatch.setattr(program, "SHARED_RESULTS", 4)
    monkeypatch.setattr(program, "MODEL_CACHE", 2)
    tiny, _ = _build(root, tmp_path / "tiny", 1)
    for table in roomy:
        assert tiny[table] == roomy[table], table

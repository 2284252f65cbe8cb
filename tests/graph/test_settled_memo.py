"""The analysis memoises members and focus-name lookups made outside any demand computation while
no variable grows (``Analysis.memoisable``): every file's edges, dependency tokens and budget flag
are those of the resolution that computes each of them again."""

from __future__ import annotations

from pathlib import Path

import pytest

from lazy_intel.graph.analysis import Analysis
from lazy_intel.graph.build import ResolvedFile
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file
from lazy_intel.parse.languages import is_parsed_language
from lazy_intel.store.schema import connect
from tests.graph.helpers import serial_store
from tests.service.indexing.test_parallel_build import _tree

GRAPH_PACKAGE = Path(__file__).resolve().parents[2] / "src" / "lazy_intel" / "graph"


def _files() -> dict[str, str]:
    files = _tree()
    for path in sorted(GRAPH_PACKAGE.glob("*.py")):  # real classes, mixins, self.member chains
        files[f"graph/{path.name}"] = path.read_text(encoding="utf-8")
    return files


def _resolve_all(store_path: Path) -> dict[str, ResolvedFile]:
    conn = connect(str(store_path), readonly=True)
    try:
        files = {
            path: lang
            for path, lang in conn.execute(
                "SELECT path, lang FROM files WHERE status='indexed' AND lang IS NOT NULL ORDER BY path"
            )
            if is_parsed_language(lang)
        }
        store = FactStore(conn, PathIndex(files))
        out = {}
        for path in files:
            model = store.model(path)
            if model is not None:
                out[path] = ResolvedFile.of(path, resolve_file(store, model))
        return out
    finally:
        conn.close()


def test_memoised_members_and_lookups_resolve_as_computing_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_path = serial_store(tmp_path, _files())
    reused: list[int] = []
    replay = Analysis._replay

    def counting_replay(self: Analysis, read: frozenset[object]) -> None:
        reused.append(len(read))
        replay(self, read)

    monkeypatch.setattr(Analysis, "_replay", counting_replay)
    memoised = _resolve_all(store_path)
    monkeypatch.setattr(Analysis, "memoisable", lambda self: False)
    computed = _resolve_all(store_path)
    assert len(reused) > 1000  # the memo was used, also where the reused result had read variables
    assert sum(1 for n in reused if n) > 100
    assert memoised.keys() == computed.keys() and len(computed) > 30
    for path, result in computed.items():
        assert memoised[path] == result, path

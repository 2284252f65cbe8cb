"""A file's edges do not depend on which files the process resolved before it: a shared demand
result that read the file being resolved was computed through its interface, and is not taken."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.graph.build import ResolvedFile
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file
from lazy_intel.store.schema import connect
from tests.graph.helpers import serial_store

TREE = {
    "pkg/__init__.py": "",
    "pkg/measure.py": (
        "from functools import total_ordering\n\n\n"
        "@total_ordering\n"
        "class MeasureBase:\n"
        "    def __eq__(self, other):\n"
        "        return self.__class__(1)\n\n\n"
        "class Area(MeasureBase):\n"
        "    def __truediv__(self, other):\n"
        "        return self.__class__(2)\n"
    ),
    "pkg/user.py": (
        "from pkg.measure import Area\n\n\ndef use():\n    area = Area()\n    return area.__truediv__(1)\n"
    ),
}


def _resolve(store_path: Path, order: list[str]) -> dict[str, ResolvedFile]:
    conn = connect(str(store_path), readonly=True)
    try:
        files = {p: lang for p, lang in conn.execute("SELECT path, lang FROM files WHERE lang = 'python'")}
        store = FactStore(conn, PathIndex(files))
        out = {}
        for path in order:
            model = store.model(path)
            assert model is not None
            out[path] = ResolvedFile.of(path, resolve_file(store, model))
        return out
    finally:
        conn.close()


def test_a_files_edges_are_the_same_whatever_was_resolved_before_it(tmp_path: Path) -> None:
    store = serial_store(tmp_path, TREE)
    alone = _resolve(store, ["pkg/measure.py"])["pkg/measure.py"]
    after = _resolve(store, ["pkg/user.py", "pkg/measure.py"])["pkg/measure.py"]
    class_calls = [e for e in alone.edges if e[1] == "CALLS" and "__class__" in str(e[6])]
    assert class_calls  # the sites this is about are there
    assert after.edges == alone.edges
    assert after.deps == alone.deps

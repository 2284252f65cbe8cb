"""A file's edges do not depend on which files the process resolved before it: a shared demand
result that read the file being resolved was computed through its interface, and is not taken."""

from __future__ import annotations

import sys
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


def _chain(length: int, files: int) -> dict[str, str]:
    """``f{i}()`` returns ``f{i + 1}() + 0`` across ``files`` modules; the last returns a Box."""
    bodies: dict[str, list[str]] = {"pkg/box.py": ["class Box:\n    def open(self):\n        return 1\n"]}
    for i in range(length):
        tail = f"from pkg.m{(i + 1) % files} import f{i + 1}\n    return f{i + 1}() + 0"
        if i + 1 == length:
            tail = "from pkg.box import Box\n    return Box()"
        bodies.setdefault(f"pkg/m{i % files}.py", []).append(f"def f{i}():\n    {tail}\n")
    bodies["pkg/use.py"] = ["from pkg.m0 import f0\n\n\ndef go():\n    f0().open()\n"]
    return {"pkg/__init__.py": "", **{path: "\n\n".join(parts) for path, parts in bodies.items()}}


def test_a_chain_deeper_than_the_resolver_follows_resolves_the_same_whatever_came_before(
    tmp_path: Path,
) -> None:
    """A chain of results deeper than MAX_DEMAND_DEPTH is cut where it passes the bound. A result
    computed whole in another resolution (from nearer the chain's end) is not taken where computing
    it would have been cut, so each file's edges and dependencies are those it has resolved alone
    (a resumed build resolves files in another order than a clean one)."""
    tree = _chain(260, 20)
    store = serial_store(tmp_path, tree)
    limit = sys.getrecursionlimit()
    files = sorted(p for p in tree if p.endswith(".py") and p != "pkg/__init__.py")
    alone = {path: _resolve(store, [path])[path] for path in ("pkg/use.py", "pkg/m0.py", "pkg/m7.py")}
    backwards = _resolve(store, sorted(files, reverse=True))
    forwards = _resolve(store, files)
    for path, resolved in alone.items():
        assert backwards[path].edges == resolved.edges == forwards[path].edges, path
        assert backwards[path].deps == resolved.deps == forwards[path].deps, path
    assert sys.getrecursionlimit() == limit  # raised while resolving only, not for the whole process

"""A model built from the rows a parse worker extracted is the model the store reads back, so the
outline a full build's parse worker computes equals the one describing the stored file gives."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.graph.build import FileOutline, describe_file
from lazy_intel.graph.model import FileModel, load_model, model_from_rows
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.service.indexing.parsing import parse_path, with_outline
from lazy_intel.store.schema import connect
from lazy_intel.store.writer import for_transfer
from tests.graph.helpers import serial_store
from tests.service.indexing.test_parallel_build import _tree

# rows whose store order has ties (same span, same kind), imports without a name or an alias, a
# file of another parsed language
TIES = {
    "ties/chained.py": (
        "import os, sys as system\n"
        "from . import a, b as c\n"
        "from .x import *\n"
        "x = y = z = os.getcwd()\n"
        "a, (b, c) = f(), (g(), h())\n"
        "for i, j in enumerate(system.argv):\n"
        "    k = l = i\n"
        "def f(p=1, *q, r=2, **s):\n"
        "    t = u = p\n"
        "    return t(u)(q)[0](r)\n"
        "class K(f(), g()):\n"
        "    m = n = f()\n"
        "    @property\n"
        "    def v(self): return self.m.n(f(g(h())))\n"
    ),
    "ties/other.ts": (
        "import x, { a, b as c } from './m';\n"
        "export * from './n';\n"
        "const p = q = f(g(h()));\n"
        "export class K extends B { m() { return this.p(a)(c); } }\n"
    ),
}


def _facts(model: FileModel) -> list[object]:
    return [
        model.symbols,
        [
            (
                r.name,
                r.kind,
                r.start_byte,
                r.end_byte,
                r.line,
                r.scope,
                r.receiver,
                r.callee_json,
                r.args_json,
            )
            for r in model.refs
        ],
        model.imports,
        [
            (f.kind, f.scope, f.raw, f.index, f.start_byte, f.end_byte, f.line, f.condition_path)
            for f in model.flows
        ],
    ]


def test_models_and_outlines_from_parsed_rows_equal_the_stored_ones(tmp_path: Path) -> None:
    files = {**_tree(), **TIES}
    store = serial_store(tmp_path, files)
    root = str(tmp_path / "repo")
    conn = connect(str(store), readonly=True)
    try:
        rows = conn.execute(
            "SELECT path, lang, sha256, size, line_count FROM files WHERE status='indexed' AND lang IS NOT NULL"
        ).fetchall()
        facts = FactStore(conn, PathIndex({p: lang for p, lang, *_ in rows}))
        compared = 0
        for path, lang, sha, size, lines in rows:
            stored = load_model(conn, path, decode=False)
            record = parse_path(root, path, 1 << 20)
            assert record is not None
            record = for_transfer(record)
            if stored is None:
                assert with_outline(record).outline is None, path
                continue
            assert record.rows is not None
            built = model_from_rows(path, lang, sha, record.rows)
            assert built is not None
            assert _facts(built) == _facts(stored), path
            outline = with_outline(record).outline
            assert isinstance(outline, FileOutline)
            assert outline == describe_file(facts, path, size, lines), path
            compared += 1
        assert compared > 150, "every parsed file of the fixture is compared"
    finally:
        conn.close()

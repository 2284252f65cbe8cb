"""A model read with its expressions left as JSON text (decoded on first use) is the same model."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.graph.build import describe_file
from lazy_intel.graph.model import FileModel, load_interface, load_model
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.nodes import definition_lines, file_nodes
from lazy_intel.graph.program import FactStore
from lazy_intel.store.schema import connect
from tests.graph.helpers import serial_store
from tests.service.indexing.test_parallel_build import _tree


def _expressions(model: FileModel) -> list[object]:
    return [
        [(r.name, r.kind, r.start_byte, r.callee(), r.args()) for r in model.refs],
        [(f.kind, f.scope, f.start_byte, f.target, f.value, f.annotation) for f in model.flows],
    ]


def test_lazily_decoded_models_interfaces_and_outlines_equal_the_decoded_ones(tmp_path: Path) -> None:
    store = serial_store(tmp_path, _tree())
    conn = connect(str(store), readonly=True)
    try:
        rows = conn.execute(
            "SELECT path, lang, size, line_count FROM files WHERE status='indexed' AND lang IS NOT NULL"
        ).fetchall()
        facts = FactStore(conn, PathIndex({p: lang for p, lang, _, _ in rows}))
        compared = values = 0
        for path, _, size, lines in rows:
            decoded = load_model(conn, path)
            if decoded is None:
                continue
            lazy = load_model(conn, path, decode=False)
            assert lazy is not None
            # what an outline reads first (interface record, nodes), then every expression
            assert lazy.interface_record() == decoded.interface_record(), path
            assert file_nodes(lazy, size, lines) == file_nodes(decoded, size, lines), path
            assert _expressions(lazy) == _expressions(decoded), path
            interface = load_interface(conn, path)
            assert interface is not None
            assert _expressions(interface) == _expressions(decoded.interface()), path
            outline = describe_file(facts, path, size, lines)
            assert outline is not None
            assert outline.interface == decoded.interface_record()
            assert outline.definitions == definition_lines(decoded)
            compared += 1
            values += sum(1 for f in decoded.flows if f.value is not None)
        assert compared > 100 and values > 1000, "the fixture has many files and flow values"
    finally:
        conn.close()

"""A class's members by name (``children_named``) are the scan they replace, and an interface view
records for them exactly the token ``children.get`` records."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.graph.interface_view import InterfaceView
from lazy_intel.graph.model import load_interface, load_model
from lazy_intel.graph.modules import Deps
from lazy_intel.store.schema import connect
from tests.graph.helpers import serial_store
from tests.service.indexing.test_parallel_build import _tree


def test_children_named_equals_the_filtered_children_and_records_the_same_tokens(tmp_path: Path) -> None:
    store = serial_store(tmp_path, _tree())
    conn = connect(str(store), readonly=True)
    try:
        paths = [
            row[0]
            for row in conn.execute("SELECT path FROM files WHERE status='indexed' AND lang IS NOT NULL")
        ]
        asked = found = 0
        for path in paths:
            model = load_model(conn, path)
            interface = load_interface(conn, path)
            if model is None or interface is None:
                continue
            parents = {s.parent for s in model.symbols} | {None, "no.such.parent"}
            names = {s.name for s in model.symbols} | {"no_such_name"}
            for parent in parents:
                for name in names:
                    scanned = [c for c in model.children.get(parent, ()) if c.name == name]
                    assert model.children_named(parent, name) == scanned, (path, parent, name)
                    by_get, by_name = Deps(), Deps()
                    listed = InterfaceView(interface, by_get).children.get(parent, ())
                    named = InterfaceView(interface, by_name).children_named(parent, name)
                    assert named == [c for c in listed if c.name == name], (path, parent, name)
                    assert by_name.tokens == by_get.tokens, (path, parent, name)
                    asked += 1
                    found += bool(scanned)
        assert found > 100 and asked > found  # members found, and names a parent does not have
    finally:
        conn.close()

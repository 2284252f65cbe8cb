"""Which server sites conflict with the index (`ops_fused._conflicts`), on a real store: every
occurrence of the asked-about name in a file is offered as a site only the server found, and only
those the index puts at another definition — a resolved, not name-guessed edge there, or another
definition's name — come back, each with that definition."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from lazy_intel.graph.queries import GraphNode, definition_node
from lazy_intel.service.ops.graph_evidence import GraphReader
from lazy_intel.service.ops.ops_fused import _conflicts
from lazy_intel.service.ops.site_match import Site
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

SOURCE = (
    "class Gauge:\n"
    "    @property\n"
    "    def level(self) -> int:\n"
    "        return 1\n\n"
    "    @level.setter\n"
    "    def level(self, value: int) -> None:\n"
    "        pass\n\n\n"
    "class Meter:\n"
    "    def level(self) -> int:\n"
    "        return 2\n\n\n"
    "class Dial:\n"
    "    def level(self) -> int:\n"
    "        return 3\n\n\n"
    "class Box:\n"
    "    def __init__(self) -> None:\n"
    "        self.size = 0\n\n\n"
    "def read(g: Gauge, m: Meter, thing) -> int:\n"
    "    return g.level + m.level() + thing.level()\n\n\n"
    "def make() -> Box:\n"
    "    return Box()\n"
)


def _occurrences(name: str) -> list[Site]:
    data = SOURCE.encode()
    return [
        Site(("live", n), "m.py", m.start(), m.end())
        for n, m in enumerate(re.finditer(rb"\b" + name.encode() + rb"\b", data))
    ]


def _line(site: Site) -> str:
    data = SOURCE.encode()
    start = data.rfind(b"\n", 0, site.start) + 1
    return data[start : data.find(b"\n", site.end)].decode().strip()


def _target(reader: GraphReader, qualified: str) -> GraphNode:
    row = reader.view.symbols_by_qualified(qualified, "m.py")[0]
    node = definition_node(reader.conn, "m.py", qualified, row.start_byte)
    assert node is not None
    return node


def test_only_sites_the_index_puts_at_another_definition_conflict(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"m.py": SOURCE})
    ws = Workspace.open(root, settings=load_settings(env={}))
    try:
        ws.sync()
        with ws.read() as view:
            reader = GraphReader(view)
            sites = _occurrences("level")
            found = _conflicts(reader, [_target(reader, "Gauge.level")], sites)
            by_line = {_line(s): found[s.key] for s in sites if s.key in found}
            # Meter's and Dial's own definitions, and the call the index resolved through `m: Meter`
            assert sorted(by_line) == [
                "def level(self) -> int:",
                "return g.level + m.level() + thing.level()",
            ]
            assert {r["name"] for r, _ in by_line.values()} <= {"Meter.level", "Dial.level"}
            kinds = sorted(how["strategy"] for s in sites if s.key in found for _, how in [found[s.key]])
            assert kinds.count("definition") == 2 and len(kinds) == 3, kinds
            # the getter, `@level.setter`, the setter (the same qualified name), `g.level` (into the
            # target) and `thing.level()` (nothing resolved, or by name only) are no conflicts
            assert len(found) == 3
            # a class: its constructor call and its annotation are uses of it, not of something else
            assert _conflicts(reader, [_target(reader, "Box")], _occurrences("Box")) == {}
            assert _conflicts(reader, [_target(reader, "Gauge.level")], []) == {}
    finally:
        ws.close()

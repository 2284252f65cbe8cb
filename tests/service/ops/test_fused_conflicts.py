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
    "class Probe(Meter):\n"
    "    def level(self) -> int:\n"
    "        return 4\n\n\n"
    "class Box:\n"
    "    def __init__(self) -> None:\n"
    "        self.size = 0\n\n\n"
    "def read(g: Gauge, m: Meter, thing) -> int:\n"
    "    return g.level + m.level() + thing.level()\n\n\n"
    "def make() -> Box:\n"
    "    return Box()\n\n\n"
    "def probe() -> int:\n"
    "    return Probe().level()\n"
)


def _occurrences(name: str) -> list[Site]:
    data = SOURCE.encode()
    return [
        Site(("live", n), "m.py", m.start(), m.end())
        for n, m in enumerate(re.finditer(rb"\b" + name.encode() + rb"\b", data))
    ]


def _found(found: dict, sites: list[Site]) -> list[tuple[int, str, str]]:  # type: ignore[type-arg]
    """(line, the index's strategy, the definition it names) of every conflict, in file order."""
    data = SOURCE.encode()
    return [
        (data.count(b"\n", 0, s.start) + 1, found[s.key][1]["strategy"], found[s.key][0]["name"])
        for s in sites
        if s.key in found
    ]


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
            lines = SOURCE.splitlines()
            at = {text: n + 1 for n, text in enumerate(lines)}
            meter_def = lines.index("class Meter:") + 2
            dial_def = lines.index("class Dial:") + 2
            probe_def = lines.index("class Probe(Meter):") + 2
            read = at["    return g.level + m.level() + thing.level()"]
            probe_call = at["    return Probe().level()"]
            found = _found(_conflicts(reader, [_target(reader, "Gauge.level")], sites), sites)
            # other classes' own definitions, the call the index resolved through `m: Meter`, and
            # `Probe().level()`; not the getter, `@level.setter`, the setter (the same qualified
            # name), `g.level` (into the target) or `thing.level()` (nothing resolved, or by name only)
            assert [(line, name) for line, _, name in found] == [
                (meter_def, "Meter.level"),
                (dial_def, "Dial.level"),
                (probe_def, "Probe.level"),
                (read, "Meter.level"),
                (probe_call, "Probe.level"),
            ], found
            strategies = [strategy for _, strategy, _ in found]
            assert strategies[:3] == ["definition"] * 3
            assert all(s not in ("definition", "ambiguous", "unique-name") for s in strategies[3:])
            # asked about Meter.level, `Probe().level()` runs its override: the same method family
            found = _found(_conflicts(reader, [_target(reader, "Meter.level")], sites), sites)
            assert probe_call not in [line for line, _, _ in found], found
            assert probe_def in [line for line, _, _ in found]  # another definition all the same
            # a class: its constructor call and its annotation are uses of it, not of something else
            assert _conflicts(reader, [_target(reader, "Box")], _occurrences("Box")) == {}
            assert _conflicts(reader, [_target(reader, "Gauge.level")], []) == {}
    finally:
        ws.close()

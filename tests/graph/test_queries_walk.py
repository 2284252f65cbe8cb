"""The graph walk's last step (``graph/queries.py``): past the depth limit only the distinct nodes one
hop further are counted (``edge_ends``), which must be what the whole edge rows give (issue 15: at
depth 3 on a large tree that level is the widest of the walk)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lazy_intel.graph.queries import (
    CALL_TYPES,
    IMPACT_TYPES,
    edge_ends,
    edges_into,
    edges_out_of,
    traverse,
)
from lazy_intel.store.schema import connect
from tests.graph.helpers import serial_store

# a chain leaf <- c1 <- c2 <- c3 <- c4, and a fan of callers of c3 (so depth 2 from the leaf stops at
# c2 with c3 one hop further; depth 3 stops at c3 with c4 and the fan one hop further)
CHAIN = {
    "pkg/__init__.py": "",
    "pkg/leaf.py": "def leaf():\n    return 1\n",
    "pkg/c1.py": "from pkg.leaf import leaf\n\n\ndef c1():\n    return leaf()\n",
    "pkg/c2.py": "from pkg.c1 import c1\n\n\ndef c2():\n    return c1()\n",
    "pkg/c3.py": "from pkg.c2 import c2\n\n\ndef c3():\n    return c2()\n",
    "pkg/c4.py": "from pkg.c3 import c3\n\n\ndef c4():\n    return c3()\n\n\ndef c4b():\n    c3()\n    c3()\n",
    "pkg/fan.py": "from pkg.c3 import c3\n\n\n" + "".join(f"def f{i}():\n    c3()\n\n\n" for i in range(4)),
}


def _node(conn, path: str, name: str) -> int:  # type: ignore[no-untyped-def]
    row = conn.execute(
        "SELECT id FROM nodes WHERE path=? AND name=? AND label='Function'", (path, name)
    ).fetchone()
    assert row is not None, (path, name)
    return int(row[0])


def test_the_walk_counts_the_nodes_one_hop_past_its_depth(tmp_path: Path) -> None:
    store = serial_store(tmp_path, CHAIN)
    conn = connect(str(store), readonly=True)
    try:
        leaf = _node(conn, "pkg/leaf.py", "leaf")
        callers = {name: _node(conn, f"pkg/{name}.py", name) for name in ("c1", "c2", "c3")}
        two = traverse(conn, [leaf], types=CALL_TYPES, incoming=True, depth=2)
        assert {r.node for r in two.reached} == {callers["c1"], callers["c2"]}
        assert two.beyond == 1  # c3
        three = traverse(conn, [leaf], types=CALL_TYPES, incoming=True, depth=3)
        assert three.beyond == 6  # c4, c4b (two calls: one node) and the four callers in fan.py
        assert not three.node_limited
        down = traverse(conn, [_node(conn, "pkg/c4.py", "c4")], types=CALL_TYPES, incoming=False, depth=2)
        assert {r.node for r in down.reached} == {callers["c3"], callers["c2"]}
        assert down.beyond == 1  # c1
        assert traverse(conn, [leaf], types=CALL_TYPES, incoming=True, depth=5).beyond == 0
    finally:
        conn.close()


def test_edge_ends_are_the_ends_of_the_whole_edge_rows(tmp_path: Path) -> None:
    store = serial_store(tmp_path, CHAIN)
    conn = connect(str(store), readonly=True)
    try:
        every = [row[0] for row in conn.execute("SELECT id FROM nodes ORDER BY id")]
        for types in (CALL_TYPES, IMPACT_TYPES, ("DEFINES",)):
            into = {e.src for e in edges_into(conn, every, types)} - {None}
            out = {e.dst for e in edges_out_of(conn, every, types, resolved_only=True)} - {None}
            assert edge_ends(conn, every, types, incoming=True) == into
            assert edge_ends(conn, every, types, incoming=False) == out
            assert into and out
        assert edge_ends(conn, [], CALL_TYPES, incoming=True) == set()
    finally:
        conn.close()


def _random_program(seed: int) -> dict[str, str]:
    """Modules of functions calling each other at random: many walks, ties of confidence among
    several call sites (imports 0.95, unique names 0.4, ambiguous candidates), cycles."""
    rng = random.Random(seed)
    modules = [f"m{i}" for i in range(8)]
    names = {m: [f"{m}_f{j}" for j in range(4)] for m in modules}
    files: dict[str, str] = {"pkg/__init__.py": "", "other/dup.py": "def m0_f0():\n    return 0\n"}
    for m in modules:
        imported = rng.sample(modules, 3)
        lines = [f"from pkg.{other} import {', '.join(names[other])}" for other in imported if other != m]
        for name in names[m]:
            callees = rng.sample([n for o in imported for n in names[o]], rng.randint(0, 4))
            body = "".join(f"    {c}()\n" for c in callees) or "    return 1\n"
            lines.append(f"\n\ndef {name}():\n{body}")
        files[f"pkg/{m}.py"] = "\n".join(lines) + "\n"
    return files


@pytest.mark.parametrize("seed", range(3))
def test_a_walk_without_hops_reaches_exactly_what_the_whole_rows_reach(tmp_path: Path, seed: int) -> None:
    store = serial_store(tmp_path, _random_program(seed))
    conn = connect(str(store), readonly=True)
    try:
        functions = [
            int(r[0]) for r in conn.execute("SELECT id FROM nodes WHERE label='Function' ORDER BY id")
        ]
        assert len(functions) >= 30
        walks = 0
        for start in functions:
            for incoming, depth, max_nodes in (
                (True, 3, 5_000),
                (False, 2, 5_000),
                (True, 4, 6),
                (False, 4, 3),
            ):
                kwargs = {"types": IMPACT_TYPES, "incoming": incoming, "depth": depth, "max_nodes": max_nodes}
                whole = traverse(conn, [start], **kwargs)  # type: ignore[arg-type]
                lean = traverse(conn, [start], hops=False, **kwargs)  # type: ignore[arg-type]
                assert lean.reached == whole.reached
                assert (lean.beyond, lean.node_limited, lean.hops) == (whole.beyond, whole.node_limited, ())
                walks += bool(whole.reached)
        assert walks > len(functions)  # the walks went somewhere
    finally:
        conn.close()

"""The package picture: from an architecture answer to positioned boxes, and the layout's promises
(checked on random dependency graphs): rows by layer with dependencies below, no overlaps, bounded
rows, cycles marked, deterministic."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.graph.centrality import layers, strongly_connected
from lazy_intel.ui.picture import (
    MAX_PER_ROW,
    MAX_ROW_WIDTH,
    NODE_GAP,
    picture_from_answer,
    picture_to_dict,
)
from tests.ui.conftest import answer, make_shop


def architecture_answer(names: list[str], deps: set[tuple[str, str]]) -> dict[str, Any]:
    """An answer shaped like the operation's, with layers and cycles computed the operation's way."""
    adjacency: dict[str, set[str]] = defaultdict(set)
    for a, b in deps:
        adjacency[a].add(b)
    layer_of = layers(names, adjacency)
    cycles = [sorted(c) for c in strongly_connected(names, adjacency) if len(c) > 1]
    return {
        "status": "ok",
        "view": {"generation": 3, "published_at": "2026-01-01T00:00:00Z"},
        "coverage": ["graph: packages are directories of parsed files"],
        "items": [],
        "data": {
            "scope": ".",
            "files": len(names) * 2,
            "package_count": len(names),
            "dependency_count": len(deps),
            "packages": [
                {"package": n, "files": 1 + i % 4, "languages": {"python": 1}, "layer": layer_of[n]}
                for i, n in enumerate(names)
            ],
            "dependencies": [
                {"from": a, "to": b, "edges": {"IMPORTS": 1, "CALLS": 2}} for a, b in sorted(deps)
            ],
            "package_cycles": cycles,
            "import_cycles": [],
        },
    }


graphs = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        st.just([f"pkg{i}/{'sub' * (i % 5)}" for i in range(n)]),
        st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
    )
)


@settings(max_examples=60, deadline=None)
@given(graphs)
def test_layout_promises(graph: tuple[list[str], set[tuple[int, int]]]) -> None:
    names, pairs = graph
    deps = {(names[a], names[b]) for a, b in pairs if a != b}
    answer_ = architecture_answer(names, deps)
    picture = picture_from_answer(answer_, "repo")
    nodes = {n.package: n for n in picture.nodes}
    assert set(nodes) == set(names)
    layer = {p["package"]: p["layer"] for p in answer_["data"]["packages"]}
    cycle_members = {p for c in answer_["data"]["package_cycles"] for p in c}
    for a, b in deps:
        # a dependency is drawn below its dependent, or in the same layer inside a cycle
        if layer[a] == layer[b]:
            assert a in cycle_members and b in cycle_members
        else:
            assert layer[a] > layer[b] and nodes[a].y < nodes[b].y
    rows: dict[float, list[Any]] = defaultdict(list)
    for n in picture.nodes:
        rows[n.y].append(n)
        assert n.x - n.width / 2 >= 0 and n.x + n.width / 2 <= picture.width
        assert n.y + n.height / 2 <= picture.height
    for row in rows.values():
        assert len({n.layer for n in row}) == 1  # a row holds one layer
        assert len(row) <= MAX_PER_ROW
        row.sort(key=lambda n: n.x)
        for left, right in itertools.pairwise(row):
            assert right.x - right.width / 2 - (left.x + left.width / 2) >= NODE_GAP - 0.2  # no overlap
        if len(row) > 1:
            assert sum(n.width for n in row) <= MAX_ROW_WIDTH
    marked = {n.package for n in picture.nodes if n.cycle is not None}
    assert marked == cycle_members
    assert {(e.source, e.target) for e in picture.edges if e.in_cycle} == {
        (a, b) for a, b in deps if a in cycle_members and nodes[a].cycle == nodes[b].cycle
    }
    assert picture_from_answer(answer_, "repo") == picture  # deterministic


def test_barycenter_sweeps_uncross_a_simple_case() -> None:
    # two parallel chains given in crossing order: top a1 -> b2, a2 -> b1 (names sort the other way)
    deps = {("a1", "b2"), ("a2", "b1")}
    picture = picture_from_answer(architecture_answer(["a1", "a2", "b1", "b2"], deps))
    x = {n.package: n.x for n in picture.nodes}
    assert (x["a1"] < x["a2"]) == (x["b2"] < x["b1"])  # the arrows do not cross


def test_guessed_dependencies_are_kept_apart() -> None:
    answer_ = architecture_answer(["a", "b", "c"], {("a", "b")})
    answer_["data"]["guessed_dependencies"] = [
        {"from": "a", "to": "c", "edges": {"CALLS": 3}},
        {"from": "a", "to": "b", "edges": {"CALLS": 1}},  # also resolved: one arrow, resolved
    ]
    edges = {(e.source, e.target): e for e in picture_from_answer(answer_).edges}
    assert edges[("a", "c")].guessed and not edges[("a", "b")].guessed
    assert edges[("a", "b")].counts == {"IMPORTS": 1, "CALLS": 2}


def test_a_trimmed_answer_draws_what_it_shows_and_says_so() -> None:
    answer_ = architecture_answer(["a", "b", "c"], {("a", "b"), ("a", "c")})
    answer_["data"]["packages"] = answer_["data"]["packages"][:2]  # c left out by the budget
    picture = picture_from_answer(answer_)
    assert picture.trimmed and {n.package for n in picture.nodes} == {"a", "b"}
    assert {(e.source, e.target) for e in picture.edges} == {("a", "b")}
    assert picture_to_dict(picture)["trimmed"] is True


def test_the_picture_of_a_real_answer(tmp_path) -> None:
    root = make_shop(tmp_path)
    arch = answer(root, operation="architecture", maxChars=200_000, limit=25)
    picture = picture_from_answer(arch, root.name)
    assert picture.name == "shop" and picture.generation == arch["view"]["generation"]
    assert {n.package for n in picture.nodes} == {p["package"] for p in arch["data"]["packages"]}
    assert picture.package_cycles == (("ring/left", "ring/right"),)
    central = [s.qualified_name for s in picture.central]
    assert central == [i["symbol"]["qualified_name"] for i in arch["items"] if i["kind"] == "central_symbol"]
    first = picture.central[0]
    item = next(i for i in arch["items"] if i["kind"] == "central_symbol")
    assert (first.path, first.start_line, first.end_line, first.sha256) == (
        item["anchor"]["path"],
        item["anchor"]["start_line"],
        item["anchor"]["end_line"],
        item["anchor"]["sha256"],
    )
    scoped = picture_from_answer(answer(root, operation="architecture", relativePath="ring"), root.name)
    assert scoped.name == "shop/ring"

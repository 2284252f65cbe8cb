"""PageRank, strongly connected components and layers (pure functions of graph/centrality.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.graph.centrality import layers, pagerank, strongly_connected


def test_pagerank_ranks_the_most_used_node_first() -> None:
    nodes = ["a", "b", "c", "hub", "leaf"]
    edges = [("a", "hub", 1.0), ("b", "hub", 1.0), ("c", "hub", 1.0), ("hub", "leaf", 1.0)]
    scores = pagerank(nodes, edges)
    assert sum(scores.values()) == pytest.approx(1.0)
    ranked = sorted(scores, key=scores.__getitem__, reverse=True)
    assert ranked[:2] == ["leaf", "hub"]  # hub passes its rank to its only callee
    assert scores["a"] == pytest.approx(scores["b"]) == pytest.approx(scores["c"])


def test_pagerank_weights_edges_by_confidence() -> None:
    scores = pagerank(["s", "sure", "guess"], [("s", "sure", 0.95), ("s", "guess", 0.25)])
    assert scores["sure"] > scores["guess"]


def test_pagerank_ignores_self_loops_unknown_nodes_and_handles_empty_graphs() -> None:
    assert pagerank([], []) == {}
    scores = pagerank(["x", "y"], [("x", "x", 1.0), ("x", "nowhere", 1.0)])
    assert scores == pytest.approx({"x": 0.5, "y": 0.5})


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.floats(0.01, 1.0)), max_size=40
            ),
        )
    )
)
def test_pagerank_is_a_distribution(graph: tuple[int, list[tuple[int, int, float]]]) -> None:
    n, edges = graph
    scores = pagerank(list(range(n)), edges)
    assert set(scores) == set(range(n))
    assert sum(scores.values()) == pytest.approx(1.0)
    assert all(s > 0 for s in scores.values())


def test_strongly_connected_components_and_layers() -> None:
    deps = {"api": ["svc"], "svc": ["db", "cache"], "cache": ["svc"], "db": [], "cli": ["api"]}
    components = strongly_connected(list(deps), deps)
    assert sorted(sorted(c) for c in components if len(c) > 1) == [["cache", "svc"]]
    # dependencies come before dependents
    order = {node: i for i, comp in enumerate(components) for node in comp}
    assert order["db"] < order["svc"] < order["api"] < order["cli"]
    level = layers(list(deps), deps)
    assert level == {"db": 0, "svc": 1, "cache": 1, "api": 2, "cli": 3}


def test_strongly_connected_handles_deep_chains_without_recursion() -> None:
    n = 20_000
    chain = {i: [i + 1] for i in range(n - 1)}
    chain[n - 1] = [0]  # one big cycle
    (component,) = strongly_connected(list(range(n)), chain)
    assert len(component) == n

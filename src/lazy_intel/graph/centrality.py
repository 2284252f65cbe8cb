"""Pure graph algorithms for ``architecture``: PageRank, strongly connected components, layers.

Inputs are plain node lists and edge tuples; nothing here reads the store.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from lazy_intel.lazy_import import lazy_module

np = lazy_module("numpy")  # imported on first use: light paths import this module too

N = TypeVar("N", bound=Hashable)

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE = 1e-10


def pagerank_arrays(
    count: int,
    src: np.ndarray,
    dst: np.ndarray,
    weights: np.ndarray,
    *,
    damping: float = DAMPING,
    max_iterations: int = MAX_ITERATIONS,
    tolerance: float = TOLERANCE,
) -> np.ndarray:
    """Weighted PageRank over node indices ``0..count-1``; rank flows from ``src`` to ``dst``.

    Dangling nodes spread their rank uniformly; the result sums to 1. Self-loops and non-positive
    weights are dropped.
    """
    if count == 0:
        return np.zeros(0)
    keep = (src != dst) & (weights > 0)
    src, dst, weights = src[keep], dst[keep], weights[keep].astype(np.float64)
    out_weight = np.bincount(src, weights=weights, minlength=count)
    dangling = out_weight == 0
    share = np.divide(weights, out_weight[src], out=np.zeros_like(weights), where=out_weight[src] > 0)
    rank = np.full(count, 1.0 / count)
    for _ in range(max_iterations):
        flow = np.bincount(dst, weights=rank[src] * share, minlength=count)
        new = (1.0 - damping) / count + damping * (flow + rank[dangling].sum() / count)
        done = float(np.abs(new - rank).sum()) < tolerance
        rank = new
        if done:
            break
    return rank / rank.sum()


def pagerank(
    nodes: Sequence[N],
    edges: Iterable[tuple[N, N, float]],
    *,
    damping: float = DAMPING,
) -> dict[N, float]:
    """:func:`pagerank_arrays` for hashable nodes; edges naming unknown nodes are ignored."""
    index = {node: i for i, node in enumerate(nodes)}
    triples = [(index[a], index[b], w) for a, b, w in edges if a in index and b in index]
    src = np.fromiter((t[0] for t in triples), dtype=np.int64, count=len(triples))
    dst = np.fromiter((t[1] for t in triples), dtype=np.int64, count=len(triples))
    weights = np.fromiter((t[2] for t in triples), dtype=np.float64, count=len(triples))
    rank = pagerank_arrays(len(nodes), src, dst, weights, damping=damping)
    return {node: float(rank[i]) for node, i in index.items()}


def strongly_connected(nodes: Sequence[N], adjacency: Mapping[N, Iterable[N]]) -> list[list[N]]:
    """Tarjan's algorithm, iterative; components in reverse topological order (sinks first)."""
    index_of: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    components: list[list[N]] = []
    counter = 0
    for root in nodes:
        if root in index_of:
            continue
        work: list[tuple[N, list[N]]] = [(root, list(adjacency.get(root, ())))]
        index_of[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index_of:
                    index_of[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, list(adjacency.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index_of[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index_of[node]:
                component: list[N] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def layers(nodes: Sequence[N], adjacency: Mapping[N, Iterable[N]]) -> dict[N, int]:
    """Layer of each node in a dependency graph (``adjacency[a]`` = what ``a`` depends on).

    Layer 0 depends on nothing inside the graph; otherwise one more than the highest layer it
    depends on. The members of a cycle share a layer (computed on the condensation).
    """
    components = strongly_connected(nodes, adjacency)  # dependencies come before dependents
    component_of = {node: i for i, comp in enumerate(components) for node in comp}
    level: dict[int, int] = {}
    for i, comp in enumerate(components):
        deps = {component_of[d] for n in comp for d in adjacency.get(n, ()) if d in component_of} - {i}
        level[i] = 1 + max((level[d] for d in deps), default=-1)
    return {node: level[component_of[node]] for node in component_of}

"""Pure graph algorithms for ``architecture``: PageRank, strongly connected components, layers.

Inputs are plain node lists and edge tuples; nothing here reads the store.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np

N = TypeVar("N", bound=Hashable)

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE = 1e-10


def pagerank(
    nodes: Sequence[N],
    edges: Iterable[tuple[N, N, float]],
    *,
    damping: float = DAMPING,
    max_iterations: int = MAX_ITERATIONS,
    tolerance: float = TOLERANCE,
) -> dict[N, float]:
    """Weighted PageRank; rank flows from ``src`` to ``dst`` (a callee of many ranks high).

    Dangling nodes spread their rank uniformly. Scores sum to 1. Edges naming unknown nodes are
    ignored; self-loops are dropped.
    """
    count = len(nodes)
    if count == 0:
        return {}
    index = {node: i for i, node in enumerate(nodes)}
    src_list: list[int] = []
    dst_list: list[int] = []
    weight_list: list[float] = []
    for src, dst, weight in edges:
        i, j = index.get(src), index.get(dst)
        if i is None or j is None or i == j or weight <= 0:
            continue
        src_list.append(i)
        dst_list.append(j)
        weight_list.append(weight)
    src_idx = np.asarray(src_list, dtype=np.int64)
    dst_idx = np.asarray(dst_list, dtype=np.int64)
    weights = np.asarray(weight_list, dtype=np.float64)
    out_weight = np.bincount(src_idx, weights=weights, minlength=count) if src_list else np.zeros(count)
    dangling = out_weight == 0
    share = np.divide(weights, out_weight[src_idx], out=np.zeros_like(weights), where=out_weight[src_idx] > 0)
    rank = np.full(count, 1.0 / count)
    for _ in range(max_iterations):
        flow = np.bincount(dst_idx, weights=rank[src_idx] * share, minlength=count)
        new = (1.0 - damping) / count + damping * (flow + rank[dangling].sum() / count)
        done = float(np.abs(new - rank).sum()) < tolerance
        rank = new
        if done:
            break
    rank = rank / rank.sum()
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

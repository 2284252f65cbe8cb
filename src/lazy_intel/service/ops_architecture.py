"""``architecture``: packages, the dependency graph between them, layers, entry points, cycles and
the most central symbols (PageRank over resolved call/reference/inheritance/import edges).

A package is a directory holding parsed files. Package A depends on package B when a file of A has
a resolved IMPORTS, CALLS, REFERENCES, INHERITS or IMPLEMENTS edge to a node of a file of B. An edge
tied by name alone (``unique-name``, ``ambiguous``) is no evidence of a dependency: such pairs are
listed apart with their confidence, and layers and cycles ignore them (a test package whose helper
names a call in the code under test resolves to is not a cycle). The
structure goes into ``data`` (trimmed to fit the budget, saying so); entry points and central
symbols are anchored items.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import InvalidArgument, NotFound
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.centrality import layers, pagerank_arrays, strongly_connected
from lazy_intel.graph.queries import NODE_COLUMNS, GraphNode, nodes_by_ids
from lazy_intel.graph.rows import NAME_GUESS_STRATEGIES
from lazy_intel.lazy_import import lazy_module
from lazy_intel.service.context import OperationContext
from lazy_intel.service.graph_evidence import GraphReader, describe, language_coverage, need_graph, node_item
from lazy_intel.service.history import open_signals
from lazy_intel.service.hotspots import hotspots
from lazy_intel.store.reader import ReadView
from lazy_intel.workspace.root import contained_relative_path

np = lazy_module("numpy")  # imported on first use: light paths import this module too

DEPENDENCY_TYPES = ("IMPORTS", "CALLS", "REFERENCES", "INHERITS", "IMPLEMENTS")
CENTRALITY_TYPES = ("CALLS", "REFERENCES", "INHERITS", "IMPLEMENTS", "OVERRIDES", "IMPORTS")
CENTRAL_LABELS = frozenset({"Class", "Interface", "Function", "Method", "Type"})
ENTRY_FILE = re.compile(r"(^|/)(__main__\.py|manage\.py|main\.(go|rs|py|c|cc|cpp|java|kt|swift|ts|js))$")
ENTRY_FUNCTIONS = frozenset({"main", "Main"})
MAX_ENTRY_POINTS = 20
MAX_CYCLES = 10
CENTRAL_CANDIDATES = 400
DATA_CAPS = (60, 30, 15, 8, 4, 2, 0)


def _package(path: str) -> str:
    return posixpath.dirname(path) or "."


def _scope(ctx: OperationContext) -> str | None:
    request = ctx.request
    if not request.relative_path:
        return None
    prefix = contained_relative_path(ctx.workspace.root, request.relative_path).rstrip("/")
    return prefix or None


def _in_scope(path: str | None, prefix: str | None) -> bool:
    if path is None:
        return False
    return prefix is None or path == prefix or path.startswith(prefix + "/")


def _file_langs(conn: sqlite3.Connection, prefix: str | None) -> dict[str, str | None]:
    rows = conn.execute("SELECT path, lang FROM nodes WHERE label='File'")
    return {path: lang for path, lang in rows if _in_scope(path, prefix)}


@dataclass
class Guessed:
    """Edges between two files (or packages) tied by name alone: counts, strategies, best confidence."""

    edges: dict[str, int] = field(default_factory=dict)
    strategies: dict[str, int] = field(default_factory=dict)
    confidence: float = 0.0

    def add(self, kind: str, strategy: str, count: int, confidence: float) -> None:
        self.edges[kind] = self.edges.get(kind, 0) + count
        self.strategies[strategy] = self.strategies.get(strategy, 0) + count
        self.confidence = max(self.confidence, confidence)

    def merge(self, other: Guessed) -> None:
        for kind, n in other.edges.items():
            self.edges[kind] = self.edges.get(kind, 0) + n
        for strategy, n in other.strategies.items():
            self.strategies[strategy] = self.strategies.get(strategy, 0) + n
        self.confidence = max(self.confidence, other.confidence)


def _file_dependencies(
    conn: sqlite3.Connection, files: dict[str, str | None]
) -> tuple[dict[tuple[str, str], dict[str, int]], dict[tuple[str, str], Guessed]]:
    """(resolved dependencies, name guesses) between files: an edge whose strategy is a guess by
    name alone (:data:`NAME_GUESS_STRATEGIES`) never counts as a dependency."""
    marks = ",".join("?" * len(DEPENDENCY_TYPES))
    rows = conn.execute(
        "SELECT e.type, e.strategy, e.path, n.path, count(*), max(e.confidence) FROM edges e "
        "JOIN nodes n ON n.id = e.dst "
        f"WHERE e.dst IS NOT NULL AND e.type IN ({marks}) AND e.path IS NOT NULL AND n.path IS NOT NULL "
        "AND n.path != e.path GROUP BY e.type, e.strategy, e.path, n.path",
        DEPENDENCY_TYPES,
    )
    out: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    guessed: dict[tuple[str, str], Guessed] = defaultdict(Guessed)
    for kind, strategy, src, dst, count, confidence in rows:
        if src not in files or dst not in files:
            continue
        if strategy in NAME_GUESS_STRATEGIES:
            guessed[(src, dst)].add(kind, strategy, count, confidence)
        else:
            out[(src, dst)][kind] = out[(src, dst)].get(kind, 0) + count
    return out, guessed


def _central(
    conn: sqlite3.Connection, prefix: str | None, limit: int
) -> tuple[list[tuple[GraphNode, float]], int]:
    marks = ",".join("?" * len(CENTRALITY_TYPES))
    rows = conn.execute(
        f"SELECT src, dst, confidence FROM edges WHERE dst IS NOT NULL AND type IN ({marks}) AND src != dst",
        CENTRALITY_TYPES,
    ).fetchall()
    src = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    dst = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    weights = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    ids, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
    scores = pagerank_arrays(len(ids), inverse[: len(rows)], inverse[len(rows) :], weights)
    top = np.lexsort((ids, -scores))[:CENTRAL_CANDIDATES]
    ranked = [(int(ids[i]), float(scores[i])) for i in top]
    found = nodes_by_ids(conn, [n for n, _ in ranked])
    out: list[tuple[GraphNode, float]] = []
    for node_id, score in ranked:
        node = found.get(node_id)
        if node is not None and node.label in CENTRAL_LABELS and _in_scope(node.path, prefix):
            out.append((node, score))
            if len(out) >= limit:
                break
    return out, len(ids)


def _entry_points(conn: sqlite3.Connection, prefix: str | None) -> list[tuple[GraphNode, str]]:
    out: list[tuple[GraphNode, str]] = []
    rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE (label='Function' AND name IN ('main', 'Main')) "
        "OR (label='Method' AND name IN ('main', 'Main')) OR label='File' ORDER BY path, start_byte"
    )
    for row in rows:
        node = GraphNode.from_row(row)
        if not _in_scope(node.path, prefix):
            continue
        if node.label == "File":
            if ENTRY_FILE.search(node.path or "") and not node.is_test:
                out.append((node, "entry file"))
        elif not node.is_test:
            out.append((node, "main function"))
    return out[:MAX_ENTRY_POINTS]


@dataclass(frozen=True)
class Structure:
    """What ``architecture`` computed for one (store, generation, scope, limit)."""

    items: tuple[Item, ...]
    coverage: tuple[str, ...]
    files: int
    packages: dict[str, dict[str, Any]]
    names: list[str]
    ordered: list[str]
    deps_sorted: list[tuple[tuple[str, str], dict[str, int]]]
    layer_of: dict[str, int]
    route_count: dict[str, int]
    package_cycles: list[list[str]]
    file_cycles: list[list[str]]
    guesses_sorted: list[tuple[tuple[str, str], Guessed]]


_CACHE: OrderedDict[tuple[str, int, str | None, int], Structure] = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHE_ENTRIES = 8


def _cached_structure(view: ReadView, prefix: str | None, limit: int) -> Structure:
    """The structure of a published view never changes, so it is computed once per generation."""
    key = (str(view.store_path), view.generation, prefix, limit)
    with _CACHE_LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
            return found
    structure = _structure(view, prefix, limit)
    with _CACHE_LOCK:
        _CACHE[key] = structure
        while len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return structure


def clear_architecture_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def _structure(view: ReadView, prefix: str | None, limit: int) -> Structure:
    conn = view.conn
    files = _file_langs(conn, prefix)
    if not files:
        raise NotFound(f"no parsed files under {prefix!r} in generation {view.generation}")
    packages: dict[str, dict[str, Any]] = {}
    for path, lang in files.items():
        entry = packages.setdefault(_package(path), {"files": 0, "languages": {}})
        entry["files"] += 1
        if lang:
            entry["languages"][lang] = entry["languages"].get(lang, 0) + 1
    file_deps, file_guesses = _file_dependencies(conn, files)
    package_deps: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    import_graph: dict[str, set[str]] = defaultdict(set)
    for (src, dst), kinds in file_deps.items():
        if "IMPORTS" in kinds:
            import_graph[src].add(dst)
        a, b = _package(src), _package(dst)
        if a != b:
            for kind, n in kinds.items():
                package_deps[(a, b)][kind] = package_deps[(a, b)].get(kind, 0) + n
    package_guesses: dict[tuple[str, str], Guessed] = defaultdict(Guessed)
    for (src, dst), guess in file_guesses.items():
        a, b = _package(src), _package(dst)
        if a != b and (a, b) not in package_deps:  # pairs linked by name guesses only
            package_guesses[(a, b)].merge(guess)
    names = sorted(packages)
    adjacency: dict[str, set[str]] = defaultdict(set)
    for a, b in package_deps:
        adjacency[a].add(b)
    layer_of = layers(names, adjacency)
    package_cycles = [sorted(c) for c in strongly_connected(names, adjacency) if len(c) > 1]
    file_cycles = [sorted(c) for c in strongly_connected(sorted(files), import_graph) if len(c) > 1]
    routes = dict(
        conn.execute("SELECT path, count(*) FROM nodes WHERE label='Route' GROUP BY path").fetchall()
    )
    route_count: dict[str, int] = defaultdict(int)
    for path, n in routes.items():
        if _in_scope(path, prefix):
            route_count[_package(path)] += n
    central, graph_size = _central(conn, prefix, limit)
    entries = _entry_points(conn, prefix)
    reader = GraphReader(view)
    reader.prefetch_paths([n.path for n, _ in central] + [n.path for n, _ in entries])
    items: list[Item] = []
    for node, why in entries:
        item = node_item(reader, node, kind="entry_point", text=f"{why}: {describe(node)}")
        if item is not None:
            items.append(item)
    for rank, (node, score) in enumerate(central, 1):
        item = node_item(
            reader, node, kind="central_symbol", text=f"#{rank} by PageRank: {describe(node)}", score=score
        )
        if item is not None:
            items.append(item)
    coverage = [
        "graph: packages are directories of parsed files; dependencies are resolved edges between files "
        "(unresolved and external uses are not counted)",
        *(
            [
                f"{len(package_guesses)} package dependenc(ies) rest only on edges tied by name alone "
                f"({', '.join(NAME_GUESS_STRATEGIES)}, confidence at most "
                f"{max(g.confidence for g in package_guesses.values()):.2f}): listed apart in "
                "data.guessed_dependencies, not counted in dependencies, layers or cycles"
            ]
            if package_guesses
            else []
        ),
        f"central symbols: PageRank over {graph_size} nodes joined by resolved "
        + ", ".join(CENTRALITY_TYPES)
        + " edges",
        *language_coverage(files.values()),
    ]
    if route_count:
        coverage.append(f"{sum(route_count.values())} HTTP route(s) recognised; see operation routes")
    ordered = sorted(names, key=lambda p: (-packages[p]["files"], p))
    deps_sorted = sorted(package_deps.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    guesses_sorted = sorted(package_guesses.items(), key=lambda kv: (-sum(kv[1].edges.values()), kv[0]))
    return Structure(
        tuple(items),
        tuple(coverage),
        len(files),
        packages,
        names,
        ordered,
        deps_sorted,
        layer_of,
        dict(route_count),
        package_cycles,
        file_cycles,
        guesses_sorted,
    )


def op_architecture(ctx: OperationContext) -> Answer:
    view = need_graph(ctx)
    prefix = _scope(ctx)
    st = _cached_structure(view, prefix, ctx.request.limit)
    with open_signals(ctx) as history:
        spots = hotspots(ctx, history, prefix, ctx.request.limit)
    for cap in DATA_CAPS:
        shown = st.ordered[:cap] if cap else []
        data = {
            "source": "index",
            "scope": prefix or ".",
            "files": st.files,
            "package_count": len(st.names),
            "packages": [
                {
                    "package": p,
                    "files": st.packages[p]["files"],
                    "languages": st.packages[p]["languages"],
                    "layer": st.layer_of.get(p, 0),
                    **({"routes": st.route_count[p]} if st.route_count.get(p) else {}),
                }
                for p in shown
            ],
            "dependency_count": len(st.deps_sorted),
            "dependencies": [
                {"from": a, "to": b, "edges": kinds} for (a, b), kinds in st.deps_sorted[: cap * 2]
            ],
            "guessed_dependency_count": len(st.guesses_sorted),
            "guessed_dependencies": [
                {
                    "from": a,
                    "to": b,
                    "edges": dict(g.edges),
                    "strategies": dict(g.strategies),
                    "confidence": round(g.confidence, 3),
                }
                for (a, b), g in st.guesses_sorted[:cap]
            ],
            "layers": _layer_lists(st.layer_of, cap),
            "package_cycles": st.package_cycles[: min(cap, MAX_CYCLES)],
            "import_cycles": st.file_cycles[: min(cap, MAX_CYCLES)],
            **spots.data(cap),
        }
        trimmed = [*st.coverage, spots.note]
        if len(shown) < len(st.names) or cap * 2 < len(st.deps_sorted):
            trimmed.append(
                f"data shows {len(shown)} of {len(st.names)} packages (most files first) and "
                f"{min(cap * 2, len(st.deps_sorted))} of {len(st.deps_sorted)} package dependencies (most edges "
                "first); pass relativePath to zoom into a directory or raise maxChars"
            )
        try:
            return fit_answer(
                "architecture",
                [*st.items, *spots.items],
                max_chars=ctx.request.max_chars,
                view=ctx.view_info,
                coverage=trimmed,
                warnings=ctx.warnings,
                data=data,
                ok_without_items=True,
            )
        except InvalidArgument:
            if cap == 0:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _layer_lists(layer_of: dict[str, int], cap: int) -> list[dict[str, Any]]:
    grouped: dict[int, list[str]] = defaultdict(list)
    for package, level in layer_of.items():
        grouped[level].append(package)
    out = []
    for level in sorted(grouped):
        members = sorted(grouped[level])
        out.append({"layer": level, "count": len(members), "packages": members[:cap]})
    return out

"""Read queries over the graph tables: node and edge lookups and bounded breadth-first traversal.

Everything here takes a ``sqlite3.Connection`` (a read view's) and returns frozen records; the
operations in ``lazy_intel.service.ops.ops_graph`` turn them into evidence. Traversal is level by level
with one batched query per level, bounded by depth and by a node budget, and it says when either
bound cut it short, so an empty result can be told apart from an unexplored one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from lazy_intel.store.schema import TARGET_LAST_NAME_SQL

NODE_COLUMNS = (
    "id, label, labels, name, qualified_name, kind, path, lang, start_byte, end_byte, start_line, end_line, "
    "properties"
)
EDGE_COLUMNS = "type, src, dst, strategy, confidence, target, path, start_byte, end_byte, line, properties"
BATCH = 500

# edge types a caller/dependent relation follows
CALL_TYPES = ("CALLS",)
REFERENCE_TYPES = ("CALLS", "REFERENCES", "IMPORTS", "INHERITS", "IMPLEMENTS")
IMPACT_TYPES = ("CALLS", "REFERENCES", "IMPORTS", "INHERITS", "IMPLEMENTS", "OVERRIDES")
SYMBOL_LABELS = frozenset({"Class", "Interface", "Function", "Method", "Type", "Variable"})


def _props(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class GraphNode:
    id: int
    label: str
    labels: tuple[str, ...]
    name: str
    qualified_name: str
    kind: str | None
    path: str | None
    lang: str | None
    start_byte: int | None
    end_byte: int | None
    start_line: int | None
    end_line: int | None
    properties_json: str | None = None

    @property
    def properties(self) -> dict[str, Any]:
        return _props(self.properties_json)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> GraphNode:
        return cls(
            int(row[0]),
            row[1],
            tuple(str(row[2]).split()),
            row[3],
            row[4],
            row[5],
            row[6],
            row[7],
            row[8],
            row[9],
            row[10],
            row[11],
            row[12],
        )

    @property
    def is_test(self) -> bool:
        return "Test" in self.labels


@dataclass(frozen=True)
class GraphEdge:
    type: str
    src: int
    dst: int | None
    strategy: str
    confidence: float
    target: str | None
    path: str | None
    start_byte: int | None
    end_byte: int | None
    line: int | None
    properties_json: str | None = None

    @property
    def properties(self) -> dict[str, Any]:
        return _props(self.properties_json)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> GraphEdge:
        return cls(*row[:11])

    @property
    def site(self) -> tuple[str | None, int | None, int | None]:
        return (self.path, self.start_byte, self.end_byte)


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _batched(ids: Iterable[int]) -> Iterable[list[int]]:
    batch: list[int] = []
    for value in ids:
        batch.append(value)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def has_graph(conn: sqlite3.Connection) -> bool:
    """Whether the store has graph tables with anything in them."""
    try:
        return conn.execute("SELECT 1 FROM nodes LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def _rows_by_ids(conn: sqlite3.Connection, table: str, columns: str, ids: Iterable[int]) -> Iterator[Any]:
    """``SELECT columns FROM table`` for the rows whose ``id`` is in ``ids`` (distinct, in batches)."""
    for batch in _batched(dict.fromkeys(ids)):
        yield from conn.execute(f"SELECT {columns} FROM {table} WHERE id IN ({_marks(len(batch))})", batch)


def nodes_by_ids(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, GraphNode]:
    return {int(row[0]): GraphNode.from_row(row) for row in _rows_by_ids(conn, "nodes", NODE_COLUMNS, ids)}


def node_paths(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, str | None]:
    """The path of each node of ``ids`` that exists (what a sort by path needs, not whole rows)."""
    return {int(node_id): path for node_id, path in _rows_by_ids(conn, "nodes", "id, path", ids)}


def tests_edges_into(
    conn: sqlite3.Connection, ids: Iterable[int]
) -> Iterator[tuple[int, int, str, float, str | None]]:
    """``(src, dst, strategy, confidence, target)`` of the TESTS edges into ``ids``, in the order
    :func:`edges_into` gives them."""
    for batch in _batched(dict.fromkeys(ids)):
        sql = (
            f"SELECT src, dst, strategy, confidence, target FROM edges WHERE dst IN ({_marks(len(batch))}) "
            "AND type IN (?) ORDER BY path, start_byte, id"
        )
        yield from conn.execute(sql, [*batch, "TESTS"])


def definition_node(
    conn: sqlite3.Connection, path: str, qualified_name: str, start_byte: int
) -> GraphNode | None:
    """The node of an indexed definition (a ``symbols`` row: path, qualified name, start byte)."""
    row = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE path=? AND start_byte=? AND qualified_name=? "
        "AND label NOT IN ('File', 'Route') ORDER BY id LIMIT 1",
        (path, start_byte, qualified_name),
    ).fetchone()
    return GraphNode.from_row(row) if row else None


def file_node(conn: sqlite3.Connection, path: str) -> GraphNode | None:
    row = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE path=? AND label='File' LIMIT 1", (path,)
    ).fetchone()
    return GraphNode.from_row(row) if row else None


def nodes_in_file(
    conn: sqlite3.Connection, path: str, labels: Collection[str] | None = None
) -> list[GraphNode]:
    rows = conn.execute(f"SELECT {NODE_COLUMNS} FROM nodes WHERE path=? ORDER BY start_byte, id", (path,))
    nodes = [GraphNode.from_row(r) for r in rows]
    return [n for n in nodes if labels is None or n.label in labels]


def nodes_with_label(conn: sqlite3.Connection, label: str, limit: int = 100_000) -> list[GraphNode]:
    rows = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE label=? ORDER BY path, start_byte LIMIT ?", (label, limit)
    )
    return [GraphNode.from_row(r) for r in rows]


def innermost_definition(conn: sqlite3.Connection, path: str, line: int) -> GraphNode | None:
    """The smallest definition (not a local variable) whose span holds 1-based ``line`` of ``path``."""
    row = conn.execute(
        f"SELECT {NODE_COLUMNS} FROM nodes WHERE path=? AND start_line<=? AND end_line>=? "
        "AND label IN ('Class', 'Interface', 'Function', 'Method', 'Type') "
        "ORDER BY (end_byte - start_byte), start_byte LIMIT 1",
        (path, line, line),
    ).fetchone()
    return GraphNode.from_row(row) if row else None


def edges_into(conn: sqlite3.Connection, ids: Iterable[int], types: Sequence[str]) -> list[GraphEdge]:
    out: list[GraphEdge] = []
    for batch in _batched(dict.fromkeys(ids)):
        sql = (
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE dst IN ({_marks(len(batch))}) "
            f"AND type IN ({_marks(len(types))}) ORDER BY path, start_byte, id"
        )
        out.extend(GraphEdge.from_row(r) for r in conn.execute(sql, [*batch, *types]))
    return out


def resolved_edges_in_files(
    conn: sqlite3.Connection, paths: Iterable[str], types: Sequence[str], ending: Collection[str] = ()
) -> list[GraphEdge]:
    """The resolved ``types`` edges made from the facts of the files at ``paths`` (their sites are
    in those files), by site; with ``ending``, only those whose written ``target`` may end with one
    of those names (SQL ``LIKE``, a superset: the caller checks the name exactly)."""
    out: list[GraphEdge] = []
    wanted = list(dict.fromkeys(paths))
    names = sorted(ending)
    named = f" AND ({' OR '.join(['target LIKE ?'] * len(names))})" if names else ""
    for start in range(0, len(wanted), 500):
        batch = wanted[start : start + 500]
        sql = (
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE file_key IN "
            f"(SELECT file_key FROM graph_files WHERE path IN ({_marks(len(batch))})) "
            f"AND type IN ({_marks(len(types))}) AND dst IS NOT NULL{named} ORDER BY path, start_byte, id"
        )
        args = [*batch, *types, *("%" + n for n in names)]
        out.extend(GraphEdge.from_row(r) for r in conn.execute(sql, args))
    return out


def edges_out_of(
    conn: sqlite3.Connection, ids: Iterable[int], types: Sequence[str], *, resolved_only: bool = False
) -> list[GraphEdge]:
    out: list[GraphEdge] = []
    for batch in _batched(dict.fromkeys(ids)):
        sql = (
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE src IN ({_marks(len(batch))}) "
            f"AND type IN ({_marks(len(types))})"
            + (" AND dst IS NOT NULL" if resolved_only else "")
            + " ORDER BY path, start_byte, id"
        )
        out.extend(GraphEdge.from_row(r) for r in conn.execute(sql, [*batch, *types]))
    return out


def edge_ends(
    conn: sqlite3.Connection, ids: Iterable[int], types: Sequence[str], *, incoming: bool
) -> set[int]:
    """The nodes one resolved ``types`` edge away from ``ids``: the sources of the edges into them
    (``incoming``) or the destinations of the edges out of them. The ends only, unordered: what
    :func:`edges_into` / :func:`edges_out_of` would return, reduced to ``src`` / ``dst``."""
    near, far = ("dst", "src") if incoming else ("src", "dst")
    out: set[int] = set()
    for batch in _batched(dict.fromkeys(ids)):
        sql = (
            f"SELECT DISTINCT {far} FROM edges WHERE {near} IN ({_marks(len(batch))}) "
            f"AND type IN ({_marks(len(types))}) AND {far} IS NOT NULL"
        )
        out.update(row[0] for row in conn.execute(sql, [*batch, *types]))
    return out


def members(conn: sqlite3.Connection, ids: Iterable[int]) -> list[int]:
    """Definitions directly inside the given ones (DEFINES children: methods of a class, …)."""
    return [e.dst for e in edges_out_of(conn, ids, ("DEFINES",), resolved_only=True) if e.dst is not None]


def unresolved_named(
    conn: sqlite3.Connection, name: str, types: Sequence[str] = CALL_TYPES, limit: int = 10_000
) -> list[GraphEdge]:
    """Unresolved sites whose written target ends with ``name`` (``name``, ``x.name``, ``a.b.name``):
    the sites that could be uses of a symbol called ``name`` but were not resolved to anything."""
    escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    # A name without a dot is the last component of every target it matches (LIKE is ASCII
    # case-insensitive: so is the index), so the index of unresolved targets' last names
    # (``edges_unresolved_name``) narrows to the candidates and the old condition decides; a dotted
    # name keeps the scan of every unresolved target: a covering scan of their partial index, which
    # beats the planner's choice (edges_dst on dst IS NULL reads every unresolved row of the table).
    narrow = f"AND {TARGET_LAST_NAME_SQL} = lower(?) " if "." not in name else ""
    hint = "" if narrow else "INDEXED BY edges_unresolved "
    sql = (
        f"SELECT {EDGE_COLUMNS} FROM edges {hint}"
        f"WHERE dst IS NULL {narrow}AND (target = ? OR target LIKE ? ESCAPE '\\') "
        f"AND strategy IN ('unresolved', 'lambda') AND type IN ({_marks(len(types))}) "
        "ORDER BY path, start_byte LIMIT ?"
    )
    params = [name] if narrow else []
    rows = conn.execute(sql, [*params, name, "%." + escaped, *types, limit])
    return [GraphEdge.from_row(r) for r in rows]


def file_hashes(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    wanted = list(dict.fromkeys(p for p in paths if p))
    for start in range(0, len(wanted), BATCH):
        batch = wanted[start : start + BATCH]
        for path, sha in conn.execute(
            f"SELECT path, sha256 FROM files WHERE path IN ({_marks(len(batch))})", batch
        ):
            out[path] = sha
    return out


# ---- traversal ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reached:
    """A node reached by a traversal: how far, how sure (product of edge confidences along the best
    path found at that distance), and the edge it was first reached by."""

    node: int
    distance: int
    confidence: float
    via: GraphEdge
    parent: int


@dataclass(frozen=True)
class Hop:
    """One traversed edge with the distance of the node it leads to."""

    edge: GraphEdge
    distance: int
    confidence: float


@dataclass(frozen=True)
class Traversal:
    reached: tuple[Reached, ...]
    hops: tuple[Hop, ...]
    depth: int
    beyond: int  # nodes one step past the depth limit that were not followed
    node_limited: bool  # the node budget stopped the walk early

    @property
    def depth_limited(self) -> bool:
        return self.beyond > 0


def _lean_steps(
    conn: sqlite3.Connection, frontier: Iterable[int], types: Sequence[str], *, incoming: bool
) -> Iterator[tuple[int, int, int, float]]:
    """``(edge id, here, there, confidence)`` of the resolved ``types`` edges at the frontier, in the
    order :func:`edges_into` / :func:`edges_out_of` give them (per batch, by site), without their
    other columns."""
    near, far = ("dst", "src") if incoming else ("src", "dst")
    for batch in _batched(dict.fromkeys(frontier)):
        sql = (
            f"SELECT id, {near}, {far}, confidence FROM edges WHERE {near} IN ({_marks(len(batch))}) "
            f"AND type IN ({_marks(len(types))}) AND {far} IS NOT NULL ORDER BY path, start_byte, id"
        )
        for edge_id, here, there, confidence in conn.execute(sql, [*batch, *types]):
            yield int(edge_id), here, there, confidence


def edges_by_ids(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, GraphEdge]:
    return {
        int(row[11]): GraphEdge.from_row(row)
        for row in _rows_by_ids(conn, "edges", f"{EDGE_COLUMNS}, id", ids)
    }


def traverse(
    conn: sqlite3.Connection,
    start: Iterable[int],
    *,
    types: Sequence[str],
    incoming: bool,
    depth: int,
    max_nodes: int = 5_000,
    hops: bool = True,
) -> Traversal:
    """Breadth-first walk from ``start`` along ``types`` edges, against them when ``incoming``
    (callers, dependents) or with them (callees). Unresolved edges are never followed.

    ``hops=False`` (impact, changes, implementations: they read the nodes reached, not every edge
    walked): the walk reads each edge's ends and confidence only, and the whole rows of just the
    edges that reached a node, at the end; the same nodes, distances, confidences and ``via`` edges
    (at depth 3 on the 100k tree: 14k edges walked for 5k reached, 0.55x the time)."""
    starts = list(dict.fromkeys(start))
    seen: dict[int, float] = {s: 1.0 for s in starts}
    frontier: dict[int, float] = dict(seen)
    reached: list[
        tuple[int, int, float, int | GraphEdge, int]
    ] = []  # node, distance, confidence, via, parent
    position: dict[int, int] = {}
    walked: list[Hop] = []
    node_limited = False
    for level in range(1, depth + 1):
        if not frontier:
            break
        steps: Iterable[tuple[int | GraphEdge, int | None, int | None, float]]
        if hops:
            fetched = (
                edges_into(conn, frontier, types)
                if incoming
                else edges_out_of(conn, frontier, types, resolved_only=True)
            )
            steps = (
                (e, e.dst, e.src, e.confidence) if incoming else (e, e.src, e.dst, e.confidence)
                for e in fetched
            )
        else:
            steps = _lean_steps(conn, frontier, types, incoming=incoming)
        following: dict[int, float] = {}
        for edge, here, there, edge_confidence in steps:
            if here is None or there is None:
                continue
            confidence = frontier[here] * edge_confidence
            if isinstance(edge, GraphEdge):
                walked.append(Hop(edge, level, confidence))
            if there in seen and there not in following:
                continue
            if there in following:
                if confidence > following[there]:
                    following[there] = confidence
                    reached[position[there]] = (there, level, confidence, edge, here)
                continue
            if len(seen) >= max_nodes:
                node_limited = True
                continue
            seen[there] = confidence
            following[there] = confidence
            position[there] = len(reached)
            reached.append((there, level, confidence, edge, here))
        frontier = following
    beyond = 0
    if frontier and not node_limited:
        # only counted: the distinct ends one hop further, not whole edge rows in site order (at
        # depth 3 on a large tree that last level is the widest of the walk)
        beyond = len(edge_ends(conn, frontier, types, incoming=incoming) - set(seen))
    vias = {} if hops else edges_by_ids(conn, [r[3] for r in reached if isinstance(r[3], int)])
    out = tuple(
        Reached(node, distance, confidence, via if isinstance(via, GraphEdge) else vias[via], parent)
        for node, distance, confidence, via, parent in reached
    )
    return Traversal(out, tuple(walked), depth, beyond, node_limited)

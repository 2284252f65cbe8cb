"""Structural priors from the code graph: proximity to the names a query mentions, and centrality.

Two per-query signals, both bounded and both cheap (no whole-graph computation per query):

- **proximity** — definitions one *resolved* edge (``CALLS``, ``REFERENCES``, ``INHERITS``,
  ``IMPLEMENTS``, ``OVERRIDES``; either direction) away from a node whose name equals an identifier
  the query mentions. An edge contributes ``mention weight x specificity x edge confidence``, where
  specificity ``1 / (1 + ln n)`` discounts a name defined ``n`` times. Nodes map to symbol ids by
  (path, start byte) and are summed per file.
- **centrality** — for the candidate files the other signals already gathered (at most
  :data:`MAX_CENTRALITY_FILES`), ``ln(1 + resolved in-degree from other files)``.

SQL is built by pure functions (``*_sql``) and scores by pure functions (``score_*``);
:func:`compute_priors` runs them against one :class:`~lazy_intel.store.reader.ReadView`. Without a
graph (no ``nodes`` rows) there are no priors and the coverage line says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lazy_intel.search.query import QueryAnalysis
from lazy_intel.search.rerank import specificity
from lazy_intel.store.reader import ReadView

# Edge types that say one definition uses or specialises another (not containment or imports).
PROXIMITY_EDGE_TYPES = ("CALLS", "REFERENCES", "INHERITS", "IMPLEMENTS", "OVERRIDES")
# Node labels that are containers, not definitions: never seeds, never neighbours.
CONTAINER_LABELS = ("File", "Module")
MAX_PRIOR_IDENTIFIERS = 16  # identifiers of the query used as seeds (highest weight first)
MAX_SEEDS_PER_NAME = 50  # a name defined more often says little about where to look: skipped
MAX_EDGES_PER_NAME = 500  # neighbour rows read per seed name
MAX_CENTRALITY_FILES = 100  # candidate files whose in-degree is looked up
MIN_CONFIDENCE = 0.5  # edges below this (unresolved, external, builtin) do not count


@dataclass(frozen=True)
class StructuralPriors:
    """Prior scores per file path and per symbol id (higher = likelier), from the property graph.

    ``files`` and ``symbols`` are proximity; ``central_files`` is centrality of candidate files.
    """

    files: Mapping[str, float] = field(default_factory=dict)
    symbols: Mapping[int, float] = field(default_factory=dict)
    central_files: Mapping[str, float] = field(default_factory=dict)
    coverage: tuple[str, ...] = ()


@dataclass(frozen=True)
class Neighbour:
    """One resolved edge between a seed (named by the query) and another definition."""

    seed_name: str
    edge_type: str
    confidence: float
    path: str
    start_byte: int | None
    symbol_id: int | None


NO_GRAPH_COVERAGE = "graph: no code graph in this index; structural priors (proximity, centrality) skipped"


# ---- SQL builders (pure)
def seed_count_sql() -> str:
    marks = ",".join("?" * len(CONTAINER_LABELS))
    return f"SELECT count(*) FROM (SELECT 1 FROM nodes WHERE name = ? AND label NOT IN ({marks}) LIMIT ?)"


def neighbours_sql() -> tuple[str, tuple[object, ...]]:
    """Rows (edge type, confidence, path, start byte, symbol id) one resolved edge from seeds named ``?``.

    Parameters after the returned fixed ones: name, then the row limit.
    """
    types = ",".join("?" * len(PROXIMITY_EDGE_TYPES))
    labels = ",".join("?" * len(CONTAINER_LABELS))
    sql = (
        f"WITH seeds AS (SELECT id FROM nodes WHERE name = ? AND label NOT IN ({labels})), "
        "hops AS ("
        f" SELECT e.type AS type, e.confidence AS confidence, e.src AS other FROM edges e JOIN seeds s "
        f"  ON e.dst = s.id WHERE e.type IN ({types}) AND e.confidence >= ? "
        " UNION ALL"
        f" SELECT e.type, e.confidence, e.dst FROM edges e JOIN seeds s "
        f"  ON e.src = s.id WHERE e.type IN ({types}) AND e.confidence >= ? AND e.dst IS NOT NULL) "
        "SELECT h.type, h.confidence, n.path, n.start_byte, "
        " (SELECT sy.id FROM symbols sy JOIN files f ON f.id = sy.file_id "
        "   WHERE f.path = n.path AND sy.start_byte = n.start_byte ORDER BY sy.ordinal LIMIT 1) "
        "FROM hops h JOIN nodes n ON n.id = h.other "
        f"WHERE n.path IS NOT NULL AND n.id NOT IN (SELECT id FROM seeds) AND n.label NOT IN ({labels}) "
        "LIMIT ?"
    )
    return sql, (
        *CONTAINER_LABELS,
        *PROXIMITY_EDGE_TYPES,
        MIN_CONFIDENCE,
        *PROXIMITY_EDGE_TYPES,
        MIN_CONFIDENCE,
        *CONTAINER_LABELS,
    )


def callees_sql(n_names: int) -> tuple[str, tuple[object, ...]]:
    """Rows (seed name, seed path, callee path) for every resolved edge *from* a definition named one
    of ``n_names`` names (given after the fixed args, then the row limit) to a definition in another
    file: what the named functions call, reference or inherit. Outgoing edges only, so a name that
    thousands of call sites use costs its own body's edges, not its callers."""
    types = ",".join("?" * len(PROXIMITY_EDGE_TYPES))
    labels = ",".join("?" * len(CONTAINER_LABELS))
    names = ",".join("?" * n_names)
    sql = (
        "SELECT s.name, s.path, d.path FROM nodes s JOIN edges e ON e.src = s.id "
        "JOIN nodes d ON d.id = e.dst "
        f"WHERE s.label NOT IN ({labels}) AND e.type IN ({types}) AND e.confidence >= ? "
        "AND d.path IS NOT NULL AND s.path IS NOT NULL AND d.path <> s.path "
        f"AND d.label NOT IN ({labels}) AND s.name IN ({names}) LIMIT ?"
    )
    return sql, (*CONTAINER_LABELS, *PROXIMITY_EDGE_TYPES, MIN_CONFIDENCE, *CONTAINER_LABELS)


def named_nodes_sql(n_names: int) -> tuple[str, tuple[object, ...]]:
    """Rows (node id, name, path) of the definitions (not files or modules) named one of ``n_names``
    names, given after the fixed args."""
    labels = ",".join("?" * len(CONTAINER_LABELS))
    names = ",".join("?" * n_names)
    sql = (
        f"SELECT id, name, path FROM nodes WHERE label NOT IN ({labels}) AND path IS NOT NULL "
        f"AND name IN ({names})"
    )
    return sql, CONTAINER_LABELS


def calls_from_sql(n_sources: int) -> tuple[str, tuple[object, ...]]:
    """Rows (caller node, callee node) of the resolved ``CALLS`` edges out of ``n_sources`` nodes
    (given after the fixed args, then the row limit)."""
    marks = ",".join("?" * n_sources)
    sql = (
        "SELECT src, dst FROM edges WHERE type = ? AND dst IS NOT NULL AND confidence >= ? "
        f"AND src IN ({marks}) LIMIT ?"
    )
    return sql, ("CALLS", MIN_CONFIDENCE)


def node_spans_sql(n_nodes: int) -> tuple[str, tuple[object, ...]]:
    """Rows (node id, path, start byte, name) of ``n_nodes`` nodes given after the (no) fixed args:
    where a definition's node is, to meet its symbol (path, start byte and name)."""
    marks = ",".join("?" * n_nodes)
    return f"SELECT id, path, start_byte, name FROM nodes WHERE id IN ({marks})", ()


def in_degree_sql(n_paths: int) -> tuple[str, tuple[object, ...]]:
    """Rows (path, resolved in-degree from other files) for ``n_paths`` paths given after the fixed args.

    "From another file" is written with ``COALESCE`` and ``<>``, not ``IS NOT``: PostgreSQL has no
    ``IS NOT`` between values, and ``IS DISTINCT FROM`` needs SQLite 3.39."""
    types = ",".join("?" * len(PROXIMITY_EDGE_TYPES))
    marks = ",".join("?" * n_paths)
    sql = (
        "SELECT n.path, count(*) FROM nodes n JOIN edges e ON e.dst = n.id "
        f"WHERE e.type IN ({types}) AND e.confidence >= ? AND COALESCE(e.path, '') <> COALESCE(n.path, '') "
        f"AND n.path IN ({marks}) GROUP BY n.path"
    )
    return sql, (*PROXIMITY_EDGE_TYPES, MIN_CONFIDENCE)


def capped_in_degree_sql() -> tuple[str, tuple[object, ...]]:
    """One row (the resolved in-degree of one path from other files, counted up to a cap): the path
    and the cap are given after the fixed args. The count stops at the cap, so a file much of the
    project uses (Django's ``fields/__init__.py``: 5,655 references) costs the cap, not its fan-in."""
    types = ",".join("?" * len(PROXIMITY_EDGE_TYPES))
    sql = (
        "SELECT count(*) FROM (SELECT 1 FROM nodes n JOIN edges e ON e.dst = n.id "
        f"WHERE n.path = ? AND e.type IN ({types}) AND e.confidence >= ? "
        "AND COALESCE(e.path, '') <> COALESCE(n.path, '') LIMIT ?) AS hits"
    )
    return sql, (*PROXIMITY_EDGE_TYPES, MIN_CONFIDENCE)


# ---- scoring (pure)
def seed_identifiers(analysis: QueryAnalysis, limit: int = MAX_PRIOR_IDENTIFIERS) -> list[tuple[str, float]]:
    """(bare name, weight) of the query's identifiers, best first, distinct, at most ``limit``."""
    out: dict[str, float] = {}
    for name, weight in analysis.identifiers:
        bare = name.rsplit(".", 1)[-1]
        if bare and bare not in out:
            out[bare] = weight
        if len(out) >= limit:
            break
    return list(out.items())


def score_proximity(
    neighbours: Iterable[Neighbour], seeds: Mapping[str, tuple[float, int]]
) -> tuple[dict[str, float], dict[int, float]]:
    """Per-file and per-symbol proximity; ``seeds`` maps a name to (mention weight, definitions)."""
    files: dict[str, float] = {}
    symbols: dict[int, float] = {}
    for n in neighbours:
        weight, defs = seeds[n.seed_name]
        score = weight * specificity(defs) * n.confidence
        files[n.path] = files.get(n.path, 0.0) + score
        if n.symbol_id is not None:
            symbols[n.symbol_id] = symbols.get(n.symbol_id, 0.0) + score
    return files, symbols


def score_centrality(in_degrees: Mapping[str, int]) -> dict[str, float]:
    """``ln(1 + in-degree)`` per file; files without resolved incoming edges are left out."""
    return {path: math.log1p(d) for path, d in in_degrees.items() if d > 0}


# ---- running against a view
def has_graph(view: ReadView) -> bool:
    return view.conn.execute("SELECT 1 FROM nodes LIMIT 1").fetchone() is not None


def compute_priors(
    view: ReadView, analysis: QueryAnalysis, candidate_paths: Sequence[str] = ()
) -> StructuralPriors:
    """Proximity for the query's identifiers and centrality of ``candidate_paths`` (bounded)."""
    if not has_graph(view):
        return StructuralPriors(coverage=(NO_GRAPH_COVERAGE,))
    seeds: dict[str, tuple[float, int]] = {}
    neighbours: list[Neighbour] = []
    skipped = 0
    capped = 0
    sql, fixed = neighbours_sql()
    for name, weight in seed_identifiers(analysis):
        defs = view.conn.execute(
            seed_count_sql(), (name, *CONTAINER_LABELS, MAX_SEEDS_PER_NAME + 1)
        ).fetchone()[0]
        if defs == 0:
            continue
        if defs > MAX_SEEDS_PER_NAME:
            skipped += 1
            continue
        seeds[name] = (weight, defs)
        rows = view.conn.execute(sql, (name, *fixed, MAX_EDGES_PER_NAME)).fetchall()
        capped += len(rows) >= MAX_EDGES_PER_NAME
        neighbours += [Neighbour(name, t, float(c), p, b, s) for t, c, p, b, s in rows]
    files, symbols = score_proximity(neighbours, seeds)
    paths = list(dict.fromkeys(candidate_paths))[:MAX_CENTRALITY_FILES]
    central: dict[str, float] = {}
    if paths:
        deg_sql, deg_fixed = in_degree_sql(len(paths))
        degrees = {p: int(d) for p, d in view.conn.execute(deg_sql, (*deg_fixed, *paths))}
        central = score_centrality(degrees)
    note = (
        f"graph: proximity = definitions one resolved {'/'.join(PROXIMITY_EDGE_TYPES)} edge from "
        f"{len(seeds)} named identifier(s) ({len(neighbours)} edges"
        + (f"; {skipped} name(s) defined > {MAX_SEEDS_PER_NAME} times skipped" if skipped else "")
        + (f"; {capped} name(s) capped at {MAX_EDGES_PER_NAME} edges" if capped else "")
        + f"); centrality = resolved in-degree of the top {len(paths)} candidate files"
    )
    return StructuralPriors(files, symbols, central, (note,))

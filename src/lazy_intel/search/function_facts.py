"""What the function-level stage reads from the index (``search/function_rank.py`` scores it).

Bounded, batched queries over one read view: the definitions of the best files (every one of
``DEFINITION_KINDS``) and the symbols of the best chunks (any kind: they are today's function order),
and which of the query's terms occur in each definition's chunks (their ``body`` and ``stems``
full-text rows, space-separated token streams); the ``callpath`` feature from the code graph (the
nodes of the report's named definitions and frames, two hops of resolved calls out of them, at most
``CALLPATH_MAX_EDGES`` edges per hop).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lazy_intel.search.function_rank import (
    CALLPATH_MAX_EDGES,
    DEFINITION_KINDS,
    Definition,
    callpath_seeds,
    callpath_values,
)
from lazy_intel.search.graph_priors import calls_from_sql, named_nodes_sql, node_spans_sql
from lazy_intel.search.query import QueryAnalysis
from lazy_intel.search.rerank import mentioned_names
from lazy_intel.search.rerank_facts import MAX_NAMES
from lazy_intel.store.reader import ReadView
from lazy_intel.text.paths import is_test_path

BATCH = 400  # ids per IN (...) list


def _marks(n: int) -> str:
    return ",".join("?" * n)


def read_definitions(
    view: ReadView,
    file_ids: Sequence[int],
    symbol_ids: Sequence[int],
    tokens: Sequence[str],
    *,
    kinds: Sequence[str] = DEFINITION_KINDS,
) -> list[Definition]:
    """Definitions of ``file_ids`` (of ``kinds``) and the symbols ``symbol_ids``, each with its first
    chunk and the ``tokens`` its chunks hold; in symbol id order."""
    rows: dict[int, tuple[int, str, str, str, str, int, int]] = {}
    select = (
        "SELECT s.id, s.file_id, f.path, s.name, s.qualified_name, s.kind, s.end_line - s.start_line + 1, "
        "s.start_byte FROM symbols s JOIN files f ON f.id = s.file_id WHERE "
    )
    files = list(dict.fromkeys(file_ids))
    for start in range(0, len(files), BATCH):
        batch = files[start : start + BATCH]
        sql = select + f"s.file_id IN ({_marks(len(batch))}) AND s.kind IN ({_marks(len(kinds))})"
        for r in view.conn.execute(sql, [*batch, *kinds]) if kinds else ():
            rows[int(r[0])] = (int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), int(r[6]), int(r[7]))
    symbols = [s for s in dict.fromkeys(symbol_ids) if s not in rows]
    for start in range(0, len(symbols), BATCH):
        batch = symbols[start : start + BATCH]
        for r in view.conn.execute(select + f"s.id IN ({_marks(len(batch))})", batch):
            rows[int(r[0])] = (int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), int(r[6]), int(r[7]))
    texts: dict[int, list[str]] = {s: [] for s in rows}
    first: dict[int, int] = {}
    columns = "".join(f", t.{c}" for c in ("body", "stems") if c in view.fts_columns) if tokens else ""
    joined_fts = " JOIN chunks_fts t ON t.rowid = c.id" if columns else ""
    ids = sorted(rows)
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        for r in view.conn.execute(
            f"SELECT c.symbol_id, c.id{columns} FROM chunks c{joined_fts} "
            f"WHERE c.symbol_id IN ({_marks(len(batch))})",
            batch,
        ):
            symbol, chunk = int(r[0]), int(r[1])
            first[symbol] = min(first.get(symbol, chunk), chunk)
            texts[symbol].extend(text for text in r[2:] if text)
    out = []
    for s in ids:
        file_id, path, name, qualified, kind, lines, begin = rows[s]
        words = set(" ".join(texts[s]).split(" "))  # a token is looked up whole, between spaces
        present = frozenset(t for t in tokens if t in words)
        out.append(Definition(s, file_id, path, name, qualified, kind, lines, present, first.get(s), begin))
    return out


def _calls_from(view: ReadView, sources: Sequence[int]) -> list[tuple[int, int]]:
    """Resolved call edges (src, dst) out of ``sources``, at most ``CALLPATH_MAX_EDGES``."""
    rows: list[tuple[int, int]] = []
    for start in range(0, len(sources), BATCH):
        batch = sources[start : start + BATCH]
        sql, fixed = calls_from_sql(len(batch))
        rows.extend((int(a), int(b)) for a, b in view.conn.execute(sql, (*fixed, *batch, CALLPATH_MAX_EDGES)))
        if len(rows) >= CALLPATH_MAX_EDGES:
            return rows[:CALLPATH_MAX_EDGES]
    return rows


def read_callpath(
    view: ReadView, analysis: QueryAnalysis, counts: Mapping[str, int], definitions: Sequence[Definition]
) -> dict[int, float]:
    """``callpath`` (``function_rank``) of each of ``definitions`` it is not 0 for (symbol id ->
    value): the seeds' nodes, two hops of resolved calls out of them, and the nodes reached met with
    the definitions by path, start byte and name. ``counts``: definitions per mentioned name as
    ``rerank_facts.read_query_facts`` counted them (the first ``MAX_NAMES`` names; the rest, which it
    did not look up, are counted here)."""
    if not definitions:
        return {}
    counted = dict(counts)
    missing = [n for n in mentioned_names(analysis)[MAX_NAMES:] if n not in counted]
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        sql = f"SELECT name, count(*) FROM symbols WHERE name IN ({_marks(len(batch))}) GROUP BY name"
        counted.update({str(n): int(c) for n, c in view.conn.execute(sql, batch)})
    weights = callpath_seeds(analysis, counted)
    if not weights:
        return {}
    seeds: dict[int, float] = {}
    seed_names = sorted(weights)
    for start in range(0, len(seed_names), BATCH):
        batch = seed_names[start : start + BATCH]
        sql, fixed = named_nodes_sql(len(batch))
        for node, name, path in view.conn.execute(sql, (*fixed, *batch)):
            if not is_test_path(str(path)):
                seeds[int(node)] = weights[str(name)]
    first = _calls_from(view, sorted(seeds))
    second = _calls_from(view, sorted({dst for _, dst in first}))
    reached = callpath_values(seeds, first, second)
    if not reached:
        return {}
    by_span = {(d.path, d.start_byte, d.name): d.symbol_id for d in definitions}
    out: dict[int, float] = {}
    nodes = sorted(reached)
    for start in range(0, len(nodes), BATCH):
        batch = nodes[start : start + BATCH]
        sql, fixed = node_spans_sql(len(batch))
        for node, path, begin, name in view.conn.execute(sql, (*fixed, *batch)):
            symbol = by_span.get((str(path), -1 if begin is None else int(begin), str(name)))
            if symbol is not None:
                out[symbol] = max(out.get(symbol, 0.0), reached[int(node)])
    return out

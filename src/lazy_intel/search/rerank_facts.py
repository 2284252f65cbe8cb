"""What the second stage reads from the index for its candidates (``search/rerank.py`` scores it).

Bounded, batched queries over one read view: the definitions in the candidate files whose names the query mentions, how often each such name is defined anywhere, the
resolved in-degree of each candidate file in the code graph up to where ``central`` saturates (one
small query per candidate, each stopping at that count; when the ``central`` feature counts),
and the distinct index tokens of each candidate file (its full-text rows: every column, stems
included; when a token feature counts).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from lazy_intel.search.fusion import Evidence, FileStage
from lazy_intel.search.graph_priors import callees_sql, capped_in_degree_sql
from lazy_intel.search.query import QueryAnalysis
from lazy_intel.search.rerank import (
    CENTRAL_SATURATION,
    COEFFICIENTS,
    MAX_CALLEE_SEEDS,
    RERANK_FILES,
    TOKEN_FEATURES,
    FileFacts,
    QueryFacts,
    callee_scores,
    candidates,
    mentioned_names,
    rerank,
    static_features,
    wanted_tokens,
)
from lazy_intel.store.reader import ReadView
from lazy_intel.text.tokens import path_text

MAX_NAMES = 64  # mentioned names looked up (the analysis keeps at most this many identifiers)
MAX_CALLEE_EDGES = 4000  # edges out of named definitions read for ``callee``


def _marks(n: int) -> str:
    return ",".join("?" * n)


def read_query_facts(
    view: ReadView,
    analysis: QueryAnalysis,
    terms: Sequence[tuple[str, float, int]],
    *,
    callees: bool = False,
) -> QueryFacts:
    """Indexed terms with their document counts, the chunk count, definition counts of mentioned
    names, and (``callees``) the ``callee`` feature of every file a named definition reaches."""
    names = mentioned_names(analysis)[:MAX_NAMES]
    counts: dict[str, int] = {}
    if names:
        rows = view.conn.execute(
            f"SELECT name, count(*) FROM symbols WHERE name IN ({_marks(len(names))}) GROUP BY name", names
        )
        counts = {str(n): int(c) for n, c in rows}
    reached: dict[str, float] = {}
    seeds = [n for n in names if 0 < counts.get(n, 0) <= MAX_CALLEE_SEEDS]
    if callees and seeds:
        sql, fixed = callees_sql(len(seeds))
        edges = view.conn.execute(sql, (*fixed, *seeds, MAX_CALLEE_EDGES)).fetchall()
        reached = callee_scores([(str(a), str(b), str(c)) for a, b, c in edges], analysis, counts)
    return QueryFacts(tuple(terms), view.chunk_count(), counts, reached)


def capped_in_degrees(view: ReadView, paths: Sequence[str]) -> dict[str, int]:
    """Each path's resolved in-degree from other files, counted up to ``CENTRAL_SATURATION``; read
    once per generation in a process (searches meet the same central files again and again: 65% of
    the 1,890 lookups of the 63 dev-set queries on Django were repeats)."""
    sql, fixed = capped_in_degree_sql()

    def count(missing: list[Hashable]) -> dict[Hashable, int]:
        out: dict[Hashable, int] = {}
        for path in missing:
            row = view.conn.execute(sql, (path, *fixed, CENTRAL_SATURATION)).fetchone()
            out[path] = int(row[0]) if row else 0
        return out

    found = view.per_generation_values("capped_in_degree", list(paths), count)
    return {str(p): int(n) for p, n in found.items() if n}


def read_file_facts(
    view: ReadView,
    analysis: QueryAnalysis,
    file_ids: Sequence[int],
    paths: Mapping[int, str],
    tokens: Sequence[str],
    *,
    in_degrees: bool = True,
) -> dict[int, FileFacts]:
    """Definitions of mentioned names in each file of ``file_ids``, which of ``tokens`` it holds, and
    (``in_degrees``) its resolved in-degree from other files, counted up to ``CENTRAL_SATURATION``
    where the ``central`` feature saturates (0 without a code graph).

    A file's tokens are its chunks' ``body`` and ``stems`` full-text rows (a definition's name,
    signature and docstring are in its body) and its path; a token is looked up whole, as the space-
    separated token streams hold it.
    """
    ids = list(dict.fromkeys(file_ids))
    if not ids:
        return {}
    names = mentioned_names(analysis)[:MAX_NAMES]
    definitions: dict[int, list[tuple[str, str]]] = {f: [] for f in ids}
    degrees: dict[str, int] = {}
    texts: dict[int, list[str]] = {f: [path_text(paths.get(f, ""))] for f in ids}
    columns = ", ".join(f"t.{c}" for c in ("body", "stems") if c in view.fts_columns) if tokens else ""
    for start in range(0, len(ids), 200):
        batch = ids[start : start + 200]
        if names:
            for file_id, name, qualified in view.conn.execute(
                f"SELECT file_id, name, qualified_name FROM symbols WHERE file_id IN ({_marks(len(batch))}) "
                f"AND name IN ({_marks(len(names))})",
                [*batch, *names],
            ):
                definitions[int(file_id)].append((str(name), str(qualified)))
        if in_degrees:  # counted up to where ``central`` saturates: the same feature, bounded cost
            degrees.update(capped_in_degrees(view, [paths.get(f, "") for f in batch]))
        if not columns:
            continue  # no token asked about: the full-text rows are not read
        for row in view.conn.execute(
            f"SELECT c.file_id, {columns} FROM chunks c JOIN chunks_fts t ON t.rowid = c.id "
            f"WHERE c.file_id IN ({_marks(len(batch))})",
            batch,
        ):
            texts[int(row[0])].extend(text for text in row[1:] if text)
    out: dict[int, FileFacts] = {}
    for f in ids:
        joined = " " + " ".join(texts[f]) + " "
        present = frozenset(t for t in tokens if f" {t} " in joined)
        path = paths.get(f, "")
        out[f] = FileFacts(path, tuple(definitions[f]), present, degrees.get(path, 0))
    return out


def second_stage(
    view: ReadView,
    analysis: QueryAnalysis,
    evidence: Evidence,
    terms: Sequence[tuple[str, float, int]],
    stage: FileStage,
    *,
    coefficients: Mapping[str, float] = COEFFICIENTS,
    n: int = RERANK_FILES,
    query: QueryFacts | None = None,
) -> tuple[dict[int, float], dict[int, dict[str, float]]]:
    """Second-stage file scores for the first stage's best ``n`` files, and their features
    (``query``: the query's facts when the caller has read them already)."""
    paths = dict(evidence.file_path)
    chosen = candidates(stage.file_scores, paths, n)
    # the files' tokens only when a feature that needs them counts (TOKEN_FEATURES)
    needs_tokens = any(coefficients.get(f, 0.0) for f in TOKEN_FEATURES)
    facts = read_file_facts(
        view,
        analysis,
        chosen,
        paths,
        wanted_tokens(analysis, terms) if needs_tokens else [],
        in_degrees=bool(coefficients.get("central", 0.0)),
    )
    if query is None:
        query = read_query_facts(view, analysis, terms, callees=bool(coefficients.get("callee", 0.0)))
    static = static_features(analysis, evidence, query, facts)
    return rerank(stage.file_scores, paths, static, coefficients, n)

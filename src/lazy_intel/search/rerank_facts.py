"""What the second stage reads from the index for its candidates (``search/rerank.py`` scores it).

Three bounded queries over one read view: the definitions in the candidate files whose names the
query mentions, how often each such name is defined anywhere, and the distinct index tokens of each
candidate file (its full-text rows: every column, stems included).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lazy_intel.search.fusion import Evidence, FileStage
from lazy_intel.search.query import QueryAnalysis
from lazy_intel.search.rerank import (
    COEFFICIENTS,
    RERANK_FILES,
    FileFacts,
    QueryFacts,
    candidates,
    mentioned_names,
    rerank,
    static_features,
)
from lazy_intel.store.reader import ReadView

MAX_NAMES = 64  # mentioned names looked up (the analysis keeps at most this many identifiers)


def _marks(n: int) -> str:
    return ",".join("?" * n)


def read_query_facts(
    view: ReadView, analysis: QueryAnalysis, terms: Sequence[tuple[str, float, int]]
) -> QueryFacts:
    """Indexed terms with their document counts, the chunk count, definition counts of mentioned names."""
    names = mentioned_names(analysis)[:MAX_NAMES]
    counts: dict[str, int] = {}
    if names:
        rows = view.conn.execute(
            f"SELECT name, count(*) FROM symbols WHERE name IN ({_marks(len(names))}) GROUP BY name", names
        )
        counts = {str(n): int(c) for n, c in rows}
    return QueryFacts(tuple(terms), view.chunk_count(), counts)


def read_file_facts(
    view: ReadView, analysis: QueryAnalysis, file_ids: Sequence[int], paths: dict[int, str]
) -> dict[int, FileFacts]:
    """Definitions of mentioned names and the distinct tokens of each file of ``file_ids``."""
    ids = list(dict.fromkeys(file_ids))
    if not ids:
        return {}
    names = mentioned_names(analysis)[:MAX_NAMES]
    definitions: dict[int, list[tuple[str, str]]] = {f: [] for f in ids}
    tokens: dict[int, set[str]] = {f: set() for f in ids}
    columns = ", ".join(f"t.{c}" for c in view.fts_columns)
    for start in range(0, len(ids), 200):
        batch = ids[start : start + 200]
        if names:
            for file_id, name, qualified in view.conn.execute(
                f"SELECT file_id, name, qualified_name FROM symbols WHERE file_id IN ({_marks(len(batch))}) "
                f"AND name IN ({_marks(len(names))})",
                [*batch, *names],
            ):
                definitions[int(file_id)].append((str(name), str(qualified)))
        for row in view.conn.execute(
            f"SELECT c.file_id, {columns} FROM chunks c JOIN chunks_fts t ON t.rowid = c.id "
            f"WHERE c.file_id IN ({_marks(len(batch))})",
            batch,
        ):
            found = tokens[int(row[0])]
            for text in row[1:]:
                if text:
                    found.update(text.split())
    return {f: FileFacts(paths.get(f, ""), tuple(definitions[f]), frozenset(tokens[f])) for f in ids}


def second_stage(
    view: ReadView,
    analysis: QueryAnalysis,
    evidence: Evidence,
    terms: Sequence[tuple[str, float, int]],
    stage: FileStage,
    *,
    coefficients: Mapping[str, float] = COEFFICIENTS,
    n: int = RERANK_FILES,
) -> tuple[dict[int, float], dict[int, dict[str, float]]]:
    """Second-stage file scores for the first stage's best ``n`` files, and their features."""
    paths = dict(evidence.file_path)
    chosen = candidates(stage.file_scores, paths, n)
    facts = read_file_facts(view, analysis, chosen, paths)
    static = static_features(analysis, evidence, read_query_facts(view, analysis, terms), facts)
    return rerank(stage.file_scores, paths, static, coefficients, n)

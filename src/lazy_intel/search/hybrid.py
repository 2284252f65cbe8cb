"""Hybrid retrieval over one read view: lexical, dense, exact-symbol and path signals, fused.

This module runs the signals of one query over one read view (:mod:`.signals`: the store I/O) and
calls the pure parts: query analysis (:mod:`.query`), fusion (:mod:`.fusion`) and the second stage
(:mod:`.rerank_facts`, :mod:`.rerank`). Both a chunk ranking and a file ranking come out; every result carries the signals
that put it there.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from lazy_intel.search import fusion, signals
from lazy_intel.search.embedders import Embedder
from lazy_intel.search.function_facts import read_callpath, read_definitions
from lazy_intel.search.function_rank import (
    DEFINITION_KINDS,
    FUNCTION_COEFFICIENTS,
    StageRanking,
    candidates,
    function_features,
    rank_definitions,
)
from lazy_intel.search.graph_priors import StructuralPriors, compute_priors
from lazy_intel.search.lexical import ColumnWeights
from lazy_intel.search.query import STEM_TERM_FACTOR, QueryAnalysis, analyze_query
from lazy_intel.search.rerank import COEFFICIENTS, RERANK_FILE_CONTEXT, QueryFacts
from lazy_intel.search.rerank_facts import read_query_facts, second_stage
from lazy_intel.search.signals import (  # the signals' names, for the callers of this module
    LEXICAL_PREFILTER,
    Filters,
    bm25_terms,
    dense_state,
    indexed_term_counts,
    indexed_terms,
)
from lazy_intel.store.reader import ReadView

__all__ = [
    "DEFAULT_CONFIG",
    "DENSE_ONLY",
    "LEXICAL_ONLY",
    "PRESETS",
    "RERANKED_PRESETS",
    "Filters",
    "Gathered",
    "RankedChunk",
    "RankedFile",
    "SearchConfig",
    "SearchResult",
    "bm25_terms",
    "dense_state",
    "gather_evidence",
    "hybrid_search",
    "indexed_term_counts",
    "indexed_terms",
]

logger = logging.getLogger(__name__)

# Graph priors (proximity to named identifiers, centrality of candidates) in the default search.
# See the ablation in docs/retrieval.md (SWE-bench Lite dev set). ``backend=graph`` forces them on.
GRAPH_PRIOR_DEFAULT = True
# The second stage (search/rerank.py) in the default search; docs/retrieval.md has its held-out figures.
RERANK_DEFAULT = True
# The function stage (search/function_rank.py) re-orders the chunks by definition, after the second
# stage (it needs the second stage's file ranking; off with it); docs/retrieval.md has its figures.
FUNCTION_STAGE_DEFAULT = True
# Files whose centrality is looked up: the best files of each gathered signal, this many per signal.
CENTRALITY_CANDIDATES_PER_SIGNAL = 50


DEFAULT_COLUMNS = ColumnWeights()


@dataclass(frozen=True)
class SearchConfig:
    """Which signals run. ``backend`` of a request picks a preset."""

    lexical: bool = True
    dense: bool = True
    symbol: bool = True
    path: bool = True
    file_context: bool = True
    graph: bool = GRAPH_PRIOR_DEFAULT  # structural priors when the index has a code graph
    phrase: bool = True  # quoted messages, inline code and strings matched as token sequences
    # how the lexical signals read the index: bm25() column weights, and the weight share of the
    # terms' stems searched beside them (0: none; ignored on a store without a ``stems`` column)
    columns: ColumnWeights = DEFAULT_COLUMNS
    stem_weight: float = STEM_TERM_FACTOR
    rerank: bool = RERANK_DEFAULT  # the second stage (search/rerank.py) re-orders the best files
    # the function stage (search/function_rank.py) re-orders the chunks by definition (with rerank)
    functions: bool = FUNCTION_STAGE_DEFAULT
    lexical_prefilter: int = LEXICAL_PREFILTER  # 0: the weighted BM25 query scores every match


DEFAULT_CONFIG = SearchConfig()
LEXICAL_ONLY = SearchConfig(
    dense=False, symbol=False, path=False, file_context=False, graph=False, phrase=False, rerank=False
)
DENSE_ONLY = SearchConfig(
    lexical=False, symbol=False, path=False, file_context=False, graph=False, phrase=False, rerank=False
)
WITH_GRAPH = SearchConfig(graph=True)  # every signal plus the graph priors
RERANKED_PRESETS = ("all", "graph")  # backends whose search the second stage may re-order
PRESETS: dict[str, SearchConfig] = {
    "all": DEFAULT_CONFIG,
    "lexical": LEXICAL_ONLY,
    "dense": DENSE_ONLY,
    "graph": WITH_GRAPH,
}


@dataclass(frozen=True)
class RankedChunk:
    chunk_id: int
    file_id: int
    symbol_id: int | None
    score: float
    signals: dict[str, float]


@dataclass(frozen=True)
class RankedFile:
    file_id: int
    path: str
    score: float
    signals: dict[str, float]
    best_chunk_id: int | None


@dataclass(frozen=True)
class SearchResult:
    analysis: QueryAnalysis
    chunks: list[RankedChunk]
    files: list[RankedFile]
    coverage: list[str]
    warnings: list[str]
    used: tuple[str, ...]  # signals that contributed

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(t for t, _ in self.analysis.terms)


@dataclass(frozen=True)
class Gathered:
    """What the signals found for one query, before fusion."""

    analysis: QueryAnalysis
    evidence: fusion.Evidence
    chunk_symbol: dict[int, int | None]
    coverage: list[str]
    warnings: list[str]
    terms: list[tuple[str, float, int]]  # the indexed terms searched: (token, weight, chunks holding it)


def gather_evidence(
    view: ReadView,
    text: str,
    *,
    config: SearchConfig = DEFAULT_CONFIG,
    embedder: Embedder | None = None,
    filters: Filters | None = None,
    priors: StructuralPriors | None = None,
    weights: fusion.FusionWeights | None = None,
) -> Gathered:
    """Run the configured signals (see :class:`Gathered`).

    ``weights`` only says which graph priors are worth computing (centrality at weight 0 is not).
    """
    filters = filters or Filters()
    weights = weights or fusion.FusionWeights()
    analysis = analyze_query(text)
    cands = signals.Candidates()
    coverage: list[str] = []
    warnings: list[str] = []
    chunk_signals: dict[str, dict[int, float]] = {}
    file_signals: dict[str, dict[int, float]] = {}
    # an older store without the stems column (read while it is rebuilt) is searched without stems
    columns = view.fts_columns
    stem_weight = config.stem_weight if "stems" in columns else 0.0
    stemmed = "stems" in columns and (stem_weight > 0 or config.columns.stems > 0)
    counted = signals.indexed_term_counts(view, analysis, stem_weight)
    terms = [(t, w) for t, w, _ in counted]
    if config.lexical:
        chunk_signals["lexical"] = signals.lexical_chunks(
            view,
            signals.bm25_terms(counted, view.chunk_count()),
            filters,
            cands,
            columns=columns,
            column_weights=config.columns,
            prefilter=config.lexical_prefilter,
        )
        coverage.append(
            "lexical: BM25 over symbol-level chunks"
            + (" with English stems" if stemmed else "")
            + "; ranked, not exhaustive"
        )
    if config.dense:
        ready, why = signals.dense_state(view, embedder)
        if ready and embedder is not None:
            chunk_signals["dense"], note = signals.dense_chunks(view, analysis.text, embedder, filters, cands)
            coverage.append(note)
        else:
            coverage.append(why)
            if config == DENSE_ONLY:
                warnings.append(why)
    if config.phrase:
        chunk_signals["phrase"] = signals.phrase_chunks(
            view, analysis, filters, cands, columns=columns, column_weights=config.columns
        )
    if config.symbol:
        chunk_signals["symbol"] = signals.symbol_chunks(view, analysis, terms, filters, cands)
    if config.path:
        file_signals["path"] = signals.path_files(view, analysis, filters, cands)
    signals.fill_paths(view, cands)
    if priors is None and config.graph and (weights.graph > 0 or weights.centrality > 0):
        central = weights.centrality > 0
        priors = compute_priors(
            view, analysis, _candidate_paths(chunk_signals, file_signals, cands) if central else []
        )
    if priors is not None:
        coverage.extend(priors.coverage)
        file_signals["graph"] = signals.file_ids(view, priors.files, filters, cands)
        file_signals["centrality"] = signals.file_ids(view, priors.central_files, filters, cands)
        if priors.symbols:
            chunk_signals["graph"] = signals.chunks_of_symbols(view, priors.symbols, filters, cands)
        signals.fill_paths(view, cands)
    if analysis.locate_bug:
        coverage.append(
            "test files, documentation examples, benchmarks and vendored code down-weighted: the query reports a failure"
        )
    evidence = fusion.Evidence(
        {k: v for k, v in chunk_signals.items() if v},
        {k: {f: s for f, s in v.items() if s > 0 and math.isfinite(s)} for k, v in file_signals.items() if v},
        cands.chunk_file,
        cands.file_path,
        analysis.locate_bug,
    )
    return Gathered(analysis, evidence, cands.chunk_symbol, coverage, warnings, counted)


def hybrid_search(
    view: ReadView,
    text: str,
    *,
    config: SearchConfig = DEFAULT_CONFIG,
    embedder: Embedder | None = None,
    filters: Filters | None = None,
    priors: StructuralPriors | None = None,
    weights: fusion.FusionWeights | None = None,
) -> SearchResult:
    """Rank chunks and files of ``view`` for ``text`` (see module docstring)."""
    found = gather_evidence(
        view, text, config=config, embedder=embedder, filters=filters, priors=priors, weights=weights
    )
    evidence = found.evidence
    stage = fusion.fuse_files(evidence, weights)
    coverage = list(found.coverage)
    second: dict[int, float] | None = None
    reasons: dict[int, dict[str, float]] = {}
    query: QueryFacts | None = None  # read once, for both the file stage and the function stage
    if config.rerank and stage.file_scores:
        query = read_query_facts(
            view, found.analysis, found.terms, callees=bool(COEFFICIENTS.get("callee", 0.0))
        )
        second, features = second_stage(view, found.analysis, evidence, found.terms, stage, query=query)
        reasons = {f: {f"rerank_{k}": v for k, v in feats.items() if v} for f, feats in features.items()}
        coverage.append(
            f"rerank: the first stage's best {len(features)} files re-ordered by whole-file features"
        )
    ranked = weights
    if second is not None:  # chunks lean on the second stage's file scores harder (rerank.py)
        ranked = replace(weights or fusion.FusionWeights(), file_context=RERANK_FILE_CONTEXT)
    fused_chunks, fused_files = fusion.rank_stage(
        evidence, stage, ranked, file_context=config.file_context, file_scores=second, file_reasons=reasons
    )
    chunks = [
        RankedChunk(c.chunk_id, c.file_id, found.chunk_symbol.get(c.chunk_id), c.score, c.signals)
        for c in fused_chunks
    ]
    files = [RankedFile(f.file_id, f.path, f.score, f.signals, f.best_chunk_id) for f in fused_files]
    staged = query is not None and second is not None and config.functions and bool(chunks)
    if query is not None and staged:
        chunks = _function_stage(view, found, chunks, files, query=query, filters=filters or Filters())
        coverage.append(
            "functions: the definitions of the best files and chunks re-ordered by their own features"
        )
    used = tuple(
        dict.fromkeys(
            [
                *evidence.chunk_signals,
                *evidence.file_signals,
                *(["rerank"] if second else []),
                *(["functions"] if staged else []),
            ]
        )
    )
    return SearchResult(found.analysis, chunks, files, coverage, found.warnings, used)


def _function_stage(
    view: ReadView,
    found: Gathered,
    chunks: list[RankedChunk],
    files: list[RankedFile],
    *,
    query: QueryFacts,
    filters: Filters,
) -> list[RankedChunk]:
    """The chunks re-ordered by the function stage: each ranked definition's best chunk (its first
    chunk when none was ranked), scored ``exp(score - best)``, then every other chunk in its order,
    scaled below the lowest ranked definition (as the second stage does with the files it leaves)."""
    ranking = StageRanking(
        {c.chunk_id: c.score for c in chunks},
        {c.chunk_id: c.symbol_id for c in chunks},
        {f.file_id: f.score for f in files},
        [f.file_id for f in files],
    )
    kinds = (filters.kind,) if filters.kind else DEFINITION_KINDS
    tokens = [t for t, _, _ in found.terms]
    definitions = read_definitions(view, ranking.top_files(), ranking.top_symbols(), tokens, kinds=kinds)
    cands = candidates(definitions, ranking)
    if not cands:
        return chunks
    callpath = read_callpath(view, found.analysis, query.definition_counts, cands)
    features = function_features(found.analysis, query, cands, ranking, callpath)
    by_symbol = {d.symbol_id: d for d in cands}
    best_chunk: dict[int, RankedChunk] = {}
    for chunk in chunks:  # best first
        if chunk.symbol_id is not None:
            best_chunk.setdefault(chunk.symbol_id, chunk)
    out: list[RankedChunk] = []
    placed: set[int] = set()
    for symbol, value in rank_definitions(features, FUNCTION_COEFFICIENTS):
        d = by_symbol[symbol]
        ranked = best_chunk.get(symbol)
        chunk_id = ranked.chunk_id if ranked is not None else d.chunk_id
        if chunk_id is None or chunk_id in placed:
            continue
        placed.add(chunk_id)
        signals_of = dict(ranked.signals) if ranked is not None else {}
        signals_of["function_stage"] = value
        out.append(RankedChunk(chunk_id, d.file_id, symbol, value, signals_of))
    floor = min((c.score for c in out), default=1.0)
    rest = [c for c in chunks if c.chunk_id not in placed]
    top_rest = max((c.score for c in rest), default=1.0) or 1.0
    out += [
        RankedChunk(c.chunk_id, c.file_id, c.symbol_id, floor * 0.5 * c.score / top_rest, c.signals)
        for c in rest
    ]
    return out


def _candidate_paths(
    chunk_signals: Mapping[str, Mapping[int, float]],
    file_signals: Mapping[str, Mapping[int, float]],
    cands: signals.Candidates,
) -> list[str]:
    """Paths of the best files of each gathered signal (the centrality candidates), best first."""
    per_signal: list[list[int]] = []
    for scores in chunk_signals.values():
        files: dict[int, None] = {}
        for chunk_id in sorted(scores, key=lambda c: -scores[c]):
            files.setdefault(cands.chunk_file[chunk_id])
            if len(files) >= CENTRALITY_CANDIDATES_PER_SIGNAL:
                break
        per_signal.append(list(files))
    for scores in file_signals.values():
        per_signal.append(sorted(scores, key=lambda f: -scores[f])[:CENTRALITY_CANDIDATES_PER_SIGNAL])
    out: dict[str, None] = {}
    for rank in range(CENTRALITY_CANDIDATES_PER_SIGNAL):  # interleave: every signal's best first
        for files_of in per_signal:
            if rank < len(files_of) and files_of[rank] in cands.file_path:
                out.setdefault(cands.file_path[files_of[rank]])
    return list(out)

"""Function-level second stage: rank the definitions of the best files and chunks (pure functions).

The file stages (``fusion`` then ``rerank``) rank files; the chunk ranking gives each chunk its own
fused score plus its file's. Today's function order is that chunk ranking deduplicated by qualified
name. This stage looks at *definitions* instead. Its candidates are every definition (of
:data:`DEFINITION_KINDS`) of the best :data:`FUNCTION_FILES` files plus the definitions of the best
:data:`FUNCTION_CHUNKS` chunks (``search/function_facts.py`` reads them). Features, each in [0, 1]:

- ``chunk`` — the best score of the symbol's chunks in the chunk ranking over the best chunk's
  (0: none of its chunks is ranked); ``chunk_rank`` — 1 / its rank in today's function order;
- ``file`` — its file's final score over the best file's; ``file_rank`` — 1 / its file's rank;
- ``named`` — the report names it (bare name, weighted like the mention over the best mention and
  discounted by how many definitions the name has, as the file stage's ``defines``);
  ``named_qualified`` — the report writes its ``Class.method`` (a dotted suffix);
  ``named_owner`` — the report names its enclosing class;
- ``frame`` — a stack frame of the project names it (the innermost 1, earlier ones less);
- ``name_terms`` — the share of its name's words (snake and camel case split) that are query terms;
- ``body_terms`` — the share of the query's term weight x IDF found in its chunks' text;
- ``class`` — it is a class; ``test`` — it is in a test file; ``size`` — its line count, saturating;
- ``callpath`` — code the report names calls it (the code graph): the best seed weight among the
  definitions the report names (mention weight x ``specificity``; not in a test file; names defined
  more than ``MAX_CALLEE_SEEDS`` times are no seeds) and the functions of its project stack frames
  (the ``frame`` weight) that call it by a resolved ``CALLS`` edge, directly (x 1) or through one
  definition between (x :data:`CALLPATH_SECOND_HOP`); a seed gets nothing from its own name. The
  function a user names is often the API they called, and the fix is in code it runs (``named`` is
  fitted negative; ``callpath`` positive in every fold: docs/retrieval.md, "Session 38").

The score is linear, ``sum coefficient x feature`` with :data:`FUNCTION_COEFFICIENTS` (a conditional
logit over each query's candidates, fitted by ``bench/loc_functions.py``; see ``docs/retrieval.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from lazy_intel.search.query import QueryAnalysis
from lazy_intel.search.rerank import (
    MAX_CALLEE_SEEDS,
    QueryFacts,
    _frame_functions,
    _mentions,
    _same_dotted,
    specificity,
)
from lazy_intel.text.paths import is_test_path
from lazy_intel.text.stems import stem
from lazy_intel.text.tokens import split_identifier

FUNCTION_FILES = 5  # the final file ranking's best files whose every definition is a candidate
FUNCTION_CHUNKS = 80  # the chunk ranking's best chunks whose definitions are candidates
DEFINITION_KINDS: tuple[str, ...] = ("function", "method", "class")
SIZE_SATURATION = 200  # a definition of this many lines has size 1
FUNCTION_FEATURES: tuple[str, ...] = (
    "chunk",
    "chunk_rank",
    "file",
    "file_rank",
    "named",
    "named_qualified",
    "named_owner",
    "frame",
    "name_terms",
    "body_terms",
    "class",
    "test",
    "size",
    "callpath",
)
CALLPATH_SECOND_HOP = 0.5  # ``callpath`` of a definition called by what a seed calls, per seed weight
CALLPATH_MAX_EDGES = 4000  # call edges read per hop (search/function_facts.py)
# Coefficients of the linear function score, per feature (module docstring): the conditional logit
# fitted on all 63 SWE-bench Lite dev issues (L2 penalty 0.3, chosen by the inner leave-one-
# repository-out held-out log-likelihood among 10/3/1/0.3/0.1/0.03/0.01) on top of the file stages
# shipped with it (fitted on the same issues and the history pairs, ``rerank.COEFFICIENTS``), after
# the held-out figure of that procedure was computed with per-fold fits. Refitted with ``callpath``
# (session 38, 2026-12-06; docs/retrieval.md "Session 38") on the evidence gathered at
# RESOLVER_VERSION 21 (session 37): held out function Acc@10 65.0, Acc@5 55.0 against 63.3 / 53.3
# without ``callpath`` on the same evidence and file stages.
FUNCTION_COEFFICIENTS: dict[str, float] = {
    "chunk": 3.223,
    "chunk_rank": 1.219,
    "file": 0.284,
    "file_rank": -0.294,
    "named": -0.078,
    "named_qualified": -0.137,
    "named_owner": -0.571,
    "frame": 0.680,
    "name_terms": 1.121,
    "body_terms": 2.530,
    "class": -2.286,
    "test": -1.551,
    "size": 3.066,
    "callpath": 1.807,
}


@dataclass(frozen=True)
class Definition:
    """A candidate definition, as the index holds it (``function_facts.read_definitions``)."""

    symbol_id: int
    file_id: int
    path: str
    name: str
    qualified_name: str
    kind: str
    lines: int
    tokens: frozenset[str]  # the query's terms that occur in its chunks' text
    chunk_id: int | None = None  # its first chunk (None: it has none)
    start_byte: int = -1  # where it starts in its file (-1: unknown); with path and name, its graph node

    @property
    def key(self) -> str:
        return f"{self.path}:{self.qualified_name}"


def name_terms(name: str, terms: Mapping[str, float], stems: Mapping[str, float]) -> float:
    """Share of the name's words that are query terms (exactly, or by their English stem)."""
    words = split_identifier(name)  # the index's own split: snake, camel, acronyms, digits
    if not words:
        return 0.0
    return sum(1.0 for w in words if w in terms or stem(w) in stems) / len(words)


def callpath_seeds(analysis: QueryAnalysis, counts: Mapping[str, int]) -> dict[str, float]:
    """Seed name -> weight of ``callpath`` (module docstring): each bare name the report mentions,
    defined 1 to ``MAX_CALLEE_SEEDS`` times (``counts``), at its mention weight x ``specificity``; each
    project frame's function at its ``frame`` weight (unless defined too often)."""
    bare, _ = _mentions(analysis)
    out: dict[str, float] = {}
    for name, weight in bare.items():
        defined = counts.get(name, 0)
        if 0 < defined <= MAX_CALLEE_SEEDS:
            out[name] = max(out.get(name, 0.0), weight * specificity(defined))
    for name, weight in _frame_functions(analysis).items():
        if counts.get(name, 1) <= MAX_CALLEE_SEEDS:
            out[name] = max(out.get(name, 0.0), weight)
    return out


def callpath_values(
    seeds: Mapping[int, float], first: Iterable[tuple[int, int]], second: Iterable[tuple[int, int]]
) -> dict[int, float]:
    """Graph node -> ``callpath``, from the seed nodes (node -> weight) and the call edges (src, dst)
    out of the seeds (``first``) and out of their targets (``second``). A seed gets no value from
    its own name, nor from another seed calling it."""
    hop: dict[int, float] = {}
    for src, dst in first:
        weight = seeds.get(src, 0.0)
        if weight > hop.get(dst, 0.0):
            hop[dst] = weight
    out = {node: weight for node, weight in hop.items() if node not in seeds}
    for src, dst in second:
        weight = CALLPATH_SECOND_HOP * hop.get(src, 0.0)
        if dst not in seeds and weight > out.get(dst, 0.0):
            out[dst] = weight
    return out


def function_order(chunk_order: Sequence[int], chunk_symbol: Mapping[int, int | None]) -> list[int]:
    """Symbols in the order of their best chunk in ``chunk_order`` (today's function order)."""
    out: dict[int, None] = {}
    for chunk in chunk_order:
        symbol = chunk_symbol.get(chunk)
        if symbol is not None:
            out.setdefault(symbol)
    return list(out)


@dataclass(frozen=True)
class StageRanking:
    """What the stages before ranked: chunk scores (chunk id -> score, any order), each ranked chunk's
    symbol, and the final file scores and order (best first)."""

    chunk_scores: Mapping[int, float]
    chunk_symbol: Mapping[int, int | None]
    file_scores: Mapping[int, float]
    file_order: Sequence[int]

    def top_files(self, n: int = FUNCTION_FILES) -> list[int]:
        return list(self.file_order[:n])

    @cached_property
    def chunk_order(self) -> list[int]:
        """The ranked chunks, best first (score, then chunk id), sorted once."""
        return sorted(self.chunk_scores, key=lambda c: (-self.chunk_scores[c], c))

    def top_symbols(self, n: int = FUNCTION_CHUNKS) -> list[int]:
        """The symbols of the best ``n`` chunks (best first, distinct)."""
        return function_order(self.chunk_order[:n], self.chunk_symbol)


def _coverage_of(query: QueryFacts) -> Callable[[frozenset[str]], float]:
    """``rerank.coverage`` with the terms' weight x IDF computed once (the same sums, in order)."""
    values = [
        (term, weight * math.log(1.0 + query.total_chunks / max(1, docs)))
        for term, weight, docs in query.terms
    ]
    total = 0.0
    for _, value in values:
        total += value

    def share(tokens: frozenset[str]) -> float:
        if not tokens or total <= 0:
            return 0.0
        found = 0.0
        for term, value in values:
            if term in tokens:
                found += value
        return found / total

    return share


def function_features(
    analysis: QueryAnalysis,
    query: QueryFacts,
    definitions: Sequence[Definition],
    ranking: StageRanking,
    callpath: Mapping[int, float] | None = None,
) -> dict[int, dict[str, float]]:
    """Features of each definition (symbol id -> feature -> value); ``callpath``: symbol id ->
    that feature, as ``function_facts.read_callpath`` reads it (absent: 0)."""
    callpath = callpath or {}
    chunk_scores, chunk_symbol = ranking.chunk_scores, ranking.chunk_symbol
    file_scores, file_order = ranking.file_scores, ranking.file_order
    order = ranking.chunk_order
    top_chunk = max(chunk_scores.values(), default=0.0) or 1.0
    best_chunk: dict[int, float] = {}
    for chunk in order:
        symbol = chunk_symbol.get(chunk)
        if symbol is not None and symbol not in best_chunk:
            best_chunk[symbol] = chunk_scores[chunk]
    symbol_rank = {s: i + 1 for i, s in enumerate(function_order(order, chunk_symbol))}
    top_file = max(file_scores.values(), default=0.0) or 1.0
    file_rank = {f: i + 1 for i, f in enumerate(file_order)}
    bare, dotted = _mentions(analysis)
    frames = _frame_functions(analysis)
    top_term = max((w for _, w in analysis.terms), default=1.0) or 1.0
    exact = {t: w / top_term for t, w in analysis.terms}
    stems = {stem(t): w for t, w in exact.items()}
    body_terms = _coverage_of(query)
    out: dict[int, dict[str, float]] = {}
    for d in definitions:
        owner = d.qualified_name.rsplit(".", 2)[-2] if "." in d.qualified_name else ""
        rank = symbol_rank.get(d.symbol_id)
        out[d.symbol_id] = {
            "chunk": max(0.0, best_chunk.get(d.symbol_id, 0.0) / top_chunk),
            "chunk_rank": 1.0 / rank if rank else 0.0,
            "file": max(0.0, file_scores.get(d.file_id, 0.0) / top_file),
            "file_rank": 1.0 / file_rank[d.file_id] if d.file_id in file_rank else 0.0,
            "named": bare.get(d.name, 0.0) * specificity(query.definition_counts.get(d.name, 1)),
            "named_qualified": max(
                (w for m, w in dotted.items() if _same_dotted(m, d.qualified_name)), default=0.0
            ),
            "named_owner": bare.get(owner, 0.0) if owner and owner != d.name else 0.0,
            "frame": frames.get(d.name, 0.0),
            "name_terms": name_terms(d.name, exact, stems),
            "body_terms": body_terms(d.tokens),
            "class": 1.0 if d.kind == "class" else 0.0,
            "test": 1.0 if is_test_path(d.path) else 0.0,
            "size": min(1.0, math.log1p(max(0, d.lines)) / math.log1p(SIZE_SATURATION)),
            "callpath": callpath.get(d.symbol_id, 0.0),
        }
    return out


def candidates(
    definitions: Sequence[Definition],
    ranking: StageRanking,
    *,
    files: int = FUNCTION_FILES,
    chunks: int = FUNCTION_CHUNKS,
) -> list[Definition]:
    """The stage's candidates among ``definitions``: those of the best ``files`` files (of
    DEFINITION_KINDS) and the best ``chunks`` chunks' symbols (any kind), in symbol id order; a
    definition without a chunk of its own (a function nested in another: its parent's chunk holds
    it) is not one — search answers with chunks."""
    top_files = set(ranking.top_files(files))
    symbols = set(ranking.top_symbols(chunks))
    return sorted(
        (
            d
            for d in definitions
            if d.chunk_id is not None
            and (d.symbol_id in symbols or (d.file_id in top_files and d.kind in DEFINITION_KINDS))
        ),
        key=lambda d: d.symbol_id,
    )


def linear_scores(
    features: Mapping[int, Mapping[str, float]], coefficients: Mapping[str, float] = FUNCTION_COEFFICIENTS
) -> dict[int, float]:
    """``sum coefficient x feature`` per symbol (features a symbol lacks count 0)."""
    return {s: sum(coefficients.get(n, 0.0) * v for n, v in feats.items()) for s, feats in features.items()}


def rank_definitions(
    features: Mapping[int, Mapping[str, float]], coefficients: Mapping[str, float] = FUNCTION_COEFFICIENTS
) -> list[tuple[int, float]]:
    """(symbol id, ``exp(score - best)``) by the linear score, best first (ties: today's function
    order, then the symbol id): the best is 1, a symbol e-times less likely 1/e."""
    score = linear_scores(features, coefficients)
    order = sorted(score, key=lambda s: (-score[s], -features[s].get("chunk_rank", 0.0), s))
    best = score[order[0]] if order else 0.0
    return [(s, math.exp(score[s] - best)) for s in order]

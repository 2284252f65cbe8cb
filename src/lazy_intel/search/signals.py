"""The signals of hybrid search, each read from one view: BM25 over chunks, quoted phrases, dense
vectors, exact symbols, named paths; and the candidates' files and symbols they record.

:mod:`.hybrid` runs them for a query and fuses what they find (:mod:`.fusion`).
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lazy_intel.search.embedders import Embedder
from lazy_intel.search.lexical import (
    ColumnWeights,
    LexicalQuery,
    build_lexical_query,
    build_phrase_query,
    filter_clauses,
    repeated_phrases,
)
from lazy_intel.search.path_mentions import path_mentions, path_suffixes, score_matches
from lazy_intel.search.phrases import quoted_phrases
from lazy_intel.search.query import QueryAnalysis, stem_terms
from lazy_intel.search.vector_search import dense_nearest
from lazy_intel.search.vectors import META_PROFILE
from lazy_intel.store.reader import ReadView

LEXICAL_CANDIDATES = 1_000  # chunks BM25 hands to fusion
LEXICAL_TERMS = 48  # the query's best terms that occur in the index go into the BM25 query
# The weighted BM25 query repeats a term by its weight (lexical.py), and FTS5's bm25() costs per
# matched row x phrases: on long reports (200 phrases, most chunks matching) that was most of a
# search. Two phases instead: the terms once each pick this many candidates (a fifth of the cost),
# then the weighted query scores only those. On the dev set's longest reports the weighted top
# 1,000 came out identical; docs/retrieval.md has the held-out comparison. (Both phases are now
# mostly answered from in-memory phrase scores, store/postings.py, where a phase costs a few
# milliseconds; the two phases stay because they decide which chunks are candidates.)
LEXICAL_PREFILTER = 2_000
LEXICAL_TWO_PHASE_MIN_ROWS = 5_000  # smaller indexes: one phase (cheap anyway)
BM25_PRUNE_MIN_ROWS = 1_000  # from this many chunks on, terms in half of them leave the BM25 query
DENSE_CANDIDATES = 1_000  # chunks the vector search hands to fusion
MAX_DEFINITIONS_PER_NAME = 50  # a name defined more often than this says little about where to look
# Exact-symbol signal: a mention of weight w naming a symbol defined n times scores w / (1 + ln n);
# a dotted mention whose qualified suffix matches (``Session.request``) scores QUALIFIED_MATCH_FACTOR x.
QUALIFIED_MATCH_FACTOR = 2.0
# ``Class.method`` also names its class, this much: the method may be missing (that can be the bug),
# or defined in a base class, while the class is where to look.
OWNER_FACTOR = 0.5
# Plain words of the report that happen to be a symbol's exact name count this much of an identifier.
WORD_SYMBOL_FACTOR = 0.3
MIN_WORD_SYMBOL_CHARS = 5


@dataclass(frozen=True)
class Filters:
    """The request's filters: language, path glob, symbol kind."""

    lang: str | None = None
    path_glob: str | None = None
    kind: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.lang or self.path_glob or self.kind)


@dataclass
class Candidates:
    """What the signals learnt of their chunks: each one's file and symbol, each file's path."""

    chunk_file: dict[int, int] = field(default_factory=dict)
    chunk_symbol: dict[int, int | None] = field(default_factory=dict)
    file_path: dict[int, str] = field(default_factory=dict)


def dense_state(view: ReadView, embedder: Embedder | None) -> tuple[bool, str]:
    """Whether dense search can run on this view with this embedder, and why not."""
    if embedder is None:
        return False, "dense: no embedding provider configured"
    stored = view.meta(META_PROFILE)
    if stored is None:
        return False, "dense: no vectors in this index yet (run lazy-intel index)"
    if stored != embedder.profile.id:
        return False, (
            f"dense: vectors were built with {stored.split('|')[1]}, the configured model is "
            f"{embedder.profile.model}; run lazy-intel index to rebuild the dense projection"
        )
    return True, ""


def indexed_term_counts(
    view: ReadView, analysis: QueryAnalysis, stem_weight: float = 0.0
) -> list[tuple[str, float, int]]:
    """The query's terms, compounds and (``stem_weight`` > 0) stems that occur in the index, best
    first, at most ``LEXICAL_TERMS``: (token, weight, chunks that hold it)."""
    candidates = [*analysis.terms, *analysis.compounds]
    candidates += stem_terms(candidates, stem_weight)
    present = view.term_document_counts([t for t, _ in candidates])
    kept = [(t, w, present[t]) for t, w in candidates if t in present]
    kept.sort(key=lambda twd: -twd[1])  # stable: analysis order among equal weights
    return kept[:LEXICAL_TERMS]


def indexed_terms(
    view: ReadView, analysis: QueryAnalysis, stem_weight: float = 0.0
) -> list[tuple[str, float]]:
    """:func:`indexed_term_counts` without the counts."""
    return [(t, w) for t, w, _ in indexed_term_counts(view, analysis, stem_weight)]


def bm25_terms(counted: Sequence[tuple[str, float, int]], rows: int) -> list[tuple[str, float]]:
    """The terms worth a place in the BM25 query: those in fewer than half the chunks.

    FTS5's bm25() gives a term held by half the rows or more an IDF of 1e-6: it adds nothing to a
    score, yet its postings (repeated by its weight) were the costliest part of the query — "astropy"
    is in 82% of astropy's chunks. Leaving such terms out keeps every score (to 1e-6) and cuts the
    lexical query's CPU time by a quarter on long reports. Below :data:`BM25_PRUNE_MIN_ROWS` rows
    the query is cheap anyway and such a term may be all a small repository matches: kept.
    """
    if rows < BM25_PRUNE_MIN_ROWS:
        return [(t, w) for t, w, _ in counted]
    return [(t, w) for t, w, docs in counted if 2 * docs < rows]


def lexical_chunks(
    view: ReadView,
    terms: Sequence[tuple[str, float]],
    filters: Filters,
    cands: Candidates,
    *,
    columns: Sequence[str],
    column_weights: ColumnWeights,
    prefilter: int = 0,
) -> dict[int, float]:
    within: list[int] | None = None
    if (
        prefilter > 0
        and view.chunk_count() >= LEXICAL_TWO_PHASE_MIN_ROWS
        and repeated_phrases(terms) > len(terms)
    ):
        # two phases (see LEXICAL_PREFILTER): each term once picks the candidates, cheaply; the
        # weighted query then scores only those
        first = build_lexical_query(
            [(t, 1.0) for t, _ in terms],
            limit=prefilter,
            lang=filters.lang,
            path_glob=filters.path_glob,
            kind=filters.kind,
            columns=columns,
            column_weights=column_weights,
        )
        within = [chunk for chunk, _, _ in view.lexical(first)] if first else []
    query = build_lexical_query(
        list(terms),
        limit=LEXICAL_CANDIDATES,
        lang=filters.lang,
        path_glob=filters.path_glob,
        kind=filters.kind,
        columns=columns,
        column_weights=column_weights,
        within=within,
    )
    return ranked_chunks(view, query, cands)


def ranked_chunks(view: ReadView, query: LexicalQuery | None, cands: Candidates) -> dict[int, float]:
    """Run a built full-text query; chunk -> score, each chunk's file recorded."""
    if query is None:
        return {}
    scores: dict[int, float] = {}
    for chunk_id, file_id, score in view.lexical(query):
        scores[chunk_id] = score
        cands.chunk_file[chunk_id] = file_id
    return scores


def phrase_chunks(
    view: ReadView,
    analysis: QueryAnalysis,
    filters: Filters,
    cands: Candidates,
    *,
    columns: Sequence[str],
    column_weights: ColumnWeights,
) -> dict[int, float]:
    """Chunks holding a phrase the report quotes (messages, inline code, strings), by BM25."""
    query = build_phrase_query(
        [(p.tokens, p.weight) for p in quoted_phrases(analysis)],
        limit=LEXICAL_CANDIDATES,
        lang=filters.lang,
        path_glob=filters.path_glob,
        kind=filters.kind,
        columns=columns,
        column_weights=column_weights,
    )
    return ranked_chunks(view, query, cands)


def dense_chunks(
    view: ReadView, text: str, embedder: Embedder, filters: Filters, cands: Candidates
) -> tuple[dict[int, float], str]:
    fetch = DENSE_CANDIDATES * (4 if filters.active else 1)
    hits = dense_nearest(view, embedder.profile.id, embedder.embed([text])[0], fetch)
    if hits is None:
        return {}, "dense: no vectors yet"
    kept = chunk_files(view, hits.chunk_ids, filters, cands)
    out = {cid: s for cid, s in zip(hits.chunk_ids, hits.scores, strict=True) if cid in kept}
    out = dict(list(out.items())[:DENSE_CANDIDATES])
    total = view.chunk_count()
    note = f"dense: {hits.method} over {hits.searched}/{total} chunks ({embedder.profile.model})"
    return out, note


def chunk_files(view: ReadView, ids: Sequence[int], filters: Filters, cands: Candidates) -> set[int]:
    """Record file and symbol of chunks ``ids``; return those that pass the filters."""
    kept: set[int] = set()
    extra, extra_args = filter_clauses(lang=filters.lang, path_glob=None, kind=filters.kind)
    for start in range(0, len(ids), 500):
        batch = list(ids[start : start + 500])
        marks = ",".join("?" * len(batch))
        rows = view.conn.execute(
            "SELECT c.id, c.file_id, c.symbol_id, f.path FROM chunks c JOIN files f ON f.id = c.file_id "
            f"LEFT JOIN symbols s ON s.id = c.symbol_id WHERE c.id IN ({marks}) " + " ".join(extra),
            [*batch, *extra_args],
        )
        for cid, fid, sid, path in rows:
            if filters.path_glob and not fnmatch.fnmatchcase(path, filters.path_glob):
                continue
            cands.chunk_file[cid] = fid
            cands.chunk_symbol[cid] = sid
            cands.file_path[fid] = path
            kept.add(cid)
    return kept


def symbol_chunks(
    view: ReadView,
    analysis: QueryAnalysis,
    terms: Sequence[tuple[str, float]],
    filters: Filters,
    cands: Candidates,
) -> dict[int, float]:
    """Chunks of symbols the query names: exact name, or qualified suffix for dotted mentions."""
    mentions: list[tuple[str, float]] = list(analysis.identifiers)
    named = {name.rsplit(".", 1)[-1] for name, _ in mentions}
    for mention, weight in list(mentions):
        owner = mention.rpartition(".")[0]  # ``RST.__init__`` names the class RST too
        owner_name = owner.rpartition(".")[2]
        if owner_name[:1].isupper() and owner_name not in named:
            mentions.append((owner, weight * OWNER_FACTOR))
    for term, weight in terms:
        if len(term) >= MIN_WORD_SYMBOL_CHARS and term not in named:
            mentions.append((term, weight * WORD_SYMBOL_FACTOR))
    symbol_scores: dict[int, float] = {}
    for mention, weight in mentions:
        parts = mention.split(".")
        name = parts[-1]
        rows = view.conn.execute(
            "SELECT s.id, s.qualified_name FROM symbols s WHERE s.name = ? LIMIT ?",
            (name, MAX_DEFINITIONS_PER_NAME + 1),
        ).fetchall()
        if not rows or len(rows) > MAX_DEFINITIONS_PER_NAME:
            continue
        specificity = 1.0 / (1.0 + math.log(len(rows)))
        for symbol_id, qualified in rows:
            factor = 1.0
            if len(parts) > 1:
                for cut in range(len(parts) - 1):
                    suffix = ".".join(parts[cut:])
                    if qualified == suffix or qualified.endswith("." + suffix):
                        factor = QUALIFIED_MATCH_FACTOR
                        break
            score = weight * specificity * factor
            if score > symbol_scores.get(symbol_id, 0.0):
                symbol_scores[symbol_id] = score
    if not symbol_scores:
        return {}
    chunk_scores: dict[int, float] = {}
    ids = list(symbol_scores)
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        rows = view.conn.execute(
            f"SELECT c.id, c.symbol_id FROM chunks c WHERE c.symbol_id IN ({marks}) ORDER BY c.id", batch
        ).fetchall()
        for chunk_id, symbol_id in rows:
            chunk_scores.setdefault(chunk_id, symbol_scores[symbol_id])
    kept = chunk_files(view, list(chunk_scores), filters, cands)
    return {cid: s for cid, s in chunk_scores.items() if cid in kept}


def indexed_with_suffix(view: ReadView, suffix: str) -> list[str]:
    """Indexed paths equal to ``suffix`` or ending with ``/suffix`` (at most 20, in id order).

    Looked up by file name in the view's path index (read once per generation): a traceback names
    dozens of suffixes, and a ``LIKE '%/suffix'`` per suffix scanned every file row each time.
    """
    same_name = view.indexed_paths_by_name().get(suffix.rsplit("/", 1)[-1], ())
    return [p for p in same_name if p == suffix or p.endswith("/" + suffix)][:20]


def path_files(
    view: ReadView, analysis: QueryAnalysis, filters: Filters, cands: Candidates
) -> dict[int, float]:
    """Files the query names (paths, frames, modules), scored by how much of the path it names."""
    mentions = path_mentions(analysis)
    looked_up: dict[str, list[str]] = {}  # a frame's path is often named in the text again
    matches: list[tuple[str, list[str]]] = []
    for mention in mentions:
        found: tuple[str, list[str]] = (mention.path, [])
        suffixes = [mention.path] if mention.exact else path_suffixes(mention.path, mention.min_parts)
        for suffix in suffixes:
            if suffix not in looked_up:
                indexed = indexed_with_suffix(view, suffix)
                if filters.path_glob:
                    indexed = [h for h in indexed if fnmatch.fnmatchcase(h, filters.path_glob)]
                looked_up[suffix] = indexed
            hits = looked_up[suffix]
            if hits:
                found = (suffix, hits)
                break
        matches.append(found)
    by_path = score_matches(mentions, matches)
    return file_ids(view, by_path, filters, cands)


def fill_paths(view: ReadView, cands: Candidates) -> None:
    missing = [fid for fid in set(cands.chunk_file.values()) if fid not in cands.file_path]
    for start in range(0, len(missing), 500):
        batch = missing[start : start + 500]
        marks = ",".join("?" * len(batch))
        for fid, path in view.conn.execute(f"SELECT id, path FROM files WHERE id IN ({marks})", batch):
            cands.file_path[fid] = path
    unknown = [cid for cid in cands.chunk_file if cid not in cands.chunk_symbol]
    for start in range(0, len(unknown), 500):
        batch = unknown[start : start + 500]
        marks = ",".join("?" * len(batch))
        for cid, sid in view.conn.execute(f"SELECT id, symbol_id FROM chunks WHERE id IN ({marks})", batch):
            cands.chunk_symbol[cid] = sid


def file_ids(
    view: ReadView, by_path: Mapping[str, float], filters: Filters, cands: Candidates
) -> dict[int, float]:
    out: dict[int, float] = {}
    extra, extra_args = filter_clauses(lang=filters.lang, path_glob=None, kind=None)
    for path, score in by_path.items():
        if filters.path_glob and not fnmatch.fnmatchcase(path, filters.path_glob):
            continue
        row = view.conn.execute(
            "SELECT f.id FROM files f WHERE f.path = ? " + " ".join(extra), (path, *extra_args)
        ).fetchone()
        if row:
            out[int(row[0])] = score
            cands.file_path[int(row[0])] = path
    return out


def chunks_of_symbols(
    view: ReadView, symbols: Mapping[int, float], filters: Filters, cands: Candidates
) -> dict[int, float]:
    out: dict[int, float] = {}
    ids = list(symbols)
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        marks = ",".join("?" * len(batch))
        for cid, sid in view.conn.execute(
            f"SELECT id, symbol_id FROM chunks WHERE symbol_id IN ({marks})", batch
        ):
            out.setdefault(cid, symbols[sid])
    kept = chunk_files(view, list(out), filters, cands)
    return {c: s for c, s in out.items() if c in kept}

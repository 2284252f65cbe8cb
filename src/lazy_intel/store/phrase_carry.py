"""A phrase's scores carried from the generation they were read in to a later one (issue 15).

A row's summand for a phrase (:mod:`.bm25`) depends on the row (its weighted count ``F(p)``, its
length ``D``) and on the table (row count, token count, the phrase's row count): an edit moves the
table's statistics for every phrase, so each phrase used to be read again from FTS5 after every
publication (at 100k files, a few hundred ms for a search's phrases). Here the rows that did not
change keep their ``F(p)`` (solved from the summand once, exactly: :func:`.bm25.recovered_freqs`),
the rows the publications in between removed go, the rows they added are read from the store (FTS5,
or PostgreSQL's BM25 SQL: :mod:`.phrase_source`) for just their rowid ranges (the last range
stretched down to the nearest row that stayed, so the same query reads at least one unchanged row), and every summand is evaluated again from the new generation's
statistics. The unchanged rows read must equal their recomputed summands to the bit — a check of
the statistics and of the change log — or the phrase is read afresh.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lazy_intel.store.bm25 import PhraseScores, TableTotals, fts5_idf, phrase_summands, recovered_freqs
from lazy_intel.store.chunk_changes import ChunkChanges, id_ranges, range_pairs
from lazy_intel.store.phrase_source import PhraseSource

log = logging.getLogger(__name__)

MAX_ADDED_RANGES = 32  # rowid ranges of added rows read per phrase; more: the phrase is read afresh


@dataclass(frozen=True)
class PhraseEntry:
    """One phrase's summands at ``generation`` and what carrying them over needs: the table's
    statistics then and (once solved) each row's weighted count ``F(p)``."""

    generation: int
    scores: PhraseScores
    totals: TableTotals
    freqs: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        return self.scores.nbytes + (int(self.freqs.nbytes) if self.freqs is not None else 0)


def _within(docs: np.ndarray, ranges: Sequence[tuple[int, int]]) -> np.ndarray:
    """Which of ``docs`` lie in one of the inclusive ``ranges``."""
    inside = np.zeros(len(docs), dtype=bool)
    for low, high in ranges:
        inside |= (docs >= low) & (docs <= high)
    return inside


def carried(
    source: PhraseSource,
    part: str,
    weights: Sequence[float],
    entry: PhraseEntry,
    generation: int,
    *,
    changes: ChunkChanges,
    lengths: np.ndarray,
    totals: TableTotals,
    grid: float,
) -> PhraseEntry | None:
    """``entry`` (phrase ``part``) at ``generation``, whose statistics are ``totals``, the rows in
    ``changes`` since ``entry.generation`` applied; ``lengths`` (by rowid) hold the lengths of the
    rows at ``generation``. ``None`` when that cannot be done exactly: read the phrase afresh."""
    docs = entry.scores.docs
    if len(docs) and int(docs[-1]) >= len(lengths):
        return None
    if entry.totals.rows + changes.net_rows != totals.rows:  # the log misses rows
        log.debug("phrase %r: the change log does not account for the row count, read afresh", part)
        return None
    keep = ~np.isin(docs, changes.removed, assume_unique=True)
    kept_docs = docs[keep]
    if len(kept_docs) and int(lengths[kept_docs].min()) < 0:  # a row that stayed is not there
        return None
    if entry.freqs is not None:
        kept_freqs = entry.freqs[keep]
    else:  # solved once, for the rows that stay (a removed row's length may be gone or reused)
        idf = fts5_idf(entry.totals.rows, len(docs))
        solved = recovered_freqs(entry.scores.scores[keep], lengths[kept_docs], idf, entry.totals.avgdl, grid)
        if solved is None:
            log.debug("phrase %r: F(p) not recovered exactly, read afresh", part)
            return None
        kept_freqs = solved
    ranges = range_pairs(id_ranges(changes.added.tolist()))
    if len(ranges) > MAX_ADDED_RANGES:
        return None
    if len(kept_docs):  # the last range reaches down to a row that stayed: FTS5's summand checks it
        top = ranges[-1][0] if ranges else int(kept_docs[-1]) + 1
        below = int(np.searchsorted(kept_docs, top)) - 1
        probe = int(kept_docs[max(below, 0)])
        if ranges and probe < top:
            ranges[-1] = (probe, ranges[-1][1])
        elif not ranges or probe > ranges[-1][1]:
            ranges.append((probe, probe))
    read = source.scores(part, weights, ranges) if ranges else None
    docs_read = read.docs if read is not None else docs[:0]
    is_added = np.isin(docs_read, changes.added, assume_unique=True)
    added_docs = docs_read[is_added]
    if len(docs_read) and (int(docs_read[-1]) >= len(lengths) or int(lengths[docs_read].min()) < 0):
        return None
    idf = fts5_idf(totals.rows, len(kept_docs) + len(added_docs))
    avgdl = totals.avgdl
    kept_scores = phrase_summands(kept_freqs, lengths[kept_docs], idf, avgdl)
    if read is not None and len(kept_docs):
        checked = docs_read[~is_added]  # rows that stayed, read from the store at this generation
        at = np.searchsorted(kept_docs, checked)
        in_kept = (at < len(kept_docs)) & (kept_docs[np.minimum(at, len(kept_docs) - 1)] == checked)
        expected = int(np.count_nonzero(_within(kept_docs, ranges)))
        if (
            not len(checked)
            or not np.all(in_kept)
            or len(checked) != expected
            or kept_scores[at].tobytes() != read.scores[~is_added].tobytes()
        ):
            log.debug("phrase %r: recomputed summands differ from the store's, read afresh", part)
            return None
    added = PhraseScores(added_docs, read.scores[is_added]) if read is not None else None
    if added is None or not len(added_docs):
        return PhraseEntry(generation, PhraseScores(kept_docs, kept_scores), totals, kept_freqs)
    added_freqs = recovered_freqs(added.scores, lengths[added_docs], idf, avgdl, grid)
    if added_freqs is None:
        return None
    all_docs = np.concatenate((kept_docs, added_docs))
    order = np.argsort(all_docs, kind="stable")
    scores = np.concatenate((kept_scores, added.scores))[order]
    return PhraseEntry(
        generation,
        PhraseScores(all_docs[order], scores),
        totals,
        np.concatenate((kept_freqs, added_freqs))[order],
    )

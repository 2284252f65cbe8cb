"""FTS5's ``bm25()`` ranking of an OR of phrases, summed in NumPy from each phrase's own scores (pure).

FTS5 scores a row for the phrases ``p`` of a MATCH expression (a phrase repeated in the expression
counts once per repetition, in expression order) as::

    sum_p idf(p) * (F(p) * (k1 + 1)) / (F(p) + k1 * (1 - b + b * D / avgdl))

(``sqlite3/ext/fts5/fts5_aux.c``). Each summand depends on its phrase and the row only: ``F(p)``, the
column-weighted count of the phrase in the row; ``D``, the row's length; ``avgdl`` and ``idf(p)``,
statistics of the whole table. So a query of one phrase returns that phrase's summand for every row
holding it, as the same double (``0.0 + x`` is ``x``). Adding those up row by row in expression
order (a row without the phrase adds ``0.0`` in FTS5, which changes nothing) gives FTS5's score to
the last bit, and ordering by it gives FTS5's ranking, ties included: ``tests/store/test_bm25.py``
compares both over fixtures and random queries.

Why: FTS5 pays for every matched row x phrase of the OR query in its virtual-table machinery on
each search; a phrase's summands per (store, generation) are computed once (``store/postings.py``
keeps them) and a search becomes a few NumPy additions.

A summand also survives a new generation (issue 15): ``F(p)`` and ``D`` of a row that did not change
stay, only ``idf(p)`` and ``avgdl`` move. :func:`recovered_freqs` solves the summand of the generation
it was read in for ``F(p)`` (``D`` from the row's stored lengths, the statistics of that generation),
rounds it to the grid the column weights put it on, and keeps it only where recomputing gives the
summand read to the bit; :func:`phrase_summands` then evaluates FTS5's expression for a new
generation's statistics operation by operation as ``fts5_aux.c`` does (IEEE doubles: the same
inputs, the same result), and ``math.log`` is the C library's ``log`` SQLite calls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FTS_TABLE = "chunks_fts"
# FTS5's bm25() constants (fts5_aux.c fts5Bm25Function), fixed in SQLite
BM25_K1 = 1.2
BM25_B = 0.75
BM25_MIN_IDF = 1e-6  # FTS5's floor for a phrase in more than half the rows
# A row's weighted phrase count F(p) is a sum of column weights. Where every weight is a multiple of
# 2**-WEIGHT_GRID_BITS the sum is exact in any order, so F(p) is a multiple of that grid and can be
# recovered from a summand; other weights leave the phrase to be read again per generation.
WEIGHT_GRID_BITS = 10
# A recovered F(p) is kept only where the solved value lies this close (in grid steps) to the grid
# point it rounds to: far inside the half step at which rounding could pick a wrong neighbour.
RECOVERY_TOLERANCE = 1 / 64


@dataclass(frozen=True)
class PhraseScores:
    """One phrase's ``-bm25()`` summand in each row holding it (rowids ascending)."""

    docs: np.ndarray  # int64 rowids
    scores: np.ndarray  # float64, the summand of each row in ``docs``

    @property
    def nbytes(self) -> int:
        return int(self.docs.nbytes + self.scores.nbytes)


def quoted_phrase(part: str) -> str:
    """One MATCH phrase as :mod:`lazy_intel.search.lexical` quotes it."""
    return '"' + part.replace('"', '""') + '"'


def phrase_scores_sql(weights: Sequence[float]) -> str:
    """``(rowid, summand)`` of the rows holding the one phrase bound to ``?``, ascending rowid."""
    columns = ", ".join(repr(float(w)) for w in weights)
    return (
        f"SELECT rowid, -bm25({FTS_TABLE}, {columns}) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? "
        "ORDER BY rowid"
    )


def summed_scores(phrases: Sequence[PhraseScores], size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(score, matched)`` over rowids ``0..size-1``: the OR query's ``-bm25()`` of every row (the
    phrases' summands added in the order given, repetitions included) and which rows match."""
    score = np.zeros(size, dtype=np.float64)
    matched = np.zeros(size, dtype=bool)
    seen: set[int] = set()
    for phrase in phrases:
        if id(phrase) not in seen:
            seen.add(id(phrase))
            matched[phrase.docs] = True
        score[phrase.docs] += phrase.scores
    return score, matched


def ranked(
    score: np.ndarray, matched: np.ndarray, eligible: np.ndarray, limit: int
) -> tuple[np.ndarray, np.ndarray]:
    """The best ``limit`` eligible matched rowids by score, then rowid (the SQL's ``ORDER BY score
    DESC, c.id``), and their scores."""
    ids = np.flatnonzero(matched & eligible)
    if not len(ids) or limit <= 0:
        return ids[:0], score[:0]
    values = score[ids]
    if len(ids) > limit:
        # every row above the limit-th best score, and the ties at it, then ordered
        cut = np.partition(-values, limit - 1)[limit - 1]
        keep = -values <= cut
        ids, values = ids[keep], values[keep]
    order = np.lexsort((ids, -values))[:limit]
    return ids[order], values[order]


@dataclass(frozen=True)
class TableTotals:
    """What FTS5's ``bm25()`` reads of the whole table: its row count and token count (all columns)."""

    rows: int
    tokens: int

    @property
    def avgdl(self) -> float:
        return float(self.tokens) / float(self.rows) if self.rows else 0.0


def fts5_idf(rows: int, hits: int) -> float:
    """FTS5's ``idf`` of a phrase held by ``hits`` of ``rows`` rows (floored at :data:`BM25_MIN_IDF`)."""
    idf = math.log((float(rows - hits) + 0.5) / (float(hits) + 0.5))
    return idf if idf > 0.0 else BM25_MIN_IDF


def phrase_summands(freqs: np.ndarray, lengths: np.ndarray, idf: float, avgdl: float) -> np.ndarray:
    """The ``-bm25()`` summand of one phrase in rows of weighted counts ``freqs`` and lengths
    ``lengths`` (tokens, all columns), evaluated in ``fts5_aux.c``'s order of operations."""
    k1 = BM25_K1
    b = BM25_B
    d = lengths.astype(np.float64)
    return idf * ((freqs * (k1 + 1.0)) / (freqs + k1 * ((1 - b) + (b * d) / avgdl)))


def weight_grid(weights: Sequence[float]) -> float | None:
    """The grid step every row's ``F(p)`` lies on for column ``weights``; ``None`` when a weight is
    not a multiple of ``2**-WEIGHT_GRID_BITS`` (then ``F(p)`` depends on the order of additions)."""
    scale = float(1 << WEIGHT_GRID_BITS)
    if not weights or any(not (w > 0) or not math.isfinite(w) or (w * scale) % 1 for w in weights):
        return None
    steps = [int(w * scale) for w in weights]
    return math.gcd(*steps) / scale


def recovered_freqs(
    scores: np.ndarray, lengths: np.ndarray, idf: float, avgdl: float, grid: float
) -> np.ndarray | None:
    """``F(p)`` of each row from its summand ``scores`` (read at the statistics ``idf``, ``avgdl``),
    or ``None`` unless every one is recovered exactly (on the grid, and giving ``scores`` to the bit
    through :func:`phrase_summands`)."""
    if not len(scores):
        return scores.astype(np.float64)
    k1 = BM25_K1
    b = BM25_B
    norm = (1 - b) + (b * lengths.astype(np.float64)) / avgdl
    with np.errstate(divide="ignore", invalid="ignore"):
        solved = scores * k1 * norm / (idf * (k1 + 1.0) - scores)
    steps = solved / grid
    nearest = np.rint(steps)
    if (
        not np.all(np.isfinite(steps))
        or np.any(nearest < 1)
        or np.any(np.abs(steps - nearest) > RECOVERY_TOLERANCE)
    ):
        return None
    freqs = nearest * grid
    if not np.array_equal(phrase_summands(freqs, lengths, idf, avgdl), scores):
        return None
    return freqs

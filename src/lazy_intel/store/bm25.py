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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FTS_TABLE = "chunks_fts"


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

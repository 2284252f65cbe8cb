"""Where the in-memory postings (:mod:`.postings`) read a phrase's summands and the table's statistics.

Two sources give the same numbers to the bit: SQLite's FTS5 table (:class:`Fts5Phrases`: its own
``bm25()`` of a one-phrase query, its averages and docsize records) and PostgreSQL's ``tsvector``
columns (``store/pg/phrases.py``: the BM25 SQL of ``store/pg/fulltext.py`` stopped before the sum,
``fts_delta`` and ``doc_len``). What the cache does with them — hold, carry over to a later
generation, bound in bytes — does not depend on the backend.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from lazy_intel.store.bm25 import PhraseScores, TableTotals, phrase_scores_sql, quoted_phrase
from lazy_intel.store.chunk_changes import CHUNK_CHANGES_KEY
from lazy_intel.store.fts_stats import read_lengths, read_totals


class PhraseSource(Protocol):
    """One store generation's full-text table, as the postings cache reads it."""

    conn: Any  # the view's connection: chunk -> file lookups run on it (SQL both backends share)

    def totals(self) -> TableTotals:
        """The row count and token count ``bm25()`` reads of the whole table."""
        ...

    def lengths(
        self, columns: int, ranges: Sequence[tuple[int, int]] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(rowids, lengths)`` of every row, or of the rows within the inclusive rowid ``ranges``."""
        ...

    def scores(
        self, part: str, weights: Sequence[float], ranges: Sequence[tuple[int, int]] = ()
    ) -> PhraseScores:
        """Phrase ``part``'s summand in every row holding it, or in the rows within ``ranges`` only."""
        ...

    def many(self, parts: Sequence[str], weights: Sequence[float]) -> dict[str, PhraseScores]:
        """:meth:`scores` of each of ``parts`` (distinct) over the whole table."""
        ...

    def change_log(self) -> str | None:
        """The chunk change log of meta (:mod:`.chunk_changes`), if any."""
        ...


def read_change_log(conn: Any) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (CHUNK_CHANGES_KEY,)).fetchone()
    return str(row[0]) if row else None


def read_phrase_scores(
    conn: sqlite3.Connection, part: str, weights: Sequence[float], ranges: Sequence[tuple[int, int]] = ()
) -> PhraseScores:
    """The ``-bm25()`` summand of phrase ``part`` in every row holding it (one FTS5 query), or in
    the rows of the inclusive rowid ``ranges`` only (one query each)."""
    if ranges:
        sql = phrase_scores_sql(weights).replace(
            " ORDER BY rowid", " AND rowid BETWEEN ? AND ? ORDER BY rowid"
        )
        rows = []
        for low, high in ranges:
            rows.extend(conn.execute(sql, (quoted_phrase(part), low, high)).fetchall())
    else:
        rows = conn.execute(phrase_scores_sql(weights), (quoted_phrase(part),)).fetchall()
    docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    return PhraseScores(docs, scores)


class Fts5Phrases:
    """:class:`PhraseSource` over SQLite's FTS5 table."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def totals(self) -> TableTotals:
        return read_totals(self.conn)

    def lengths(
        self, columns: int, ranges: Sequence[tuple[int, int]] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        return read_lengths(self.conn, columns, ranges)

    def scores(
        self, part: str, weights: Sequence[float], ranges: Sequence[tuple[int, int]] = ()
    ) -> PhraseScores:
        return read_phrase_scores(self.conn, part, weights, ranges)

    def many(self, parts: Sequence[str], weights: Sequence[float]) -> dict[str, PhraseScores]:
        return {part: self.scores(part, weights) for part in parts}

    def change_log(self) -> str | None:
        return read_change_log(self.conn)

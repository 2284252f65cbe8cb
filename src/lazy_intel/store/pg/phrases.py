"""The in-memory postings' source over PostgreSQL (``store/phrase_source.py``).

A phrase's summands come from :func:`.fulltext.phrase_summands_sql`, the ranked BM25 query stopped
before its sum (one query for every phrase a search misses); the table's statistics from
``fts_delta`` and each row's length from ``chunks_fts.doc_len`` — what that SQL reads. So the
postings cache ranks a PostgreSQL store exactly as its SQL does, and carries phrases over to a
later generation the way it does for SQLite (the writer keeps the same chunk change log in meta).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lazy_intel.store.bm25 import PhraseScores, TableTotals
from lazy_intel.store.pg.fulltext import phrase_summands_sql, phrase_tokens
from lazy_intel.store.phrase_source import read_change_log

LENGTH_BATCH = 100_000  # rowids per read of the row lengths


class PgPhrases:
    """:class:`~lazy_intel.store.phrase_source.PhraseSource` over one PostgreSQL read view."""

    def __init__(self, conn: Any, columns: Sequence[str]) -> None:
        self.conn = conn
        self.columns = tuple(columns)

    def totals(self) -> TableTotals:
        row = self.conn.execute(
            "SELECT coalesce(sum(rows), 0), coalesce(sum(tokens), 0) FROM fts_delta"
        ).fetchone()
        return TableTotals(int(row[0]), int(row[1]))

    def lengths(
        self, columns: int, ranges: Sequence[tuple[int, int]] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        if ranges is None:  # every row, a batch of rowids at a time: no million-tuple list at 100k files
            top = self.conn.execute("SELECT max(rowid) FROM chunks_fts").fetchone()[0]
            ranges = [(low, low + LENGTH_BATCH - 1) for low in range(0, int(top or 0) + 1, LENGTH_BATCH)]
        id_parts: list[np.ndarray] = []
        length_parts: list[np.ndarray] = []
        for low, high in ranges:
            rows = self.conn.execute(
                "SELECT rowid, doc_len FROM chunks_fts WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                (low, high),
            ).fetchall()
            id_parts.append(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
            length_parts.append(np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)))
        if not id_parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(id_parts), np.concatenate(length_parts)

    def _read(
        self, parts: Sequence[str], weights: Sequence[float], ranges: Sequence[tuple[int, int]]
    ) -> dict[str, PhraseScores]:
        empty = PhraseScores(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        out = {part: empty for part in parts}
        tokens = {part: phrase_tokens(part) for part in parts}  # as FTS5 reads the quoted phrase
        matching = [part for part in parts if tokens[part]]
        if not matching:
            return out
        sql, args = phrase_summands_sql([tokens[p] for p in matching], self.columns, weights, ranges=ranges)
        for ordinal, rowids, summands in self.conn.execute(sql, args).fetchall():
            out[matching[int(ordinal)]] = PhraseScores(
                np.frombuffer(bytes(rowids), dtype=">i8").astype(np.int64),
                np.frombuffer(bytes(summands), dtype=">f8").astype(np.float64),
            )
        return out

    def scores(
        self, part: str, weights: Sequence[float], ranges: Sequence[tuple[int, int]] = ()
    ) -> PhraseScores:
        return self._read([part], weights, ranges)[part]

    def many(self, parts: Sequence[str], weights: Sequence[float]) -> dict[str, PhraseScores]:
        return self._read(list(dict.fromkeys(parts)), weights, ())

    def change_log(self) -> str | None:
        return read_change_log(self.conn)

"""What FTS5's ``bm25()`` reads besides the phrase itself, read from the table's own records.

``bm25()`` scores a row from the table's row and token counts (the *averages* record, rowid 1 of
``chunks_fts_data``) and the row's length (its ``chunks_fts_docsize`` record: one varint per column,
summed). Both are SQLite varints (``sqlite3Fts5GetVarint``: 7 bits a byte, most significant first,
the high bit set on every byte but the last; a 9th byte carries 8 bits). :mod:`.postings` uses them
to recompute a phrase's summands for a new generation (:mod:`.bm25`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from lazy_intel.store.bm25 import FTS_TABLE, TableTotals

AVERAGES_ROWID = 1  # FTS5_AVERAGES_ROWID
# a docsize varint longer than this (a column of >= 2**21 tokens) is decoded by the slow path
FAST_VARINT_BYTES = 3


def decode_varint(data: bytes, start: int = 0) -> tuple[int, int]:
    """``(value, next offset)`` of the SQLite varint at ``data[start:]``."""
    value = 0
    for i in range(8):
        byte = data[start + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, start + i + 1
    return (value << 8) | data[start + 8], start + 9


def decode_varints(data: bytes) -> list[int]:
    """Every varint of ``data``, in order."""
    out: list[int] = []
    at = 0
    while at < len(data):
        value, at = decode_varint(data, at)
        out.append(value)
    return out


def row_lengths(blobs: Sequence[bytes], columns: int) -> np.ndarray:
    """Each docsize record's token count over all ``columns`` (int64), vectorized over the records."""
    if not blobs:
        return np.zeros(0, dtype=np.int64)
    raw = np.frombuffer(b"".join(blobs), dtype=np.uint8)
    last = raw < 0x80  # the last byte of each varint
    ends = np.flatnonzero(last)
    starts = np.concatenate(([0], ends[:-1] + 1))
    if len(ends) != len(blobs) * columns or np.any(ends - starts >= FAST_VARINT_BYTES):
        return np.array([sum(decode_varints(b)[:columns]) for b in blobs], dtype=np.int64)
    # each byte's place from the end of its varint: 0 for the last, 1 before it, ...
    group = np.repeat(np.arange(len(ends)), ends - starts + 1)
    place = ends[group] - np.arange(len(raw))
    values = np.add.reduceat((raw & 0x7F).astype(np.int64) << (7 * place), starts)
    return values.reshape(len(blobs), columns).sum(axis=1)


def read_totals(conn: sqlite3.Connection) -> TableTotals:
    """The row count and the token count of all columns, as ``bm25()`` reads them."""
    row = conn.execute(f"SELECT block FROM {FTS_TABLE}_data WHERE id = ?", (AVERAGES_ROWID,)).fetchone()
    if row is None or not row[0]:
        return TableTotals(0, 0)
    values = decode_varints(bytes(row[0]))
    return TableTotals(values[0], sum(values[1:]))


def read_lengths(
    conn: sqlite3.Connection, columns: int, ranges: Sequence[tuple[int, int]] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(rowids, lengths)`` of every row, or of the rows within the inclusive rowid ``ranges``."""
    sql = f"SELECT id, sz FROM {FTS_TABLE}_docsize"
    if ranges is None:
        rows = conn.execute(sql).fetchall()
    else:
        rows = []
        for low, high in ranges:
            rows.extend(conn.execute(f"{sql} WHERE id BETWEEN ? AND ?", (low, high)).fetchall())
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    return ids, row_lengths([bytes(r[1]) for r in rows], columns)

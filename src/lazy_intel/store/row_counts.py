"""How many files and chunks a store holds, kept in its meta by the writer (issue 15).

``SELECT count(*) FROM files`` (every scoped sync) and ``SELECT count(*) FROM chunks`` (every
search's view, every full-text compaction check) read a whole index: they grow with the tree, not
with the edit or the query (at 100k files ~10^6 chunks). So each publication that changes content
records both counts, worked out from the rows it deleted and inserted, under meta
:data:`ROW_COUNTS_KEY` as ``"<generation> <files> <chunks>"``.

The counts are used only when the generation they name is the store's: a publication by a build
that does not keep them (an older version of lazy-intel on the same schema) moves the generation
and leaves them stale, and a reader then counts as before. The key is volatile meta
(store/dump.py): the generation in it depends on the history, the counts do not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

ROW_COUNTS_KEY = "row_counts"


@dataclass(frozen=True)
class RowCounts:
    files: int
    chunks: int


def parse_row_counts(meta: Mapping[str, str]) -> RowCounts | None:
    """The counts ``meta`` records for its own generation, or ``None`` (absent, stale, malformed)."""
    text = meta.get(ROW_COUNTS_KEY)
    if not text:
        return None
    parts = text.split()
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    if parts[0] != meta.get("generation", "0"):
        return None
    return RowCounts(int(parts[1]), int(parts[2]))


def format_row_counts(generation: int, counts: RowCounts) -> str:
    return f"{generation} {counts.files} {counts.chunks}"


def read_meta_counts(conn: sqlite3.Connection) -> RowCounts | None:
    """The recorded counts of the store on ``conn``, if current (two primary-key reads of meta)."""
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('generation', ?)", (ROW_COUNTS_KEY,)))
    return parse_row_counts(meta)


def count_rows(conn: sqlite3.Connection) -> RowCounts:
    """The counts read from the tables (a scan of one index of each)."""
    files = int(conn.execute("SELECT count(*) FROM files").fetchone()[0])
    chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    return RowCounts(files, chunks)


def file_count(conn: sqlite3.Connection) -> int:
    recorded = read_meta_counts(conn)
    return (
        recorded.files
        if recorded is not None
        else int(conn.execute("SELECT count(*) FROM files").fetchone()[0])
    )


def chunk_count(conn: sqlite3.Connection) -> int:
    recorded = read_meta_counts(conn)
    if recorded is not None:
        return recorded.chunks
    return int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

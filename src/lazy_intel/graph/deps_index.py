"""The inverted table of resolution dependencies: which files' last resolution read a token.

``graph_files.deps`` keeps each file's lookup tokens as one text; finding the files an edit
invalidates from it means reading every file's text (70 MB at 15k files, 0.35-0.48 s an edit, and
~7x that at 100k). ``graph_deps(token, file_key)`` holds the same tokens one row each, keyed by
token, so the dependents of an edit are one indexed lookup per dirty token
(docs/design/scale.md, "The dependents of an edit by index").

The table is a pure function of ``graph_files.deps``: an incremental sync writes the difference
of a file's old and new tokens; a full build writes none while it resolves and fills the table
once at the end, in token order (sorted by SQLite, not held in memory), so the B-tree is appended
to rather than written at random. :func:`deps_rows` is what both must produce.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator

# graph_files.deps of a file described but not resolved yet (no join of real tokens is this; not NUL,
# which PostgreSQL's text cannot hold)
PENDING_DEPS = "\x01pending"
# tokens per ``IN (...)`` of a lookup; rows per ``executemany`` of a fill
LOOKUP_BATCH = 500
FILL_BATCH = 20_000

_INSERT = "INSERT INTO graph_deps(token, file_key) VALUES (?, ?)"
_DELETE = "DELETE FROM graph_deps WHERE token=? AND file_key=?"
# the files holding any of a batch of tokens: graph_deps' primary key, then graph_files_key
LOOKUP_SQL = (
    "SELECT DISTINCT g.path FROM graph_deps d JOIN graph_files g ON g.file_key = d.file_key "
    "WHERE d.token IN ({marks})"
)


def deps_tokens(text: str | None) -> set[str]:
    """The tokens of one ``graph_files.deps`` text (none for a file not resolved yet)."""
    if not text or text == PENDING_DEPS:
        return set()
    return set(text.split("\n")) - {""}


def deps_rows(conn: sqlite3.Connection) -> Iterator[tuple[str, int]]:
    """``(token, file_key)`` of every graph file's deps text: what ``graph_deps`` must hold."""
    for key, text in conn.execute("SELECT file_key, deps FROM graph_files"):
        for token in deps_tokens(text):
            yield token, key


def write_deps(conn: sqlite3.Connection, key: int, old: str | None, new: str | None) -> None:
    """Change ``key``'s rows from the tokens of deps text ``old`` to those of ``new`` (only the
    difference: a re-resolved dependent usually reads what it read before)."""
    if old == new:
        return
    before, after = deps_tokens(old), deps_tokens(new)
    if before - after:
        conn.executemany(_DELETE, [(token, key) for token in sorted(before - after)])
    if after - before:
        conn.executemany(_INSERT, [(token, key) for token in sorted(after - before)])


def fill_deps(conn: sqlite3.Connection) -> int:
    """Rebuild ``graph_deps`` from every file's deps text (a full build, after resolution); returns
    the rows written. SQLite stages the rows unsorted in a temporary table and sorts them into the
    index; PostgreSQL takes them as they come."""
    conn.execute("DELETE FROM graph_deps")
    postgres = getattr(conn, "dialect", "sqlite") == "postgresql"
    target = "graph_deps" if postgres else "temp.graph_deps_fill"
    if not postgres:
        conn.execute("DROP TABLE IF EXISTS temp.graph_deps_fill")
        conn.execute("CREATE TEMP TABLE graph_deps_fill(token TEXT NOT NULL, file_key INTEGER NOT NULL)")
    written = 0
    batch: list[tuple[str, int]] = []
    for row in deps_rows(conn):
        batch.append(row)
        if len(batch) >= FILL_BATCH:
            conn.executemany(f"INSERT INTO {target}(token, file_key) VALUES (?, ?)", batch)
            written += len(batch)
            batch = []
    if batch:
        conn.executemany(f"INSERT INTO {target}(token, file_key) VALUES (?, ?)", batch)
        written += len(batch)
    if not postgres:
        conn.execute(
            "INSERT INTO graph_deps(token, file_key) "
            "SELECT token, file_key FROM temp.graph_deps_fill ORDER BY token, file_key"
        )
        conn.execute("DROP TABLE temp.graph_deps_fill")
    return written


def dependents_of(
    conn: sqlite3.Connection, tokens: Iterable[str], exclude: Collection[str] = ()
) -> list[str]:
    """The paths of the graph files whose deps hold any of ``tokens``, but those in ``exclude``,
    sorted: what a scan of every ``graph_files.deps`` text for the tokens finds."""
    wanted = sorted(set(tokens))
    found: set[str] = set()
    for start in range(0, len(wanted), LOOKUP_BATCH):
        batch = wanted[start : start + LOOKUP_BATCH]
        marks = ", ".join("?" * len(batch))
        found.update(row[0] for row in conn.execute(LOOKUP_SQL.format(marks=marks), batch))
    return sorted(found - set(exclude))

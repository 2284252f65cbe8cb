"""The history store: one SQLite file of per-commit records and the current window.

Tables: ``commits`` (hash, first parent, time, subject, file count, whether its definitions were
read), ``commit_files`` (commit, path, lines added and deleted), ``commit_symbols`` (commit, path,
qualified name, kind, change, line count) and ``window`` (the last N commits from HEAD, by position).
Signals aggregate ``window`` joined with the per-commit rows, so moving HEAD only rewrites the
window and reads the commits it has not seen (incremental); commits that left the window are kept
(a branch switch back costs nothing) until there are more than :data:`KEEP_FACTOR` windows' worth.

:func:`refresh` brings the store up to the source's HEAD within a time budget: first every missing
commit's files (one ``git log`` for many commits), then the definitions of the newest commits until
the budget runs out; a later call goes on where this one stopped, and the answer says how far it got.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lazy_intel.history.walk import (
    CommitRecord,
    DefinitionCache,
    HistorySource,
    read_commits,
    resolve_head,
    symbol_touches,
    window,
)

SCHEMA_VERSION = "history-1"
FILES_BATCH = 200
SYMBOLS_BATCH = 10
KEEP_FACTOR = 3
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS commits(
    hash TEXT PRIMARY KEY, parent TEXT, time INTEGER NOT NULL, subject TEXT NOT NULL,
    file_count INTEGER NOT NULL, symbols_done INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS commit_files(
    hash TEXT NOT NULL, path TEXT NOT NULL, added INTEGER NOT NULL, deleted INTEGER NOT NULL,
    PRIMARY KEY(hash, path)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS commit_files_path ON commit_files(path, hash);
CREATE TABLE IF NOT EXISTS commit_symbols(
    hash TEXT NOT NULL, path TEXT NOT NULL, qualified_name TEXT NOT NULL, kind TEXT NOT NULL,
    change TEXT NOT NULL, lines INTEGER NOT NULL,
    PRIMARY KEY(hash, path, qualified_name, change)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS commit_symbols_key ON commit_symbols(path, qualified_name, hash);
CREATE TABLE IF NOT EXISTS window(position INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE);
"""

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(str(path), threading.Lock())


@contextmanager
def open_history(path: Path) -> Iterator[sqlite3.Connection]:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.executescript(_SCHEMA)
        version = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if version is None:
            conn.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
        elif version[0] != SCHEMA_VERSION:  # a derived cache: start over rather than migrate
            conn.executescript(
                "DROP TABLE commits; DROP TABLE commit_files; DROP TABLE commit_symbols; DROP TABLE window;"
                "DELETE FROM meta;"
            )
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
        yield conn
    finally:
        conn.close()


@dataclass(frozen=True)
class HistoryState:
    """How much of the window the store holds (what every history-backed answer reports)."""

    head: str | None
    limit: int
    commits: int  # commits in the window
    with_files: int
    with_symbols: int
    oldest_time: int | None = None
    newest_time: int | None = None

    @property
    def complete(self) -> bool:
        return self.with_files == self.commits and self.with_symbols == self.commits

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["complete"] = self.complete
        return out

    def describe(self) -> str:
        if self.head is None:
            return "history: no commit to walk"
        text = f"history: last {self.commits} commit(s) (limit {self.limit}) from {self.head[:12]}"
        if self.complete:
            return text
        return (
            text + f"; {self.with_files} with files, {self.with_symbols} with definitions read so far "
            "(later requests read the rest)"
        )


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def state(conn: sqlite3.Connection) -> HistoryState:
    head = _meta(conn, "head")
    limit = int(_meta(conn, "limit") or 0)
    row = conn.execute(
        "SELECT count(*), count(c.hash), coalesce(sum(c.symbols_done != 0), 0), min(c.time), max(c.time) "
        "FROM window w LEFT JOIN commits c ON c.hash = w.hash"
    ).fetchone()
    return HistoryState(head, limit, int(row[0]), int(row[1]), int(row[2]), row[3], row[4])


def _insert_commits(conn: sqlite3.Connection, records: list[CommitRecord]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for r in records:
            conn.execute(
                "INSERT OR IGNORE INTO commits(hash, parent, time, subject, file_count) VALUES(?,?,?,?,?)",
                (r.hash, r.parent, r.time, r.subject, len(r.files)),
            )
            conn.executemany(
                "INSERT OR IGNORE INTO commit_files VALUES(?,?,?,?)",
                [(r.hash, f.path, f.added, f.deleted) for f in r.files],
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _set_window(conn: sqlite3.Connection, head: str | None, limit: int, hashes: list[str]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM window")
        conn.executemany("INSERT INTO window VALUES(?, ?)", list(enumerate(hashes)))
        conn.execute("INSERT OR REPLACE INTO meta VALUES('head', ?)", (head,))
        conn.execute("INSERT OR REPLACE INTO meta VALUES('limit', ?)", (str(limit),))
        kept = conn.execute("SELECT count(*) FROM commits").fetchone()[0]
        if kept > KEEP_FACTOR * max(limit, 1):
            stale = "SELECT hash FROM commits WHERE hash NOT IN (SELECT hash FROM window)"
            conn.execute(f"DELETE FROM commit_files WHERE hash IN ({stale})")
            conn.execute(f"DELETE FROM commit_symbols WHERE hash IN ({stale})")
            conn.execute("DELETE FROM commits WHERE hash NOT IN (SELECT hash FROM window)")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _record_symbols(conn: sqlite3.Connection, source: HistorySource, commits: list[CommitRecord]) -> None:
    cache = DefinitionCache()
    results = [(c, symbol_touches(source, c, cache)) for c in commits]
    conn.execute("BEGIN IMMEDIATE")
    try:
        for commit, touches in results:
            conn.executemany(
                "INSERT OR IGNORE INTO commit_symbols VALUES(?,?,?,?,?,?)",
                [(commit.hash, t.path, t.qualified_name, t.kind, t.change, t.lines) for t in touches or ()],
            )
            # -1: too many files to look inside (recorded as done, with file-level rows only)
            conn.execute(
                "UPDATE commits SET symbols_done=? WHERE hash=?",
                (1 if touches is not None else -1, commit.hash),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _records(conn: sqlite3.Connection, hashes: list[str]) -> list[CommitRecord]:
    from lazy_intel.history.walk import FileTouch

    out = []
    for h in hashes:
        row = conn.execute("SELECT parent, time, subject FROM commits WHERE hash=?", (h,)).fetchone()
        if row is None:
            continue
        files = tuple(
            FileTouch(p, a, d)
            for p, a, d in conn.execute(
                "SELECT path, added, deleted FROM commit_files WHERE hash=? ORDER BY path", (h,)
            )
        )
        out.append(CommitRecord(h, row[0], row[1], row[2], files))
    return out


def refresh(
    path: Path, source: HistorySource, limit: int, *, budget_s: float | None = None, symbols: bool = True
) -> HistoryState:
    """Bring the store at ``path`` up to ``source``'s HEAD (the last ``limit`` commits), spending at
    most about ``budget_s`` seconds on reading commits (``None``: no limit)."""
    end = None if budget_s is None else time.monotonic() + budget_s
    with _lock_for(path), open_history(path) as conn:
        head = resolve_head(source) if limit > 0 else None
        if head != _meta(conn, "head") or str(limit) != (_meta(conn, "limit") or ""):
            _set_window(conn, head, limit, window(source, head, limit) if head else [])
        missing = [
            h
            for (h,) in conn.execute(
                "SELECT w.hash FROM window w LEFT JOIN commits c ON c.hash = w.hash "
                "WHERE c.hash IS NULL ORDER BY w.position"
            )
        ]
        for start in range(0, len(missing), FILES_BATCH):
            if end is not None and time.monotonic() >= end:
                break
            _insert_commits(conn, read_commits(source, missing[start : start + FILES_BATCH]))
        while symbols:
            if end is not None and time.monotonic() >= end:
                break
            pending = [
                h
                for (h,) in conn.execute(
                    "SELECT w.hash FROM window w JOIN commits c ON c.hash = w.hash "
                    "WHERE c.symbols_done = 0 ORDER BY w.position LIMIT ?",
                    (SYMBOLS_BATCH,),
                )
            ]
            if not pending:
                break
            _record_symbols(conn, source, _records(conn, pending))
        return state(conn)


def read_state(path: Path) -> HistoryState | None:
    if not path.is_file():
        return None
    with open_history(path) as conn:
        return state(conn)

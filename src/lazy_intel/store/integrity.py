"""Integrity checks of a store file: is what it holds safe to serve?

Three levels, cheapest first:

- :func:`header_problem` — O(1): the SQLite magic, a sane page size, and a file at least as long as
  its header says (a truncated store is caught before any query runs).
- :func:`check_store` — the registered :data:`INTEGRITY_CHECKS`: ``PRAGMA quick_check``, meta,
  counts that must agree (chunks vs ``chunks_fts``), rows whose file is gone, content blobs missing
  or not hashing to their key. ``thorough`` adds ``PRAGMA integrity_check`` and, on a writable
  connection, the FTS5 ``integrity-check`` command.

Each check names the projection it vouches for; ``store`` means the file itself (a failure there
fails every projection kept in it). Other projections (dense vectors, the graph) append their own
checks to :data:`INTEGRITY_CHECKS`.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.store.schema import READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION, connect

SQLITE_MAGIC = b"SQLite format 3\x00"
STORE_PROJECTION = "store"
MAX_PROBLEMS_PER_CHECK = 5


@dataclass(frozen=True)
class IntegrityProblem:
    projection: str
    check: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"projection": self.projection, "check": self.check, "detail": self.detail}


CheckFn = Callable[[sqlite3.Connection, bool, bool], list[str]]  # (conn, thorough, writable)


@dataclass(frozen=True)
class IntegrityCheck:
    projection: str
    name: str
    run: CheckFn


def _wal_in_use(path: Path) -> bool:
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


def header_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a whole SQLite store, judged from its first 100 bytes and its size.

    The size is only compared with the header when the write-ahead log is empty or absent: a
    checkpoint writes page 1 (with the new page count) before the pages that extend the file, so
    while the log holds frames the file may be short of its header — mid-checkpoint in a live
    writer, or for good when a writer was killed inside one (a build killed at an arbitrary moment);
    either way the log still has every page, and SQLite replays it on the next writable open, where
    its own checks report what it cannot read. Holding the writer lock does not change that: it
    rules out a live checkpoint, not a dead one.
    """
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
            size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        return f"cannot read {path.name}: {exc.strerror}"
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        return f"{path.name} is not a SQLite database (bad header)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return f"{path.name} has an invalid page size {page_size}"
    pages = int.from_bytes(header[28:32], "big")
    change_counter = header[24:28]
    valid_for = header[92:96]
    if _wal_in_use(path):
        return None  # a checkpoint may be under way or cut short; SQLite reports pages it cannot read
    if pages and change_counter == valid_for and size < pages * page_size:
        return f"{path.name} is truncated: {size} bytes, its header needs {pages * page_size}"
    if size % page_size:
        return f"{path.name} is truncated: {size} bytes is not a whole number of {page_size}-byte pages"
    return None


def _sqlite_check(conn: sqlite3.Connection, thorough: bool, writable: bool) -> list[str]:
    pragma = "integrity_check" if thorough else "quick_check"
    rows = [r[0] for r in conn.execute(f"PRAGMA {pragma}({MAX_PROBLEMS_PER_CHECK})")]
    return [] if rows == ["ok"] else [str(r) for r in rows]


def _meta_check(conn: sqlite3.Connection, thorough: bool, writable: bool) -> list[str]:
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    problems = []
    # an older readable version is not damage: it is served while a sync rebuilds it (store/schema.py)
    if meta.get("schema_version") not in {str(v) for v in READABLE_SCHEMA_VERSIONS}:
        problems.append(f"schema_version is {meta.get('schema_version')!r}, expected {SCHEMA_VERSION}")
    if not str(meta.get("generation", "")).isdigit():
        problems.append(f"generation is {meta.get('generation')!r}")
    return problems


def _lexical_counts(conn: sqlite3.Connection, thorough: bool, writable: bool) -> list[str]:
    problems = []
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    if chunks != fts:
        problems.append(f"{chunks} chunks but {fts} rows in chunks_fts")
    unindexed = conn.execute(
        "SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_fts t WHERE t.rowid = c.id)"
    ).fetchone()[0]
    if unindexed:
        problems.append(f"{unindexed} chunks have no chunks_fts row")
    for table in ("symbols", "chunks", "refs", "imports"):
        orphans = conn.execute(
            f"SELECT count(*) FROM {table} x WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = x.file_id)"
        ).fetchone()[0]
        if orphans:
            problems.append(f"{orphans} {table} rows belong to no file")
    if thorough and writable:
        try:
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as exc:
            problems.append(f"chunks_fts integrity-check: {exc}")
    return problems


def _contents_check(conn: sqlite3.Connection, thorough: bool, writable: bool) -> list[str]:
    problems = []
    missing = conn.execute(
        "SELECT path FROM files f WHERE f.status IN ('indexed', 'parse-error') "
        "AND NOT EXISTS (SELECT 1 FROM contents c WHERE c.sha256 = f.sha256) LIMIT ?",
        (MAX_PROBLEMS_PER_CHECK,),
    ).fetchall()
    problems.extend(f"content blob of {path} is missing" for (path,) in missing)
    for sha, data in conn.execute("SELECT sha256, data FROM contents"):
        if hashlib.sha256(bytes(data)).hexdigest() != sha:
            problems.append(f"content blob {sha[:12]} does not hash to its key")
            if len(problems) >= MAX_PROBLEMS_PER_CHECK:
                break
    return problems


INTEGRITY_CHECKS: list[IntegrityCheck] = [
    IntegrityCheck(STORE_PROJECTION, "sqlite", _sqlite_check),
    IntegrityCheck(STORE_PROJECTION, "meta", _meta_check),
    IntegrityCheck("lexical", "counts", _lexical_counts),
    IntegrityCheck("lexical", "contents", _contents_check),
]


def check_store(
    path: Path, *, thorough: bool = False, conn: sqlite3.Connection | None = None
) -> list[IntegrityProblem]:
    """Run every registered check against ``path``; an empty list means it is safe to serve.

    ``conn`` may be a writable connection (the writer's, under the writer lock) for the checks that
    need one; otherwise a read-only connection is opened.
    """
    header = header_problem(path)
    if header is not None:
        return [IntegrityProblem(STORE_PROJECTION, "header", header)]
    own = conn is None
    db = connect(str(path), readonly=True) if own else conn
    assert db is not None
    problems: list[IntegrityProblem] = []
    try:
        for check in INTEGRITY_CHECKS:
            try:
                found = check.run(db, thorough, not own)
            except sqlite3.DatabaseError as exc:
                found = [f"{type(exc).__name__}: {exc}"]
            problems.extend(IntegrityProblem(check.projection, check.name, d) for d in found)
            if check.projection == STORE_PROJECTION and found:
                break  # a broken file makes every later check meaningless
    finally:
        if own:
            db.close()
    return problems


def store_meta(path: Path) -> dict[str, str] | None:
    """The meta table of a store, or ``None`` when the file cannot be read as a store (a read-only
    connection: it reads what the last commit wrote, whoever holds the writer lock)."""
    if header_problem(path) is not None:
        return None
    try:
        conn = connect(str(path), readonly=True)
    except Exception:
        return None
    try:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except Exception:
        return None
    finally:
        conn.close()

"""History signals over the current window: churn per file and definition, co-change, last change,
hotspots. Each is one SQL query over ``window`` joined with the per-commit rows (see
:mod:`lazy_intel.history.store`); scores are pure functions with named constants.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAX_COCHANGE_FILES = 30  # commits touching more files than this say little about what goes together
MIN_COCHANGE_COUNT = 2  # a pair seen once is chance
HOTSPOT_SIZE_FLOOR = 10  # lines: tiny files are never hotspots however often they change


@dataclass(frozen=True)
class Churn:
    path: str
    commits: int
    lines: int  # lines added + deleted over the window
    last_hash: str
    last_time: int


@dataclass(frozen=True)
class SymbolChurn:
    path: str
    qualified_name: str
    kind: str
    commits: int
    lines: int  # the definition's size at its last change
    last_hash: str
    last_time: int
    last_subject: str


@dataclass(frozen=True)
class CoChange:
    path: str
    count: int  # commits of the window that touched both
    support: float  # count / commits that touched the asked-about file (same commit-size filter)


@dataclass(frozen=True)
class Hotspot:
    path: str
    qualified_name: str | None  # None: the file
    commits: int
    size: int  # lines
    score: float


def _marks(n: int) -> str:
    return ",".join("?" * n)


def file_churn(conn: sqlite3.Connection, paths: Iterable[str] | None = None) -> dict[str, Churn]:
    """Commits and changed lines per file over the window (all files, or ``paths``)."""
    wanted = list(dict.fromkeys(paths)) if paths is not None else None
    where, args = ("", []) if wanted is None else (f"WHERE f.path IN ({_marks(len(wanted))})", wanted)
    if wanted == []:
        return {}
    rows = conn.execute(
        "SELECT f.path, count(*), sum(max(f.added, 0) + max(f.deleted, 0)), "
        "max(c.time), (SELECT c2.hash FROM commit_files f2 JOIN window w2 ON w2.hash = f2.hash "
        "  JOIN commits c2 ON c2.hash = f2.hash WHERE f2.path = f.path ORDER BY w2.position LIMIT 1) "
        "FROM commit_files f JOIN window w ON w.hash = f.hash JOIN commits c ON c.hash = f.hash "
        f"{where} GROUP BY f.path",
        args,
    )
    return {r[0]: Churn(r[0], int(r[1]), int(r[2] or 0), r[4], int(r[3])) for r in rows}


def symbol_churn(
    conn: sqlite3.Connection, path: str | None = None, qualified_name: str | None = None
) -> list[SymbolChurn]:
    """Commits per definition over the window, with its last change (newest first in the window)."""
    clauses, args = [], []
    if path is not None:
        clauses.append("s.path = ?")
        args.append(path)
    if qualified_name is not None:
        clauses.append("s.qualified_name = ?")
        args.append(qualified_name)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    rows = conn.execute(
        "SELECT s.path, s.qualified_name, count(DISTINCT s.hash), min(w.position) FROM commit_symbols s "
        f"JOIN window w ON w.hash = s.hash {where} GROUP BY s.path, s.qualified_name",
        args,
    ).fetchall()
    out = []
    for p, name, commits, position in rows:
        last = conn.execute(
            "SELECT c.hash, c.time, c.subject, s.kind, s.lines FROM window w JOIN commits c ON c.hash = w.hash "
            "JOIN commit_symbols s ON s.hash = w.hash AND s.path = ? AND s.qualified_name = ? "
            "WHERE w.position = ? LIMIT 1",
            (p, name, position),
        ).fetchone()
        out.append(SymbolChurn(p, name, last[3], int(commits), int(last[4]), last[0], int(last[1]), last[2]))
    out.sort(key=lambda s: (-s.commits, s.path, s.qualified_name))
    return out


def co_changed(
    conn: sqlite3.Connection, path: str, limit: int = 10, *, max_files: int = MAX_COCHANGE_FILES
) -> list[CoChange]:
    """Files most often changed in the same commit as ``path`` (commits of at most ``max_files``)."""
    total = conn.execute(
        "SELECT count(*) FROM commit_files f JOIN window w ON w.hash = f.hash "
        "JOIN commits c ON c.hash = f.hash AND c.file_count <= ? WHERE f.path = ?",
        (max_files, path),
    ).fetchone()[0]
    if not total:
        return []
    rows = conn.execute(
        "SELECT o.path, count(*) FROM commit_files f JOIN window w ON w.hash = f.hash "
        "JOIN commits c ON c.hash = f.hash AND c.file_count <= ? "
        "JOIN commit_files o ON o.hash = f.hash AND o.path <> f.path "
        "WHERE f.path = ? GROUP BY o.path HAVING count(*) >= ? ORDER BY count(*) DESC, o.path LIMIT ?",
        (max_files, path, MIN_COCHANGE_COUNT, limit),
    )
    return [CoChange(p, int(n), int(n) / total) for p, n in rows]


def hotspot_score(commits: int, size: int) -> float:
    """Churn x size: commits in the window times log2 of the size in lines (a file changed often and
    large is where bugs and merge conflicts concentrate; the log keeps a huge file from winning on
    size alone)."""
    if size < HOTSPOT_SIZE_FLOOR or commits <= 0:
        return 0.0
    return commits * math.log2(size)


def file_hotspots(churn: Mapping[str, Churn], sizes: Mapping[str, int], limit: int) -> list[Hotspot]:
    """The ``limit`` files with the highest churn x size among those the index holds (``sizes``)."""
    spots = [
        Hotspot(path, None, c.commits, sizes[path], hotspot_score(c.commits, sizes[path]))
        for path, c in churn.items()
        if path in sizes
    ]
    spots = [s for s in spots if s.score > 0]
    spots.sort(key=lambda s: (-s.score, s.path))
    return spots[:limit]


def symbol_hotspots(churn: Iterable[SymbolChurn], limit: int) -> list[Hotspot]:
    spots = [
        Hotspot(s.path, s.qualified_name, s.commits, s.lines, hotspot_score(s.commits, s.lines))
        for s in churn
        if s.kind not in ("variable", "constant", "field")
    ]
    spots = [s for s in spots if s.score > 0]
    spots.sort(key=lambda s: (-s.score, s.path, s.qualified_name or ""))
    return spots[:limit]

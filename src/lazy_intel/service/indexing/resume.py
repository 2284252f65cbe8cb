"""A full build that survives ``kill -9``: it continues from what it had written (issue 15).

A full build writes a fresh store no reader sees (the catalog does not name it) and commits it in
batches of parsed files. The store's first committed rows are its *build journal*: meta keys naming
the profile it is built under (:func:`~lazy_intel.service.indexing.sync.store_profile`: scope policy, parser
fingerprint, limits, schema, resolver) and, after every batch, how many files it holds. Its
generation stays 0 until the one transaction that resolves the graph and publishes it.

A killed build leaves its intent pending in the publication journal. Recovery (under the writer
lock, so the builder is dead) keeps such a store *resumable* when it committed, passes its checks
and its build journal names the profile a build would use now; anything else is abandoned as
before. The next full build adopts the resumable store: it diffs the captured scope against the
files the store already holds (as an incremental sync diffs against the live store), so a file
written before the kill whose bytes are unchanged is not parsed again, a changed one is parsed
again, one that left the scope is removed; then it resolves and publishes as a clean build does.
An incremental sync (the live store is current) has no use for it and discards it.

The publication contract is unchanged: readers only ever see the catalog's store, and the fresh
store becomes visible by the one atomic catalog switch after its final commit.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lazy_intel.faultpoints import pause_point
from lazy_intel.service.indexing import check_memo
from lazy_intel.store.integrity import check_store, header_problem
from lazy_intel.store.journal import ABANDONED, RESUMED, Intent, PublicationJournal
from lazy_intel.store.schema import BUILD_FILES_KEY, BUILD_PROFILE_KEY, SCHEMA_VERSION, connect
from lazy_intel.workspace.state import StateDir

if TYPE_CHECKING:  # recovery imports this module; the graph is loaded where a build runs
    from lazy_intel.graph.build import GraphJournal

# meta keys of the build journal (store/schema.py); removed by the final publication (a published
# store has none)
# the graph's steps (graph/build.py GraphJournal): "described" once every file's nodes and graph row
# are committed, then how many files have their edges committed
BUILD_GRAPH_KEY = "build_graph"
BUILD_RESOLVED_KEY = "build_resolved"
# what a resumed build that writes or removes any file forgets (the description read the old facts)
GRAPH_KEYS = (BUILD_GRAPH_KEY, BUILD_RESOLVED_KEY)
BUILD_KEYS = (BUILD_PROFILE_KEY, BUILD_FILES_KEY, *GRAPH_KEYS)
DESCRIBED = "described"


@dataclass(frozen=True)
class Resumable:
    """A killed build's fresh store that a full build may continue."""

    intent: Intent
    path: Path
    files: int


def start_build_journal(conn: sqlite3.Connection, profile: str) -> None:
    """Commit the build journal of a fresh store (before any file is written)."""
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        [(BUILD_PROFILE_KEY, profile), (BUILD_FILES_KEY, "0")],
    )
    conn.execute("COMMIT")


def graph_journal(conn: sqlite3.Connection, batch_files: int) -> GraphJournal:
    """The graph steps of a full build into the fresh store on ``conn``, kept in its meta: the
    description, then a commit every ``batch_files`` resolved files. The store's generation stays 0
    (recovery never serves it) until the final publication, which drops these keys."""
    from lazy_intel.graph.build import GraphJournal

    def described() -> bool:
        row = conn.execute("SELECT value FROM meta WHERE key=?", (BUILD_GRAPH_KEY,)).fetchone()
        return row is not None and row[0] == DESCRIBED

    def commit(resolved: int, total: int) -> None:
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            [(BUILD_GRAPH_KEY, DESCRIBED), (BUILD_RESOLVED_KEY, str(resolved))],
        )
        conn.execute("COMMIT")
        if resolved >= total // 2 > resolved - batch_files:
            pause_point("resolved")
        conn.execute("BEGIN IMMEDIATE")

    return GraphJournal(described, commit, max(1, batch_files))


def resume_problem(path: Path, profile: str, memo: Path | None = None) -> tuple[str | None, int]:
    """Why the fresh store at ``path`` cannot be continued under ``profile`` (``None``: it can), and
    how many files it holds. Opens the store writable: the caller holds the writer lock, and a store
    whose builder was killed may have a write-ahead log to recover.

    The integrity checks read the whole store (minutes for a 100k-file build on a slow disk), and a
    resumed build asks twice — recovery when the workspace opens, the build when it adopts the store
    — so with ``memo`` (the state's ``runtime/store-checks.json``, :mod:`.check_memo`) a verdict
    reached on the same file identity, with no write-ahead log pending since, is taken instead."""
    if not path.is_file():
        return "its store file is gone", 0
    problem = header_problem(path)
    if problem is not None:
        return problem, 0
    # frames in a write-ahead log are bytes the file's identity does not describe: check them
    remembered = check_memo.recall(memo, path) if memo is not None and not _wal_pending(path) else None
    try:
        conn = connect(str(path))
    except sqlite3.DatabaseError as exc:
        return f"its store cannot be opened: {exc}", 0
    verdict: str | None = None
    try:
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            files = int(conn.execute("SELECT count(*) FROM files").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            return f"its store cannot be read: {exc}", 0
        if meta.get(BUILD_PROFILE_KEY) is None:
            return "it has no build journal", files
        if meta.get("schema_version") != str(SCHEMA_VERSION) or meta[BUILD_PROFILE_KEY] != profile:
            return "it was built under another scope, parser or schema profile", files
        if meta.get("generation") != "0":
            return "it had already published", files
        if remembered is not None:
            return (f"its store fails an integrity check: {remembered}" if remembered else None), files
        problems = check_store(path, conn=conn)
        verdict = problems[0].detail if problems else ""
        return (f"its store fails an integrity check: {verdict}" if verdict else None), files
    finally:
        conn.close()
        # the identity after closing: the last connection's checkpoint has moved the log into the file
        if verdict is not None and memo is not None and not _wal_pending(path):
            check_memo.remember(memo, path, verdict)


def _wal_pending(path: Path) -> bool:
    wal = path.with_name(path.name + "-wal")
    try:
        return wal.stat().st_size > 0
    except OSError:
        return False


def adopt_resumable(state: StateDir, journal: PublicationJournal, profile: str) -> Resumable | None:
    """The resumable store a full build under ``profile`` continues in (its decision recorded as
    ``resumed``), or ``None`` after discarding any that cannot be continued."""
    for intent in journal.resumable():
        path = state.path / intent.store
        problem, files = resume_problem(path, profile, state.runtime / check_memo.MEMO_FILE)
        if problem is None:
            journal.decide(
                intent,
                RESUMED,
                f"a full build continues in the store process {intent.pid} was building: "
                f"{files} files already written are kept unless they changed",
            )
            return Resumable(intent, path, files)
        _discard(journal, intent, path, problem)
    return None


def discard_resumable(state: StateDir, journal: PublicationJournal, reason: str) -> None:
    """Delete every resumable store (an incremental sync needs none)."""
    for intent in journal.resumable():
        _discard(journal, intent, state.path / intent.store, reason)


def _discard(journal: PublicationJournal, intent: Intent, path: Path, reason: str) -> None:
    from lazy_intel.service.indexing.sync import remove_store_files

    with contextlib.suppress(OSError):
        remove_store_files(path)
    journal.decide(
        intent, ABANDONED, f"the interrupted build is not resumed: {reason}; its store was deleted"
    )

"""A PostgreSQL full build that survives ``kill -9``: a staging store committed in batches.

A full build creates a fresh store schema that the catalog does not name — no reader is ever
served from it — and records it in ``lazy_intel.builds`` (one row per repository and branch, in
the transaction that creates the schema). The sync then writes it exactly as it writes a fresh
SQLite store: batches of files committed with the build journal in the store's meta
(``build_profile``, ``build_files``, the graph steps), then the publication that derives the graph
and sets the generation. Nothing of that is visible to readers: the last transaction
(:func:`finish_build`) counts the full-text statistics, analyzes the store's tables, switches the
catalog row, retires the replaced store and deletes the build row, all at once.

A writer killed anywhere leaves the previous generation served (the catalog still names it) and
the staging store with everything it had committed. The next writer (it holds the advisory lock,
so the killed one is gone) finds the build row: a full build under the same profile adopts the
store (:func:`build_problem` is ``None``) and, diffing the scope against the files the store
holds, parses none of the committed ones again; anything else discards it (retired at once, so
the next collection drops the schema).

The rows are written with the full-text triggers off (``lazy_intel.bulk``, set for the writer's
session while it builds), as the one-transaction rebuild did, and the statistics are counted once
over the finished table.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lazy_intel.faultpoints import pause_point
from lazy_intel.store.pg.connection import PgConnection
from lazy_intel.store.pg.store import SQLITE_MASTER_VIEW, PgStore, StoreRef, pg_schema
from lazy_intel.store.schema import BUILD_FILES_KEY, BUILD_PROFILE_KEY, SCHEMA_VERSION

if TYPE_CHECKING:
    import psycopg


@dataclass(frozen=True)
class PendingBuild:
    """A full build's staging store that has not been published (its writer died or stopped)."""

    store: StoreRef
    profile: str
    host: str
    pid: int
    started_at: float


@dataclass(frozen=True)
class PgFactSource:
    """Where a resolve task reads a staging store's committed facts: its own connection to the
    database, the store's schema (picklable: it travels to Ray tasks, without the password: then
    ``passfile`` may name a private libpq password file, see :mod:`lazy_intel.store.pg.passfile`)."""

    dsn: str
    schema: str
    passfile: str | None = None


def pending_build(store: PgStore) -> PendingBuild | None:
    raw = store.writer_raw()
    row = raw.execute(
        "SELECT store, profile, host, pid, started_at FROM lazy_intel.builds WHERE repository = %s AND branch = %s",
        [store.repository, store.branch],
    ).fetchone()
    if row is None:
        return None
    return PendingBuild(StoreRef(str(row[0])), str(row[1]), str(row[2]), int(row[3]), float(row[4]))


def build_problem(store: PgStore, pending: PendingBuild, profile: str) -> tuple[str | None, int]:
    """Why ``pending`` cannot be continued by a full build under ``profile`` (``None``: it can), and
    how many files its store holds."""
    raw = store.writer_raw()
    schema = pending.store.schema
    exists = raw.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema]).fetchone()
    if exists is None:
        return "its store schema is gone", 0
    try:
        meta = dict(raw.execute(f'SELECT key, value FROM "{schema}".meta').fetchall())
        files = int(raw.execute(f'SELECT count(*) FROM "{schema}".files').fetchone()[0])
    except Exception as exc:  # a store without its tables cannot be continued
        return f"its store cannot be read: {str(exc).strip().splitlines()[0]}", 0
    if meta.get(BUILD_PROFILE_KEY) is None:
        return "it has no build journal (it had published)", files
    if (
        pending.profile != profile
        or meta[BUILD_PROFILE_KEY] != profile
        or meta.get("schema_version") != str(SCHEMA_VERSION)
    ):
        return "it was built under another scope, parser or schema profile", files
    if meta.get("generation") != "0":
        return "it had already published", files
    return None, files


def discard_build(store: PgStore, pending: PendingBuild) -> None:
    """Forget ``pending`` and retire its schema at once (the next collection drops it)."""
    raw = store.writer_raw()
    with raw.transaction():
        raw.execute(
            "DELETE FROM lazy_intel.builds WHERE repository = %s AND branch = %s AND store = %s",
            [store.repository, store.branch, pending.store.schema],
        )
        raw.execute(
            "INSERT INTO lazy_intel.retired(store, retired_at) VALUES (%s, 0) "
            "ON CONFLICT (store) DO UPDATE SET retired_at = 0",
            [pending.store.schema],
        )


def begin_build(store: PgStore, profile: str) -> tuple[PgConnection, StoreRef]:
    """A fresh staging store with its build journal, committed, and the bulk connection to fill it."""
    raw = store.writer_raw()
    ref = StoreRef(f"li_{uuid.uuid4().hex[:16]}")
    with raw.transaction():
        raw.execute(f'CREATE SCHEMA "{ref.schema}"')
        raw.execute(f'SET LOCAL search_path TO "{ref.schema}"')
        for statement in pg_schema().statements:
            raw.execute(statement)
        raw.execute(SQLITE_MASTER_VIEW)
        raw.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', %s), ('generation', '0'), (%s, %s), (%s, '0')",
            [str(SCHEMA_VERSION), BUILD_PROFILE_KEY, profile, BUILD_FILES_KEY],
        )
        raw.execute(
            "INSERT INTO lazy_intel.builds(repository, branch, store, profile, host, pid, started_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (repository, branch) DO UPDATE SET "
            "store = EXCLUDED.store, profile = EXCLUDED.profile, host = EXCLUDED.host, pid = EXCLUDED.pid, "
            "started_at = EXCLUDED.started_at",
            [
                store.repository,
                store.branch,
                ref.schema,
                profile,
                socket.gethostname(),
                os.getpid(),
                time.time(),
            ],
        )
    return open_build(store, ref), ref


def open_build(store: PgStore, ref: StoreRef) -> PgConnection:
    """The bulk connection of a staging store: the writer's session, its triggers off."""
    raw = store.writer_raw()
    raw.execute(f'SET search_path TO "{ref.schema}"')
    raw.execute("SET lazy_intel.bulk = 'on'")
    return PgConnection(raw, ref.schema, pg_schema().tables, bulk=True, owned=False)


def end_build_session(conn: PgConnection) -> None:
    """The writer's session as it was before the build (its later publications fire the triggers)."""
    with contextlib.suppress(Exception):
        if conn.in_transaction:
            conn.raw.execute("ROLLBACK")
    with contextlib.suppress(Exception):
        conn.raw.execute("RESET lazy_intel.bulk")


def finish_build(
    store: PgStore,
    conn: PgConnection,
    ref: StoreRef,
    previous: StoreRef | None,
    *,
    before_switch: Callable[[PgConnection], None] | None = None,
) -> None:
    """Publish the staging store ``ref``: statistics, the catalog switch and the replaced store's
    retirement in one transaction (a writer killed before its commit leaves ``previous`` served
    and the build resumable)."""
    raw = conn.raw
    raw.execute("BEGIN")
    try:
        conn.fold_bulk()
        if before_switch is not None:
            before_switch(conn)
        _analyze(raw, ref.schema)
        raw.execute(
            "INSERT INTO lazy_intel.catalog(repository, branch, store, schema_version, switched_at) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (repository, branch) DO UPDATE SET "
            "store = EXCLUDED.store, schema_version = EXCLUDED.schema_version, switched_at = EXCLUDED.switched_at",
            [store.repository, store.branch, ref.schema, SCHEMA_VERSION, time.time()],
        )
        if previous is not None and previous.schema != ref.schema:
            raw.execute(
                "INSERT INTO lazy_intel.retired(store, retired_at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                [previous.schema, time.time()],
            )
        raw.execute(
            "DELETE FROM lazy_intel.builds WHERE repository = %s AND branch = %s",
            [store.repository, store.branch],
        )
        pause_point("switch")
        raw.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            raw.execute("ROLLBACK")
        raise


def _analyze(raw: Any, schema: str) -> None:
    """Planner statistics of the store's own tables (not of every store in the database)."""
    tables = raw.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", [schema]
    ).fetchall()
    for (table,) in tables:
        raw.execute(f'ANALYZE "{schema}"."{table}"')


def open_fact_reader(source: PgFactSource) -> PgConnection:
    """A read-only connection of a resolve task to a staging store's committed facts (each
    statement reads what the writer has committed, as a SQLite task's read-only connection does)."""
    import psycopg

    from lazy_intel.store.pg.connection import configure

    credentials = {"passfile": source.passfile} if source.passfile else {}
    raw: psycopg.Connection[Any] = psycopg.connect(
        source.dsn, autocommit=True, options="-c jit=off -c default_transaction_read_only=on", **credentials
    )
    configure(raw)
    raw.execute(f'SET search_path TO "{source.schema}"')
    return PgConnection(raw, source.schema, pg_schema().tables)

"""The PostgreSQL store backend: many repositories and branches in one database.

Layout. A *store* is one PostgreSQL schema (``li_<hex>``) holding the same tables as a SQLite store
file (translated from ``store/schema.py``). The shared schema ``lazy_intel`` holds the functions
(:mod:`.functions`) and four tables: ``catalog`` names the live store of each (repository, branch),
``retired`` lists replaced stores until their grace period ends, ``writers`` names the process that
holds each repository's writer lock, ``builds`` names the staging store of a full build not yet
published (:mod:`.build`).

Publication contract (DESIGN §4), as on SQLite:

- an incremental publication is one transaction on the live store;
- a full build fills a fresh staging schema in committed batches and switches the catalog row to it
  in one last transaction (:mod:`.build`): a writer killed at any point leaves the previous
  generation served, and the next full build continues from the batches it had committed;
- a read view is one ``REPEATABLE READ READ ONLY`` transaction that reads the catalog row and then
  the store it names: every query of an answer sees one snapshot, one whole generation.

One writer per (repository, branch): a session-level advisory lock held on the writer's connection,
the same connection every publication writes through (a writer that lost its lock cannot write).
A second writer gets ``WORKSPACE_OWNED`` naming the holder's host and pid. Readers take no lock.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lazy_intel.errors import StoreCorrupt, Timeout, Unavailable, WorkspaceOwned
from lazy_intel.store.pg.connection import PgConnection, configure
from lazy_intel.store.pg.dialect import PgSchema, schema_ddl
from lazy_intel.store.pg.functions import FUNCTIONS_SQL, FUNCTIONS_VERSION, fts_ddl
from lazy_intel.store.pg.vectors import enable_pgvector
from lazy_intel.store.schema import SCHEMA_SQL, SCHEMA_VERSION, UPGRADES_IN_PLACE

logger = logging.getLogger(__name__)

POOL_IDLE_MAX = 8
CONNECT_TIMEOUT_S = 10
# a replaced store is dropped only when no reader holds it; DROP waits at most this long for locks
DROP_LOCK_TIMEOUT_MS = 2000

_CATALOG_SQL = """
CREATE TABLE IF NOT EXISTS lazy_intel.catalog (
    repository TEXT COLLATE "C" NOT NULL,
    branch     TEXT COLLATE "C" NOT NULL,
    store      TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    switched_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (repository, branch)
);
CREATE TABLE IF NOT EXISTS lazy_intel.retired (
    store TEXT PRIMARY KEY,
    retired_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS lazy_intel.writers (
    repository TEXT COLLATE "C" NOT NULL,
    branch     TEXT COLLATE "C" NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    backend_pid INTEGER NOT NULL,
    since DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (repository, branch)
);
CREATE TABLE IF NOT EXISTS lazy_intel.builds (
    repository TEXT COLLATE "C" NOT NULL,
    branch     TEXT COLLATE "C" NOT NULL,
    store      TEXT NOT NULL,
    profile    TEXT NOT NULL,
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (repository, branch)
);
"""

SQLITE_MASTER_VIEW = (
    "CREATE VIEW sqlite_master AS SELECT 'index'::text AS type, i.indexname::text AS name, "
    "i.tablename::text AS tbl_name, i.indexdef::text AS sql FROM pg_indexes i "
    "WHERE i.schemaname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint k "
    "WHERE k.conname = i.indexname AND k.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = i.schemaname))"
)

_prepared: set[str] = set()
_prepared_guard = threading.Lock()


@functools.cache
def pg_schema() -> PgSchema:
    """The PostgreSQL DDL of the SQLite schema, translated once per process."""
    return schema_ddl(SCHEMA_SQL, fts_ddl)


def is_postgres_url(value: str) -> bool:
    return value.startswith(("postgresql://", "postgres://"))


def describe_dsn(dsn: str) -> str:
    """The DSN without a password, for messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:
        return "the PostgreSQL server"
    host = parts.get("host", "localhost")
    port = parts.get("port", "5432")
    return f"postgresql://{host}:{port}/{parts.get('dbname', '')}"


def _lock_key(repository: str, branch: str) -> tuple[int, int]:
    digest = hashlib.sha256(f"lazy-intel\0{repository}\0{branch}".encode()).digest()
    return (int.from_bytes(digest[:4], "big", signed=True), int.from_bytes(digest[4:8], "big", signed=True))


@dataclass(frozen=True)
class StoreRef:
    """A store schema, named like a store file in messages (``postgresql:li_…``)."""

    schema: str

    @property
    def name(self) -> str:
        return f"postgresql:{self.schema}"


class PgStore:
    """One (repository, branch) in one PostgreSQL database."""

    def __init__(self, dsn: str, repository: str, branch: str) -> None:
        self.dsn = dsn
        self.repository = repository
        self.branch = branch
        self.where = describe_dsn(dsn)
        self.lock = PgWriterLock(self)
        self._pool: list[Any] = []
        self._pool_guard = threading.Lock()

    # ---- connections
    def raw_connect(self) -> Any:
        import psycopg

        try:
            raw = psycopg.connect(
                self.dsn,
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT_S,
                application_name=f"lazy-intel {socket.gethostname()}:{os.getpid()}",
                # JIT compiles the large BM25 expressions for seconds (the plan's estimated cost is
                # high because of the phrase function) to save milliseconds: never worth it here
                options="-c jit=off",
            )
        except psycopg.OperationalError as exc:
            raise Unavailable(
                f"cannot connect to {self.where}: {str(exc).strip().splitlines()[-1]}",
                next_step="check that the server is running and LAZY_INTEL_STORE names it; retry",
            ) from None
        configure(raw)
        self._prepare_database(raw)
        return raw

    def _prepare_database(self, raw: Any) -> None:
        """Create the shared schema, functions and catalog (and pgvector, where the server has it)
        once per database per process."""
        with _prepared_guard:
            if self.dsn in _prepared:
                return
            with raw.transaction():
                raw.execute("SELECT pg_advisory_xact_lock(7263516, 1)")  # one creator at a time
                exists = (
                    raw.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'lazy_intel'").fetchone()
                    is not None
                )
                version = None
                if exists:
                    row = raw.execute(
                        "SELECT to_regclass('lazy_intel.functions_version') IS NOT NULL"
                    ).fetchone()
                    if row and row[0]:
                        got = raw.execute("SELECT version FROM lazy_intel.functions_version").fetchone()
                        version = got[0] if got else None
                if version != FUNCTIONS_VERSION:
                    raw.execute(FUNCTIONS_SQL)
                    raw.execute("DELETE FROM lazy_intel.functions_version")
                    raw.execute("INSERT INTO lazy_intel.functions_version VALUES (%s)", [FUNCTIONS_VERSION])
                raw.execute(_CATALOG_SQL)
                enable_pgvector(raw)  # dense search in the server where it has pgvector (.vectors)
            _prepared.add(self.dsn)

    def _take_reader(self) -> Any:
        """An idle pooled connection that still answers (the server may have restarted since it was
        pooled), else a new one."""
        import psycopg

        while True:
            with self._pool_guard:
                raw = self._pool.pop() if self._pool else None
            if raw is None:
                return self.raw_connect()
            if raw.closed or raw.broken:
                continue
            try:
                raw.execute("SELECT 1")
                return raw
            except psycopg.Error:
                with contextlib.suppress(Exception):
                    raw.close()

    def _give_back(self, raw: Any) -> None:
        from psycopg.pq import TransactionStatus

        if raw.closed or raw.broken or raw.info.transaction_status != TransactionStatus.IDLE:
            with contextlib.suppress(Exception):
                raw.close()
            return
        with self._pool_guard:
            if len(self._pool) < POOL_IDLE_MAX:
                self._pool.append(raw)
                return
        raw.close()

    def unavailable(self, exc: BaseException, doing: str) -> Unavailable:
        text = str(exc).strip().splitlines()
        return Unavailable(
            f"lost the connection to {self.where} while {doing}: {text[-1] if text else type(exc).__name__}",
            next_step="retry; the next request reconnects (nothing published is lost)",
        )

    def close(self) -> None:
        with self._pool_guard:
            pool, self._pool = self._pool, []
        for raw in pool:
            with contextlib.suppress(Exception):
                raw.close()
        self.lock.release()

    # ---- catalog
    def live(self, raw: Any | None = None) -> StoreRef | None:
        """The store the catalog names for this repository and branch."""
        import psycopg

        own = raw is None
        conn = self._take_reader() if own else raw
        try:
            row = conn.execute(
                "SELECT store, schema_version FROM lazy_intel.catalog WHERE repository = %s AND branch = %s",
                [self.repository, self.branch],
            ).fetchone()
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            if not own:
                raise
            raise self.unavailable(exc, "reading the catalog") from None
        finally:
            if own:
                self._give_back(conn)
        return StoreRef(row[0]) if row else None

    def store_meta(self, ref: StoreRef) -> dict[str, str] | None:
        raw = self._take_reader()
        try:
            rows = raw.execute(f'SELECT key, value FROM "{ref.schema}".meta').fetchall()
        except Exception:
            return None
        finally:
            self._give_back(raw)
        return {str(k): str(v) for k, v in rows}

    # ---- reads
    @contextmanager
    def view(self, *, deadline: float | None = None, postings_bytes: int = 0) -> Iterator[Any]:
        """A read view of the live store, in one snapshot; ``INDEX_BUILDING`` is the caller's business
        (``None`` is yielded when the catalog names no store). ``postings_bytes``: the bound of the
        in-memory postings its searches may rank from (``store/postings.py``); 0: off."""
        import psycopg

        from lazy_intel.store.pg.reader import PgReadView

        try:
            raw = self._take_reader()
        except Unavailable:
            raise
        ok = False
        try:
            raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            if deadline is not None:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    raise Timeout("the request ran out of time before reading the index", next_step="retry")
                raw.execute(f"SET LOCAL statement_timeout = {left_ms}")
            ref = self.live(raw)
            if ref is None:
                raw.execute("ROLLBACK")
                ok = True
                yield None
                return
            raw.execute(f'SET LOCAL search_path TO "{ref.schema}"')
            conn = PgConnection(raw, ref.schema, pg_schema().tables, owned=False)
            view = PgReadView(conn, Path(ref.name), postings_bytes=postings_bytes)
            version = view.meta("schema_version")
            if version not in {str(SCHEMA_VERSION), *(str(v) for v in UPGRADES_IN_PLACE)}:
                raise StoreCorrupt(
                    f"store {ref.name} has schema {version}, this build needs {SCHEMA_VERSION}",
                    next_step="run lazy-intel index to rebuild",
                )
            yield view
            raw.execute("COMMIT")
            ok = True
        except psycopg.errors.QueryCanceled:
            raise Timeout("the request ran out of time while reading the index", next_step="retry") from None
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise self.unavailable(exc, "reading") from None
        except psycopg.errors.UndefinedTable as exc:
            raise StoreCorrupt(
                f"store of {self.repository}@{self.branch} is incomplete: {exc}",
                next_step="run lazy-intel index to rebuild",
            ) from None
        finally:
            if not ok:
                with contextlib.suppress(Exception):
                    raw.execute("ROLLBACK")
            self._give_back(raw)

    # ---- writes (the caller holds the writer lock)
    def writer_raw(self) -> Any:
        """The writer lock's connection, checked: after a server restart or a dropped connection the
        lock went with the old session, so it is taken again (``WORKSPACE_OWNED`` if another
        writer got it meanwhile)."""
        import psycopg

        raw = self.lock.connection()
        if raw is not None:
            try:
                raw.execute("SELECT 1")
            except psycopg.Error:
                self.lock.forget()
                raw = None
        if raw is None and self.lock.mutex_owned():
            self.lock.acquire()
            raw = self.lock.connection()
        if raw is None:
            raise WorkspaceOwned(
                f"this process does not hold the writer lock of {self.repository}@{self.branch}",
                next_step="retry the write",
            )
        return raw

    def open_live(self, ref: StoreRef) -> PgConnection:
        raw = self.writer_raw()
        raw.execute(f'SET search_path TO "{ref.schema}"')
        return PgConnection(raw, ref.schema, pg_schema().tables, owned=False)

    def collect_retired(self, grace_ms: int) -> list[str]:
        """Drop stores replaced more than ``grace_ms`` ago that no reader holds."""
        raw = self.writer_raw()
        dropped: list[str] = []
        rows = raw.execute(
            "SELECT r.store FROM lazy_intel.retired r WHERE r.retired_at <= %s "
            "AND NOT EXISTS (SELECT 1 FROM lazy_intel.catalog c WHERE c.store = r.store)",
            [time.time() - grace_ms / 1000],
        ).fetchall()
        for (schema,) in rows:
            try:
                with raw.transaction():
                    raw.execute(f"SET LOCAL lock_timeout = {DROP_LOCK_TIMEOUT_MS}")
                    raw.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                    raw.execute("DELETE FROM lazy_intel.retired WHERE store = %s", [schema])
                dropped.append(schema)
            except Exception as exc:  # a reader still holds it: the next collection retries
                logger.info("store %s not dropped yet: %s", schema, exc)
        return dropped


class PgWriterLock:
    """The writer lock of one (repository, branch): a session advisory lock on a dedicated connection.

    Same interface as :class:`lazy_intel.workspace.lock.WriterLock`; the connection holding the
    lock is the one every publication writes through.
    """

    def __init__(self, store: PgStore) -> None:
        self.store = store
        self.path = Path(f"{store.where}#{store.repository}@{store.branch}")
        self.mutex = threading.RLock()
        self.last_used = 0.0
        self._raw: Any = None
        self._key = _lock_key(store.repository, store.branch)

    def touch(self) -> None:
        self.last_used = time.monotonic()

    @property
    def held(self) -> bool:
        return self.connection() is not None

    def forget(self) -> None:
        """The lock's session is gone (the server dropped it): nothing to unlock."""
        raw, self._raw = self._raw, None
        if raw is not None:
            with contextlib.suppress(Exception):
                raw.close()

    def mutex_owned(self) -> bool:
        """Whether this thread is inside a sync (holds :attr:`mutex`)."""
        return self.mutex._is_owned()  # type: ignore[attr-defined]

    def connection(self) -> Any:
        raw = self._raw
        if raw is not None and (raw.closed or raw.broken):
            self._raw = None  # the server dropped us: the lock is gone with the session
            return None
        return raw

    def _holder(self, raw: Any) -> tuple[str | None, int | None]:
        row = raw.execute(
            "SELECT host, pid FROM lazy_intel.writers w WHERE repository = %s AND branch = %s "
            "AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.pid = w.backend_pid AND l.classid = %s::oid AND l.objid = %s::oid)",
            [self.store.repository, self.store.branch, self._key[0] & 0xFFFFFFFF, self._key[1] & 0xFFFFFFFF],
        ).fetchone()
        return (row[0], int(row[1])) if row else (None, None)

    def holder_pid(self) -> int | None:
        try:
            raw = self.store._take_reader()
        except Unavailable:
            return None
        try:
            return self._holder(raw)[1]
        except Exception:
            return None
        finally:
            self.store._give_back(raw)

    def live_holder(self) -> int | None:
        if self.held:
            return os.getpid()
        return self.holder_pid()

    def acquire(self) -> None:
        if self.connection() is not None:
            return
        raw = self.store.raw_connect()
        got = raw.execute("SELECT pg_try_advisory_lock(%s, %s)", list(self._key)).fetchone()[0]
        if not got:
            host, pid = self._holder(raw)
            raw.close()
            who = f"pid {pid} on {host}" if pid is not None else "another process"
            raise WorkspaceOwned(
                f"{self.store.repository}@{self.store.branch} in {self.store.where} is being written by {who}",
                pid=pid,
                next_step="reads still work; retry the write when that process is idle",
            )
        raw.execute(
            "INSERT INTO lazy_intel.writers(repository, branch, host, pid, backend_pid, since) "
            "VALUES (%s, %s, %s, %s, pg_backend_pid(), %s) ON CONFLICT (repository, branch) DO UPDATE SET "
            "host = EXCLUDED.host, pid = EXCLUDED.pid, backend_pid = EXCLUDED.backend_pid, since = EXCLUDED.since",
            [self.store.repository, self.store.branch, socket.gethostname(), os.getpid(), time.time()],
        )
        self._raw = raw

    def release(self) -> None:
        raw, self._raw = self._raw, None
        if raw is None:
            return
        with contextlib.suppress(Exception):
            raw.execute("SELECT pg_advisory_unlock(%s, %s)", list(self._key))
        with contextlib.suppress(Exception):
            raw.close()

    def __enter__(self) -> PgWriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

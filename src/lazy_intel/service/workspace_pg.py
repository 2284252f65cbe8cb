"""A workspace whose index lives in a shared PostgreSQL database (``LAZY_INTEL_STORE=postgresql://…``).

Everything a :class:`Workspace` does stays — capture, the watcher, the scheduler, freshness — only
the store differs: views are snapshots of the live store schema, publications are transactions on
the writer's connection (which holds the repository's advisory lock), and a full build fills a
staging store in committed batches and ends with the catalog switch (:mod:`lazy_intel.store.pg.build`).
Nothing is left for recovery: PostgreSQL rolls back what a killed writer had not committed, and a
killed build's committed batches are continued by the next full build.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lazy_intel.errors import IndexBuilding, LazyIntelError
from lazy_intel.graph.build import RESOLVER_VERSION
from lazy_intel.parse.languages import parser_fingerprint
from lazy_intel.search.vectors import refresh_vectors
from lazy_intel.service.indexing.recovery import RecoveryResult
from lazy_intel.service.indexing.sync import (
    BUILD_BATCH_FILES,
    Progress,
    SyncReport,
    publish_sync,
    store_profile,
)
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.store.journal import ABANDONED, KIND_REBUILD, RESUMED, Intent, PublicationJournal
from lazy_intel.store.pg.build import (
    PendingBuild,
    PgFactSource,
    begin_build,
    build_problem,
    discard_build,
    end_build_session,
    finish_build,
    open_build,
    pending_build,
)
from lazy_intel.store.pg.store import PgStore, StoreRef
from lazy_intel.store.pg.vectors import carry_embedding_column
from lazy_intel.store.reader import MIB, ReadView
from lazy_intel.store.schema import SCHEMA_VERSION, UPGRADES_IN_PLACE, upgrade_in_place
from lazy_intel.workspace.scope import load_policy
from lazy_intel.workspace.state import StateDir

logger = logging.getLogger(__name__)

DEFAULT_BRANCH = "default"


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def repository_name(root: Path, settings: Settings) -> str:
    """The repository's name in the database: the setting, else the git remote origin URL (the same
    on every machine that checked it out), else ``host:/path`` of the root (this machine's tree)."""
    if settings.store_repository:
        return str(settings.store_repository)
    origin = _git(root, "config", "--get", "remote.origin.url")
    return origin if origin else f"{socket.gethostname()}:{root}"


def branch_name(root: Path, settings: Settings) -> str:
    if settings.store_branch:
        return str(settings.store_branch)
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD")
    return branch if branch and branch != "HEAD" else DEFAULT_BRANCH


def _compatible(meta: dict[str, str] | None) -> bool:
    return (
        meta is not None
        and meta.get("schema_version") in {str(SCHEMA_VERSION), *(str(v) for v in UPGRADES_IN_PLACE)}
        and meta.get("parser_fingerprint") == parser_fingerprint()
        and meta.get("resolver_version") == RESOLVER_VERSION
    )


def run_pg_sync(
    root: Path,
    store: PgStore,
    *,
    max_file_bytes: int,
    parse_workers: int = 0,
    rebuild: bool = False,
    progress: Progress | None = None,
    cancel: object = None,
    executor: str = "local",
    ray_address: str = "local",
    build_batch_files: int = BUILD_BATCH_FILES,
    journal: PublicationJournal | None = None,
    runtime: Path | None = None,
) -> SyncReport:
    """Bring the PostgreSQL store up to date with the disk. The caller holds the writer lock.

    A full build fills a staging store in batches of ``build_batch_files`` files and publishes it
    in one last transaction (:mod:`lazy_intel.store.pg.build`); it continues in the staging store
    of a build that was killed or stopped under the same profile. ``journal`` records what became
    of such a build (``resumed``/``abandoned``), as SQLite recovery records it. ``runtime``: the
    local folder where a large incremental change's overlay is written for the resolve workers, which
    read the live store's committed rows beside it (:mod:`lazy_intel.graph.overlay`); without one,
    such a change resolves in the writer."""
    started = time.monotonic()
    policy = load_policy(root)
    scope_digest = store_profile(root, max_file_bytes)
    live = store.live()
    full = rebuild or live is None or not _compatible(store.store_meta(live))
    pending = pending_build(store)
    sync = functools.partial(
        publish_sync,
        root=root,
        policy=policy,
        max_file_bytes=max_file_bytes,
        parse_workers=parse_workers,
        scope_digest=scope_digest,
        progress=progress,
        cancel=cancel,
        executor=executor,
        ray_address=ray_address,
    )
    if not full:
        assert live is not None
        if pending is not None:
            _discard(store, journal, pending, "the live store was current enough for an incremental sync")
        conn = store.open_live(live)
        try:
            upgrade_in_place(conn)  # an older schema's difference added to the store (no rebuild)
            overlay = (PgFactSource(store.dsn, live.schema), runtime) if runtime is not None else None
            done = sync(conn, full=False, live_store=overlay)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return done.report(full=False, seconds=time.monotonic() - started, store=live.name)
    target = _adopt(store, journal, pending, scope_digest) if pending is not None else None
    if target is not None:
        conn = open_build(store, target)
    else:
        conn, target = begin_build(store, scope_digest)
    try:
        done = sync(
            conn,
            full=True,
            store_path=PgFactSource(store.dsn, target.schema),
            batch_files=max(1, build_batch_files),
        )
        carry = (lambda c: _copy_vectors(c, live)) if live is not None else None
        finish_build(store, conn, target, live, before_switch=carry)
    except BaseException as exc:
        end_build_session(conn)
        if not _keeps_build(exc):  # a failed build (not a stopped one) is not continued
            with contextlib.suppress(Exception):
                discard_build(store, PendingBuild(target, scope_digest, "", 0, 0.0))
        raise
    end_build_session(conn)
    return done.report(full=True, seconds=time.monotonic() - started, store=target.name)


def _keeps_build(exc: BaseException) -> bool:
    """A build stopped from outside, or cut off from the server, keeps its committed batches for the
    next full build (what the server committed is there); one that failed is discarded."""
    import psycopg

    from lazy_intel.service.indexing.parse_pool import SyncCancelled

    return isinstance(
        exc,
        SyncCancelled | KeyboardInterrupt | SystemExit | psycopg.OperationalError | psycopg.InterfaceError,
    )


def _intent(pending: PendingBuild) -> Intent:
    return Intent(
        id=pending.store.schema,
        kind=KIND_REBUILD,
        store=pending.store.name,
        previous=None,
        profile=pending.profile,
        generation_before=0,
        pid=pending.pid,
        started_at=pending.started_at,
    )


def _adopt(
    store: PgStore, journal: PublicationJournal | None, pending: PendingBuild, profile: str
) -> StoreRef | None:
    """The staging store a full build under ``profile`` continues in, or ``None`` after discarding
    ``pending`` when it cannot be continued."""
    problem, files = build_problem(store, pending, profile)
    if problem is not None:
        _discard(store, journal, pending, problem)
        return None
    if journal is not None:
        journal.decide(
            _intent(pending),
            RESUMED,
            f"a full build continues in the store pid {pending.pid} on {pending.host} was building: "
            f"{files} files already written are kept unless they changed",
        )
    logger.info(
        "resuming the build of %s in %s (%d files written)", store.repository, pending.store.name, files
    )
    return pending.store


def _discard(store: PgStore, journal: PublicationJournal | None, pending: PendingBuild, reason: str) -> None:
    discard_build(store, pending)
    if journal is not None:
        journal.decide(
            _intent(pending),
            ABANDONED,
            f"the interrupted build is not resumed: {reason}; its store is dropped",
        )


def _copy_vectors(conn: object, previous: StoreRef) -> None:
    """Vectors of unchanged chunk texts carry over from the replaced store (never embedded twice)."""
    execute = conn.execute  # type: ignore[attr-defined]
    exists = execute(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = 'vectors'",
        (previous.schema,),
    ).fetchone()
    if not exists:
        return
    extra = carry_embedding_column(conn, previous.schema)  # pgvector's column, where it has one
    execute(
        f"INSERT INTO vectors(embed_sha, profile, data{extra}) SELECT v.embed_sha, v.profile, v.data"
        f'{extra.replace(", ", ", v.")} FROM "{previous.schema}".vectors v '
        "WHERE v.embed_sha IN (SELECT embed_sha FROM chunks) ON CONFLICT DO NOTHING"
    )
    profile = execute(
        f"SELECT value FROM \"{previous.schema}\".meta WHERE key = 'embedding_profile'"
    ).fetchone()
    if profile:
        execute(
            "INSERT INTO meta(key, value) VALUES ('embedding_profile', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (profile[0],),
        )


class PgWorkspace(Workspace):
    """A :class:`Workspace` over a :class:`PgStore`."""

    def __init__(self, root: Path, state: StateDir, settings: Settings, store: PgStore) -> None:
        super().__init__(root, state, settings)
        self.pg = store
        self.lock = store.lock  # type: ignore[assignment]
        self.scheduler.lock = store.lock  # type: ignore[assignment]

    # ---- views
    def store_path(self) -> Path | None:
        ref = self.pg.live()
        return Path(ref.name) if ref is not None else None

    def has_view(self) -> bool:
        """Whether the catalog names a store; ``UNAVAILABLE`` when the server cannot be reached (an
        unreachable index is not a missing one: nothing is rebuilt because the server is down)."""
        return self.pg.live() is not None

    def _on_source_change(self, paths: list[str]) -> None:
        try:
            super()._on_source_change(paths)
        except LazyIntelError as exc:  # the server is down: the edit stays dirty, the next sync takes it
            logger.warning("change of %s not scheduled: %s", self.root, exc.message)

    @contextmanager
    def read(self, *, deadline: float | None = None) -> Iterator[ReadView]:
        self.last_used = time.monotonic()
        with self.pg.view(deadline=deadline, postings_bytes=self.settings.postings_mb * MIB) as view:
            if view is None:
                raise IndexBuilding(
                    f"no index for {self.pg.repository}@{self.pg.branch} in {self.pg.where} yet"
                    + (" (a build is running)" if self.is_building() else ""),
                    next_step="retry shortly, or run lazy-intel index " + str(self.root),
                )
            yield view

    # ---- writes
    def _on_lock_taken(self) -> bool:
        self.recovery = RecoveryResult()  # PostgreSQL rolled back whatever a dead writer left
        return False

    def _run_sync(self, rebuild: bool, repair: bool, progress: Progress, cancel: object) -> SyncReport:
        import psycopg

        seq = self.tracker.seq  # a PostgreSQL sync lists the scope: it captures all recorded by now
        self._unwatched_vouched = False  # (it takes no hint)
        try:
            report = run_pg_sync(
                self.root,
                self.pg,
                max_file_bytes=self.settings.max_file_bytes,
                parse_workers=self.settings.parse_workers,
                rebuild=rebuild,
                progress=progress,
                cancel=cancel,
                executor=self.settings.executor,
                ray_address=self.settings.ray_address,
                build_batch_files=self.settings.build_batch_files,
                journal=self.journal,
                runtime=self.state.runtime,
            )
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            self.pg.lock.forget()  # whatever the session held, the server rolled it back
            raise self.pg.unavailable(exc, "publishing") from None
        self.tracker.synced_through(seq)  # what the watcher saw is published: no longer dirty
        self._refresh_vectors(None, progress)
        self.pg.collect_retired(self.settings.store_grace_ms)
        if repair:
            self.last_repair = {
                "checked": report.store,
                "problems": [],
                "action": f"rebuilt into {report.store}" if report.full_rebuild else "none needed",
            }
        return report

    def _refresh_vectors(self, previous: Path | None, progress: Progress | None) -> None:
        live = self.pg.live()
        if live is None:
            return
        try:
            embedder = self.embedder()
            conn = self.pg.open_live(live)
            self.last_vectors = refresh_vectors(conn, embedder, previous_store=None, progress=progress)
            self.dense_error = None
        except LazyIntelError as exc:
            self.dense_error = exc
            logger.warning("dense projection of %s not built: %s", self.root, exc)
        except Exception as exc:  # a model crash must not take the lexical index down with it
            self.dense_error = exc
            logger.exception("dense projection of %s failed", self.root)

    def _thorough_check(self, live: Path) -> list[dict[str, str]]:
        return []  # the server checks its own pages; a store is never half-written (one transaction)

    def close(self) -> bool:
        stopped = super().close()
        self.pg.close()
        return stopped


def open_pg_workspace(root: Path, state: StateDir, settings: Settings) -> PgWorkspace:
    store = PgStore(str(settings.store), repository_name(root, settings), branch_name(root, settings))
    return PgWorkspace(root, state, settings, store)

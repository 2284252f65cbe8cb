"""The sync pipeline: capture -> diff against the published files -> parse changed files -> publish.

A full rebuild (no store yet, schema or parser change, explicit ``rebuild``) is written into a fresh
store file beside the live one, committed in batches of files, and switched in by replacing the
catalog atomically; an incremental sync is one write transaction on the live store. Either way
readers see the old view or the new one. A full build killed part-way is continued by the next one
from the batches it had committed (:mod:`.resume`).

Before either mutates anything, the publication journal records the intent (:mod:`store.journal`);
the intent is removed when the publication is complete, or decided ``abandoned`` when it fails, so
an intent still pending at the next start means the writer died (see :mod:`service.recovery`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import posixpath
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lazy_intel.faultpoints import pause_point
from lazy_intel.store.integrity import store_meta
from lazy_intel.store.journal import ABANDONED, KIND_INCREMENTAL, KIND_REBUILD, Intent, PublicationJournal
from lazy_intel.store.row_counts import file_count
from lazy_intel.store.schema import (
    SCHEMA_VERSION,
    UPGRADES_IN_PLACE,
    connect,
    create_schema,
    finish_bulk,
    upgrade_in_place,
)
from lazy_intel.workspace.capture import STATUS_EXCLUDED, STATUS_TOO_LARGE, PriorStat, capture_all
from lazy_intel.workspace.scope import IGNORE_FILE, ScopePolicy, list_scope, load_policy
from lazy_intel.workspace.state import StateDir

if TYPE_CHECKING:
    from lazy_intel.graph.build import GraphReport
    from lazy_intel.store.pg.build import PgFactSource
    from lazy_intel.store.writer import AppliedChange, FileRecord

# The parse, graph and writer modules (tree-sitter, NumPy, the resolver) are imported by the
# functions that sync, not here: a process that only reads a published view never loads them.

logger = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
# a sqlite3.Connection, or a store.pg PgConnection that speaks the same interface
StoreConnection = Any

CAPTURE_BATCH = 512
# outlines (nodes, interface record, definition lines) an incremental sync keeps from its parse
# workers until the graph update takes them, ~40 KB each for a Django file: the rest of a larger
# change is described from the store as before
OUTLINES_CARRIED = 2048
# a full build commits its fresh store every this many files (what a killed build resumes from)
BUILD_BATCH_FILES = 1000
# a change set smaller than this is parsed on this machine even with the Ray executor (a one-file
# edit must not wait for the cluster)
RAY_MIN_FILES = 64
# a scoped sync (the watcher's changed paths only, see scoped_paths) takes at most this many paths
SCOPED_MAX_PATHS = 256
# bound parameters per statement when reading records by path (SQLite's default limit is 32766)
SQL_PARAMS = 500
# reclaim free pages after a publication once they are this share of the file (auto_vacuum=INCREMENTAL)
FREE_PAGE_SHARE = 0.25


@dataclass(frozen=True)
class SyncReport:
    generation: int
    published: bool
    full_rebuild: bool
    added: int
    modified: int
    removed: int
    unchanged: int
    parse_errors: int
    seconds: float
    store: str
    changed_paths: tuple[str, ...] = ()
    graph: GraphReport | None = None
    scoped: bool = False  # only the watcher's changed paths were captured (scoped_paths)

    def to_dict(self) -> dict[str, object]:
        return {
            "generation": self.generation,
            "published": self.published,
            "full_rebuild": self.full_rebuild,
            "added": self.added,
            "modified": self.modified,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "parse_errors": self.parse_errors,
            "seconds": round(self.seconds, 3),
            "store": self.store,
            "scoped": self.scoped,
            **({"graph": self.graph.to_dict()} if self.graph is not None else {}),
        }


def store_profile(root: Path, max_file_bytes: int) -> str:
    """The scope digest a store built now would record: policy, parser fingerprint, limits, schema,
    graph resolver. ``run_sync`` records exactly this; recovery compares against it."""
    from lazy_intel.graph.build import RESOLVER_VERSION
    from lazy_intel.parse.languages import parser_fingerprint

    policy = load_policy(root)
    return policy.digest(parser_fingerprint(), str(max_file_bytes), str(SCHEMA_VERSION), RESOLVER_VERSION)


def _store_is_compatible(path: Path) -> bool:
    from lazy_intel.graph.build import RESOLVER_VERSION
    from lazy_intel.parse.languages import parser_fingerprint

    meta = store_meta(path)
    current = {str(SCHEMA_VERSION), *(str(v) for v in UPGRADES_IN_PLACE)}  # the latter: upgraded in place
    return (
        meta is not None
        and meta.get("schema_version") in current
        and meta.get("parser_fingerprint") == parser_fingerprint()
        and meta.get("resolver_version") == RESOLVER_VERSION
    )


def _relative(path: Path) -> str:
    return f"stores/{path.name}"


def run_sync(
    root: Path,
    state: StateDir,
    *,
    max_file_bytes: int,
    parse_workers: int = 0,
    rebuild: bool = False,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    executor: str = "local",
    ray_address: str = "local",
    only: tuple[str, ...] | None = None,
    build_batch_files: int = BUILD_BATCH_FILES,
    only_complete: bool = False,
) -> SyncReport:
    """Bring the store up to date with the disk. The caller holds the writer lock.

    ``only``: the watcher's changed paths when :func:`scoped_paths` allowed a scoped sync (ignored
    when the sync turns out to be a full rebuild); ``only_complete``: ``only`` names every file that
    may have changed (a catch-up compared them all, :mod:`.reconcile`), so an empty one captures
    nothing rather than listing the scope. A full build commits its fresh store every
    ``build_batch_files`` files and continues in the store of a killed build when recovery kept one
    resumable (:mod:`.resume`)."""
    from lazy_intel.service.indexing.resume import adopt_resumable, discard_resumable, start_build_journal
    from lazy_intel.store.writer import compact_fulltext

    started = time.monotonic()
    state.ensure()
    journal = PublicationJournal(state.runtime)
    policy = load_policy(root)
    scope_digest = store_profile(root, max_file_bytes)
    live = state.published_store()
    full = rebuild or live is None or not _store_is_compatible(live)
    intent: Intent | None = None
    resumed = None
    if full:
        resumed = adopt_resumable(state, journal, scope_digest)
        if resumed is not None:
            target = resumed.path
        else:
            target = state.stores / f"store-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.sqlite"
        intent = Intent.new(KIND_REBUILD, _relative(target), _relative(live) if live else None, scope_digest)
        journal.begin(intent)  # before the file exists: recovery must know whose file it is
    else:
        assert live is not None
        target = live
        discard_resumable(state, journal, "the live store was current enough for an incremental sync")
    try:
        conn = connect(str(target), bulk=full)
    except BaseException as exc:
        if intent is not None:
            _abandon(journal, intent, target, exc)
        raise
    try:
        if not full and upgrade_in_place(conn) is not None:  # an index added, no rebuild
            state.write_catalog({"store": _relative(target), "schema_version": SCHEMA_VERSION})
        if full and resumed is None:
            create_schema(conn)  # auto_vacuum=INCREMENTAL was set by connect(bulk=True)
            start_build_journal(conn, scope_digest)

        def record_intent(before: int) -> None:
            nonlocal intent
            if intent is None:
                intent = Intent.new(KIND_INCREMENTAL, _relative(target), None, scope_digest, before)
                journal.begin(intent)

        done = publish_sync(
            conn,
            root,
            policy,
            max_file_bytes=max_file_bytes,
            parse_workers=parse_workers,
            full=full,
            scope_digest=scope_digest,
            progress=progress,
            cancel=cancel,
            before_write=record_intent,
            executor=executor,
            ray_address=ray_address,
            store_path=target if full else None,
            live_store=None if full else (target, state.runtime),
            only=None if full else only,
            batch_files=build_batch_files if full else 0,
            only_complete=only_complete,
        )
        if not full:
            compact_fulltext(conn)
            reclaim_free_pages(conn)
    except BaseException as exc:
        conn.close()
        if full and intent is not None and _interrupted(exc):
            # what it had committed stays: the next full build continues from it (service/indexing/resume.py)
            journal.keep_resumable(intent, f"interrupted in this process ({_reason(exc)})")
            raise
        if full:
            _remove_store_files(target)
        if intent is not None:
            _abandon(journal, intent, target if full else None, exc)
        raise
    if full:
        finish_bulk(conn)
    conn.close()
    if full:
        _fsync_file(target)  # bulk writes skipped fsync; the catalog must never name unsynced pages
        pause_point("switch")
        state.write_catalog({"store": _relative(target), "schema_version": SCHEMA_VERSION})
        pause_point("retire")
        if live is not None and live != target:
            mark_retired(live)
    if intent is not None:
        journal.finish(intent.id)
    return done.report(full=full, seconds=time.monotonic() - started, store=target.name)


@dataclass(frozen=True)
class Published:
    """What :func:`publish_sync` captured and wrote."""

    generation: int
    before: int
    added: tuple[str, ...]
    modified: tuple[str, ...]
    removed: tuple[str, ...]
    captured: int
    parse_errors: int
    graph: GraphReport | None
    scoped: bool = False

    def report(self, *, full: bool, seconds: float, store: str) -> SyncReport:
        return SyncReport(
            generation=self.generation,
            published=self.generation != self.before,
            full_rebuild=full,
            added=len(self.added),
            modified=len(self.modified),
            removed=len(self.removed),
            unchanged=self.captured - len(self.added) - len(self.modified),
            parse_errors=self.parse_errors,
            seconds=seconds,
            store=store,
            changed_paths=tuple(sorted(self.added + self.modified + self.removed)),
            graph=self.graph,
            scoped=self.scoped,
        )


def publish_sync(
    conn: StoreConnection,
    root: Path,
    policy: ScopePolicy,
    *,
    max_file_bytes: int,
    parse_workers: int,
    full: bool,
    scope_digest: str,
    progress: Progress | None,
    cancel: threading.Event | None,
    before_write: Callable[[int], None] | None = None,
    executor: str = "local",
    ray_address: str = "local",
    store_path: Path | PgFactSource | None = None,
    only: tuple[str, ...] | None = None,
    batch_files: int = 0,
    only_complete: bool = False,
    live_store: tuple[Path | PgFactSource, Path] | None = None,
) -> Published:
    """Capture the scope, diff it against the store on ``conn``, parse what changed and publish it
    in one transaction (any store backend). ``before_write(generation)`` runs first when there is
    something to write (the journal records the intent there). ``executor`` ``ray`` parses change
    sets of at least :data:`RAY_MIN_FILES` files in Ray tasks (:mod:`.ray_executor`). ``store_path``:
    the fresh SQLite store file of a full rebuild, which resolve workers may read. ``only``: capture
    just these published files (a scoped sync, :func:`scoped_paths`) instead of listing the scope.
    ``live_store``: the published store an incremental sync writes (a SQLite file, or a PostgreSQL
    store's fact source) and a local runtime folder: its large changes resolve in workers that read
    the store beside an overlay of the change written there (:mod:`lazy_intel.graph.overlay`).
    ``batch_files`` (a full build into a fresh store): write the files in transactions of
    that many, then derive and publish in one more; the store's build journal counts the files
    committed."""
    from lazy_intel.graph.build import (
        RESOLVER_VERSION,
        FileOutline,
        GraphDelta,
        graph_tables_empty,
        start_outlines,
        update_graph,
        write_outline,
    )
    from lazy_intel.parse.languages import parser_fingerprint, parser_versions
    from lazy_intel.service.indexing.parse_pool import SyncCancelled, parse_many, worker_count
    from lazy_intel.store.writer import ChangeSet, StatRefresh, StoreWriter

    fingerprint = parser_fingerprint()
    writer = StoreWriter(conn)
    before = writer.generation()
    # a scoped sync reads the published records of the hinted paths only (an edit in serve must not
    # cost a pass over every file's row); anything else, or a hint scoped_paths refuses, reads all
    hinted = only is not None and (len(only) > 0 or only_complete) and len(only) <= SCOPED_MAX_PATHS
    priors, prior_class = _published_stats(conn, only if hinted else None)
    only = scoped_paths(only, priors, root, complete=only_complete) if hinted else None
    if only is None:
        if hinted:
            priors, prior_class = _published_stats(conn, None)
        listing = list_scope(policy)
        listed, scope_source = listing.paths, listing.source
        published_count = len(priors)
    else:  # published files only: what is in scope cannot have changed
        listed = only
        row = conn.execute("SELECT value FROM meta WHERE key='scope_source'").fetchone()
        scope_source = row[0] if row else "walk"
        published_count = file_count(conn)  # recorded by the last publication (store/row_counts.py)
    capture_started = time.time_ns()
    captured = []
    for offset in range(0, len(listed), CAPTURE_BATCH):
        if cancel is not None and cancel.is_set():
            raise SyncCancelled("sync cancelled during capture", next_step="the next sync starts over")
        batch = listed[offset : offset + CAPTURE_BATCH]
        captured.extend(capture_all(root, batch, max_bytes=max_file_bytes, priors=priors))
        if progress and offset + CAPTURE_BATCH < len(listed):
            progress("capture", len(captured), len(listed))
    if progress:
        progress("capture", len(captured), len(captured))
    seen = {c.path for c in captured}
    removed = tuple(sorted(p for p in (priors if only is None else listed) if p not in seen))
    # files in scope now: what was captured, and (scoped) every published file not looked at
    in_scope = len(captured) if only is None else published_count - len(listed) + len(captured)
    added: list[str] = []
    modified: list[str] = []
    refreshes: list[StatRefresh] = []
    for c in captured:
        prior = priors.get(c.path)
        if prior is None:
            added.append(c.path)
            continue
        moved_class = _capture_class(c.status, c.reason) != prior_class.get(c.path)
        if c.sha256 != prior.sha256 or moved_class:
            modified.append(c.path)
        elif c.mtime_ns != prior.mtime_ns:
            refreshes.append(StatRefresh(c.path, c.mtime_ns))
    to_parse = sorted(added + modified)
    workers = worker_count(parse_workers, len(to_parse))
    parse_errors = 0
    if before_write is not None and (to_parse or removed):
        before_write(before)
    # a fresh full build: the parse workers describe each file, written with its facts (no describe
    # phase reading every file's facts back, issue 14)
    outlines = full and store_path is not None and not priors and graph_tables_empty(conn)
    outlines_started = False
    # an incremental sync whose files parse in workers: they describe them too, and the graph update
    # takes those outlines instead of reading each file's facts back (at most OUTLINES_CARRIED)
    carry = not full and workers > 1
    carried: dict[str, FileOutline] = {}

    def records() -> Iterator[FileRecord]:
        nonlocal parse_errors, outlines_started
        if executor == "ray" and len(to_parse) >= RAY_MIN_FILES:
            from lazy_intel.service.indexing.ray_executor import ray_parse_many

            parsed = ray_parse_many(
                root,
                to_parse,
                max_file_bytes,
                address=ray_address,
                workers=parse_workers,
                progress=progress,
                cancel=cancel,
            )
        else:
            parsed = parse_many(
                root,
                to_parse,
                max_file_bytes,
                workers,
                progress=progress,
                cancel=cancel,
                outlines=outlines or carry,
            )
        for record in parsed:
            if record.status == "parse-error":
                parse_errors += 1
            if outlines and record.outline is not None:  # in the writer's transaction, with the file
                if not outlines_started:
                    start_outlines(conn)
                    outlines_started = True
                write_outline(conn, record.outline)  # type: ignore[arg-type]
            elif carry and record.outline is not None and len(carried) < OUTLINES_CARRIED:
                carried[record.path] = record.outline  # type: ignore[assignment]
            yield record

    meta = {
        "schema_version": str(SCHEMA_VERSION),
        "parser_fingerprint": fingerprint,
        "parser_versions": ";".join(f"{k}={v}" for k, v in sorted(parser_versions().items())),
        "scope_digest": scope_digest,
        "scope_source": scope_source,
        "root": str(root),
        "resolver_version": RESOLVER_VERSION,
    }
    graph_reports: list[GraphReport] = []

    def derive_graph(conn: sqlite3.Connection, applied: AppliedChange) -> None:
        if progress:
            progress("graph", 0, len(applied.upserted) + len(applied.removed))
        resolver = None
        if applied.full and store_path is not None:  # a fresh store no reader sees yet
            from lazy_intel.service.indexing.resolve_pool import pool_resolver

            jobs = conn.execute("SELECT count(*) FROM files").fetchone()[0]  # a resumed build's too
            if executor == "ray" and jobs >= RAY_MIN_FILES:
                from lazy_intel.service.indexing.ray_resolve import ray_resolver

                resolver = ray_resolver(
                    conn, store_path, address=ray_address, workers=parse_workers, cancel=cancel
                )
            else:
                resolver = pool_resolver(conn, store_path, jobs, parse_workers, cancel=cancel)
        incremental = None
        if not applied.full and live_store is not None:  # a large change resolves in workers too
            store_file, runtime = live_store
            if executor == "ray":
                from lazy_intel.service.indexing.ray_resolve import ray_overlay_resolver

                incremental = ray_overlay_resolver(
                    conn, store_file, address=ray_address, workers=parse_workers, cancel=cancel
                )
            else:
                from lazy_intel.service.indexing.resolve_pool import overlay_resolver

                incremental = overlay_resolver(conn, store_file, runtime, parse_workers, cancel=cancel)
        journal = None
        if applied.full and store_path is not None and batch_files > 0:  # resumable resolution
            from lazy_intel.service.indexing.resume import graph_journal

            journal = graph_journal(conn, batch_files)
        resolved = (lambda done, total: progress("resolve", done, total)) if progress else None
        graph_reports.append(
            update_graph(
                conn,
                GraphDelta(
                    applied.upserted, applied.removed, full=applied.full, described=outlines, outlines=carried
                ),
                resolver,
                journal=journal,
                progress=resolved,
                incremental=incremental,
            )
        )

    drop_meta: tuple[str, ...] = ()
    if full and batch_files > 0:
        from lazy_intel.service.indexing.resume import BUILD_FILES_KEY, BUILD_KEYS, GRAPH_KEYS

        half = max(1, len(to_parse) // 2)

        def committed(done: int) -> None:
            if done >= half and done - batch_files < half:
                pause_point("batch")

        writer.write_batches(
            records(),
            removed,
            batch_files=batch_files,
            captured_ns=capture_started,
            count_key=BUILD_FILES_KEY,
            on_commit=committed,
            forget=GRAPH_KEYS,
        )
        change = ChangeSet(refreshes=tuple(refreshes), changes_content=True)
        drop_meta = BUILD_KEYS
    else:
        change = ChangeSet(
            upserts=records(), removals=removed, refreshes=tuple(refreshes), changes_content=full
        )
    generation = writer.publish(
        change, meta, captured_ns=capture_started, derive=derive_graph, drop_meta=drop_meta
    )
    return Published(
        generation,
        before,
        tuple(added),
        tuple(modified),
        removed,
        in_scope,
        parse_errors,
        graph_reports[0] if graph_reports else None,
        only is not None,
    )


def _published_stats(
    conn: StoreConnection, paths: tuple[str, ...] | None
) -> tuple[dict[str, PriorStat], dict[str, str]]:
    """The published stat record and capture class of ``paths`` (``None``: of every file)."""
    sql = "SELECT path, sha256, size, mtime_ns, captured_ns, status, reason FROM files"
    rows: Any
    if paths is None:
        rows = conn.execute(sql)
    else:
        rows = [
            row
            for offset in range(0, len(paths), SQL_PARAMS)
            for row in conn.execute(
                f"{sql} WHERE path IN ({','.join('?' * len(paths[offset : offset + SQL_PARAMS]))})",
                paths[offset : offset + SQL_PARAMS],
            ).fetchall()
        ]
    priors: dict[str, PriorStat] = {}
    prior_class: dict[str, str] = {}
    for path, sha, size, mtime, captured_ns, status, reason in rows:
        priors[path] = PriorStat(sha, size, mtime, captured_ns)
        prior_class[path] = _capture_class(status, reason)
    return priors, prior_class


def _interrupted(exc: BaseException) -> bool:
    """A full build stopped from outside (cancelled, its deadline passed, Ctrl-C) rather than failed:
    its committed batches are as good as a killed build's."""
    from lazy_intel.service.indexing.parse_pool import SyncCancelled

    return isinstance(exc, SyncCancelled | KeyboardInterrupt | SystemExit)


def _reason(exc: BaseException) -> str:
    return exc.message if hasattr(exc, "message") else f"{type(exc).__name__}: {exc}"


def scoped_paths(
    hint: tuple[str, ...] | None, published: Mapping[str, object], root: Path, *, complete: bool = False
) -> tuple[str, ...] | None:
    """The paths a scoped sync captures (sorted), or ``None`` when the scope must be listed in full.

    ``hint`` is what the watcher saw change since the last sync (``None``: it cannot tell). A scoped
    sync re-captures only those files, so it is taken only when the scope itself cannot have moved:
    every hinted path is a published file (an edit or a deletion; a new or renamed file needs the
    listing), none is an ignore file, none is a directory now, and there are at most
    :data:`SCOPED_MAX_PATHS`. Anything else (and any doubt) lists the scope as before. ``complete``:
    the hint names every file that may have changed (:mod:`.reconcile`), so an empty one is a sync
    of nothing (its store checks and in-place upgrade still run)."""
    if hint is not None and not hint and complete:
        return ()
    if not hint or len(hint) > SCOPED_MAX_PATHS:
        return None
    for rel in hint:
        if rel not in published or rel == IGNORE_FILE or posixpath.basename(rel) == ".gitignore":
            return None
        try:
            if stat.S_ISDIR(os.lstat(os.path.join(root, rel)).st_mode):
                return None
        except FileNotFoundError:
            continue  # deleted: the scoped sync removes it
        except OSError:
            return None
    return tuple(sorted(set(hint)))


def _abandon(journal: PublicationJournal, intent: Intent, target: Path | None, exc: BaseException) -> None:
    """Our own publication failed before completing: its store is gone, record why."""
    if target is not None:
        _remove_store_files(target)
    reason = _reason(exc)
    try:
        journal.decide(intent, ABANDONED, f"failed in this process: {reason}")
    except OSError:
        logger.warning("could not record the abandoned publication %s", intent.id)


def reclaim_free_pages(conn: sqlite3.Connection) -> None:
    """Keep the store file bounded by the current corpus: give back pages freed by deletions."""
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    if pages and free / pages > FREE_PAGE_SHARE:
        # through sqlite3_exec: the sqlite3 module would step the pragma once, freeing a single page
        conn.executescript("PRAGMA incremental_vacuum;")


def _capture_class(status: str, reason: str | None) -> str:
    """What capture alone decides about a file: too large, a symlink, or content to parse."""
    if status == STATUS_TOO_LARGE:
        return "too-large"
    if status == STATUS_EXCLUDED and reason == "symlink":
        return "symlink"
    return "content"


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_store_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


def mark_retired(path: Path, *, at: float | None = None) -> None:
    """Stamp a replaced store; :func:`collect_retired_stores` deletes it after the grace period.

    ``at=0`` makes it collectable at once (a store that must not be read again, e.g. a corrupt one).
    """
    marker = path.with_name(path.name + ".retired")
    marker.write_text(str(time.time() if at is None else at))


def remove_store_files(path: Path) -> None:
    _remove_store_files(path)


def collect_retired_stores(state: StateDir, grace_ms: int) -> list[str]:
    """Delete stores replaced more than ``grace_ms`` ago; returns their names."""
    removed: list[str] = []
    now = time.time()
    for marker in state.stores.glob("*.retired"):
        try:
            stamped = float(marker.read_text().strip() or "0")
        except (OSError, ValueError):
            stamped = 0.0
        if (now - stamped) * 1000 >= grace_ms:
            store = marker.with_name(marker.name[: -len(".retired")])
            _remove_store_files(store)
            marker.unlink(missing_ok=True)
            removed.append(store.name)
    return removed

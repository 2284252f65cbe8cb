"""A workspace: canonical root, state directory, store views, its sync scheduler and watcher.

One ``Workspace`` object per root per process (the MCP registry keeps it); the CLI opens one per
command. Every sync runs on the workspace's :class:`SyncScheduler` thread under the cross-process
writer lock; reads take no lock (WAL snapshots) and re-read the catalog whenever the file changes
identity, size or mtime, so a view another process replaced is never served.

A store is checked before it is first served by this process (:func:`store.integrity.check_store`;
its O(1) header check on every open), unless the state's check memo holds a clean verdict for the
file exactly as it is — reached by a full check, or carried by the writer over its own syncs
(:mod:`lazy_intel.service.indexing.check_memo`). A store that fails — or that SQLite cannot read, or whose
content blob does not hash to its key — is never served: the request gets ``STORE_CORRUPT`` and a
rebuild into a fresh store is scheduled.
"""

from __future__ import annotations

import gc
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from lazy_intel.allocator import release_free_memory
from lazy_intel.errors import IndexBuilding, InvalidArgument, LazyIntelError, StoreCorrupt
from lazy_intel.service.indexing import check_memo
from lazy_intel.service.indexing.dirty import FAILED, RUNNING, DirtyTracker
from lazy_intel.service.indexing.scheduler import SyncScheduler, Ticket
from lazy_intel.settings import Settings, load_settings
from lazy_intel.store.integrity import check_store, header_problem, store_meta
from lazy_intel.store.journal import PublicationJournal
from lazy_intel.store.reader import MIB, ReadView, open_view
from lazy_intel.store.schema import connect
from lazy_intel.timestamps import iso_utc
from lazy_intel.vcs.binding import BindingSource, RepositoryBinding
from lazy_intel.workspace.lock import shared_writer_lock
from lazy_intel.workspace.root import canonical_root
from lazy_intel.workspace.state import StateDir

# Imported by the methods that use them, so that a CLI read (``search --freshness fast``) does not
# load the sync machinery (capture, scope listing, parsers' language table, the watcher) or the
# dense modules (NumPy): issue 14, CLI start-up; tests/cli/test_startup.py keeps it so.
if TYPE_CHECKING:
    from lazy_intel.search.embedders import Embedder, ProviderSpec
    from lazy_intel.search.vectors import VectorReport
    from lazy_intel.service.indexing.recovery import RecoveryResult
    from lazy_intel.service.indexing.sync import Progress, SyncReport
    from lazy_intel.service.indexing.watcher import SourceWatcher
    from lazy_intel.service.warm_up import EditWarmUp

logger = logging.getLogger(__name__)

# stores already checked by this process: (device, inode) -> first problem or "" (bounded)
_checked: dict[tuple[int, int], str] = {}
_checked_guard = threading.Lock()
_checking = threading.Lock()  # held while a store is checked in full (see _first_problem)
CHECKED_KEPT = 64
# after this many scoped syncs in a row (the watcher's paths only) the next one lists the scope, so a
# change no file event reports (a file dropped from git's index, say) is never missed for long
SCOPED_SYNCS_IN_A_ROW = 32


def _first_problem(path: Path, *, memo: Path | None = None) -> str:
    """'' when ``path`` may be served; checked fully once per file per process, header every time.

    ``memo``: the state directory's record of verdicts (:mod:`lazy_intel.service.indexing.check_memo`), so a process does not
    re-check a file whose bytes another process already checked."""
    header = header_problem(path)
    if header is not None:
        return header
    try:
        info = os.stat(path)
    except OSError as exc:
        return f"cannot stat {path.name}: {exc.strerror}"
    key = (info.st_dev, info.st_ino)
    with _checked_guard:
        if key in _checked:
            return _checked[key]
    # one check at a time: a starting serve's first answer, its catch-up and its first sync all ask
    # at once, and the later callers take the first one's verdict instead of checking again
    with _checking:
        with _checked_guard:
            if key in _checked:
                return _checked[key]
        verdict = check_memo.recall(memo, path) if memo is not None else None
        if verdict is None:
            before = check_memo.identity(path)  # a writer may publish while a reader checks its snapshot
            problems = check_store(path)
            verdict = f"{problems[0].check}: {problems[0].detail}" if problems else ""
            if memo is not None:
                check_memo.remember(memo, path, verdict, checked=before)
        with _checked_guard:
            if len(_checked) >= CHECKED_KEPT:
                _checked.clear()
            _checked[key] = verdict
    return verdict


def _refuse_other_root(state: StateDir, root: Path) -> None:
    """Refuse a state directory given by hand whose published store indexes another root: a sync from
    here would replace that root's index with this one's."""
    store = state.published_store()
    published = (store_meta(store) or {}).get("root") if store is not None else None
    if published is not None and published != str(root):
        raise InvalidArgument(
            f"state directory {state.path} holds the index of {published}, not of {root}",
            next_step=(
                f"run from {published} or pass --root {published}; "
                "to index this root into it instead, `lazy-intel index --rebuild`"
            ),
        )


def release_sync_garbage(*, freeze: bool = False) -> None:
    """After a sync: free what it left in reference cycles, then hand free heap pages back.

    A sync's graph update leaves its whole working set (the fact store, file models, flows,
    interface views: 20k-150k objects for a one-file edit of Django) in reference cycles, which only
    a full collection frees; in ``serve`` that came rarely, so each edit's garbage stayed, and what was
    freed late had been spread over new ``pymalloc`` arenas that one survivor keeps mapped. Collecting
    right after the sync (tens of ms, on the sync thread, after its callers were answered) frees it
    while it is still one block of arenas; ``malloc_trim(0)`` then returns glibc's free pages (the
    large strings and SQLite buffers of the sync). Measured in docs/design/indexing.md ("The serve
    edit path"). The word and stem caches of the tokenizer are emptied first: they would otherwise
    keep the entries this sync added, scattered over the arenas it freed, for the server's life (a
    cache pays off within one sync's files, not between edits of different files).

    ``freeze`` (once, when a watching server is warm): what survives this collection (modules,
    classes, functions, the settings, the loaded grammars and queries: the server's life-long heap)
    is moved out of the collector's sight (``gc.freeze``), so each later collection traverses only
    what was allocated since. Every edit's collection walked that whole heap: ~60 ms of CPU holding
    the interpreter lock right after the publication, for a one-line edit as for the largest, while
    the client asking for the edit waited. A frozen object is still freed when its last reference
    goes; only a cycle among frozen objects would stay (objects of the warm-up, once)."""
    from lazy_intel.text import stems, tokens

    tokens.clear_caches()
    stems.clear_caches()
    gc.collect()
    if freeze:
        gc.freeze()
    release_free_memory()


CATCH_UP_PAUSE_BUDGET_S = 10.0


class CatchUpPause:
    """What the catch-up's comparison calls between steps: wait while a sync runs or is wanted, so
    a watched edit's sync has the interpreter to itself (the comparison stats the whole scope: 2-6 s
    at 100k files), up to :data:`CATCH_UP_PAUSE_BUDGET_S` in all, after which the comparison goes on
    beside a stream of edits rather than never finishing."""

    def __init__(self, wait_idle: Callable[[float], bool], budget_s: float = CATCH_UP_PAUSE_BUDGET_S) -> None:
        self._wait_idle = wait_idle
        self._left = budget_s
        self.spent_s = 0.0

    def __call__(self) -> None:
        if self._left <= 0:
            return
        started = time.monotonic()
        self._wait_idle(self._left)
        spent = time.monotonic() - started
        self.spent_s += spent
        self._left -= spent


class Workspace:
    def __init__(self, root: Path, state: StateDir, settings: Settings) -> None:
        self.root = root
        self.state = state
        self.settings = settings
        self.lock = shared_writer_lock(state.writer_lock)
        self.dense_error: LazyIntelError | Exception | None = None
        self.last_vectors: VectorReport | None = None
        self._embedder_lock = threading.Lock()
        self.journal = PublicationJournal(state.runtime)
        self.tracker = DirtyTracker()
        self._scoped_in_a_row = 0
        self._prepared_for_edits = False
        self._warm_up: EditWarmUp | None = None
        self.watcher: SourceWatcher | None = None
        self.watch_note = "not watching (only lazy-intel serve watches)"
        self.store_fault: dict[str, object] | None = None
        self.recovery: RecoveryResult | None = None
        self.last_repair: dict[str, object] | None = None
        self.last_used = time.monotonic()
        self.closed = False
        # set unless a started watcher still owes the catch-up sync it requests once its watches
        # are in place (``on_ready`` runs on the watcher's thread, later than ``start_serving``)
        self._caught_up = threading.Event()
        self._caught_up.set()
        # cleared while a started watcher's catch-up has not compared the disk with the view: what
        # changed while nobody watched is unknown then, so no answer may say the view is clean
        self._reconciled = threading.Event()
        self._reconciled.set()
        self._watch_ready_at: float | None = None  # time.monotonic() the watches were in place
        self._listing_owed = False  # the catch-up found that only a sync listing the scope will do
        self._unwatched_vouched = False  # the catch-up compared every file: the tracker holds the rest
        self.last_catch_up: dict[str, object] | None = None
        self._catalog_key: tuple[int, int, int] | None = None
        self._catalog_store: Path | None = None
        self.binding_source = BindingSource(root)
        self.scheduler = SyncScheduler(
            root.name,
            self.lock,
            self._run_sync,
            self._on_lock_taken,
            before_lock=self.state.ensure,
            after_sync=self._after_sync,
            idle_release_s=settings.writer_idle_ms / 1000,
            sync_timeout_s=settings.bootstrap_timeout_ms / 1000,
        )

    @classmethod
    def open(
        cls,
        root: str | Path,
        *,
        settings: Settings | None = None,
        state_dir: Path | None = None,
        adopt_state_dir: bool = False,
    ) -> Workspace:
        """The workspace of ``root``. An explicit ``state_dir`` whose published index is another
        root's is refused (``INVALID_ARGUMENT``) unless ``adopt_state_dir``: ``index --rebuild``, or a
        caller that copied the state directory along with its tree (the next sync records the new
        root). The default ``<root>/.lazy-intel`` is not checked: there another root means the tree
        moved."""
        resolved_settings = settings or load_settings()
        canonical = canonical_root(
            root,
            allowed_roots=resolved_settings.allowed_roots,
            deny_roots=resolved_settings.deny_roots,
        )
        state = StateDir.for_root(canonical, state_dir)
        if state_dir is not None and not adopt_state_dir and not resolved_settings.store:
            _refuse_other_root(state, canonical)
        if resolved_settings.store:
            from lazy_intel.store.pg.store import is_postgres_url

            if not is_postgres_url(str(resolved_settings.store)):
                raise InvalidArgument(
                    f"LAZY_INTEL_STORE={resolved_settings.store!r} is not a postgresql:// URL",
                    next_step="leave it empty for the embedded SQLite store, or name a PostgreSQL database",
                )
            from lazy_intel.service.workspace_pg import open_pg_workspace

            return open_pg_workspace(canonical, state, resolved_settings)
        return cls(canonical, state, resolved_settings)

    # ---- lifecycle
    def start_serving(self) -> None:
        """Watch the source (or reconcile periodically) and catch up with what changed while closed."""
        if self.settings.watch:
            from lazy_intel.service.indexing.watcher import SourceWatcher

            self._caught_up.clear()
            self._reconciled.clear()
            self.watcher = SourceWatcher(
                self.root,
                self.state.path,
                self._on_source_change,
                self._on_watch_failure,
                debounce_ms=self.settings.debounce_ms,
                on_ready=self._catch_up,  # after the watches are in place: no edit falls in between
            )
            self.watcher.start()
        else:
            self.watch_note = "off (LAZY_INTEL_WATCH=false)"
            self.scheduler.set_reconcile(self.settings.reconcile_ms / 1000)
            self._catch_up()

    def _catch_up(self) -> None:
        """Once watching: the first build, or reconciliation with what changed while closed (and the
        recovery of interrupted publications, which comes with taking the writer lock).

        With a running watcher and a view, the comparison of the disk with the view runs on a thread
        of its own (:meth:`_compare_unwatched`), so the sync thread serves watched edits meanwhile;
        otherwise the next sync lists the scope, as before."""
        self._watch_ready_at = time.monotonic()
        scanning = False
        try:
            if self.watcher is not None and self.watcher.state == RUNNING and self.has_view():
                threading.Thread(
                    target=self._compare_unwatched, name=f"lazy-intel-catch-up:{self.root.name}", daemon=True
                ).start()
                scanning = True
                return
            self._listing_owed = True
            if self.settings.auto_index:
                self.scheduler.request()
        finally:
            if not scanning:
                self._caught_up.set()

    def _compare_unwatched(self) -> None:
        """The catch-up's comparison (:mod:`.indexing.reconcile`), then the sync of what it found."""
        from lazy_intel.service.indexing.reconcile import changed_while_unwatched

        started = time.monotonic()
        paused = CatchUpPause(self.scheduler.wait_idle)
        try:
            with self.read() as view:
                found = changed_while_unwatched(
                    view.conn, view.generation, self.root, self.settings.max_file_bytes, pause=paused
                )
            if found.paths:
                self.tracker.record(list(found.paths))  # known dirty from now on, published by the sync
            if found.needs_listing:
                self._listing_owed = True
            else:
                self._unwatched_vouched = True
                self._reconciled.set()  # the watcher's record and these paths are everything now
            self.last_catch_up = {
                "generation": found.generation,
                "files": found.files,
                "changed": len(found.paths),
                "needs_listing": found.reason or None,
                "seconds": round(time.monotonic() - started, 3),
                "paused_s": round(paused.spent_s, 3),
            }
        except Exception as exc:  # a store that fails its checks, a vanished root: list the scope
            logger.warning(
                "catch-up comparison of %s failed: %s; the next sync lists the scope", self.root, exc
            )
            self._listing_owed = True
            self.last_catch_up = {"error": str(exc)}
        finally:
            try:
                if self.settings.auto_index and not self.closed:
                    self.scheduler.request()
            finally:
                self._caught_up.set()

    def catching_up(self) -> bool:
        """A running watcher's catch-up has not yet compared the disk with the view."""
        return not self._reconciled.is_set() and self.watching()

    def close(self) -> bool:
        """Stop watching and syncing, release the writer lock. True if everything stopped in time."""
        self.closed = True
        if self.watcher is not None:
            self.watcher.stop()
        self._caught_up.set()  # a watcher stopped before its watches were in place owes nothing
        return self.scheduler.close()

    def _after_sync(self) -> None:
        """On the sync thread after each sync (its callers answered): once a watching server has a
        view, load what an edit's sync needs (:class:`EditWarmUp`, in steps); then free the sync's
        garbage (and, once warm, freeze the warm heap: :func:`release_sync_garbage`)."""
        warm = False
        report, started = self.scheduler.last_report, self.scheduler.report_started_at
        ready = self._watch_ready_at
        listed = report is not None and not report.scoped
        if listed and started is not None and ready is not None and started >= ready:
            # a sync that listed the scope after the watches were in place: nothing else is unknown
            self._listing_owed = False
            self._reconciled.set()
        try:
            if self.watcher is not None and not self._prepared_for_edits and self.has_view():
                if self._warm_up is None:
                    from lazy_intel.service.warm_up import EditWarmUp

                    self._warm_up = EditWarmUp(self.read, self.settings.max_file_bytes)
                # in steps that give way to a wanted sync: a watched edit never waits for it all
                warm = self._prepared_for_edits = self._warm_up.step(self.scheduler.wanted)
            elif self._prepared_for_edits and self.last_report is not None and self.last_report.full_rebuild:
                warm = True  # a full build's relaxed_collection unfroze everything when it ended
        finally:
            release_sync_garbage(freeze=warm)

    def _on_source_change(self, paths: list[str]) -> None:
        self.tracker.record(paths)
        if self.settings.auto_index and (self.has_view() or self.scheduler.busy):
            self.scheduler.request()

    def _on_watch_failure(self, error: str) -> None:
        self.scheduler.set_reconcile(self.settings.reconcile_ms / 1000)
        self._catch_up()

    def watching(self) -> bool:
        return self.watcher is not None and self.watcher.state != FAILED and not self.closed

    def describe_watcher(self) -> dict[str, object]:
        if self.watcher is None:
            out: dict[str, object] = {"state": "off", "note": self.watch_note}
        else:
            out = self.watcher.describe()
        if self.catching_up():
            out["catching_up"] = True
        if self.last_catch_up is not None:
            out["catch_up"] = dict(self.last_catch_up)
        if self.scheduler.reconcile_s:
            out["fallback"] = f"periodic reconciliation every {self.scheduler.reconcile_s:g}s"
        return out

    # ---- views
    def store_path(self) -> Path | None:
        """The store the catalog names (re-read only when the catalog file changed), if it exists."""
        try:
            info = os.stat(self.state.catalog)
        except OSError:
            self._catalog_key = None
            return None
        key = (info.st_ino, info.st_size, info.st_mtime_ns)
        if key != self._catalog_key:
            catalog = self.state.read_catalog()
            store = catalog.get("store") if catalog else None
            self._catalog_store = self.state.path / store if isinstance(store, str) else None
            self._catalog_key = key
        path = self._catalog_store
        return path if path is not None and path.is_file() else None

    def has_view(self) -> bool:
        return self.store_path() is not None

    @contextmanager
    def read(self, *, deadline: float | None = None) -> Iterator[ReadView]:
        """The published view; ``INDEX_BUILDING`` when there is none, ``STORE_CORRUPT`` when unsafe."""
        self.last_used = time.monotonic()
        path = self.store_path()
        if path is None:
            raise IndexBuilding(
                f"no index for {self.root} yet" + (" (a build is running)" if self.is_building() else ""),
                next_step="retry shortly, or run lazy-intel index " + str(self.root),
            )
        problem = _first_problem(path, memo=self.state.runtime / check_memo.MEMO_FILE)
        if problem:
            self._store_failed(path, problem)
        try:
            with open_view(path, deadline=deadline, postings_bytes=self.settings.postings_mb * MIB) as view:
                yield view
        except StoreCorrupt as exc:
            self._store_failed(path, exc.message)

    def _store_failed(self, path: Path, reason: str) -> None:
        first = self.store_fault is None or self.store_fault.get("store") != path.name
        if first:
            logger.warning("store %s is unusable: %s; rebuilding", path.name, reason)
            self.store_fault = {"store": path.name, "reason": reason, "detected_at": iso_utc()}
        scheduled = self.settings.auto_index and self.scheduler.request(rebuild=True)
        raise StoreCorrupt(
            f"store {path.name} is unusable ({reason}); nothing is served from it"
            + ("; a rebuild has started" if scheduled or self.is_building() else ""),
            next_step="retry shortly (status shows the rebuild), or run lazy-intel repair",
        )

    # ---- dense projection
    def embedding_spec(self) -> ProviderSpec:
        """The configured provider, ``auto`` resolved (``none`` when the dense extra is absent)."""
        from lazy_intel.search.embedders import parse_provider_spec, resolve_spec

        return resolve_spec(parse_provider_spec(self.settings.embedding))

    def embedder(self) -> Embedder | None:
        """The configured embedder, loaded once per process; ``None`` when none is configured."""
        from lazy_intel.search.embedders import create_embedder

        with self._embedder_lock:
            return create_embedder(self.embedding_spec(), cache_dir=self.settings.cache_dir)

    def _refresh_vectors(self, previous: Path | None, progress: Progress | None) -> None:
        """Bring the dense projection up to date after a publication; failures never undo the sync."""
        from lazy_intel.search.vectors import refresh_vectors
        from lazy_intel.service.indexing.sync import reclaim_free_pages

        path = self.store_path()
        if path is None:
            return
        try:
            embedder = self.embedder()
            conn = connect(str(path))
            try:
                self.last_vectors = refresh_vectors(
                    conn,
                    embedder,
                    previous_store=previous if previous is not None and previous != path else None,
                    progress=progress,
                )
                if self.last_vectors.removed:
                    reclaim_free_pages(conn)  # dropped vectors must not grow the file for ever
            finally:
                conn.close()
            self.dense_error = None
        except LazyIntelError as exc:
            self.dense_error = exc
            logger.warning("dense projection of %s not built: %s", self.root, exc)
        except Exception as exc:  # a model crash must not take the lexical index down with it
            self.dense_error = exc
            logger.exception("dense projection of %s failed", self.root)

    # ---- writes
    def sync(
        self, *, rebuild: bool = False, progress: Progress | None = None, timeout_s: float | None = None
    ) -> SyncReport:
        """Capture and publish now, waiting for it. ``WORKSPACE_OWNED`` if another process writes."""
        return self.submit_sync(rebuild=rebuild, progress=progress).wait(timeout_s)

    def submit_sync(self, *, rebuild: bool = False, progress: Progress | None = None) -> Ticket:
        self.last_used = time.monotonic()
        return self.scheduler.submit(rebuild=rebuild, progress=progress)

    def start_background_sync(self, *, rebuild: bool = False) -> bool:
        """Schedule one background sync unless one is pending; never blocks the caller."""
        return self.scheduler.request(rebuild=rebuild)

    def wait_background(self, timeout_s: float) -> bool:
        """Wait (bounded) until no sync is running or pending, the catch-up sync a starting watcher
        will request included (without it, a wait right after ``start_serving`` could return before
        that sync began)."""
        end = time.monotonic() + timeout_s
        if not self._caught_up.wait(timeout_s):
            return False
        left = max(0.0, end - time.monotonic())
        return self.scheduler.wait_until(lambda: not self.scheduler.busy, left)

    def is_building(self) -> bool:
        return self.scheduler.busy

    @property
    def last_error(self) -> BaseException | None:
        return self.scheduler.last_error

    @property
    def last_report(self) -> SyncReport | None:
        return self.scheduler.last_report

    @property
    def progress(self) -> tuple[str, int, int] | None:
        return self.scheduler.progress

    def _on_lock_taken(self) -> bool:
        """Under the fresh writer lock: recover what a dead writer left. True if a rebuild is needed."""
        from lazy_intel.service.indexing.recovery import recover
        from lazy_intel.service.indexing.sync import store_profile

        self.recovery = recover(self.state, store_profile(self.root, self.settings.max_file_bytes))
        return self.recovery.needs_rebuild

    def repair(self, *, timeout_s: float | None = None) -> SyncReport:
        """Recover, check the live store thoroughly, rebuild it if a check fails; :attr:`last_repair`
        says what was found and done."""
        self.last_used = time.monotonic()
        return self.scheduler.submit(repair=True).wait(timeout_s)

    def _thorough_check(self, live: Path) -> list[dict[str, str]]:
        conn = connect(str(live))  # writable: the FTS5 integrity-check needs it (we hold the lock)
        try:
            problems = check_store(live, thorough=True, conn=conn)
        except sqlite3.DatabaseError as exc:
            return [{"projection": "store", "check": "open", "detail": str(exc)}]
        finally:
            conn.close()
        return [p.to_dict() for p in problems]

    def _run_sync(self, rebuild: bool, repair: bool, progress: Progress, cancel: object) -> SyncReport:
        from lazy_intel.service.indexing.sync import (
            SCOPED_MAX_PATHS,
            collect_retired_stores,
            mark_retired,
            run_sync,
        )

        live = self.store_path()
        faulty = self.store_fault is not None
        findings: list[dict[str, str]] = []
        memo = self.state.runtime / check_memo.MEMO_FILE
        vouched: check_memo.Identity | None = None  # the clean identity this sync's writes start from
        if repair and live is not None:
            problem = header_problem(live)
            findings = (
                [{"projection": "store", "check": "header", "detail": problem}]
                if problem
                else self._thorough_check(live)
            )
            if not findings:  # a full check (after its connection closed): the next process need not
                check_memo.remember(memo, live, "")
                vouched = check_memo.vouched(memo, live)
            if findings:
                faulty = True
                self.store_fault = {
                    "store": live.name,
                    "reason": findings[0]["detail"],
                    "detected_at": iso_utc(),
                }
        elif not rebuild and not faulty and live is not None:
            problem = _first_problem(live, memo=memo)
            if problem:  # never write into a store that fails its checks
                faulty = True
                self.store_fault = {"store": live.name, "reason": problem, "detected_at": iso_utc()}
            else:
                vouched = check_memo.vouched(memo, live)
        seq = self.tracker.seq
        # what the watcher saw change, read after seq (so everything recorded through seq is in it):
        # a sync may capture just those files (service/indexing/sync.py scoped_paths) instead of listing and
        # stating the whole scope; every SCOPED_SYNCS_IN_A_ROW syncs the scope is listed anyway
        # while the catch-up has not compared the disk with the view, a watched edit's sync is scoped
        # to what the watcher reported, but a caller waiting for a current view gets a listed scope
        hint = None
        complete = self._unwatched_vouched
        self._unwatched_vouched = False
        listing = self._listing_owed or (not self._reconciled.is_set() and self.scheduler.answering)
        plain = not (rebuild or repair or faulty or listing)
        if plain and (complete or self._scoped_in_a_row < SCOPED_SYNCS_IN_A_ROW):
            hint = self.watched_dirty(SCOPED_MAX_PATHS + 1)
            complete = complete and hint is not None
        report = run_sync(
            self.root,
            self.state,
            max_file_bytes=self.settings.max_file_bytes,
            parse_workers=self.settings.parse_workers,
            rebuild=rebuild or faulty,
            progress=progress,
            cancel=cancel,  # type: ignore[arg-type]
            executor=self.settings.executor,
            ray_address=self.settings.ray_address,
            build_batch_files=self.settings.build_batch_files,
            only=hint,
            only_complete=complete and plain,
        )
        self._scoped_in_a_row = self._scoped_in_a_row + 1 if report.scoped else 0
        self.tracker.synced_through(seq)
        # vectors of the previous store are reused unless it was the faulty one
        self._refresh_vectors(None if faulty else live, progress)
        if faulty and report.full_rebuild and self.store_fault is not None:
            bad = self.state.stores / str(self.store_fault["store"])
            if bad.name != report.store and bad.exists():
                mark_retired(bad, at=0)  # nobody may read it again: collect at once
            self.store_fault = None
        if vouched is not None and not report.full_rebuild and self.store_path() == live:
            # our own committed transactions since a clean identity: the verdict follows them, so the
            # next process (a CLI call, a restarted serve) need not re-check the whole store
            assert live is not None
            check_memo.carry(memo, live, vouched)
        collect_retired_stores(self.state, self.settings.store_grace_ms)
        if report.full_rebuild:
            release_free_memory()  # the bulk page cache left holes no trim threshold returns
        if repair:
            self.last_repair = {
                "checked": live.name if live is not None else None,
                "problems": findings,
                "action": f"rebuilt into {report.store}" if report.full_rebuild else "none needed",
            }
        return report

    # ---- freshness
    def repository_binding(self, *, fresh: bool = False) -> RepositoryBinding:
        """The git binding of the root now; reused while the watcher saw nothing change and git's
        HEAD, index and refs are untouched (``fresh``: always captured anew)."""
        trusted = not fresh and self.watching() and self.scheduler.owner_pid is None
        return self.binding_source.binding(self.tracker.seq if trusted else None)

    def dirty_paths(self, view: ReadView, limit: int = 50) -> tuple[str, ...]:
        """Paths changed on disk since ``view``: the watcher's record when it can be trusted, else a
        stat pass (size or mtime differ, new and deleted files)."""
        known = self.watched_dirty(limit)
        if known is not None:
            return known  # while catching up, a lower bound: the answer says so (catching_up)
        return self.stat_dirty(view, limit)

    def watch_settling(self) -> int | None:
        """Milliseconds since the watcher's last reported change while under one debounce interval."""
        watcher = self.watcher
        return watcher.settling() if watcher is not None and self.watching() else None

    def watched_dirty(self, limit: int = 50) -> tuple[str, ...] | None:
        """What the watcher saw change and no sync of ours has published yet; ``None`` when the
        watcher is not running, lost track, or another process publishes (it cannot tell then)."""
        if not self.watching() or self.scheduler.owner_pid is not None:
            return None
        paths, overflow = self.tracker.pending(limit)
        return None if overflow else paths

    def stat_dirty(self, view: ReadView, limit: int = 50) -> tuple[str, ...]:
        """Paths whose entry on disk differs from the published record (:func:`stat_changed`: entries
        the scope lists but capture never records, and symlinks, are not changes), then published
        paths the scope no longer lists."""
        from lazy_intel.workspace.capture import StatKey, recorded_kind, stat_changed, stat_key
        from lazy_intel.workspace.scope import list_scope, load_policy

        listing = list_scope(load_policy(self.root))
        known = {
            path: StatKey(recorded_kind(status, reason), size, mtime)
            for path, status, reason, size, mtime in view.conn.execute(
                "SELECT path, status, reason, size, mtime_ns FROM files"
            )
        }
        dirty: list[str] = []
        for rel in listing.paths:
            recorded = known.pop(rel, None)
            if len(dirty) >= limit:
                continue
            try:
                now = stat_key(os.lstat(self.root / rel))
            except OSError:
                now = None  # listed (a tracked file deleted on disk) but gone
            if stat_changed(now, recorded):
                dirty.append(rel)
        dirty.extend(sorted(known)[: max(0, limit - len(dirty))])  # published, gone from disk
        return tuple(dirty)

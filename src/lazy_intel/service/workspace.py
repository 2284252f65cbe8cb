"""A workspace: canonical root, state directory, store views, syncs and the background build.

One ``Workspace`` object per root per process. Writes are serialised inside the process by a thread
lock and across processes by the ``flock`` writer lock; reads take no lock (WAL snapshots).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lazy_intel.errors import IndexBuilding, LazyIntelError
from lazy_intel.search.embedders import (
    Embedder,
    ProviderSpec,
    create_embedder,
    parse_provider_spec,
    resolve_spec,
)
from lazy_intel.search.vectors import VectorReport, refresh_vectors
from lazy_intel.service.sync import Progress, SyncReport, collect_retired_stores, current_store_path, run_sync
from lazy_intel.settings import Settings, load_settings
from lazy_intel.store.reader import ReadView, open_view
from lazy_intel.store.schema import connect
from lazy_intel.workspace.capture import PriorStat
from lazy_intel.workspace.lock import WriterLock
from lazy_intel.workspace.root import canonical_root
from lazy_intel.workspace.scope import list_scope, load_policy
from lazy_intel.workspace.state import StateDir

logger = logging.getLogger(__name__)


class Workspace:
    def __init__(self, root: Path, state: StateDir, settings: Settings) -> None:
        self.root = root
        self.state = state
        self.settings = settings
        self._write_lock = threading.Lock()
        self._background: threading.Thread | None = None
        self.last_error: LazyIntelError | Exception | None = None
        self.last_report: SyncReport | None = None
        self.building_since: float | None = None
        self.progress: tuple[str, int, int] | None = None
        self.dense_error: LazyIntelError | Exception | None = None
        self.last_vectors: VectorReport | None = None
        self._embedder_lock = threading.Lock()

    @classmethod
    def open(
        cls, root: str | Path, *, settings: Settings | None = None, state_dir: Path | None = None
    ) -> Workspace:
        resolved_settings = settings or load_settings()
        canonical = canonical_root(
            root,
            allowed_roots=resolved_settings.allowed_roots,
            deny_roots=resolved_settings.deny_roots,
        )
        return cls(canonical, StateDir.for_root(canonical, state_dir), resolved_settings)

    # ---- views
    def store_path(self) -> Path | None:
        return current_store_path(self.state)

    def has_view(self) -> bool:
        return self.store_path() is not None

    @contextmanager
    def read(self) -> Iterator[ReadView]:
        """The published view; ``INDEX_BUILDING`` when there is none yet."""
        path = self.store_path()
        if path is None:
            raise IndexBuilding(
                f"no index for {self.root} yet" + (" (a build is running)" if self.is_building() else ""),
                next_step="retry shortly, or run lazy-intel index " + str(self.root),
            )
        with open_view(path) as view:
            yield view

    # ---- dense projection
    def embedding_spec(self) -> ProviderSpec:
        """The configured provider, ``auto`` resolved (``none`` when the dense extra is absent)."""
        return resolve_spec(parse_provider_spec(self.settings.embedding))

    def embedder(self) -> Embedder | None:
        """The configured embedder, loaded once per process; ``None`` when none is configured."""
        with self._embedder_lock:
            return create_embedder(self.embedding_spec())

    def _refresh_vectors(self, previous: Path | None, progress: Progress | None) -> None:
        """Bring the dense projection up to date after a publication; failures never undo the sync."""
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
    def sync(self, *, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """Capture and publish now (blocking). ``WORKSPACE_OWNED`` if another process is writing."""
        with self._write_lock:
            self.state.ensure()
            lock = WriterLock(self.state.writer_lock)
            lock.acquire()
            self.building_since = time.monotonic()
            try:

                def track(stage: str, done: int, total: int) -> None:
                    self.progress = (stage, done, total)
                    if progress is not None:
                        progress(stage, done, total)

                previous = self.store_path()
                report = run_sync(
                    self.root,
                    self.state,
                    max_file_bytes=self.settings.max_file_bytes,
                    parse_workers=self.settings.parse_workers,
                    rebuild=rebuild,
                    progress=track,
                )
                self.last_report = report
                self.last_error = None
                self._refresh_vectors(previous, track)
                collect_retired_stores(self.state, self.settings.store_grace_ms)
                return report
            finally:
                self.building_since = None
                self.progress = None
                lock.release()

    def is_building(self) -> bool:
        return self.building_since is not None or (
            self._background is not None and self._background.is_alive()
        )

    def start_background_sync(self, *, rebuild: bool = False) -> bool:
        """Schedule one background sync unless one is running; never blocks the caller."""
        if self._background is not None and self._background.is_alive():
            return False

        def work() -> None:
            try:
                self.sync(rebuild=rebuild)
            except LazyIntelError as exc:
                self.last_error = exc
                logger.info("background sync of %s did not run: %s", self.root, exc)
            except Exception as exc:  # keep the server alive; report through status
                self.last_error = exc
                logger.exception("background sync of %s failed", self.root)

        thread = threading.Thread(target=work, name=f"lazy-intel-sync:{self.root.name}", daemon=True)
        self._background = thread
        thread.start()
        return True

    def wait_background(self, timeout_s: float) -> bool:
        """Wait (bounded) for a background sync; True when none is running afterwards."""
        thread = self._background
        if thread is None:
            return True
        thread.join(timeout_s)
        return not thread.is_alive()

    # ---- freshness
    def dirty_paths(self, view: ReadView, limit: int = 50) -> tuple[str, ...]:
        """Paths whose size or mtime differ from the view, plus new and deleted files (stat only)."""
        listing = list_scope(load_policy(self.root))
        known = {
            path: PriorStat(sha, size, mtime, captured)
            for path, sha, size, mtime, captured in view.conn.execute(
                "SELECT path, sha256, size, mtime_ns, captured_ns FROM files"
            )
        }
        dirty: list[str] = []
        for rel in listing.paths:
            prior = known.pop(rel, None)
            try:
                info = os.lstat(self.root / rel)
            except OSError:
                continue
            if prior is None or prior.size != info.st_size or prior.mtime_ns != info.st_mtime_ns:
                dirty.append(rel)
                if len(dirty) >= limit:
                    break
        dirty.extend(sorted(known)[: max(0, limit - len(dirty))])
        return tuple(dirty)

"""Graph resolution in worker processes, for a full build and for a large incremental change: the
writer only writes the edges.

Resolution of a file (:func:`lazy_intel.graph.resolve.resolve_file`) is a pure function of the
file's facts and of what it reads of other files' interfaces and of the name table, so any process
that can read the facts can resolve any file. A full build commits its facts and nodes into the
fresh store first (no reader can see that store yet: the catalog names the old one) and switches it
to WAL (a PostgreSQL staging store: the commit is enough); each worker opens it read-only, resolves the files it is handed and sends back their edges
and dependency tokens, while the writer appends them. The store is the same as a serial build's
(``tests/service/indexing/test_parallel_build.py`` compares the dumps).

An incremental sync cannot commit its facts before it publishes (readers would see new facts with
old edges), so for a change of at least :data:`OVERLAY_POOL_MIN_FILES` files to resolve
(:func:`overlay_resolver`) the writer copies the changed files' rows out of its open transaction into
an overlay file, and each worker reads the committed store and that overlay
(:mod:`lazy_intel.graph.overlay`); ``tests/service/indexing/test_overlay_resolution.py`` checks that
the workers' reads equal the writer's and that the store equals the serial sync's and a rebuild's.

Workers come from :func:`lazy_intel.service.indexing.parse_pool.pooled_map`: spawned, killed with the
parent, killed when the build stops early, registered for shutdown.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lazy_intel.allocator import release_free_memory
from lazy_intel.graph.build import FileOutline, GraphResolver, OverlayResolver, ResolvedFile, describe_file
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.overlay import write_overlay_file
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file
from lazy_intel.service.indexing.parse_pool import SyncCancelled, pooled_map, worker_count
from lazy_intel.service.indexing.recovery import OVERLAY_PREFIX, remove_overlay, remove_stale_overlays
from lazy_intel.store.schema import BULK_CACHE_KIB, connect

R = TypeVar("R")

# an incremental sync resolves in workers from this many target files (changed files and their
# dependents) on: starting the workers, copying the change into an overlay and each worker's cold
# caches cost about a second or two, which resolving a few hundred files serially costs too
OVERLAY_POOL_MIN_FILES = 512
# files per task: small, since one test module with thousands of call sites can take a second
RESOLVE_CHUNK = 4
# fewer files than this are resolved in the writer (starting workers costs more than it saves)
POOL_MIN_FILES = 128
# the writer's page cache while the workers run (it appends nodes and edges, indexes dropped)
WRITER_CACHE_KIB = 8 * 1024


# the worker's view of the store being built (one per worker process)
_worker: dict[str, FactStore] = {}

# where a worker reads the fresh store: a SQLite file's path, or a PostgreSQL staging store
# (store/pg/build.py PgFactSource: the database and the store's schema)
FactSource = Any


def fact_source(store: Path | Any) -> FactSource:
    """What a worker process or a Ray task is handed to read the fresh store (picklable)."""
    return str(store) if isinstance(store, Path) else store


def open_facts(source: FactSource) -> Any:
    """A read-only connection to the fresh store's committed facts, of either backend."""
    if isinstance(source, str):
        return connect(source, readonly=True)
    from lazy_intel.store.pg.build import open_fact_reader

    return open_fact_reader(source)


def _init(source: FactSource, files: dict[str, str]) -> None:
    _worker["store"] = FactStore(open_facts(source), PathIndex(files))


def _init_overlay(source: FactSource, overlay: str, changed: frozenset[str], files: dict[str, str]) -> None:
    from lazy_intel.graph.overlay import OverlaidFactStore

    _worker["store"] = OverlaidFactStore(
        open_facts(source), connect(overlay, readonly=True), changed, PathIndex(files)
    )


def _describe(job: tuple[str, int, int]) -> FileOutline | None:
    return describe_file(_worker["store"], *job)


def _resolve(path: str) -> ResolvedFile | None:
    store = _worker["store"]
    model = store.model(path)
    return ResolvedFile.of(path, resolve_file(store, model)) if model is not None else None


def _drained(
    results: Iterator[R | None],
    cancel: threading.Event | None,
    when: str,
    next_step: str,
    *,
    progress: Callable[[str, int, int], None] | None = None,
    total: int = 0,
) -> Iterator[R]:
    """The workers' results that are not ``None``, in order; the pool is closed when this ends, and
    a set ``cancel`` stops it with ``SyncCancelled`` ("sync cancelled ``when``")."""
    with contextlib.closing(results):
        for done, result in enumerate(results, 1):
            if progress is not None:
                progress("graph", done, total)
            if cancel is not None and cancel.is_set():
                raise SyncCancelled(f"sync cancelled {when}", next_step=next_step)
            if result is not None:
                yield result


def pool_resolver(
    conn: sqlite3.Connection,
    store_path: Path | Any,
    jobs: int,
    setting: int,
    *,
    cancel: threading.Event | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> GraphResolver | None:
    """A resolver that runs in workers, or ``None`` when the build is too small to gain from them."""
    workers = worker_count(setting, jobs)
    if workers <= 1 or jobs < POOL_MIN_FILES:
        return None

    def publish_facts() -> None:
        conn.execute("COMMIT")  # the fresh store's generation is still 0: recovery never serves it
        conn.execute("PRAGMA journal_mode=WAL")  # workers read while the writer appends edges
        # while the workers hold their caches the writer only appends rows (no secondary index):
        # a small page cache does, and what the bulk cache and the parse left free goes back
        conn.execute(f"PRAGMA cache_size=-{WRITER_CACHE_KIB}")
        release_free_memory()
        conn.execute("BEGIN IMMEDIATE")

    def resolved_all() -> None:
        conn.execute(f"PRAGMA cache_size=-{BULK_CACHE_KIB}")  # the edge index builds that follow

    def resolve_many(paths: list[str], files: dict[str, str]) -> Iterator[ResolvedFile]:
        results = pooled_map(
            _resolve,
            paths,
            workers,
            chunksize=RESOLVE_CHUNK,
            initializer=_init,
            initargs=(fact_source(store_path), files),
        )
        stopped = "the next sync continues from its last committed batch"
        yield from _drained(
            results, cancel, "during graph resolution", stopped, progress=progress, total=len(paths)
        )

    def describe_many(jobs: list[tuple[str, int, int]], files: dict[str, str]) -> Iterator[FileOutline]:
        results = pooled_map(
            _describe,
            jobs,
            workers,
            chunksize=RESOLVE_CHUNK * 4,
            initializer=_init,
            initargs=(fact_source(store_path), files),
        )
        yield from _drained(results, cancel, "while describing files", "the next sync starts over")

    return GraphResolver(publish_facts, resolve_many, workers, describe_many, resolved_all)


def overlay_worthwhile(conn: sqlite3.Connection, store_path: Path | Any, targets: int) -> bool:
    """Whether an incremental change of ``targets`` files to resolve goes to workers over an overlay
    (local or Ray): enough files to pay for it, and other connections can read the store meanwhile
    (a SQLite store in WAL mode: otherwise they would wait for the writer)."""
    if targets < OVERLAY_POOL_MIN_FILES:
        return False
    return not isinstance(store_path, Path) or conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def overlay_resolver(
    conn: sqlite3.Connection,
    store_path: Path | Any,
    runtime: Path,
    setting: int,
    *,
    cancel: threading.Event | None = None,
) -> OverlayResolver:
    """How an incremental sync of the live store ``store_path`` (a SQLite file, or a PostgreSQL store's
    :class:`~lazy_intel.store.pg.build.PgFactSource`) resolves a large change in workers
    (:mod:`lazy_intel.graph.overlay`): the writer's transaction stays open; the changed files' rows
    are copied into an overlay file (SQLite) under ``runtime``, which the workers read beside the
    committed store, and removed when the resolution ends."""

    def make(changed: Sequence[str], targets: int) -> GraphResolver | None:
        workers = worker_count(setting, targets)
        if workers <= 1 or not overlay_worthwhile(conn, store_path, targets):
            return None
        remove_stale_overlays(runtime)
        overlay = runtime / f"{OVERLAY_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}.sqlite"
        write_overlay_file(conn, overlay, changed)

        def resolve_many(paths: list[str], files: dict[str, str]) -> Iterator[ResolvedFile]:
            results = pooled_map(
                _resolve,
                paths,
                workers,
                chunksize=RESOLVE_CHUNK,
                initializer=_init_overlay,
                initargs=(fact_source(store_path), str(overlay), frozenset(changed), files),
            )
            try:
                yield from _drained(results, cancel, "during graph resolution", "the next sync starts over")
            finally:
                remove_overlay(overlay)

        return GraphResolver(lambda: None, resolve_many, workers, None, lambda: remove_overlay(overlay))

    return make

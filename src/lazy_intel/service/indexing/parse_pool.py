"""Parse a change set (and resolve a full build's graph, :mod:`.resolve_pool`) in worker processes
when it is large, without ever leaving a process behind.

- Workers come from a ``spawn`` :class:`~concurrent.futures.ProcessPoolExecutor`: a worker that dies
  (a crash in a grammar, the OOM killer) breaks the pool and fails the sync with an error, instead of
  a lost task that is waited for forever (what :class:`multiprocessing.pool.Pool` does).
- A parse that stops early (cancelled, failed) kills its workers at once rather than letting them
  finish every submitted file.
- On Linux each worker asks the kernel for ``SIGKILL`` when its parent dies (``PR_SET_PDEATHSIG``),
  so a ``kill -9`` of the indexing process takes its workers with it.
- Every live pool is registered; :func:`terminate_parse_pools` kills them all (server shutdown).
- ``cancel`` is checked after every file; a cancelled parse raises :class:`SyncCancelled`.
- At most :data:`IN_FLIGHT_CHUNKS_PER_WORKER` chunks per worker are submitted and not yet taken by
  the consumer: results a slower consumer (the writer) has not taken yet wait in the pool, so a map
  of 100,000 files whose consumer lags holds a window of results, not all of them (issue 15;
  :meth:`~concurrent.futures.Executor.map` submits every item at once and keeps every result until
  it is taken).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lazy_intel.allocator import relax_collection
from lazy_intel.errors import Timeout
from lazy_intel.faultpoints import pause_point

if TYPE_CHECKING:  # the parsers are imported where they run (readers never load them)
    from lazy_intel.store.writer import FileRecord

Progress = Callable[[str, int, int], None]
J = TypeVar("J")
R = TypeVar("R")

# Below this many files a change set is parsed in-process: starting workers costs more than it saves.
POOL_MIN_FILES = 64
POOL_CHUNKSIZE = 8
# chunks submitted per worker and not yet taken by the consumer: enough that a slow chunk at the head
# of the ordered results rarely leaves a worker idle, few enough that the results waiting to be
# taken stay a bounded window (issue 15: the writer of a 100k-file build must not hold them all)
IN_FLIGHT_CHUNKS_PER_WORKER = 16
PR_SET_PDEATHSIG = 1

_live_pools: set[concurrent.futures.ProcessPoolExecutor] = set()
_live_lock = threading.Lock()


class SyncCancelled(Timeout):
    """A sync stopped before publishing (its deadline passed or its workspace closed)."""


def worker_count(setting: int, jobs: int) -> int:
    if jobs < POOL_MIN_FILES:
        return 1
    wanted = setting if setting > 0 else min(4, os.cpu_count() or 1)
    return max(1, min(wanted, jobs // POOL_MIN_FILES + 1))


def _worker_init(parent_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the death signal was armed
        os._exit(1)
    relax_collection()  # a worker only builds: far fewer cyclic collections (allocator.py)


def _parse_job(job: tuple[str, str, int, bool]) -> FileRecord | None:
    from lazy_intel.service.indexing.parsing import parse_path, with_outline
    from lazy_intel.store.writer import for_transfer

    root, rel, max_bytes, outline = job
    record = parse_path(root, rel, max_bytes)
    if record is None:
        return None
    record = for_transfer(record)  # facts as rows: cheaper to send
    return with_outline(record) if outline else record


def _check(cancel: threading.Event | None, reason: str) -> None:
    if cancel is not None and cancel.is_set():
        raise SyncCancelled(f"sync cancelled: {reason}", next_step="the next sync starts over")


def parse_many(
    root: Path,
    paths: list[str],
    max_bytes: int,
    workers: int,
    *,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    outlines: bool = False,
) -> Iterator[FileRecord]:
    """Yield the record of each path (in order; vanished files are skipped). ``outlines``: workers
    also compute each parsed file's graph outline (``FileRecord.outline``; a full build's, which
    then needs no describe phase); a parse in this process never does."""
    total = len(paths)
    pause_at = max(1, total // 2)

    def step(done: int) -> None:
        if progress:
            progress("parse", done, total)
        if done == pause_at:
            pause_point("parse")
        _check(cancel, "workspace closing or deadline passed")

    from lazy_intel.service.indexing.parsing import parse_path

    if workers <= 1:
        for done, rel in enumerate(paths, 1):
            record = parse_path(str(root), rel, max_bytes)
            step(done)
            if record is not None:
                yield record
        return
    jobs = [(str(root), rel, max_bytes, outlines) for rel in paths]
    # closing(): a parse that stops early kills its workers now, not when the traceback is freed
    with contextlib.closing(pooled_map(_parse_job, jobs, workers, chunksize=POOL_CHUNKSIZE)) as records:
        for done, record in enumerate(records, 1):
            step(done)
            if record is not None:
                yield record


def pooled_map(
    job: Callable[[J], R],
    items: Sequence[J],
    workers: int,
    *,
    chunksize: int = 1,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[object, ...] = (),
) -> Iterator[R]:
    """``map(job, items)`` in ``workers`` spawned processes (results in order), with this module's
    guarantees: a worker crash fails the map, a map abandoned early kills its workers, and every live
    pool is registered for :func:`terminate_parse_pools`. ``initializer(*initargs)`` runs in each
    worker after the parent-death signal is armed."""
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_start,
        initargs=(os.getpid(), initializer, initargs),
    )
    with _live_lock:
        _live_pools.add(pool)
    finished = False
    try:
        yield from windowed_map(pool.submit, job, items, chunksize, workers * IN_FLIGHT_CHUNKS_PER_WORKER)
        finished = True
    finally:
        if not finished:
            _kill_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        with _live_lock:
            _live_pools.discard(pool)


def _run_chunk(job: Callable[[J], R], chunk: list[J]) -> list[R]:
    return [job(item) for item in chunk]


def windowed_map(
    submit: Callable[..., Future[list[R]]],
    job: Callable[[J], R],
    items: Sequence[J],
    chunksize: int,
    window: int,
) -> Iterator[R]:
    """``map(job, items)`` through ``submit`` in chunks of ``chunksize``, results in order, with at
    most ``window`` chunks submitted and not yet yielded in full (the chunk being yielded counts)."""
    chunks = (list(items[start : start + chunksize]) for start in range(0, len(items), chunksize))
    pending: deque[Future[list[R]]] = deque()
    for chunk in islice(chunks, max(1, window)):
        pending.append(submit(partial(_run_chunk, job), chunk))
    while pending:
        results = pending.popleft().result()
        yield from results
        nxt = next(chunks, None)
        if nxt is not None:
            pending.append(submit(partial(_run_chunk, job), nxt))


def _worker_start(
    parent_pid: int, initializer: Callable[..., None] | None, initargs: tuple[object, ...]
) -> None:
    _worker_init(parent_pid)
    if initializer is not None:
        initializer(*initargs)


def _kill_workers(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel what is queued and kill its processes (they hold no shared state)."""
    pool.shutdown(wait=False, cancel_futures=True)
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):
            process.kill()


def terminate_parse_pools() -> int:
    """Terminate every live parse pool of this process; returns how many there were."""
    with _live_lock:
        pools = list(_live_pools)
        _live_pools.clear()
    for pool in pools:
        _kill_workers(pool)
    return len(pools)

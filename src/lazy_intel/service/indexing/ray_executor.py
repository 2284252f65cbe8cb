"""Parsing fanned out to Ray tasks (``LAZY_INTEL_EXECUTOR=ray``, the ``[distributed]`` extra).

The writer stays where it is — one process, the one that holds the writer lock — and so do capture
(it reads the checkout) and publication. What moves is the per-file work: the writer reads each
changed file's bytes and ships them, in batches, to Ray tasks that classify, parse, chunk and
tokenize them (:func:`lazy_intel.service.indexing.parsing.record_for_bytes`, the same function the local
worker processes run) and send the records back. Tasks need no checkout, so they can run on any
machine of the cluster that has lazy-intel installed. Records are yielded in path order, so the
writer inserts exactly what the local executor would: the store is identical
(``tests/service/indexing/test_ray_executor.py`` compares the dumps).

``LAZY_INTEL_RAY_ADDRESS``: ``local`` (default) starts a Ray instance inside this process on first
use (stopped with the process, or by :func:`shutdown`); anything else is passed to ``ray.init`` as
the address of a running cluster (``auto``, ``ray://head:10001``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lazy_intel.errors import Unsupported
from lazy_intel.faultpoints import pause_point
from lazy_intel.store.writer import FileRecord

logger = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]

LOCAL = "local"
# files per task, and bytes per task: a task is worth its scheduling (about a millisecond) and its
# result stays small in the object store
BATCH_FILES = 32
BATCH_BYTES = 4 * 1024 * 1024
# tasks in flight per worker: enough to keep every worker busy, few enough to bound memory
IN_FLIGHT_PER_WORKER = 2
INIT_ATTEMPTS = 3

_state: dict[str, Any] = {}
_guard = threading.Lock()


def _ray(address: str, workers: int) -> Any:
    """The ``ray`` module, initialised once per process."""
    try:
        import ray
    except ImportError:
        raise Unsupported(
            "the Ray executor needs Ray, which is not installed",
            next_step="pip install 'lazy-intel[distributed]', or use LAZY_INTEL_EXECUTOR=local",
        ) from None
    with _guard:
        if not ray.is_initialized():
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "configure_logging": False,
            }
            if address == LOCAL:
                options["num_cpus"] = workers if workers > 0 else (os.cpu_count() or 1)
            else:
                options["address"] = address
            _init_in_keeper_thread(ray, options)
            _state["address"] = address
        if "task" not in _state:
            _state["task"] = ray.remote(_parse_batch)
    return ray


def ray_session(address: str, workers: int) -> Any:
    """The ``ray`` module, initialised (a local instance started, or the cluster joined) once."""
    return _ray(address, workers)


def _init_in_keeper_thread(ray: Any, options: dict[str, Any]) -> None:
    """``ray.init`` in a thread that lives until :func:`shutdown`.

    A local Ray instance's processes (GCS, raylet) ask the kernel to kill them when the *thread*
    that started them exits (``PR_SET_PDEATHSIG`` is per thread on Linux). Syncs run on a
    workspace's scheduler thread, which ends with the workspace; the keeper thread does not."""
    started = threading.Event()
    failure: list[BaseException] = []
    stop = threading.Event()

    def keep() -> None:
        for attempt in range(1, INIT_ATTEMPTS + 1):
            try:
                ray.init(**options)
                break
            except Exception as exc:
                # Ray gives its raylet a fixed 30 s to register; a loaded machine can miss that once
                if attempt < INIT_ATTEMPTS and "timed out during startup" in str(exc):
                    logger.warning("Ray did not start in time (attempt %d); retrying", attempt)
                    with contextlib.suppress(Exception):
                        ray.shutdown()
                    continue
                failure.append(exc)
                started.set()
                return
        started.set()
        stop.wait()

    keeper = threading.Thread(target=keep, name="lazy-intel-ray", daemon=True)
    keeper.start()
    started.wait()
    if failure:
        raise failure[0]
    _state["keeper"] = (keeper, stop)


def shutdown() -> None:
    """Stop the Ray instance this process started (a cluster it joined keeps running)."""
    with _guard:
        _state.pop("task", None)
        from lazy_intel.service.indexing import ray_resolve

        ray_resolve._tasks.clear()
        _state.pop("address", None)
        keeper = _state.pop("keeper", None)
        try:
            import ray
        except ImportError:
            return
        if ray.is_initialized():
            ray.shutdown()
        if keeper is not None:
            keeper[1].set()
            keeper[0].join(10)


def _parse_batch(items: list[tuple[str, bytes, int, int]]) -> list[FileRecord]:
    """Runs in a Ray worker: the records of shipped files (path, bytes, mtime, size limit)."""
    from lazy_intel.service.indexing.parsing import record_for_bytes
    from lazy_intel.store.writer import for_transfer

    return [
        for_transfer(record_for_bytes(rel, data, mtime, max_bytes)) for rel, data, mtime, max_bytes in items
    ]


def _read(root: Path, rel: str, max_bytes: int) -> FileRecord | tuple[str, bytes, int, int] | None:
    """What the writer ships for ``rel``: its bytes, or a record decided without parsing (a symlink,
    a file over the size limit), or ``None`` when it vanished (:func:`parsing.read_path`)."""
    from lazy_intel.service.indexing.parsing import read_path

    found = read_path(root, rel, max_bytes)
    if found is None or isinstance(found, FileRecord):
        return found
    data, mtime_ns = found
    return (rel, data, mtime_ns, max_bytes)


def ray_parse_many(
    root: Path,
    paths: list[str],
    max_bytes: int,
    *,
    address: str = LOCAL,
    workers: int = 0,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[FileRecord]:
    """Yield the record of each path, in order, parsed by Ray tasks (vanished files are skipped)."""
    from lazy_intel.service.indexing.parse_pool import SyncCancelled

    ray = _ray(address, workers)
    task = _state["task"]
    width = max(1, int(ray.cluster_resources().get("CPU", 1)))
    limit = width * IN_FLIGHT_PER_WORKER
    total = len(paths)
    pause_at = max(1, total // 2)
    pending: deque[tuple[list[FileRecord | None], Any]] = deque()
    done = 0

    def batches() -> Iterator[tuple[list[FileRecord | None], list[tuple[str, bytes, int, int]]]]:
        # each batch: the slots in path order (a record known locally, or None to fill from the task)
        slots: list[FileRecord | None] = []
        shipped: list[tuple[str, bytes, int, int]] = []
        size = 0
        for rel in paths:
            item = _read(root, rel, max_bytes)
            if item is None:
                continue
            if isinstance(item, FileRecord):
                slots.append(item)
            else:
                slots.append(None)
                shipped.append(item)
                size += len(item[1])
            if len(slots) >= BATCH_FILES or size >= BATCH_BYTES:
                yield slots, shipped
                slots, shipped, size = [], [], 0
        if slots:
            yield slots, shipped

    def drain_one() -> Iterator[FileRecord]:
        nonlocal done
        slots, ref = pending.popleft()
        parsed = iter(ray.get(ref) if ref is not None else [])
        for slot in slots:
            record = slot if slot is not None else next(parsed)
            done += 1
            if progress:
                progress("parse", done, total)
            if done == pause_at:
                pause_point("parse")
            if cancel is not None and cancel.is_set():
                raise SyncCancelled(
                    "sync cancelled: workspace closing or deadline passed",
                    next_step="the next sync starts over",
                )
            yield record

    try:
        for slots, shipped in batches():
            pending.append((slots, task.remote(shipped) if shipped else None))
            while len(pending) >= limit:
                yield from drain_one()
        while pending:
            yield from drain_one()
    finally:
        for _slots, ref in pending:
            if ref is not None:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # already finished or gone
                    logger.debug("could not cancel a Ray task", exc_info=True)

"""Graph resolution in Ray tasks (``LAZY_INTEL_EXECUTOR=ray``) — a full build's, and a large
incremental change's (:func:`ray_overlay_resolver`) — as :mod:`.resolve_pool` does it in local worker
processes.

Describing and resolving a file are pure functions of the facts committed to the fresh store (no
reader sees it yet), so a task needs only the store's path and the files it is handed: it opens the
store read-only, answers for its batch and sends back outlines or edges, while the one writer
appends them. Tasks read a SQLite store's file, so they run where that file is readable: a local
Ray instance, or a cluster whose nodes share the state directory's file system; a PostgreSQL
store's tasks read its staging schema over their own connections (``LAZY_INTEL_STORE`` must reach
the server from the nodes), which the batched build has committed. Results are yielded in
the order of the paths, so the store is the local executor's
(``tests/service/indexing/test_ray_executor.py`` compares the dumps). A PostgreSQL source reaches
the tasks without its password (:mod:`lazy_intel.store.pg.passfile` says where it goes instead).

An incremental sync's change is not committed while it resolves, so its tasks read the committed
live store with the change laid over it (:mod:`lazy_intel.graph.overlay`); the overlay travels
through Ray's object store as a serialized in-memory SQLite database, not as a file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import threading
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lazy_intel.errors import Unavailable
from lazy_intel.graph.build import FileOutline, GraphResolver, OverlayResolver, ResolvedFile

J = TypeVar("J")
R = TypeVar("R")

# files per task: a task costs about a millisecond to schedule and opens the store once per phase
RESOLVE_BATCH = 32
DESCRIBE_BATCH = 128
IN_FLIGHT_PER_WORKER = 2

# per Ray worker process: the fact store of the phase it last served (store path, phase token)
_phase: dict[str, Any] = {}
# in the writer: the remote functions, made once per process
_tasks: dict[str, Any] = {}


class TaskConnectFailed(Exception):
    """A task could not open its connection to the store (one picklable message, for the writer)."""


def task_source(source: Any, passfile: str | None) -> Any:
    """What the tasks are handed for ``source``: a SQLite store's path as it is; a PostgreSQL source
    without its password, naming ``passfile`` (or no credential at all when it is ``None``)."""
    if isinstance(source, str):
        return source
    from lazy_intel.store.pg.passfile import without_password

    dsn, _password = without_password(source.dsn)
    return dataclasses.replace(source, dsn=dsn, passfile=passfile)


@contextlib.contextmanager
def _phase_source(source: Any, *, local: bool) -> Iterator[Any]:
    """The tasks' source for one phase: on a local instance a password goes into a private password
    file that lives as long as the phase; a cluster's tasks get no credential (its nodes bring theirs)."""
    password = None
    if local and not isinstance(source, str):
        from lazy_intel.store.pg.passfile import without_password

        _dsn, password = without_password(source.dsn)
    if password is None:
        yield task_source(source, None)
        return
    from lazy_intel.store.pg.passfile import private_passfile

    with private_passfile(password) as path:
        yield task_source(source, str(path))


def _connect_task(source: Any) -> Any:
    """The task's read-only connection to the store; a PostgreSQL connection failure as one picklable
    message."""
    from lazy_intel.service.indexing.resolve_pool import open_facts

    try:
        return open_facts(source)
    except Exception as exc:
        if isinstance(source, str):
            raise
        raise TaskConnectFailed(
            str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
        ) from None


def _start_phase(token: str, store: Any, *connections: Any) -> None:
    """Make ``store`` this worker's view for the phase ``token``, closing the last phase's."""
    for old in _phase.pop("connections", ()):
        old.close()
    _phase.update(token=token, connections=connections, store=store)


def _fact_store(source: Any, token: str) -> Any:
    """The worker's read-only view of the fresh store for one phase (describe, then resolve: the
    writer commits nodes between them, so each phase opens the store afresh)."""
    from lazy_intel.graph.modules import PathIndex
    from lazy_intel.graph.program import FactStore
    from lazy_intel.parse.languages import is_parsed_language

    if _phase.get("token") != token:
        conn = _connect_task(source)
        files = {
            path: lang
            for path, lang in conn.execute(
                "SELECT path, lang FROM files WHERE status='indexed' AND lang IS NOT NULL"
            )
            if is_parsed_language(lang)
        }  # what update_graph hands the local resolvers
        _start_phase(token, FactStore(conn, PathIndex(files)), conn)
    return _phase["store"]


def _overlay_store(source: Any, token: str, box: list[Any]) -> Any:
    """The worker's view of the live store with an incremental sync's change laid over it
    (:class:`~lazy_intel.graph.overlay.OverlaidFactStore`): the committed store read as a full
    build's tasks read it, and the overlay the writer put in the object store (``box`` holds its
    reference, fetched once per phase), deserialized into memory: nothing is written on the node."""
    import ray

    from lazy_intel.graph.modules import PathIndex
    from lazy_intel.graph.overlay import OverlaidFactStore

    if _phase.get("token") != token:
        data, changed, files = ray.get(box[0])
        conn = _connect_task(source)
        overlay = sqlite3.connect(":memory:")
        overlay.deserialize(data)
        _start_phase(token, OverlaidFactStore(conn, overlay, changed, PathIndex(files)), conn, overlay)
    return _phase["store"]


def _describe_batch(source: Any, token: str, jobs: list[tuple[str, int, int]]) -> list[FileOutline | None]:
    from lazy_intel.graph.build import describe_file

    store = _fact_store(source, token)
    return [describe_file(store, *job) for job in jobs]


def _resolve_batch(source: Any, token: str, paths: list[str]) -> list[ResolvedFile | None]:
    return _resolve_in(_fact_store(source, token), paths)


def _resolve_overlay_batch(
    source: Any, token: str, box: list[Any], paths: list[str]
) -> list[ResolvedFile | None]:
    return _resolve_in(_overlay_store(source, token, box), paths)


def _resolve_in(store: Any, paths: list[str]) -> list[ResolvedFile | None]:
    from lazy_intel.graph.resolve import resolve_file

    out: list[ResolvedFile | None] = []
    for path in paths:
        model = store.model(path)
        out.append(ResolvedFile.of(path, resolve_file(store, model)) if model is not None else None)
    return out


def ray_resolver(
    conn: sqlite3.Connection,
    store_path: Path | Any,
    *,
    address: str,
    workers: int,
    cancel: threading.Event | None = None,
) -> GraphResolver:
    """A resolver whose describe and resolve phases run in Ray tasks."""
    from lazy_intel.service.indexing.ray_executor import LOCAL, ray_session
    from lazy_intel.service.indexing.resolve_pool import fact_source

    ray = ray_session(address, workers)
    source = fact_source(store_path)
    local = address == LOCAL
    if "describe" not in _tasks:
        _tasks.update(describe=ray.remote(_describe_batch), resolve=ray.remote(_resolve_batch))
    describe_task, resolve_task = _tasks["describe"], _tasks["resolve"]
    width = max(1, int(ray.cluster_resources().get("CPU", 1)))
    phase: dict[str, Any] = {"source": source, "local": local, "width": width, "cancel": cancel}

    def publish_facts() -> None:
        conn.execute("COMMIT")  # the fresh store's generation is still 0: no reader is served from it
        conn.execute("BEGIN IMMEDIATE")

    def resolve_many(paths: list[str], files: dict[str, str]) -> Iterator[ResolvedFile]:
        for result in _fan_out(ray, resolve_task, paths, RESOLVE_BATCH, **phase):
            if result is not None:
                yield result

    def describe_many(jobs: list[tuple[str, int, int]], files: dict[str, str]) -> Iterator[FileOutline]:
        for result in _fan_out(ray, describe_task, jobs, DESCRIBE_BATCH, **phase):
            if result is not None:
                yield result

    return GraphResolver(publish_facts, resolve_many, width, describe_many)


def ray_overlay_resolver(
    conn: sqlite3.Connection,
    store_path: Path | Any,
    *,
    address: str,
    workers: int,
    cancel: threading.Event | None = None,
) -> OverlayResolver:
    """How an incremental sync of the live store ``store_path`` resolves a large change in Ray tasks,
    as :func:`~lazy_intel.service.indexing.resolve_pool.overlay_resolver` does in local workers: from
    the same number of files on, the writer copies the changed files' rows out of its open
    transaction into an in-memory SQLite overlay and puts it, serialized, in Ray's object store
    with the change's paths and the file table; each task reads the committed store (a SQLite file
    where the nodes can read it, or the PostgreSQL store) with the overlay laid over it. Nothing is
    written to the state directory, so a killed sync leaves no overlay file behind."""
    from lazy_intel.graph.overlay import write_overlay
    from lazy_intel.service.indexing import resolve_pool

    def make(changed: Sequence[str], targets: int) -> GraphResolver | None:
        if not resolve_pool.overlay_worthwhile(conn, store_path, targets):
            return None
        from lazy_intel.service.indexing.ray_executor import LOCAL, ray_session

        ray = ray_session(address, workers)
        if "resolve_overlay" not in _tasks:
            _tasks["resolve_overlay"] = ray.remote(_resolve_overlay_batch)
        task = _tasks["resolve_overlay"]
        width = max(1, int(ray.cluster_resources().get("CPU", 1)))
        memory = sqlite3.connect(":memory:", isolation_level=None)
        try:
            write_overlay(conn, memory, changed)
            data = memory.serialize()
        finally:
            memory.close()
        source = resolve_pool.fact_source(store_path)
        held: dict[str, Any] = {"data": data}  # until the object store has it

        def resolve_many(paths: list[str], files: dict[str, str]) -> Iterator[ResolvedFile]:
            # in a list, so that Ray hands the tasks the reference, not the value: each worker
            # fetches it once per phase
            box = [ray.put((held.pop("data"), frozenset(changed), files))]
            try:
                for result in _fan_out(
                    ray,
                    task,
                    paths,
                    RESOLVE_BATCH,
                    source=source,
                    local=address == LOCAL,
                    width=width,
                    cancel=cancel,
                    extra=(box,),
                ):
                    if result is not None:
                        yield result
            finally:
                del box[:]  # the object store frees the overlay once no task holds it

        return GraphResolver(lambda: None, resolve_many, width, None, held.clear)

    return make


def _fan_out(
    ray: Any,
    task: Any,
    items: Sequence[J],
    batch: int,
    *,
    source: Any,
    local: bool,
    width: int,
    cancel: threading.Event | None,
    extra: tuple[Any, ...] = (),
) -> Iterator[R]:
    """Run ``task`` over ``items`` in batches, at most :data:`IN_FLIGHT_PER_WORKER` per CPU of the
    cluster in flight, yielding the results in the order of the items. One phase: its own token (a
    worker opens its view of the store once per phase) and its own source (a password file on a
    local instance lives as long as the phase)."""
    token = uuid.uuid4().hex
    pending: deque[Any] = deque()
    limit = width * IN_FLIGHT_PER_WORKER
    with _phase_source(source, local=local) as sent:
        try:
            for start in range(0, len(items), batch):
                pending.append(task.remote(sent, token, *extra, list(items[start : start + batch])))
                while len(pending) >= limit:
                    yield from _drain(ray, pending, cancel)
            while pending:
                yield from _drain(ray, pending, cancel)
        finally:
            for ref in pending:
                _cancel(ray, ref)


def _drain(ray: Any, pending: deque[Any], cancel: threading.Event | None) -> Iterator[Any]:
    from lazy_intel.service.indexing.parse_pool import SyncCancelled

    try:
        results = ray.get(pending.popleft())
    except ray.exceptions.RayTaskError as exc:
        if not isinstance(exc.cause, TaskConnectFailed):
            raise
        raise Unavailable(
            f"a Ray task could not connect to the PostgreSQL store: {exc.cause}",
            next_step="the store URL's password is not sent to a Ray cluster: give its nodes their "
            "own credentials (PGPASSFILE or ~/.pgpass, PGPASSWORD in the nodes' environment, a "
            "certificate), or build with LAZY_INTEL_RAY_ADDRESS=local or LAZY_INTEL_EXECUTOR=local",
        ) from None
    if cancel is not None and cancel.is_set():
        raise SyncCancelled("sync cancelled during graph resolution", next_step="the next sync starts over")
    yield from results


def _cancel(ray: Any, ref: Any) -> None:
    try:
        ray.cancel(ref, force=True)
    except Exception:  # already finished or gone
        return

"""A full build's graph resolution in Ray tasks (``LAZY_INTEL_EXECUTOR=ray``), as
:mod:`.resolve_pool` does it in local worker processes.

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
from lazy_intel.graph.build import FileOutline, GraphResolver, ResolvedFile

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


def _fact_store(source: Any, token: str) -> Any:
    """The worker's read-only view of the fresh store for one phase (describe, then resolve: the
    writer commits nodes between them, so each phase opens the store afresh)."""
    from lazy_intel.graph.modules import PathIndex
    from lazy_intel.graph.program import FactStore
    from lazy_intel.parse.languages import is_parsed_language
    from lazy_intel.service.indexing.resolve_pool import open_facts

    if _phase.get("token") != token:
        old = _phase.pop("conn", None)
        if old is not None:
            old.close()
        try:
            conn = open_facts(source)
        except Exception as exc:
            if isinstance(source, str):
                raise
            raise TaskConnectFailed(
                str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)
            ) from None
        files = {
            path: lang
            for path, lang in conn.execute(
                "SELECT path, lang FROM files WHERE status='indexed' AND lang IS NOT NULL"
            )
            if is_parsed_language(lang)
        }  # what update_graph hands the local resolvers
        _phase.update(token=token, conn=conn, store=FactStore(conn, PathIndex(files)))
    return _phase["store"]


def _describe_batch(source: Any, token: str, jobs: list[tuple[str, int, int]]) -> list[FileOutline | None]:
    from lazy_intel.graph.build import describe_file

    store = _fact_store(source, token)
    return [describe_file(store, *job) for job in jobs]


def _resolve_batch(source: Any, token: str, paths: list[str]) -> list[ResolvedFile | None]:
    from lazy_intel.graph.resolve import resolve_file

    store = _fact_store(source, token)
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

    def publish_facts() -> None:
        conn.execute("COMMIT")  # the fresh store's generation is still 0: no reader is served from it
        conn.execute("BEGIN IMMEDIATE")

    def fan_out(task: Any, items: Sequence[J], batch: int) -> Iterator[R]:
        token = uuid.uuid4().hex
        pending: deque[Any] = deque()
        limit = width * IN_FLIGHT_PER_WORKER
        with _phase_source(source, local=local) as sent:
            try:
                for start in range(0, len(items), batch):
                    pending.append(task.remote(sent, token, list(items[start : start + batch])))
                    while len(pending) >= limit:
                        yield from _drain(ray, pending, cancel)
                while pending:
                    yield from _drain(ray, pending, cancel)
            finally:
                for ref in pending:
                    _cancel(ray, ref)

    def resolve_many(paths: list[str], files: dict[str, str]) -> Iterator[ResolvedFile]:
        for result in fan_out(resolve_task, paths, RESOLVE_BATCH):
            if result is not None:
                yield result

    def describe_many(jobs: list[tuple[str, int, int]], files: dict[str, str]) -> Iterator[FileOutline]:
        for result in fan_out(describe_task, jobs, DESCRIBE_BATCH):
            if result is not None:
                yield result

    return GraphResolver(publish_facts, resolve_many, width, describe_many)


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

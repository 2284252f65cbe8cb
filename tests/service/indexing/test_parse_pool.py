"""The parse pool: a dead worker fails the parse instead of hanging it; a stopped parse leaves no worker."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import psutil
import pytest

from lazy_intel.service.indexing.parse_pool import (
    IN_FLIGHT_CHUNKS_PER_WORKER,
    POOL_CHUNKSIZE,
    SyncCancelled,
    _live_pools,
    parse_many,
    windowed_map,
)
from tests.conftest import write_tree
from tests.faults import parse_workers, wait_gone

FILES = {f"pkg/m{i:03d}.py": f"def func_{i}(x):\n    return x + {i}\n" for i in range(200)}


def _workers() -> list[int]:
    return parse_workers(psutil.Process())


def test_a_killed_worker_fails_the_parse(tmp_path: Path) -> None:
    # more files than the pool holds in flight (4 windows): work is still to be handed out when the
    # worker dies. With FILES (200, under one window of two workers) every file could be parsed
    # before the first record was read on a loaded machine, and the parse then rightly succeeded.
    many = 4 * 2 * IN_FLIGHT_CHUNKS_PER_WORKER * POOL_CHUNKSIZE
    files = {f"pkg/m{i:04d}.py": f"def func_{i}(x):\n    return x + {i}\n" for i in range(many)}
    write_tree(tmp_path, files)
    paths = sorted(files)
    killed: list[int] = []

    def kill_one(stage: str, done: int, total: int) -> None:
        if not killed:
            victim = _workers()[0]
            killed.append(victim)
            os.kill(victim, signal.SIGKILL)

    with pytest.raises(BrokenProcessPool):
        list(parse_many(tmp_path, paths, 1 << 20, 2, progress=kill_one))
    assert killed and wait_gone(_workers(), 30) == []


def test_a_cancelled_parse_stops_its_workers(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    cancel = threading.Event()
    seen: list[int] = []

    def cancel_early(stage: str, done: int, total: int) -> None:
        seen.extend(p for p in _workers() if p not in seen)
        cancel.set()

    with pytest.raises(SyncCancelled):
        list(parse_many(tmp_path, sorted(FILES), 1 << 20, 2, progress=cancel_early, cancel=cancel))
    assert len(seen) >= 2 and wait_gone(seen, 30) == []


def test_every_file_is_parsed_once_in_order(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    records = list(parse_many(tmp_path, sorted(FILES), 1 << 20, 2))
    assert [r.path for r in records] == sorted(FILES)
    assert all(r.status == "indexed" for r in records)


class _CountingSubmit:
    """Runs each submitted chunk at once and counts the chunks submitted and not yet taken."""

    def __init__(self) -> None:
        self.submitted = 0
        self.most_outstanding = 0
        self.taken = 0

    def __call__(self, fn, chunk):  # type: ignore[no-untyped-def]
        from concurrent.futures import Future

        self.submitted += 1
        self.most_outstanding = max(self.most_outstanding, self.submitted - self.taken)
        future: Future[list[int]] = Future()
        future.set_result(fn(chunk))
        return future


@pytest.mark.parametrize(("items", "chunksize", "window"), [(100, 4, 3), (7, 8, 2), (64, 1, 1), (0, 4, 5)])
def test_the_windowed_map_keeps_order_and_a_bounded_number_of_chunks_in_flight(
    items: int, chunksize: int, window: int
) -> None:
    submit = _CountingSubmit()
    out: list[int] = []
    for value in windowed_map(submit, _square, list(range(items)), chunksize, window):
        out.append(value)
        submit.taken = len(out) // chunksize  # a chunk is taken once all its results are yielded
    assert out == [i * i for i in range(items)]
    assert submit.submitted == -(-items // chunksize)
    # the chunk being yielded counts: at most ``window`` chunks submitted and not taken in full
    assert submit.most_outstanding <= window
    if items >= chunksize * window:
        assert submit.most_outstanding == window  # and the window is used (the workers stay busy)


def _square(x: int) -> int:
    return x * x


def test_a_lagging_consumer_leaves_the_pool_a_window_of_chunks(tmp_path: Path) -> None:
    """Real workers, a consumer that has taken one record: only the window's chunks were submitted."""
    window = 2 * IN_FLIGHT_CHUNKS_PER_WORKER
    many = {f"pkg/n{i:04d}.py": f"X_{i} = {i}\n" for i in range(POOL_CHUNKSIZE * window * 3)}
    write_tree(tmp_path, many)
    records = parse_many(tmp_path, sorted(many), 1 << 20, 2)
    first = next(records)
    (pool,) = _live_pools
    submitted = pool._queue_count  # type: ignore[attr-defined]  # work items ever submitted
    records.close()
    assert first.path == sorted(many)[0]
    assert submitted == window  # of 3 x window chunks: the rest waits until the consumer takes more
    assert wait_gone(_workers(), 30) == []

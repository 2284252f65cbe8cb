"""The parse pool: a dead worker fails the parse instead of hanging it; a stopped parse leaves no worker."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import psutil
import pytest

from lazy_intel.service.indexing.parse_pool import SyncCancelled, parse_many
from tests.conftest import write_tree
from tests.faults import parse_workers, wait_gone

FILES = {f"pkg/m{i:03d}.py": f"def func_{i}(x):\n    return x + {i}\n" for i in range(200)}


def _workers() -> list[int]:
    return parse_workers(psutil.Process())


def test_a_killed_worker_fails_the_parse(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    paths = sorted(FILES)
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

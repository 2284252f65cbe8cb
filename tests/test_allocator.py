"""The malloc bounds ``serve`` applies: few arenas, fixed thresholds, freed memory handed back.

Each check runs in a fresh interpreter (the bounds are process-wide and must come before threads):
eight threads at once, five times over, each freeing a 4 MB block (which slides glibc's thresholds
up) and then holding 2 MB of page-sized blocks until all eight hold theirs, like the read views of
concurrent requests. At most 16 MB is ever held by them at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from lazy_intel.allocator import (
    REEXEC_MARK,
    MallocBounds,
    allocator_reexec_argv,
    arena_usage,
    bounds_from_settings,
)
from lazy_intel.settings import load_settings

glibc_only = pytest.mark.skipif(arena_usage() is None, reason="the C library is not glibc")

WORKLOAD = """
import json, sys, threading
from lazy_intel.allocator import arena_usage, bound_malloc, bounds_from_settings
from lazy_intel.settings import load_settings

if sys.argv[1] == "serve":
    assert bound_malloc(bounds_from_settings(load_settings({})))
THREADS = 8
barrier = threading.Barrier(THREADS, timeout=30)

def request():
    big = bytearray(4 * 1024 * 1024)
    del big
    pages = [bytes(4000) for _ in range(500)]
    barrier.wait()
    del pages

for _ in range(5):
    threads = [threading.Thread(target=request) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
usage = arena_usage()
print(json.dumps({"arenas": usage.arenas, "free": usage.free_bytes}))
"""
PEAK_HELD = 8 * 500 * 4000  # what the threads hold at once


def run_workload(mode: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", WORKLOAD, mode], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@glibc_only
def test_serve_bounds_keep_few_arenas_and_less_free_memory_than_was_held_at_once() -> None:
    bounded = run_workload("serve")
    assert bounded["arenas"] <= load_settings({}).malloc_arenas
    assert bounded["free"] < PEAK_HELD  # observed 2-8 MB: holes between blocks still in use


@glibc_only
def test_without_the_bounds_glibc_keeps_an_arena_per_thread_and_more_than_was_held() -> None:
    """Why the bounds exist (glibc's defaults, not our code): this is what a server kept before."""
    unbounded = run_workload("none")
    assert unbounded["arenas"] > 2
    assert unbounded["free"] > PEAK_HELD


def test_the_bounds_come_from_the_settings() -> None:
    assert bounds_from_settings(load_settings({})) == MallocBounds(arenas=2, trim_bytes=128 * 1024)
    env = {"LAZY_INTEL_MALLOC_ARENAS": "0", "LAZY_INTEL_MALLOC_TRIM_KB": "0"}
    assert bounds_from_settings(load_settings(env)) == MallocBounds(arenas=0, trim_bytes=0)


@glibc_only
def test_arena_usage_reads_this_process() -> None:
    usage = arena_usage()
    assert usage is not None
    assert usage.arenas >= 1
    assert 0 <= usage.free_bytes <= usage.system_bytes


HOLES = """
import json
from lazy_intel.allocator import bound_malloc, bounds_from_settings, release_free_memory
from lazy_intel.settings import load_settings

def anon_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon"))

bound_malloc(bounds_from_settings(load_settings({})))
blocks = [bytes(4000) for _ in range(12_800)]  # 51 MB of page-sized blocks
kept = blocks[::16] + blocks[-1:]  # one in 16 stays: holes between them, none at the top
del blocks
before = anon_kb()
assert release_free_memory()
print(json.dumps({"before": before, "after": anon_kb(), "kept": len(kept)}))
"""


@glibc_only
def test_release_hands_back_the_holes_no_threshold_returns() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HOLES], capture_output=True, text=True, timeout=120, check=True
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["before"] - figures["after"] > 30_000  # kB: most of the 48 MB freed between blocks


def test_relaxed_collection_restores_the_thresholds_and_still_collects_cycles() -> None:
    import gc
    import weakref

    from lazy_intel.allocator import BUILD_GC_THRESHOLDS, relaxed_collection

    class Node:
        pass

    before = gc.get_threshold()
    with relaxed_collection():
        assert gc.get_threshold() == BUILD_GC_THRESHOLDS
        cycle = Node()
        cycle.self = cycle  # type: ignore[attr-defined]
        alive = weakref.ref(cycle)
        del cycle
        gc.collect()  # a cycle made during a build is still garbage
        assert alive() is None
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0  # what the build froze is collectable again


# What a sync leaves: a large working set of small objects, a few of which stay alive (a cache entry,
# an interned name) scattered through it. Run under the allocator serve chooses (re-executed as serve
# does), it reports the resident memory before and after the sync's clean-up.
SCATTERED_SURVIVORS = """
import gc, json, os, subprocess, sys
from lazy_intel.allocator import forget_reexec, release_free_memory, reexec_under_malloc

print("started", os.getpid(), flush=True)
reexec_under_malloc(sys.argv[1])
restarted = forget_reexec()

def anon_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon"))

base = anon_kb()
working = [(i, str(i) * 8) for i in range(300_000)]  # ~50 MB of small objects
kept = working[::256]  # about one in 256 outlives the sync
del working
gc.collect()
release_free_memory()
child = subprocess.run(
    [sys.executable, "-c", "import os; print(os.environ.get('PYTHONMALLOC'))"],
    capture_output=True, text=True, check=True,
).stdout.strip()
print(json.dumps({"pid": os.getpid(), "restarted": restarted, "grown_kb": anon_kb() - base,
                  "kept": len(kept), "child": child}))
"""


def run_scattered(choice: str) -> tuple[list[str], dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", REEXEC_MARK)}
    done = subprocess.run(
        [sys.executable, "-c", SCATTERED_SURVIVORS, choice],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    lines = done.stdout.strip().splitlines()
    return [line for line in lines if line.startswith("started")], json.loads(lines[-1])


@glibc_only
def test_serve_restarts_under_malloc_once_and_hands_back_what_scattered_survivors_pinned() -> None:
    started, under_malloc = run_scattered("malloc")
    assert len(started) == 2 and started[0] == started[1] == f"started {under_malloc['pid']}"
    assert under_malloc["restarted"] is True
    assert under_malloc["child"] == "None"  # its children start with Python's own allocator
    started, under_pymalloc = run_scattered("pymalloc")
    assert len(started) == 1 and under_pymalloc["restarted"] is False
    # Python's arenas stay mapped while one object in them lives (observed: 59 MB kept); glibc's
    # malloc_trim hands back each free page (observed: 4 MB kept)
    assert int(under_pymalloc["grown_kb"]) > 20_000
    assert int(under_malloc["grown_kb"]) < int(under_pymalloc["grown_kb"]) // 3


def test_the_restart_is_decided_once_and_never_against_an_explicit_choice() -> None:
    argv = ["/venv/bin/python", "/venv/bin/lazy-intel", "serve", "--root", "/r"]
    restart = allocator_reexec_argv("malloc", {}, argv, "/venv/bin/python", ignore_environment=False)
    assert restart == ["/venv/bin/python", "/venv/bin/lazy-intel", "serve", "--root", "/r"]
    assert allocator_reexec_argv("pymalloc", {}, argv, "/venv/bin/python", ignore_environment=False) is None
    marked = {REEXEC_MARK: "1", "PYTHONMALLOC": "malloc"}
    # restarted already (even where -E hid PYTHONMALLOC from the interpreter): never a second time
    assert allocator_reexec_argv("malloc", marked, argv, "/venv/bin/python", ignore_environment=True) is None
    chosen = {"PYTHONMALLOC": "pymalloc_debug"}
    assert allocator_reexec_argv("malloc", chosen, argv, "/venv/bin/python", ignore_environment=False) is None
    assert (
        allocator_reexec_argv("malloc", chosen, argv, "/venv/bin/python", ignore_environment=True) == restart
    )
    assert allocator_reexec_argv("malloc", {}, [], "/venv/bin/python", ignore_environment=False) is None
    assert load_settings({}).serve_allocator == "malloc"

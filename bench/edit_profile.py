"""Where an edit's sync spends its time and what it leaves in memory, in one process.

Usage:
    python bench/edit_profile.py --root DIR            # DIR: an indexed copy of a tree (lazy-intel index DIR)
    python bench/edit_profile.py --root DIR --files 20 --profile --top 30 --dump /tmp/edits.pstats
    python bench/edit_profile.py --root DIR --files 20 --memory
    python bench/edit_profile.py --root DIR --paths django/db/models/fields/__init__.py --repeat 3
    python bench/edit_profile.py --root DIR --paths django/test/testcases.py --statements 20

Edits the ``--files`` most-imported Python files of ``DIR`` (``bench/edit_latency.py``'s choice;
``--leaves``: leaf files) one at a time, each by appending a new function, and syncs each edit as
``serve`` does for a watched edit (a scoped sync of that one path, under the writer lock, then the
after-sync clean-up). Prints per edit the sync's wall and CPU seconds, the graph's seconds, the
dependents re-resolved and the CPU of the after-sync clean-up, with p50/max (``--paths``: these files instead, each edited ``--repeat``
times in turn); ``--profile`` runs the syncs under ``cProfile`` with a CPU
clock (on a loaded machine wall time is mostly waiting for a core) and prints the functions with
the most cumulative and own time; ``--statements N`` the N SQL statements that cost the syncs most
CPU (execute + fetch, by statement text). ``--memory`` also takes a
``tracemalloc`` snapshot after the first edit's clean-up and after the last one, and prints the
allocation sites that grew most between them (what edits leave behind), with the process's RSS.
The edits are left in the tree: use a scratch copy.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import random
import shlex
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from edit_latency import most_imported_and_leaves
from lazy_intel.allocator import bound_malloc, bounds_from_settings
from lazy_intel.service.indexing import sync as sync_module
from lazy_intel.service.indexing.sync import run_sync
from lazy_intel.service.workspace import Workspace, release_sync_garbage
from sql_trace import statement_costs, traced


def pymalloc_stats() -> tuple[int, int]:
    """(arenas allocated now, bytes in allocated blocks) of Python's allocator, from
    ``sys._debugmallocstats`` (which writes to the C stderr: read through a temporary file);
    (0, 0) when Python's allocator is not in use."""
    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        os.dup2(out.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode()
    values = {}
    for line in text.splitlines():
        for key in ("# arenas allocated current", "# bytes in allocated blocks"):
            if line.startswith(key):
                values[key] = int(line.split("=")[1].replace(",", ""))
    return values.get("# arenas allocated current", 0), values.get("# bytes in allocated blocks", 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, required=True, help="an indexed scratch copy of a tree")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--profile", action="store_true", help="run the syncs under cProfile")
    parser.add_argument("--dump", type=Path, help="also write the cProfile stats to this file")
    parser.add_argument(
        "--leaves", action="store_true", help="edit leaf files instead of widely imported ones"
    )
    parser.add_argument("--paths", nargs="+", help="edit these files (relative to the root) instead")
    parser.add_argument("--repeat", type=int, default=1, help="edit the files this many rounds")
    parser.add_argument(
        "--statements", type=int, default=0, help="print the N statements that cost the syncs most CPU"
    )
    parser.add_argument("--no-freeze", action="store_true", help="do not freeze the warm heap first")
    parser.add_argument(
        "--memory", action="store_true", help="tracemalloc diff between the first and last edit"
    )
    parser.add_argument(
        "--arenas", action="store_true", help="Python's allocator after each edit: arenas, bytes in use"
    )
    args = parser.parse_args()
    root = args.root.resolve()
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    ws = Workspace.open(root)
    bound_malloc(bounds_from_settings(ws.settings))  # as serve does (its allocator: PYTHONMALLOC)
    opened_rss = psutil.Process().memory_info().rss / 1e6
    catalog = json.loads(ws.state.catalog.read_text())
    hot, leaves = most_imported_and_leaves(ws.state.path / catalog["store"], args.files, random.Random(1))
    targets = args.paths or (leaves if args.leaves else hot)
    targets = [rel for _ in range(args.repeat) for rel in targets]
    profile = cProfile.Profile(time.process_time)  # CPU: on a loaded machine wall time is mostly waiting
    rows: list[tuple[str, float, float, float, int, float]] = []
    rss: list[float] = []
    arenas: list[tuple[int, int]] = []
    first_snapshot = None
    if args.memory:
        tracemalloc.start(12)
    statements = statement_costs()
    tracing = contextlib.ExitStack()
    if args.statements:
        tracing.enter_context(traced(sync_module, statements))
    ws.lock.acquire()
    if not args.no_freeze:  # as serve does once warm (after its first sync and prepare_for_edits)
        release_sync_garbage(freeze=True)
    try:
        for number, rel in enumerate(targets):
            path = root / rel
            path.write_text(
                path.read_text() + f"\n\ndef bench_profile_marker_{time.time_ns()}():\n    return 1\n"
            )
            started, cpu = time.perf_counter(), time.process_time()
            if args.profile:
                profile.enable()
            report = run_sync(
                root, ws.state, max_file_bytes=ws.settings.max_file_bytes, parse_workers=0, only=(rel,)
            )
            profile.disable()
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            cleanup = time.process_time()
            release_sync_garbage()
            cleanup = time.process_time() - cleanup
            graph = report.graph
            rows.append(
                (
                    rel,
                    seconds,
                    cpu,
                    graph.seconds if graph else 0.0,
                    graph.dependents if graph else 0,
                    cleanup,
                )
            )
            rss.append(psutil.Process().memory_info().rss / 1e6)
            if args.arenas:
                arenas.append(pymalloc_stats())
            if args.memory and number == 0:
                first_snapshot = tracemalloc.take_snapshot()
        last_snapshot = tracemalloc.take_snapshot() if args.memory else None
    finally:
        tracing.close()
        ws.lock.release()
        ws.close()
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"load average before {load_before}, after " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"\n{'file':56} {'sync s':>8} {'CPU s':>8} {'graph s':>8} {'deps':>6} {'clean-up CPU s':>14}")
    for rel, seconds, cpu, graph_s, deps, cleanup in rows:
        print(f"{rel[-56:]:56} {seconds:8.3f} {cpu:8.3f} {graph_s:8.3f} {deps:6} {cleanup:14.3f}")
    syncs, cpus = [r[1] for r in rows], [r[2] for r in rows]
    print(f"sync wall p50 {statistics.median(syncs):.3f} s, max {max(syncs):.3f} s")
    print(f"sync CPU p50 {statistics.median(cpus):.3f} s, max {max(cpus):.3f} s, total {sum(cpus):.3f} s")
    allocator = os.environ.get("PYTHONMALLOC") or "pymalloc"
    print(f"RSS MB (allocator {allocator}) after opening {opened_rss:.0f}, after each edit's clean-up: ")
    print("  " + " ".join(f"{v:.0f}" for v in rss))
    if arenas:
        print("Python's arenas (1 MiB each) / MB in allocated blocks after each edit's clean-up:")
        print("  " + " ".join(f"{count}/{used / 1e6:.1f}" for count, used in arenas))
    if args.statements:
        total = sum(cost.cpu_s for cost in statements.values())
        print(f"\nSQL: {total:.3f} CPU-s of the syncs' {sum(cpus):.3f}; by CPU (execute + fetch):")
        ordered = sorted(statements.items(), key=lambda kv: -kv[1].cpu_s)[: args.statements]
        for sql, cost in ordered:
            print(
                f"  {cost.cpu_s * 1000:8.1f} ms CPU {cost.wall_s * 1000:8.1f} ms wall {cost.calls:6} calls  {sql}"
            )
    if args.dump:
        profile.dump_stats(args.dump)
    for key in ("cumulative", "tottime") if args.profile else ():
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats(key).print_stats(args.top)
        print(f"\n== by {key}")
        print(out.getvalue().split("\n", 6)[-1])
    if first_snapshot is not None and last_snapshot is not None:
        print("\n== grown between the first edit's clean-up and the last one's (tracemalloc)")
        for stat in last_snapshot.compare_to(first_snapshot, "traceback")[: args.top]:
            print(f"{stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+7d} blocks")
            for line in stat.traceback.format()[-6:]:
                print("    " + line)


if __name__ == "__main__":
    main()

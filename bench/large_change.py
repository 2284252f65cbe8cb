"""An incremental change of N files resolved in the writer against the same change resolved in
worker processes over an overlay (issue 15, ``graph/overlay.py``), in one run: where the pool pays.

The tree is copied and fully indexed once. Then, for each N and round, the first N Python files (a
fixed, sorted pick) get one more module-level function appended (an interface change: its
definition is new) and are synced, once with the overlay pool off (``OVERLAY_POOL_MIN_FILES``
raised over N) and once with it on; the next sync of the pair removes the functions again, so every
sync is a change of the same N files. Modes alternate within each pair, and the pairs alternate
which mode goes first. Prints per sync the writer's CPU, the workers' CPU, wall seconds and the
resolve workers used, and per N the median wall ratio pool/serial.

Usage:
    python bench/large_change.py --tree Django-5.1.4 --work /tmp/lc --sizes 256,512,1024,2048 --rounds 2

Figures: docs/design/scale.md, *A large incremental change resolves in workers*.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import time
from pathlib import Path

SUFFIX = "\n\ndef lazy_intel_bench_added():\n    return 1\n"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (emptied)")
    parser.add_argument("--sizes", default="256,512,1024,2048")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    from lazy_intel.service.indexing import resolve_pool
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    shutil.rmtree(args.work, ignore_errors=True)
    root, state = args.work / "tree", args.work / "state"
    shutil.copytree(args.tree, root, ignore=shutil.ignore_patterns(".lazy-intel"))
    files = sorted(p for p in root.rglob("*.py") if p.is_file())
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=state)
    shipped = resolve_pool.OVERLAY_POOL_MIN_FILES
    ratios: dict[int, list[float]] = {}
    try:
        ws.sync()
        added = False
        for size in [int(s) for s in args.sizes.split(",")]:
            picked = files[:size]
            for round_ in range(args.rounds):
                walls: dict[str, float] = {}
                for mode in ("serial", "pool") if round_ % 2 == 0 else ("pool", "serial"):
                    for path in picked:
                        text = path.read_text(encoding="utf-8")
                        path.write_text(text[: -len(SUFFIX)] if added else text + SUFFIX, encoding="utf-8")
                    added = not added
                    resolve_pool.OVERLAY_POOL_MIN_FILES = 1 if mode == "pool" else 10**9
                    cpu, children, started = time.process_time(), _children_cpu(), time.perf_counter()
                    report = ws.sync()
                    wall = time.perf_counter() - started
                    graph = report.graph
                    assert graph is not None and report.modified == len(picked), report
                    walls[mode] = wall
                    print(
                        f"files {size} round {round_} {mode}: targets {graph.changed + graph.dependents} "
                        f"workers {graph.resolve_workers} graph {graph.seconds:.1f} s, "
                        f"writer {time.process_time() - cpu:.1f} CPU-s, workers {_children_cpu() - children:.1f} "
                        f"CPU-s, wall {wall:.1f} s",
                        flush=True,
                    )
                ratios.setdefault(size, []).append(walls["pool"] / walls["serial"])
        for size, values in ratios.items():
            print(f"files {size}: wall pool/serial median {statistics.median(values):.2f} ({values})")
    finally:
        resolve_pool.OVERLAY_POOL_MIN_FILES = shipped
        ws.close()


if __name__ == "__main__":
    main()

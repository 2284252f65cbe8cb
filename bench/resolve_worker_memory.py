"""What one resolve worker holds on a large store: RSS while it resolves a sample of files, per version.

Usage:
    python bench/resolve_worker_memory.py --store STORE.sqlite --files 600 \\
        --version before=/tmp/snap-main/src --version after=src

``STORE`` is a store whose graph description is written (a full build's fresh store once its nodes
are committed, or any published store); it is opened read-only. Each version runs in a process of
its own (``PYTHONPATH`` = its ``src``) doing exactly what a resolve worker does
(``service/indexing/resolve_pool.py``: one ``FactStore`` over the store, ``resolve_file`` per file)
for the same sample — every k-th parsed file in path order, so the sample spans the whole tree — and
reports its RSS after loading the file table and after every tenth of the sample, and the CPU
seconds; with ``--trace N`` also the allocations still held at the end, largest first (tracemalloc,
N frames each: it slows the run, so its CPU figures do not compare with a run without it). The versions run one after the other, then again in the other order; figures are ratios
against the first version within the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

WORKER = r"""
import json, sys, time, psutil
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file
from lazy_intel.parse.languages import is_parsed_language
from lazy_intel.store.schema import connect

store_path, count, trace = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if trace:
    import tracemalloc
    tracemalloc.start(trace)
me = psutil.Process()
conn = connect(store_path, readonly=True)
files = {p: l for p, l in conn.execute(
    "SELECT path, lang FROM files WHERE status='indexed' AND lang IS NOT NULL") if is_parsed_language(l)}
store = FactStore(conn, PathIndex(files))
paths = sorted(files)
step = max(1, len(paths) // count)
sample = paths[::step][:count]
out = {"parsed_files": len(files), "sample": len(sample), "rss_mb": [round(me.memory_info().rss / 2**20, 1)]}
cpu0, edges = time.process_time(), 0
for i, path in enumerate(sample, 1):
    model = store.model(path)
    if model is not None:
        edges += len(resolve_file(store, model).edges)
    if i % max(1, len(sample) // 10) == 0:
        out["rss_mb"].append(round(me.memory_info().rss / 2**20, 1))
out["cpu_s"] = round(time.process_time() - cpu0, 1)
out["edges"] = edges
out["peak_rss_mb"] = max(out["rss_mb"])
if trace:  # where the memory still held at the end was allocated, largest first
    stats = tracemalloc.take_snapshot().statistics("traceback")[:12]
    out["held_mb_by_allocation"] = [
        [round(s.size / 2**20, 1), s.count, " <- ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in s.traceback)]
        for s in stats
    ]
print(json.dumps(out))
"""


def run(src: Path, store: Path, files: int, trace: int = 0) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(store), str(files), str(trace)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--version", action="append", required=True, help="name=path/to/src")
    parser.add_argument("--rounds", type=int, default=2, help="runs per version, order alternating")
    parser.add_argument(
        "--trace", type=int, default=0, help="tracemalloc frames: also list what holds the memory at the end"
    )
    args = parser.parse_args()
    versions = list(dict(v.split("=", 1) for v in args.version).items())
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in versions}
    for round_ in range(args.rounds):
        for name, src in versions if round_ % 2 == 0 else versions[::-1]:
            runs[name].append(run(Path(src), args.store, args.files, args.trace))
            print(f"{name}: {runs[name][-1]}", file=sys.stderr, flush=True)
    result: dict[str, Any] = {"command": " ".join([Path(sys.executable).name, *sys.argv]), "runs": runs}
    first = versions[0][0]
    for name, _ in versions[1:]:
        result[f"{name}_over_{first}"] = {
            "peak_rss": round(
                min(r["peak_rss_mb"] for r in runs[name]) / min(r["peak_rss_mb"] for r in runs[first]), 2
            ),
            "cpu": round(min(r["cpu_s"] for r in runs[name]) / min(r["cpu_s"] for r in runs[first]), 2),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Peak RSS of a full build as a function of the tree's size, two versions of the code side by side.

Usage:
    python bench/resolve_memory.py --tree /tmp/scale-100k/tree --sizes 2500,5000,10000 \\
        --version before=/tmp/snap-main/src --version after=src --work /tmp/resolve-memory

Each size is a tree of whole exports of ``--tree``, round-robin over its repositories, of at
least N files (hard links: nothing is copied or written in the source). For each size the versions are built one after the other (a
fresh state directory each, ``lazy-intel index`` with ``PYTHONPATH`` set to the version's ``src``),
so the machine's load is as alike as it can be for the pair. Sampled every 0.2 s: the summed RSS
of the indexing process tree, the largest single process (the writer or a worker), both split by
phase — parse+write until the build journal shows every file committed, graph resolution after.
Printed: one JSON object, the figures per size and version and the after/before ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil

SAMPLE_S = 0.2


def subset_tree(source: Path, dest: Path, files: int) -> int:
    """Whole ``<repo>@<commit>`` exports of ``source`` (bench/scale.py's tree), taken round-robin
    over the repositories (each one's first export, then each one's second, ...) until ``dest``
    holds at least ``files`` files — the mix of the whole tree at a smaller size. Hard links,
    built once and kept."""
    marker = dest / ".subset-files"
    if marker.is_file():
        return int(marker.read_text())
    shutil.rmtree(dest, ignore_errors=True)
    by_repo: dict[str, list[Path]] = {}
    for export in sorted(p for p in source.iterdir() if p.is_dir()):
        by_repo.setdefault(export.name.split("@", 1)[0], []).append(export)
    order = [e for row in itertools.zip_longest(*by_repo.values()) for e in row if e is not None]
    count = 0
    for export in order:
        if count >= files:
            break
        for path in sorted(p for p in export.rglob("*") if p.is_file() and not p.is_symlink()):
            target = dest / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, target)
            count += 1
    marker.write_text(str(count))
    return count


def scope_files(tree: Path) -> int:
    """How many files a build of ``tree`` writes (its scope, as the indexer lists it)."""
    from lazy_intel.workspace.scope import list_scope, load_policy

    return len(list_scope(load_policy(tree)).paths)


def _journal_files(state: Path) -> int | None:
    for store in (state / "stores").glob("store-*.sqlite") if (state / "stores").is_dir() else ():
        with contextlib.suppress(sqlite3.Error):
            conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.2)
            try:
                row = conn.execute("SELECT value FROM meta WHERE key='build_files'").fetchone()
                return int(row[0]) if row else None
            finally:
                conn.close()
    return None


def build(tree: Path, state: Path, src: Path, in_scope: int) -> dict[str, Any]:
    """One full build; ``in_scope``: the files the build writes (the graph phase starts after)."""
    shutil.rmtree(state, ignore_errors=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(src.resolve()),
        "LAZY_INTEL_EMBEDDING": "none",
        "LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS": "3600000",
    }
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    assert exe is not None, "lazy-intel is not installed next to this Python"
    started = time.perf_counter()
    proc = psutil.Popen(
        [exe, "index", str(tree), "--state-dir", str(state), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    peaks = {"parse": {"tree_mb": 0.0, "process_mb": 0.0}, "graph": {"tree_mb": 0.0, "process_mb": 0.0}}
    phase, resolving_since = "parse", None
    loads = []
    while proc.poll() is None:
        total, largest = 0, 0
        for p in [proc, *proc.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                rss = p.memory_info().rss
                total += rss
                largest = max(largest, rss)
        if phase == "parse":
            written = _journal_files(state)
            if written is not None and written >= in_scope:
                phase, resolving_since = "graph", time.perf_counter()
        peak = peaks[phase]
        peak["tree_mb"] = max(peak["tree_mb"], round(total / 2**20, 1))
        peak["process_mb"] = max(peak["process_mb"], round(largest / 2**20, 1))
        loads.append(os.getloadavg()[0])
        time.sleep(SAMPLE_S)
    out = proc.stdout.read() if proc.stdout else b""
    wall = time.perf_counter() - started
    report = json.loads(out or b"{}")
    graph = report.get("data", {}).get("last_sync", {}).get("graph", {})
    return {
        "exit": proc.returncode,
        "wall_s": round(wall, 1),
        "graph_wall_s": round(time.perf_counter() - resolving_since, 1) if resolving_since else None,
        "peak": peaks,
        "peak_tree_mb": max(p["tree_mb"] for p in peaks.values()),
        "edges": graph.get("edges_written"),
        "load_avg": round(sum(loads) / max(1, len(loads)), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--sizes", default="2500,5000,10000")
    parser.add_argument("--version", action="append", required=True, help="name=path/to/src")
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    versions = dict(v.split("=", 1) for v in args.version)
    result: dict[str, Any] = {"command": " ".join([Path(sys.executable).name, *sys.argv]), "sizes": {}}
    for size in (int(s) for s in args.sizes.split(",")):
        tree = args.work / f"tree-{size}"
        files = subset_tree(args.tree, tree, size)
        in_scope = scope_files(tree)
        figures = {}
        for name, src in versions.items():
            figures[name] = build(tree, args.work / f"state-{size}-{name}", Path(src), in_scope)
            print(f"{size} {name}: {figures[name]}", file=sys.stderr, flush=True)
        if len(versions) == 2:
            first, second = (figures[name] for name in versions)
            figures["ratio_peak_tree"] = round(second["peak_tree_mb"] / first["peak_tree_mb"], 2)
            figures["ratio_graph_wall"] = (
                round(second["graph_wall_s"] / first["graph_wall_s"], 2)
                if first["graph_wall_s"] and second["graph_wall_s"]
                else None
            )
        result["sizes"][size] = {"files": files, "in_scope": in_scope, **figures}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

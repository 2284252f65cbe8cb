"""Edit -> visible in a running ``lazy-intel serve``, for widely imported files and for leaf files.

Usage:
    python bench/edit_latency.py                       # the Django 5.1.4 sdist (bench/.cache)
    python bench/edit_latency.py --tree DIR --files 20 --seed 1

Copies the tree, indexes it (not measured), starts ``lazy-intel serve`` over the MCP SDK's stdio
client, picks the ``--files`` most-imported Python files (most distinct importing files, by resolved
IMPORTS edges) and as many leaf files (imported by none, seeded choice), then edits them one at a
time, a widely imported file and a leaf file in turn: each edit appends a new function (a new
definition: the edit that changes a file's interface) and the time until ``symbol`` (``freshness:
fast``) finds it is its latency. Prints p50/p95/max per group and overall, and the server's RSS (with
its children) when warm, after the edits of the widely imported files, and at the end. The baseline is
the server's own warm RSS; latency is absolute (it includes the watcher's debounce,
``--debounce-ms``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import ClientSession, StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import django_tree
from soak import find_server, tree_rss

WAIT_S = 60.0


def most_imported_and_leaves(store: Path, count: int, rng: random.Random) -> tuple[list[str], list[str]]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        importers = dict(
            conn.execute(
                "SELECT n.path, count(DISTINCT e.path) FROM edges e JOIN nodes n ON n.id = e.dst "
                "WHERE e.type = 'IMPORTS' AND n.path LIKE '%.py' GROUP BY n.path"
            ).fetchall()
        )
        python = [
            p for (p,) in conn.execute("SELECT path FROM files WHERE lang = 'python' AND status = 'indexed'")
        ]
    finally:
        conn.close()
    hot = sorted(importers, key=lambda p: (-importers[p], p))[:count]
    leaves = sorted(p for p in python if p not in importers and not p.endswith("__init__.py"))
    return hot, rng.sample(leaves, min(count, len(leaves)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def call(session: ClientSession, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool("code_intel", args)
    return result.structured_content or {}


async def run(args: argparse.Namespace, root: Path, hot: list[str], leaves: list[str]) -> dict[str, Any]:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    env = {**os.environ, "LAZY_INTEL_LOG_LEVEL": "WARNING", "LAZY_INTEL_DEBOUNCE_MS": str(args.debounce_ms)}
    params = StdioServerParameters(command=exe, args=["serve", "--root", str(root)], cwd=str(root), env=env)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    out: dict[str, Any] = {"hot": [], "leaf": [], "rss": {}}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        server = find_server(before, exe)
        with anyio.fail_after(1800):
            while True:
                status = await call(session, {"operation": "status", "freshness": "fast"})
                if status.get("status") == "ok" and status.get("view", {}).get("dirty") is False:
                    break
                await anyio.sleep(0.5)
        await anyio.sleep(2.0)
        out["rss"]["warm"] = tree_rss(server)[0] if server else 0.0
        order = [("hot", p) for p in hot]
        mixed: list[tuple[str, str]] = []
        for index in range(max(len(hot), len(leaves))):
            if index < len(hot):
                mixed.append(("hot", hot[index]))
            if index < len(leaves):
                mixed.append(("leaf", leaves[index]))
        order = mixed
        for number, (group, rel) in enumerate(order):
            marker = f"bench_edit_marker_{number}"
            path = root / rel
            path.write_text(path.read_text() + f"\n\ndef {marker}():\n    return {number}\n")
            written = time.monotonic()
            while True:
                answer = await call(session, {"operation": "symbol", "symbol": marker, "freshness": "fast"})
                if answer.get("status") == "ok":
                    out[group].append(time.monotonic() - written)
                    break
                if time.monotonic() - written > WAIT_S:
                    out[group].append(float("inf"))
                    break
                await anyio.sleep(0.01)
            if group == "hot" and sum(1 for g, _ in order[: number + 1] if g == "hot") == len(hot):
                out["rss"]["after hot edits"] = tree_rss(server)[0] if server else 0.0
            await anyio.sleep(0.3)
        await anyio.sleep(2.0)
        out["rss"]["end"] = tree_rss(server)[0] if server else 0.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="directory (default: the Django 5.1.4 sdist)")
    parser.add_argument("--files", type=int, default=20, help="widely imported files, and as many leaf files")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--debounce-ms", type=int, default=250)
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "copy"
        shutil.copytree(tree, root, ignore=shutil.ignore_patterns(".lazy-intel", ".codegraph"))
        subprocess.run([exe, "index", str(root), "--json"], check=True, capture_output=True)
        catalog = json.loads((root / ".lazy-intel" / "catalog.json").read_text())
        hot, leaves = most_imported_and_leaves(
            root / ".lazy-intel" / catalog["store"], args.files, random.Random(args.seed)
        )
        result = anyio.run(run, args, root, hot, leaves)
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(
        f"tree: {tree}; debounce {args.debounce_ms} ms; load average before {load_before}, after "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print(f"widely imported files: {', '.join(hot[:5])}, …")
    print(f"\n{'edits':24} {'n':>4} {'p50 s':>8} {'p95 s':>8} {'max s':>8}")
    groups = [
        ("widely imported", result["hot"]),
        ("leaf", result["leaf"]),
        ("all", result["hot"] + result["leaf"]),
    ]
    for name, values in groups:
        print(
            f"{name:24} {len(values):4} {statistics.median(values):8.3f} {percentile(values, 0.95):8.3f} "
            f"{max(values):8.3f}"
        )
    rss = result["rss"]
    print("\nserver RSS with children, MB: " + ", ".join(f"{k} {v:.1f}" for k, v in rss.items()))
    if rss.get("warm"):
        print(
            f"after the widely imported edits vs warm: {100 * (rss.get('after hot edits', 0) / rss['warm'] - 1):+.1f}%"
        )


if __name__ == "__main__":
    main()

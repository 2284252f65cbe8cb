"""Latency of the graph operations on a real tree, as ratios to ``search`` and ``symbol`` in the same run.

Usage:
    python bench/graph_latency.py                      # the django sdist (downloaded once, see index_speed.py)
    python bench/graph_latency.py --tree /path/to/repo --repeat 5

Indexes the tree into a temporary state directory (the tree itself is never written), then runs each
operation through ``execute`` (``freshness: fast``, the published view as is) on the same symbols:
the 5 symbols with the most resolved incoming calls plus 5 more picked with a fixed seed. Prints the
median and p95 wall time per operation and the ratio of each median to the ``search`` median. The
``query`` (Cypher) operation is measured only when this build has it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_speed import django_tree
from lazy_intel.service.ops.operations import OPERATIONS, execute
from lazy_intel.service.ops.ops_architecture import clear_architecture_cache
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

SEED = 20261201


def pick_symbols(ws: Workspace, count: int = 10) -> list[tuple[str, str]]:
    """(qualified name, path) of the most-called definitions plus a seeded sample of called ones."""
    with ws.read() as view:
        rows = view.conn.execute(
            "SELECT n.qualified_name, n.path, count(*) AS calls FROM edges e JOIN nodes n ON n.id = e.dst "
            "WHERE e.type='CALLS' AND n.label IN ('Function', 'Method') GROUP BY n.id ORDER BY calls DESC, n.id"
        ).fetchall()
    top = [(q, p) for q, p, _ in rows[: count // 2]]
    rest = [(q, p) for q, p, _ in rows[count // 2 :]]
    random.Random(SEED).shuffle(rest)
    return top + rest[: count - len(top)]


def timed(call: Callable[[], dict[str, Any]], repeat: int) -> tuple[list[float], dict[str, Any]]:
    times: list[float] = []
    last: dict[str, Any] = {}
    for _ in range(repeat):
        started = time.perf_counter()
        last = call()
        times.append(time.perf_counter() - started)
    return times, last


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="directory to index (default: the django sdist)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per symbol and operation")
    parser.add_argument(
        "--state-dir", type=Path, help="keep the index here and reuse it (default: a temporary directory)"
    )
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    settings = load_settings(env={})
    with tempfile.TemporaryDirectory(prefix="graph-latency-") as temporary:
        state = args.state_dir or Path(temporary)
        state.mkdir(parents=True, exist_ok=True)
        ws = Workspace.open(tree, settings=settings, state_dir=state)
        reused = any(state.glob("stores/*.sqlite"))
        started = time.perf_counter()
        ws.sync()
        index_s = time.perf_counter() - started
        with ws.read() as view:
            files = view.conn.execute("SELECT count(*) FROM files WHERE status='indexed'").fetchone()[0]
            nodes = view.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
            edges = view.conn.execute("SELECT count(*) FROM edges").fetchone()[0]
        symbols = pick_symbols(ws)

        def run(**request: Any) -> dict[str, Any]:
            answer = execute({"freshness": "fast", **request}, lambda _root: ws, settings).to_dict()
            if answer["status"] == "error":
                raise SystemExit(f"{request}: {answer['code']} {answer['message']}")
            return answer

        plans: dict[str, Callable[[str, str], dict[str, Any]]] = {
            "symbol (baseline)": lambda q, p: run(operation="symbol", symbol=q, relativePath=p),
            "search (baseline)": lambda q, p: run(operation="search", query=q.replace(".", " ")),
            "callers depth 1": lambda q, p: run(operation="callers", symbol=q, relativePath=p, limit=50),
            "callers depth 3": lambda q, p: run(
                operation="callers", symbol=q, relativePath=p, depth=3, limit=50
            ),
            "impact depth 3": lambda q, p: run(
                operation="impact", symbol=q, relativePath=p, depth=3, limit=50
            ),
            "references": lambda q, p: run(operation="references", symbol=q, relativePath=p, limit=50),
        }
        cypher = (
            "MATCH (a)-[:CALLS*1..2]->(b) WHERE b.qualified_name = '{q}' RETURN a.qualified_name LIMIT 50"
        )
        if "query" in OPERATIONS:
            probe = execute(
                {"operation": "query", "freshness": "fast", "query": cypher.format(q=symbols[0][0])},
                lambda _root: ws,
                settings,
            )
            if probe.status == "error":
                print(f"query skipped: {probe.code} {probe.message}")
        if "query" in OPERATIONS and probe.status != "error":
            plans["query (Cypher, 2 hops)"] = lambda q, p: run(operation="query", query=cypher.format(q=q))
        results: dict[str, list[float]] = {}
        sizes: dict[str, list[int]] = {}
        for name, plan in plans.items():
            results[name] = []
            sizes[name] = []
            for qualified, path in symbols:
                times, answer = timed(lambda plan=plan, q=qualified, p=path: plan(q, p), args.repeat)
                results[name].extend(times)
                data = answer.get("data") or {}
                sizes[name].append(int(data.get("total", data.get("dependents", len(answer["items"])))))

        def cold_architecture() -> dict[str, Any]:
            clear_architecture_cache()
            return run(operation="architecture")

        arch_times, arch = timed(cold_architecture, args.repeat)
        results["architecture (cold)"] = arch_times
        sizes["architecture (cold)"] = [int(arch["data"]["package_count"])]
        warm_times, _ = timed(lambda: run(operation="architecture"), args.repeat)
        results["architecture (same generation)"] = warm_times
        sizes["architecture (same generation)"] = [int(arch["data"]["package_count"])]
    baseline = statistics.median(results["search (baseline)"])
    print(
        f"tree: {tree}  ({files} indexed files, {nodes} nodes, {edges} edges; {'sync of the kept index' if reused else 'full index'} {index_s:.1f} s)"
    )
    print(f"symbols: {len(symbols)} (most-called first): {', '.join(q for q, _ in symbols[:5])}, …")
    print(f"{'operation':28} {'median ms':>10} {'p95 ms':>8} {'x search':>9} {'results (median)':>17}")
    for name, times in results.items():
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        median = statistics.median(times)
        print(
            f"{name:28} {median * 1000:10.1f} {p95 * 1000:8.1f} {median / baseline:9.2f} "
            f"{statistics.median(sizes[name]):17.0f}"
        )
    print("command: python bench/graph_latency.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()

"""Latency of Cypher queries (operation ``query``) on a real tree, next to hand-written SQL.

Usage:
    python bench/query_latency.py                      # the django sdist (downloaded once, as index_speed.py)
    python bench/query_latency.py --tree /path/to/repo --repeat 7

Indexes the tree into a temporary state directory (the tree is only read), then times each query
through ``execute`` (parse, compile, SQLite, rows -> anchored items, budget) and, as the baseline, the
equivalent hand-written SQL on the same read view. Prints the median milliseconds, rows and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_speed import django_tree
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

# (name, cypher, equivalent SQL); {name} is filled with the most-called function of the tree
QUERIES: list[tuple[str, str, str]] = [
    (
        "callers of f",
        "MATCH (a)-[:CALLS]->(b:Function {{name: '{name}'}}) RETURN a.qualified_name, a.path LIMIT 200",
        "SELECT a.qualified_name, a.path FROM edges e JOIN nodes b ON b.id = e.dst JOIN nodes a ON a.id = e.src "
        "WHERE e.type = 'CALLS' AND b.name = '{name}' AND instr(b.labels, ' Function ') > 0 "
        "ORDER BY 1, 2 LIMIT 200",
    ),
    (
        "transitive callers of f, *1..3",
        "MATCH (a)-[:CALLS*1..3]->(b:Function {{name: '{name}'}}) RETURN DISTINCT a.qualified_name LIMIT 200",
        "WITH RECURSIVE w(node, depth) AS (SELECT id, 0 FROM nodes WHERE name = '{name}' "
        "AND instr(labels, ' Function ') > 0 UNION SELECT e.src, w.depth + 1 FROM w JOIN edges e "
        "ON e.dst = w.node AND e.type = 'CALLS' WHERE w.depth < 3) "
        "SELECT DISTINCT n.qualified_name FROM w JOIN nodes n ON n.id = w.node WHERE w.depth >= 1 "
        "ORDER BY 1 LIMIT 200",
    ),
    (
        "edge counts by type",
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, count(*) AS n ORDER BY n DESC",
        "SELECT type, count(*) FROM edges WHERE dst IS NOT NULL GROUP BY type ORDER BY 2 DESC",
    ),
    (
        "classes by name regex",
        "MATCH (c:Class) WHERE c.name =~ '.*Admin.*' RETURN c.qualified_name, c.path LIMIT 200",
        "SELECT qualified_name, path FROM nodes WHERE instr(labels, ' Class ') > 0 AND name LIKE '%Admin%' "
        "ORDER BY 1, 2 LIMIT 200",
    ),
]


def timed(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times = []
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="directory to index (default: the django sdist)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--state-dir", type=Path, help="keep the index here (reused by the next run)")
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    settings = load_settings(env={}, auto_index=False)
    with tempfile.TemporaryDirectory(prefix="lazy-intel-bench-") as temporary:
        ws = Workspace.open(tree, settings=settings, state_dir=args.state_dir or Path(temporary))
        started = time.perf_counter()
        ws.sync()
        index_s = time.perf_counter() - started
        with ws.read() as view:
            files = view.conn.execute("SELECT count(*) FROM files").fetchone()[0]
            nodes = view.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
            edges = view.conn.execute("SELECT count(*) FROM edges").fetchone()[0]
            (name,) = view.conn.execute(
                "SELECT b.name FROM edges e JOIN nodes b ON b.id = e.dst WHERE e.type = 'CALLS' "
                "AND instr(b.labels, ' Function ') > 0 GROUP BY b.name ORDER BY count(*) DESC LIMIT 1"
            ).fetchone()
        print(f"tree: {tree} ({files} files, {nodes} nodes, {edges} edges; index {index_s:.1f} s)")
        print(f"f = {name!r} (the most-called function)")
        print(f"{'query':34} {'cypher ms':>10} {'sql ms':>8} {'ratio':>6} {'rows':>6}")
        for label, cypher, sql in QUERIES:
            request = {
                "operation": "query",
                "query": cypher.format(name=name),
                "freshness": "fast",
                "limit": 200,
            }
            request["maxChars"] = 200_000
            cypher_ms, answer = timed(lambda r=request: execute(r, lambda _r: ws, settings), args.repeat)
            assert answer.status != "error", answer.to_dict()  # type: ignore[attr-defined]
            rows = answer.data["row_count"]  # type: ignore[attr-defined]
            with ws.read() as view:
                sql_ms, sql_rows = timed(
                    lambda v=view, s=sql: v.conn.execute(s.format(name=name)).fetchall(), args.repeat
                )
            print(
                f"{label:34} {cypher_ms:10.1f} {sql_ms:8.1f} {cypher_ms / max(sql_ms, 0.01):6.1f} {rows:6d}"
            )
            if len(sql_rows) != rows:  # type: ignore[arg-type]
                print(f"  note: hand SQL gave {len(sql_rows)} rows")  # type: ignore[arg-type]
    command = "python bench/query_latency.py" + (f" --tree {args.tree}" if args.tree else "")
    command += f" --repeat {args.repeat}" + (f" --state-dir {args.state_dir}" if args.state_dir else "")
    print(f"command: {command}")


if __name__ == "__main__":
    main()

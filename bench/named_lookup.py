"""The graph's name lookups read cold, as the first edit after a start reads them.

Usage:
    PYTHONPATH=<snapshot>/src python bench/named_lookup.py STORE [--names 40] [--rounds 3]

Opens ``STORE`` (a store file) read-only, takes the ``--names`` names with the most node rows (the
lookups an edit's property-edge pass finds dearest: ``value``, ``data``, ``name`` …), and times
``FactStore.named`` of the source on ``PYTHONPATH`` for each in a fresh ``FactStore`` (no lookup
held: what the first lookup of each name after a start costs), ``--rounds`` times over, on one
connection (the page cache warms as in a serving process). Prints one JSON object: the plan of the
lookup, per-round total and median milliseconds, the definitions found and the node rows of those
names. Compare two snapshots on two copies of one store (one upgraded in place, one not).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("store", type=Path)
    parser.add_argument("--names", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from lazy_intel.graph.modules import PathIndex
    from lazy_intel.graph.program import FactStore
    from lazy_intel.store.schema import connect

    conn = connect(str(args.store), readonly=True)
    try:
        version = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        names = [
            (name, rows)
            for name, rows in conn.execute(
                "SELECT name, count(*) AS n FROM nodes GROUP BY name ORDER BY n DESC, name LIMIT ?",
                (args.names,),
            )
        ]
        index = PathIndex.__new__(PathIndex)  # FactStore.named never reads the path index
        rounds = []
        found = 0
        for _ in range(args.rounds):
            times = []
            found = 0
            for name, _rows in names:
                store = FactStore(conn, index)
                started = time.perf_counter()
                found += len(store.named(name))
                times.append((time.perf_counter() - started) * 1000)
            rounds.append({"total_ms": round(sum(times), 1), "median_ms": round(statistics.median(times), 2)})
        sql = (
            "SELECT id, path, qualified_name, kind, json_extract(properties, '$.parent'), "
            "json_extract(properties, '$.getter') IS NOT NULL FROM nodes WHERE name=? AND file_key != 0 "
            "AND kind IS NOT NULL AND kind NOT IN ('local', 'parameter') AND label NOT IN ('File', 'Route') "
            "ORDER BY path, qualified_name, id"
        )
        plan = " ".join(str(r[3]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", (names[0][0],)))
    finally:
        conn.close()
    print(
        json.dumps(
            {
                "store": str(args.store),
                "schema_version": version,
                "load": round(os.getloadavg()[0], 2),
                "names": len(names),
                "node_rows": sum(rows for _name, rows in names),
                "definitions_found": found,
                "plan": plan,
                "rounds": rounds,
            }
        )
    )


if __name__ == "__main__":
    main()

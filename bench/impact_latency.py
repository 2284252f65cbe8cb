"""``impact`` depth 3 latency on an existing build, for the code on ``PYTHONPATH``, with a digest of
the answers so that two snapshots run alternately compare cost and output.

Usage:
    PYTHONPATH=<snapshot>/src python bench/impact_latency.py --tree DIR --state DIR [--rounds 3]

The symbols are the 5 most-called functions and methods of the store (as ``bench/scale.py`` picks
them); each is asked once to warm up, then ``--rounds`` times; printed as JSON: median, p95 and max
wall ms, median and p95 CPU ms, the answers' digest and the load average. Run it once per snapshot,
alternating, in the same session (docs/design/scale.md, *impact at 100k*).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from lazy_intel.service.ops.operations import execute
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    settings = load_settings(env={**os.environ, "LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(args.tree, settings=settings, state_dir=args.state)
    try:
        with ws.read() as view:
            symbols = [
                row[0]
                for row in view.conn.execute(
                    "SELECT n.qualified_name, count(*) AS c FROM edges e JOIN nodes n ON n.id = e.dst "
                    "WHERE e.type = 'CALLS' AND n.label IN ('Function', 'Method') "
                    "GROUP BY n.qualified_name ORDER BY c DESC, n.qualified_name LIMIT 5"
                )
            ]

        def ask(symbol: str) -> object:
            request = {"operation": "impact", "symbol": symbol, "depth": 3, "freshness": "fast"}
            return execute(request, lambda _r: ws, settings)

        digest = hashlib.sha256()
        for symbol in symbols:
            answer = ask(symbol)
            digest.update(json.dumps(answer.to_dict(), sort_keys=True, default=str).encode())  # type: ignore[attr-defined]
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(args.rounds):
            for symbol in symbols:
                started, used = time.perf_counter(), time.process_time()
                ask(symbol)
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - used) * 1000)
    finally:
        ws.close()
    wall.sort()
    cpu.sort()

    def p95(values: list[float]) -> float:
        return round(values[int(0.95 * (len(values) - 1))], 1)

    print(
        json.dumps(
            {
                "symbols": symbols,
                "median_ms": round(statistics.median(wall), 1),
                "p95_ms": p95(wall),
                "max_ms": round(wall[-1], 1),
                "cpu_median_ms": round(statistics.median(cpu), 1),
                "cpu_p95_ms": p95(cpu),
                "answers": digest.hexdigest()[:12],
                "load": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()

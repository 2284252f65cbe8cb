"""CPU cost of the function stage in one process: search with it on and off, alternated per query.

``--compare callpath``: the function stage with and without its ``callpath`` graph read
(``function_facts.read_callpath``; "off" scores every candidate's ``callpath`` 0), the same way.

Opens an indexed tree (``lazy-intel index`` it first), warms up with three searches, then runs every
query of the dev set (``--data``; the issue texts, cut to 20,000 characters as a request holds)
with ``SearchConfig.functions`` on and off, the order alternating per query so that caches and load
fall on both. Prints CPU mean / p50 / p95 per configuration (``time.process_time``), the ratio, and
the exact command.

Usage:
    python bench/function_stage_cost.py --tree /path/to/indexed/django --data ../shared/bench/swebench-lite-dev.jsonl [--compare callpath]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from lazy_intel.search import hybrid
from lazy_intel.search.hybrid import DEFAULT_CONFIG, hybrid_search
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

MAX_QUERY_CHARS = 20_000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, required=True, help="an indexed tree")
    parser.add_argument("--data", type=Path, required=True, help="the dev set (its issue texts are queries)")
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        help="its state directory, when not the default (swebench_loc's slots)",
    )
    parser.add_argument(
        "--compare",
        choices=("functions", "callpath"),
        default="functions",
        help="what is on and off: the function stage, or its callpath graph read",
    )
    args = parser.parse_args(argv)
    texts = [
        json.loads(line)["query"][:MAX_QUERY_CHARS]
        for line in args.data.read_text().splitlines()
        if line.strip()
    ]
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(args.tree, settings=settings, state_dir=args.state)
    configs = {"on": DEFAULT_CONFIG, "off": replace(DEFAULT_CONFIG, functions=False)}
    read_callpath = hybrid.read_callpath
    if args.compare == "callpath":
        configs["off"] = DEFAULT_CONFIG

    def switch(name: str) -> None:
        if args.compare == "callpath":
            hybrid.read_callpath = read_callpath if name == "on" else (lambda *_a, **_k: {})  # type: ignore[assignment]

    spent: dict[str, list[float]] = {name: [] for name in configs}
    try:
        with ws.read() as view:
            for text in texts[:3]:
                hybrid_search(view, text)
            for i, text in enumerate(texts):
                for name in ("on", "off") if i % 2 == 0 else ("off", "on"):
                    switch(name)
                    began = time.process_time()
                    hybrid_search(view, text, config=configs[name])
                    spent[name].append((time.process_time() - began) * 1000)
    finally:
        ws.close()
    print(
        f"| {'function stage' if args.compare == 'functions' else 'callpath read'} | queries | CPU mean ms | CPU p50 ms | CPU p95 ms |"
    )
    print("|---|---|---|---|---|")
    for name, values in spent.items():
        print(
            f"| {name} | {len(values)} | {statistics.fmean(values):.1f} | "
            f"{percentile(values, 0.5):.1f} | {percentile(values, 0.95):.1f} |"
        )
    print(f"ratio on / off, CPU mean: {statistics.fmean(spent['on']) / statistics.fmean(spent['off']):.2f}x")
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print("command: " + " ".join([sys.executable, *sys.argv]))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())

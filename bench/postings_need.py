"""How much of the in-memory postings (``store/postings.py``) the bench queries need on an index.

Runs ``bench/scale.py``'s queries once each, in one process, with the bound raised far above need,
and prints after each the phrases held and their megabytes: the figure a team server's
``LAZY_INTEL_POSTINGS_MB`` should be set against (docs/design/scale.md).

    python bench/postings_need.py --tree TREE --state STATE_DIR [--store postgresql://...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.postings import CACHE
from scale import QUERIES

BOUND_MB = 4096  # far above what a few queries need: nothing is evicted while measuring


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--store", default="", help="a PostgreSQL URL (default: the SQLite store)")
    args = parser.parse_args()
    env = {"LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_POSTINGS_MB": str(BOUND_MB)}
    if args.store:
        env["LAZY_INTEL_STORE"] = args.store
    settings = load_settings(env=env)
    ws = Workspace.open(args.tree, settings=settings, state_dir=args.state)
    try:
        for query in QUERIES:
            before = CACHE.nbytes
            answer = execute(
                {"operation": "search", "query": query, "limit": 10, "freshness": "fast"},
                lambda _r: ws,
                settings,
            )
            if answer.status == "error":
                raise SystemExit(f"{query!r}: {answer.to_dict()}")
            print(
                f"{query!r}: phrases held {len(CACHE)}, {CACHE.nbytes / 2**20:.1f} MB "
                f"(+{(CACHE.nbytes - before) / 2**20:.1f})",
                flush=True,
            )
    finally:
        ws.close()


if __name__ == "__main__":
    main()

"""Listing a workspace's scope (``list_scope``) on a tree, for the code on ``PYTHONPATH``: CPU and
wall seconds per round, the number of paths and a digest of them, so that two snapshots run
alternately compare cost and output.

Usage:
    PYTHONPATH=<snapshot>/src python bench/scope_walk.py --tree DIR [--rounds 2]

A tree outside git is walked with its ``.gitignore`` files (the 100k benchmark tree of
``bench/scale.py``); a git work tree is listed by git. Figures: design.md, *Scope*.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    from lazy_intel.workspace.scope import list_scope, load_policy

    for n in range(args.rounds):
        started, used = time.perf_counter(), time.process_time()
        listing = list_scope(load_policy(args.tree))
        cpu, wall = time.process_time() - used, time.perf_counter() - started
        digest = hashlib.sha256("\n".join(listing.paths).encode()).hexdigest()[:12]
        print(
            json.dumps(
                {
                    "round": n,
                    "source": listing.source,
                    "paths": len(listing.paths),
                    "digest": digest,
                    "cpu_s": round(cpu, 2),
                    "wall_s": round(wall, 2),
                }
            )
        )


if __name__ == "__main__":
    main()

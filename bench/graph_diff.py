"""Call sites two indexes of the same tree resolve differently: the effect of a resolver change.

Index one tree twice, each copy with the code to compare (``PYTHONPATH=<snapshot>/src lazy-intel
index .`` in a copy of the tree per snapshot), then compare the published stores' CALLS edges site
by site (a site is ``(path, start byte, end byte)``: an external target is recorded by the name it
resolved to, ``testing.T.Run`` for ``t.Run``, so the written text does not identify a site). Printed: the edges per strategy in each
store, and per site whether it was *newly resolved* (no non-ambiguous target before, one now),
*lost* (the reverse) or gained or changed a *different target*, with random examples of each.
``ambiguous`` candidates count as unresolved: they are guesses.

Usage:
    python bench/graph_diff.py OLD_ROOT NEW_ROOT [--examples 10] [--seed 3]
"""

from __future__ import annotations

import argparse
import collections
import random
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from lazy_intel.workspace.state import StateDir

Site = tuple[str, int, int]  # path, start byte, end byte
Target = tuple[str | None, str, float, str]  # "path::qualified" or None, strategy, confidence, target


def call_sites(root: Path) -> dict[Site, set[Target]]:
    """Every CALLS site of ``root``'s published store with its targets."""
    store = StateDir.for_root(root).published_store()
    if store is None:
        raise SystemExit(f"{root}: no published index (run `lazy-intel index` there first)")
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        names = dict(conn.execute("SELECT id, path || '::' || qualified_name FROM nodes"))
        sites: dict[Site, set[Target]] = collections.defaultdict(set)
        rows = conn.execute(
            "SELECT path, start_byte, end_byte, target, dst, strategy, confidence FROM edges "
            "WHERE type = 'CALLS'"
        )
        for path, start, end, target, dst, strategy, confidence in rows:
            sites[(path, start, end)].add((names.get(dst), strategy, round(confidence, 2), target or ""))
        return sites
    finally:
        conn.close()


def resolved(targets: set[Target]) -> set[str]:
    return {dst for dst, strategy, _, _ in targets if dst is not None and strategy != "ambiguous"}


def compare(old: dict[Site, set[Target]], new: dict[Site, set[Target]]) -> dict[str, list[Site]]:
    """Sites by change: ``newly resolved``, ``lost``, ``different target`` (pure)."""
    out: dict[str, list[Site]] = {"newly resolved": [], "lost": [], "different target": []}
    for site in sorted(old.keys() | new.keys()):
        before, after = resolved(old.get(site, set())), resolved(new.get(site, set()))
        if before and after and before != after:
            out["different target"].append(site)
        elif after and not before:
            out["newly resolved"].append(site)
        elif before and not after:
            out["lost"].append(site)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--examples", type=int, default=10, help="random examples per kind of change")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    old, new = call_sites(args.old), call_sites(args.new)
    for label, sites in (("old", old), ("new", new)):
        counts = collections.Counter(t[1] for targets in sites.values() for t in targets)
        print(f"{label} edges by strategy: " + ", ".join(f"{s} {n:,}" for s, n in counts.most_common()))
    changes = compare(old, new)
    print("sites: " + ", ".join(f"{kind} {len(sites):,}" for kind, sites in changes.items()))
    rng = random.Random(args.seed)
    for kind, sites in changes.items():
        for site in rng.sample(sites, min(args.examples, len(sites))):
            print(f"{kind}: {site[0]}@{site[1]}: {sorted(old.get(site, ()), key=str)} -> "
                  f"{sorted(new.get(site, ()), key=str)}")  # fmt: skip
    print("command: python " + " ".join(sys.argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())

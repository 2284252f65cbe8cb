"""CPU of the questions a client polling for an edit asks: ``status`` and a ``symbol`` that finds nothing.

Usage:
    python bench/poll_cost.py --root DIR [--calls 20] [--profile status] [--top 25]

``DIR`` is an indexed tree (``lazy-intel index DIR``). Opens it as ``serve`` does (one workspace, the
published view kept between calls; no watcher) and answers each question ``--calls`` times through
``execute`` with ``freshness: fast``, as ``bench/edit_latency.py`` asks them: CPU milliseconds per
call (median and fastest; the first call apart, it opens the view), and with ``--profile OPERATION``
a ``cProfile`` of that operation's calls on a CPU clock. ``--publish`` makes a sync (one file changed)
file between rounds (``--publish-path``, a function appended) so the calls after a publication (a new
generation) are measured too, as a poll right after an edit pays them. The edits are left in the tree:
use a scratch copy.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shlex
import statistics
import sys
import time
from pathlib import Path

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace

QUESTIONS = {
    "status": {"operation": "status", "freshness": "fast"},
    "symbol-miss": {"operation": "symbol", "symbol": "bench_poll_cost_absent_name", "freshness": "fast"},
    "symbol-hit": {"operation": "symbol", "symbol": "Field", "freshness": "fast"},
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--profile", choices=sorted(QUESTIONS), help="cProfile this question's calls")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--publish", type=int, default=0, help="rounds, each after a one-file sync")
    parser.add_argument("--publish-path", default="django/utils/safestring.py")
    args = parser.parse_args()
    root = args.root.resolve()
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    ws = Workspace.open(root)
    profile = cProfile.Profile(time.process_time)
    digest: dict[str, set[str]] = {name: set() for name in QUESTIONS}

    def ask(name: str) -> float:
        cpu = time.process_time()
        if args.profile == name:
            profile.enable()
        answer = execute(QUESTIONS[name], lambda _root: ws, ws.settings)
        profile.disable()
        spent = time.process_time() - cpu
        digest[name].add(answer.status)
        return spent * 1000

    try:
        rounds: list[dict[str, list[float]]] = []
        for number in range(1 + args.publish):
            if number:
                path = root / args.publish_path
                path.write_text(
                    path.read_text() + f"\n\ndef bench_poll_cost_{time.time_ns()}():\n    return 1\n"
                )
                ws.sync()
            rounds.append({name: [ask(name) for _ in range(args.calls)] for name in QUESTIONS})
    finally:
        ws.close()
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"load average before {load_before}, after " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"\n{'question':14} {'round':>5} {'first ms':>9} {'p50 ms':>8} {'min ms':>8}  statuses")
    for number, spent in enumerate(rounds):
        for name, values in spent.items():
            rest = values[1:] or values
            print(
                f"{name:14} {number:5} {values[0]:9.2f} {statistics.median(rest):8.2f} {min(rest):8.2f}  "
                + ",".join(sorted(digest[name]))
            )
    if args.profile:
        for key in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(key).print_stats(args.top)
            print(f"\n== {args.profile} by {key}")
            print(out.getvalue().split("\n", 6)[-1])


if __name__ == "__main__":
    main()

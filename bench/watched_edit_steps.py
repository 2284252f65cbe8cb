"""Where a watched edit's time goes in a warm ``serve`` on an existing build, step by step.

Usage:
    PYTHONPATH=<snapshot>/src:<snapshot> python bench/watched_edit_steps.py TREE STATE [--edits 5] [--no-carry]

Opens the workspace, starts serving (the watcher, the scheduler), waits until the catch-up sync is
done and the server is warm, then edits ``--edits`` files (``serve_start.py``'s choice: every
997th Python file over 2 kB in path order), each a function appended and then restored: two syncs
per file. For each sync, as JSON lines: seconds from the write until the watcher recorded the path
(``event``, seen by a 2 ms poll that also opens a read view, so an upper bound), until the
scheduler started the sync (``sync_start``), until a read view shows the new generation
(``visible``), and the sync's own report (its seconds, the graph update's seconds). ``--no-carry``
turns off the name lookups an incremental update hands the next (``graph/program.py``
``CARRIED_LOOKUP_MIN_S`` set to infinity: nothing is dear enough), for an on/off comparison in one
version. Run it under ``py-spy record -r 200 --threads -f raw -o OUT -- python ...`` for a profile.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_start import ADDED, _targets, _workspace

WAIT_S = 600.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tree", type=Path)
    parser.add_argument("state", type=Path)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--no-carry", action="store_true")
    args = parser.parse_args()
    if args.no_carry:
        import lazy_intel.graph.program as program_module

        program_module.CARRIED_LOOKUP_MIN_S = float("inf")
    ws, _settings = _workspace(args.tree, args.state)
    try:
        ws.start_serving()
        ws.wait_background(WAIT_S)
        ws.scheduler.wait_until(lambda: ws._prepared_for_edits and not ws.scheduler.busy, WAIT_S)

        def generation() -> int:
            with ws.read() as view:
                return int(view.generation)

        for target in _targets(args.tree, args.edits):
            original = target.read_bytes()
            for what, data in (("edit", original + ADDED), ("restore", original)):
                before, seq = generation(), ws.tracker.seq
                written = time.monotonic()
                target.write_bytes(data)
                event = None
                while generation() <= before:
                    if event is None and ws.tracker.seq != seq:
                        event = time.monotonic()
                    if time.monotonic() - written > WAIT_S:
                        raise SystemExit(f"not published within {WAIT_S} s")
                    time.sleep(0.002)
                visible = time.monotonic()
                started = ws.scheduler.running_since
                ws.scheduler.wait_until(lambda: not ws.scheduler.busy, WAIT_S)
                report = ws.last_report
                row = {
                    "file": str(target.relative_to(args.tree)),
                    "what": what,
                    "event": round((event or visible) - written, 3),
                    "sync_start": round(started - written, 3) if started is not None else None,
                    "visible": round(visible - written, 3),
                    "report_s": round(report.seconds, 3) if report is not None else None,
                    "graph_s": round(report.graph.seconds, 3)
                    if report is not None and report.graph
                    else None,
                }
                print(json.dumps(row), flush=True)
            target.write_bytes(original)
    finally:
        ws.close()


if __name__ == "__main__":
    main()

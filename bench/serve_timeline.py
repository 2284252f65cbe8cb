"""Where a starting ``serve``'s first watched edit waits: a timeline of one serving process.

Usage:
    python bench/serve_timeline.py --tree DIR --state DIR [--write-at 6.0] [--target REL]

Opens the workspace, starts serving (the watcher, the catch-up), writes one edit ``--write-at``
seconds after the open (before, during or after the catch-up's comparison, as you choose), waits
until a read view shows it, restores it, and prints every event stamped with the seconds since the
open and the thread it ran on: the watcher ready and its reports, the comparison's start and end,
each sync's start and end (generation, scoped, seconds) and each after-sync step (the warm-up and
the collection). Run it with ``PYTHONPATH=<snapshot>/src`` to see another version's timeline. Found
with it (docs/design/scale.md, *The first watched edit after a start, at 100k*): the first edit's
0.09 s sync waited 2.65 s behind the warm-up on the sync thread.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path
from typing import Any

ADDED = b"\n\ndef serve_timeline_added(x):\n    return x\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--write-at", type=float, default=6.0, help="seconds after the open")
    parser.add_argument("--target", help="the file to edit, relative to the tree (default: a .py file)")
    args = parser.parse_args()

    from lazy_intel.service import workspace as workspace_module
    from lazy_intel.service.indexing import reconcile
    from lazy_intel.service.indexing import scheduler as scheduler_module
    from lazy_intel.settings import load_settings

    started = time.perf_counter()
    events: list[tuple[float, str, str]] = []

    def event(what: str) -> None:
        events.append((time.perf_counter() - started, threading.current_thread().name[:28], what))

    compare = reconcile.changed_while_unwatched

    def timed_compare(*a: Any, **k: Any) -> Any:
        event("comparison starts")
        found = compare(*a, **k)
        event(f"comparison ends: {len(found.paths)} changed, listing needed: {found.needs_listing}")
        return found

    after_sync = workspace_module.Workspace._after_sync

    def timed_after_sync(self: Any) -> None:
        event("after-sync starts")
        after_sync(self)
        event("after-sync ends")

    run_locked = scheduler_module.SyncScheduler._run_locked

    def timed_run_locked(self: Any, *a: Any, **k: Any) -> None:
        event("sync starts")
        run_locked(self, *a, **k)
        r = self.last_report
        event(
            f"sync ends: generation {r.generation}, scoped {r.scoped}, {r.seconds:.3f} s"
            if r
            else "sync ends"
        )

    on_change = workspace_module.Workspace._on_source_change

    def timed_on_change(self: Any, paths: list[str]) -> None:
        event(f"watcher reports {len(paths)} path(s)")
        on_change(self, paths)

    reconcile.changed_while_unwatched = timed_compare
    workspace_module.Workspace._after_sync = timed_after_sync  # type: ignore[method-assign]
    scheduler_module.SyncScheduler._run_locked = timed_run_locked  # type: ignore[method-assign]
    workspace_module.Workspace._on_source_change = timed_on_change  # type: ignore[method-assign]

    target = (
        args.tree / args.target
        if args.target
        else next(p for p in sorted(args.tree.rglob("*.py")) if p.stat().st_size > 2000)
    )
    original = target.read_bytes()
    settings = load_settings(env={**os.environ, "LAZY_INTEL_EMBEDDING": "none"})
    started = time.perf_counter()
    event("open")
    ws = workspace_module.Workspace.open(args.tree, settings=settings, state_dir=args.state)

    def generation() -> int:
        with ws.read() as view:
            return int(view.generation)

    def wait_past(before: int) -> None:
        while generation() <= before:
            time.sleep(0.005)

    event(f"first read: generation {generation()}")
    ws.start_serving()
    event("start_serving returned")
    watcher = ws.watcher
    if watcher is not None:
        threading.Thread(
            target=lambda: watcher.wait_ready(600) and event("watcher ready"), daemon=True
        ).start()
    while time.perf_counter() - started < args.write_at:
        time.sleep(0.005)
    try:
        before = generation()
        event(f"edit written to {target.relative_to(args.tree)}")
        written = time.perf_counter()
        target.write_bytes(original + ADDED)
        wait_past(before)
        event(f"edit visible after {time.perf_counter() - written:.3f} s")
        ws.wait_background(600)
        event("background work done")
    finally:
        restored = generation()
        target.write_bytes(original)
        wait_past(restored)
        event("restored")
        ws.close()
    for at, thread, what in events:
        print(f"{at:8.3f}  {thread:28s}  {what}")
    print("catch-up:", ws.last_catch_up)


if __name__ == "__main__":
    main()

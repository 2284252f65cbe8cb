"""A ``serve`` starting on a store another process wrote: time to its first answer, then watched edits.

Usage:
    python bench/serve_start.py --tree DIR --state DIR --source base=SNAP --source new=SNAP \
        [--rounds 3] [--edits 5] [--out result.json]

Each round, for each source in turn (a ``git archive`` of a commit, with ``src/``; its process runs
with ``PYTHONPATH=SNAP/src:SNAP``): a *writer* process of that source edits one file, syncs, restores
it and syncs again (what a CLI call or an earlier ``serve`` does to the store: not timed, except its
pre-write checks), then a *server* process of the same source opens the workspace, starts serving
(``start_serving``: the watcher, the scheduler) and asks one ``search`` (``freshness: fast``): the
wall from opening the workspace to that answer is **first answer**. Then ``--edits`` watched edits
(different files, each edited then restored), each timed from the write until a read view shows the
new generation (the watcher's debounce, scheduling, the sync and the publication included), with the
sync's own seconds from the scheduler's last report. The state directory is shared by all sources:
each writer's edits leave the store as the next server finds it — unless ``--state-of LABEL=DIR``
gives a source its own copy (two builds whose stores differ in schema must not share one).

``--down-change``: before the server opens, one more file (not among the edited ones) is changed
as if while no server ran; **down change visible** is the wall from opening the workspace until a
read view holds it (the catch-up's publication); it is restored (a watched edit) at the end. Where
the source has it, the catch-up's own report (``Workspace.last_catch_up``) and whether it was still
comparing when the first edit was written (``catching_up_at_first_edit``) are recorded too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

QUERY = "parse configuration file"
ADDED = b"\n\ndef serve_start_added_function(x):\n    return x\n"
DOWN = b"\n\ndef serve_start_changed_while_down(x):\n    return x\n"
WAIT_S = 900.0  # a writer that must check an 11 GB store first, at load ~10


def _targets(tree: Path, count: int) -> list[Path]:
    found: list[Path] = []
    for path in sorted(tree.rglob("*.py")):
        if path.stat().st_size > 2000:
            found.append(path)
        if len(found) >= count * 997:
            break
    return found[::997][:count] or found[:count]


def _workspace(tree: Path, state: Path) -> Any:
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    settings = load_settings(env={**os.environ, "LAZY_INTEL_EMBEDDING": "none"})
    return Workspace.open(tree, settings=settings, state_dir=state), settings


def write_phase(tree: Path, state: Path) -> dict[str, Any]:
    """Edit one file, sync, restore, sync: the store is left as another process wrote it."""
    ws, _settings = _workspace(tree, state)
    target = _targets(tree, 1)[0]
    original = target.read_bytes()
    try:
        started = time.perf_counter()
        target.write_bytes(original + ADDED)
        first = ws.sync(timeout_s=WAIT_S)
        first_s = time.perf_counter() - started
        target.write_bytes(original)
        second = ws.sync(timeout_s=WAIT_S)
    finally:
        target.write_bytes(original)
        ws.close()
    return {"first_sync_s": round(first_s, 3), "syncs_s": [round(first.seconds, 3), round(second.seconds, 3)]}


def serve_phase(tree: Path, state: Path, edits: int, down_change: bool = False) -> dict[str, Any]:
    from lazy_intel.service.ops.operations import execute
    from lazy_intel.workspace.capture import sha256_bytes

    down = _targets(tree, edits + 1)[-1] if down_change else None
    down_original = down.read_bytes() if down is not None else b""
    if down is not None:
        down.write_bytes(down_original + DOWN)
    down_sha = sha256_bytes(down.read_bytes()) if down is not None else ""
    opened = time.perf_counter()
    ws, settings = _workspace(tree, state)
    down_visible: list[float] = []

    def generation() -> int:
        with ws.read() as view:
            if down is not None and not down_visible:
                row = view.conn.execute(
                    "SELECT sha256 FROM files WHERE path = ?", (str(down.relative_to(tree)),)
                ).fetchone()
                if row is not None and row[0] == down_sha:
                    down_visible.append(time.perf_counter() - opened)
            return int(view.generation)

    def wait_past(before: int) -> float:
        started = time.perf_counter()
        while generation() <= before:
            if time.perf_counter() - started > WAIT_S:
                raise SystemExit(f"the edit was not published within {WAIT_S} s")
            time.sleep(0.01)
        return time.perf_counter() - started

    try:
        ws.start_serving()
        answer = execute(
            {"operation": "search", "query": QUERY, "limit": 10, "freshness": "fast"}, lambda _r: ws, settings
        )
        first_answer = time.perf_counter() - opened
        visible, syncs = [], []
        catching_up: bool | None = None
        for target in _targets(tree, edits):
            original = target.read_bytes()
            before = generation()
            try:
                started = time.perf_counter()
                if catching_up is None and hasattr(ws, "catching_up"):
                    catching_up = bool(ws.catching_up())
                target.write_bytes(original + ADDED)
                wait_past(before)
                visible.append(time.perf_counter() - started)
                ws.scheduler.wait_until(lambda: not ws.scheduler.busy, WAIT_S)  # its report is set after
                report = ws.last_report
                syncs.append(report.seconds if report is not None else float("nan"))
            finally:
                restored = generation()
                target.write_bytes(original)
                wait_past(restored)
        if down is not None:
            ws.wait_background(WAIT_S)
            while not down_visible and time.perf_counter() - opened < WAIT_S:
                generation()
                time.sleep(0.01)
        return {
            "first_answer_s": round(first_answer, 3),
            "answer_status": answer.status,
            "edit_visible_s": [round(x, 3) for x in visible],
            "edit_sync_s": [round(x, 3) for x in syncs],
            "down_change_visible_s": round(down_visible[0], 3) if down_visible else None,
            "catching_up_at_first_edit": catching_up,
            "catch_up": getattr(ws, "last_catch_up", None),
        }
    finally:
        if down is not None:
            restored = generation()
            down.write_bytes(down_original)
            ws.wait_background(WAIT_S)
            started = time.perf_counter()
            while generation() <= restored and time.perf_counter() - started < WAIT_S:
                time.sleep(0.01)
        ws.close()


def _run(source: Path, phase: str, args: argparse.Namespace, state: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{source}/src:{source}"}
    command = [
        sys.executable,
        __file__,
        "--phase",
        phase,
        "--tree",
        str(args.tree),
        "--state",
        str(state),
    ]
    command += ["--edits", str(args.edits)] + (["--down-change"] if args.down_change else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{phase} of {source} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    first = [r["serve"]["first_answer_s"] for r in runs]
    first_edit = [r["serve"]["edit_visible_s"][0] for r in runs if r["serve"]["edit_visible_s"]]
    later = [x for r in runs for x in r["serve"]["edit_visible_s"][1:]]
    down = [r["serve"]["down_change_visible_s"] for r in runs if r["serve"].get("down_change_visible_s")]
    syncs = [x for r in runs for x in r["serve"]["edit_sync_s"]]
    return {
        "first_answer_median_s": round(statistics.median(first), 3),
        "first_edit_median_s": round(statistics.median(first_edit), 3) if first_edit else None,
        "later_edits_median_s": round(statistics.median(later), 3) if later else None,
        "sync_median_s": round(statistics.median(syncs), 3) if syncs else None,
        "down_change_visible_median_s": round(statistics.median(down), 3) if down else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--source", action="append", default=[], help="LABEL=DIR (repeatable)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--state-of", action="append", default=[], help="LABEL=DIR: that source's own state")
    parser.add_argument("--down-change", action="store_true", help="change one file before each serve")
    parser.add_argument("--phase", choices=("write", "serve"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "write":
        print(json.dumps(write_phase(args.tree, args.state)))
        return
    if args.phase == "serve":
        print(json.dumps(serve_phase(args.tree, args.state, args.edits, args.down_change)))
        return
    sources = dict(item.split("=", 1) for item in args.source)
    states = {label: Path(d) for label, d in (item.split("=", 1) for item in args.state_of)}
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in sources}
    for round_no in range(args.rounds):
        for label, source in sources.items():
            load = os.getloadavg()[0]
            state = states.get(label, args.state)
            written = _run(Path(source), "write", args, state)
            served = _run(Path(source), "serve", args, state)
            run = {"round": round_no, "load": round(load, 2), "write": written, "serve": served}
            runs[label].append(run)
            print(label, json.dumps(run), flush=True)
    result = {"runs": runs, "summary": {label: _summary(r) for label, r in runs.items() if r}}
    print(json.dumps(result["summary"], indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

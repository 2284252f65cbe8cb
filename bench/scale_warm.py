"""What a warm serve pays per edit and per impact on a large tree: main's way against this branch's, in one run.

Usage:
    python bench/scale_warm.py TREE STATE_DIR [--edits 8]

``TREE`` / ``STATE_DIR``: a build made earlier (``python bench/scale.py --files 15000 --work W``
leaves ``W/tree`` and ``W/state-sqlite``). In one warm process, alternating the order each round so
drift and other jobs' load fall on both sides alike:

- a scoped one-file sync (the watcher's hint for an edited file, as in ``serve``), with the removal
  of unreferenced captured bytes done main's way (a scan of every ``contents`` row) and this
  branch's way (by the hashes the publication released); CPU seconds of the process and wall,
  medians, new / main;
- ``impact`` depth 3 on the five most-called functions, with the walk's last level (the nodes one
  hop past the depth) counted main's way (whole edge rows in site order) and this branch's way
  (``SELECT DISTINCT`` of the far end); CPU ms, medians and p95, new / main; answers compared.

Also printed: the SQL statements of one scoped sync that took longest (what is left growing with
the tree). Machine shared and noisy: the ratios are the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lazy_intel.service.indexing.sync as sync_module  # noqa: E402
from lazy_intel.graph import queries  # noqa: E402
from lazy_intel.service.ops.operations import execute  # noqa: E402
from lazy_intel.service.workspace import Workspace  # noqa: E402
from lazy_intel.settings import load_settings  # noqa: E402
from lazy_intel.store import writer  # noqa: E402
from scale import pick_symbols  # noqa: E402

ADDED = "\n\ndef scale_warm_added_{0}(x):\n    return x\n"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _main_contents_cleanup(self: writer.StoreWriter, *, everything: bool) -> None:
    self.conn.execute("DELETE FROM contents WHERE sha256 NOT IN (SELECT sha256 FROM files)")


def _main_edge_ends(conn: Any, ids: Any, types: Any, *, incoming: bool) -> set[int]:
    fetched = (
        queries.edges_into(conn, ids, types)
        if incoming
        else queries.edges_out_of(conn, ids, types, resolved_only=True)
    )
    return {(e.src if incoming else e.dst) for e in fetched} - {None}  # type: ignore[misc]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _edit(ws: Workspace, tree: Path, target: Path, tag: str) -> tuple[float, float]:
    rel = target.relative_to(tree).as_posix()
    original = target.read_bytes()
    try:
        target.write_bytes(original + ADDED.format(tag).encode())
        ws.tracker.record([rel])
        ws._scoped_in_a_row = 0  # every edit here is a scoped sync (serve lists the scope every 32nd)
        cpu, wall = _cpu(), time.perf_counter()
        report = ws.sync()
        cpu, wall = _cpu() - cpu, time.perf_counter() - wall
        if not (report.scoped and report.modified == 1):
            raise SystemExit(f"not a scoped one-file sync: {report.to_dict()}")
    finally:
        target.write_bytes(original)
        ws.tracker.record([rel])
        ws.sync()
    return cpu, wall


def edits(ws: Workspace, tree: Path, count: int) -> dict[str, Any]:
    ways = {"main": _main_contents_cleanup, "new": writer.StoreWriter._drop_unreferenced_contents}
    targets = [p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000][::499][:count]
    runs: dict[str, list[tuple[float, float]]] = {"main": [], "new": []}
    try:
        for i, target in enumerate(targets):
            for name in ("main", "new") if i % 2 == 0 else ("new", "main"):
                writer.StoreWriter._drop_unreferenced_contents = ways[name]  # type: ignore[method-assign]
                runs[name].append(_edit(ws, tree, target, name))
    finally:
        writer.StoreWriter._drop_unreferenced_contents = ways["new"]  # type: ignore[method-assign]
    out: dict[str, Any] = {
        name: {
            "cpu_s": round(statistics.median(c for c, _ in values), 3),
            "wall_s": round(statistics.median(w for _, w in values), 3),
            "n": len(values),
        }
        for name, values in runs.items()
    }
    out["new_over_main_cpu"] = round(out["new"]["cpu_s"] / out["main"]["cpu_s"], 3)
    out["new_over_main_wall"] = round(out["new"]["wall_s"] / out["main"]["wall_s"], 3)
    return out


def impacts(ws: Workspace, settings: Any, symbols: list[str], rounds: int = 4) -> dict[str, Any]:
    ways = {"main": _main_edge_ends, "new": queries.edge_ends}
    times: dict[str, list[float]] = {"main": [], "new": []}
    answers: dict[tuple[str, str], Any] = {}
    try:
        for round_ in range(rounds):
            for name in ("main", "new") if round_ % 2 == 0 else ("new", "main"):
                queries.edge_ends = ways[name]  # type: ignore[assignment]
                for symbol in symbols:
                    request = {"operation": "impact", "symbol": symbol, "depth": 3, "freshness": "fast"}
                    cpu = _cpu()
                    answer = execute(request, lambda _r: ws, settings).to_dict()
                    if round_:  # the first round warms both
                        times[name].append((_cpu() - cpu) * 1000)
                    answers[(name, symbol)] = (answer["data"], answer["coverage"], answer["items"])
    finally:
        queries.edge_ends = ways["new"]  # type: ignore[assignment]
    out: dict[str, Any] = {
        name: {
            "cpu_median_ms": round(statistics.median(v), 1),
            "cpu_p95_ms": round(_p95(v), 1),
            "n": len(v),
        }
        for name, v in times.items()
    }
    out["new_over_main_median"] = round(out["new"]["cpu_median_ms"] / out["main"]["cpu_median_ms"], 3)
    out["answers_equal"] = all(answers[("main", s)] == answers[("new", s)] for s in symbols)
    return out


class _TimedConnection:
    """A store connection that adds up each statement's execute + fetch time by its text."""

    def __init__(self, conn: Any, stats: dict[str, list[float]]) -> None:
        self._conn = conn
        self._stats = stats

    def _timed(self, sql: str, run: Any) -> Any:
        key = re.sub(r"\s+", " ", sql)[:110]
        started = time.perf_counter()
        cursor = run()
        rows = _Rows(cursor.fetchall())
        rows.lastrowid, rows.rowcount = cursor.lastrowid, cursor.rowcount
        self._stats[key][0] += time.perf_counter() - started
        self._stats[key][1] += len(rows)
        return rows

    def execute(self, sql: str, *args: Any) -> Any:
        return self._timed(sql, lambda: self._conn.execute(sql, *args))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._conn, name, value)


class _Rows(list):  # type: ignore[type-arg]
    """A statement's rows, fetched: what the writer reads of a cursor."""

    lastrowid: int | None = None
    rowcount: int = -1

    def fetchone(self) -> Any:
        return self.pop(0) if self else None

    def fetchall(self) -> list[Any]:
        rows = list(self)
        self.clear()
        return rows


def slowest_statements(ws: Workspace, tree: Path, top: int = 6) -> list[str]:
    stats: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    real = sync_module.connect
    target = [p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000][499]
    sync_module.connect = lambda *a, **k: _TimedConnection(real(*a, **k), stats)  # type: ignore[assignment]
    try:
        _edit(ws, tree, target, "traced")
    finally:
        sync_module.connect = real
    ordered = sorted(stats.items(), key=lambda kv: -kv[1][0])[:top]
    return [f"{seconds * 1000:7.1f} ms {rows:>7} rows  {sql}" for sql, (seconds, rows) in ordered]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("state", type=Path)
    parser.add_argument("--edits", type=int, default=8)
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]), "| load", os.getloadavg())
    settings = load_settings(env={**os.environ, "LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(args.tree, settings=settings, state_dir=args.state)
    ws.watching = lambda: True  # type: ignore[method-assign]  # the watcher's hint is trusted, as in serve
    try:
        ws.sync()
        print("scoped one-file sync:", edits(ws, args.tree, args.edits), flush=True)
        print(
            "impact depth 3:", impacts(ws, settings, pick_symbols(args.tree, args.state, {}, 5)), flush=True
        )
        print(
            "slowest statements of one edit and its restore (two scoped syncs, the branch's way; execute + fetch):"
        )
        for line in slowest_statements(ws, args.tree):
            print("  " + line)
        print("load", os.getloadavg())
    finally:
        ws.close()


if __name__ == "__main__":
    main()

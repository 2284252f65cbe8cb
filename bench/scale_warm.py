"""What a warm serve pays per edit and per impact on a large tree: main's way against this branch's, in one run.

Usage:
    python bench/scale_warm.py TREE STATE_DIR [--edits 8]
    python bench/scale_warm.py TREE STATE_DIR --upgrade-from OLD_STATE_DIR   # copy a schema-4 build first

``TREE`` / ``STATE_DIR``: a build made earlier (``python bench/scale.py --files 15000 --work W``
leaves ``W/tree`` and ``W/state-sqlite``), of this branch's schema (5). ``--upgrade-from`` makes one
from a schema-4 build (main's) without rebuilding it: a copy of the state directory to which what
schema 5 adds is added — ``graph_deps`` filled from the deps texts by the same ``fill_deps`` a full
build ends with, the two indexes, the version — the rows a schema-5 build of the same files writes
(``graph_deps`` is a function of ``graph_files.deps``; tests/graph/test_deps_index.py). Bench only:
the product rebuilds an old store on first use. In one warm process, alternating the order each
round so drift and other jobs' load fall on both sides alike:

- a scoped one-file sync (the watcher's hint for an edited file, as in ``serve``), main's way (the
  dependents of the edit by a scan of every ``graph_files.deps`` text, the ``graph_deps`` rows of
  the edited file left as they are, which its restore undoes; every parsed file listed and its
  path index built) and this branch's way (``graph_deps`` by token, its rows kept up to date; the
  listing kept from the last update, ``graph/listing.py``); CPU seconds of the process and wall,
  medians, new / main;
- ``impact`` depth 3 on the five most-called functions, with ``unresolved_named`` main's way (a
  scan of the partial index of every unresolved target for ``target LIKE '%.name'``) and this
  branch's way (``edges_unresolved_name``); CPU ms, medians and p95, new / main; answers compared;
  and the ``unresolved_named`` calls alone, per name.

Also printed: the SQL statements of one scoped sync that took longest (what is left growing with
the tree). Machine shared and noisy: the ratios are the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lazy_intel.service.indexing.sync as sync_module  # noqa: E402
from lazy_intel.graph import build as build_module  # noqa: E402
from lazy_intel.graph import deps_index, listing, queries  # noqa: E402
from lazy_intel.service.ops import graph_evidence  # noqa: E402
from lazy_intel.service.ops.operations import execute  # noqa: E402
from lazy_intel.service.workspace import Workspace  # noqa: E402
from lazy_intel.settings import load_settings  # noqa: E402
from lazy_intel.store.schema import SCHEMA_VERSION, connect, index_statements  # noqa: E402
from lazy_intel.workspace.state import StateDir  # noqa: E402
from scale import pick_symbols  # noqa: E402
from sql_trace import statement_costs, traced  # noqa: E402

ADDED = "\n\ndef scale_warm_added_{0}(x):\n    return x\n"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def upgrade(old_state: Path, state: Path, tree: Path, max_file_bytes: int) -> dict[str, Any]:
    """Copy a schema-4 build to ``state`` and add what schema 5 adds (see the module docstring)."""
    shutil.copytree(old_state, state)
    dir_ = StateDir(state)
    store = dir_.published_store()
    assert store is not None, f"no published store in {old_state}"
    conn = connect(str(store))
    try:
        version = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        assert version == "4", f"{store} has schema {version}"
        started, cpu = time.perf_counter(), _cpu()
        conn.execute("BEGIN")
        conn.execute(
            "CREATE TABLE graph_deps (token TEXT NOT NULL, file_key INTEGER NOT NULL, "
            "PRIMARY KEY (token, file_key)) WITHOUT ROWID"
        )
        rows = deps_index.fill_deps(conn)
        fill = (time.perf_counter() - started, _cpu() - cpu)
        for name, sql in [*index_statements("graph_files"), *index_statements("edges")]:
            if name in ("graph_files_key", "edges_unresolved_name"):
                conn.execute(sql)
        profile = sync_module.store_profile(tree, max_file_bytes)
        conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
        conn.execute("UPDATE meta SET value=? WHERE key='scope_digest'", (profile,))
        conn.execute("COMMIT")
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
    finally:
        conn.close()
    catalog = dir_.read_catalog() or {}
    dir_.write_catalog({**catalog, "schema_version": SCHEMA_VERSION})
    return {
        "graph_deps_rows": rows,
        "fill_wall_s": round(fill[0], 1),
        "fill_cpu_s": round(fill[1], 1),
        "with_indexes_wall_s": round(wall, 1),
        "with_indexes_cpu_s": round(cpu, 1),
        "store_mb": round(store.stat().st_size / 1e6, 1),
    }


# ---- main's ways --------------------------------------------------------------------------------


def _main_dependents(conn: Any, tokens: Iterable[str], exclude: Collection[str] = ()) -> list[str]:
    """main (5d0f318): every file's deps text read, substring-tested, split."""
    dirty = set(tokens)
    few = len(dirty) <= 16
    out = []
    for path, deps in conn.execute("SELECT path, deps FROM graph_files"):
        if few and not any(token in deps for token in dirty):
            continue
        if path not in exclude and not dirty.isdisjoint(deps.split("\n")):
            out.append(path)
    return sorted(out)


def _no_deps_rows(conn: Any, key: int, old: str | None, new: str | None) -> None:
    """main writes no graph_deps rows (an edit and its restore leave the table as it was)."""


def _main_unresolved_named(
    conn: Any, name: str, types: Sequence[str] = queries.CALL_TYPES, limit: int = 10_000
) -> list[queries.GraphEdge]:
    """main (5d0f318): the partial index of every unresolved target scanned for the name."""
    escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    marks = ", ".join("?" * len(types))
    sql = (
        f"SELECT {queries.EDGE_COLUMNS} FROM edges INDEXED BY edges_unresolved "
        "WHERE dst IS NULL AND (target = ? OR target LIKE ? ESCAPE '\\') "
        f"AND strategy IN ('unresolved', 'lambda') AND type IN ({marks}) "
        "ORDER BY path, start_byte LIMIT ?"
    )
    return [queries.GraphEdge.from_row(r) for r in conn.execute(sql, [name, "%." + escaped, *types, limit])]


def _main_listing(conn: Any, changed: Any) -> Any:
    """main: every parsed file read from the store and its path index built, every update."""
    return listing.read_listing(conn, None)


DEPENDENTS = {
    "main": (_main_dependents, _no_deps_rows, _main_listing),
    "new": (deps_index.dependents_of, deps_index.write_deps, listing.read_listing),
}
UNRESOLVED = {"main": _main_unresolved_named, "new": queries.unresolved_named}


def _use_dependents(name: str) -> None:
    build_module.dependents_of, build_module.write_deps, build_module.read_listing = DEPENDENTS[name]  # type: ignore[assignment]


def _use_unresolved(name: str) -> None:
    queries.unresolved_named = UNRESOLVED[name]  # type: ignore[assignment]
    graph_evidence.unresolved_named = UNRESOLVED[name]  # type: ignore[assignment]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _edit(ws: Workspace, tree: Path, target: Path, tag: str) -> tuple[float, float, int]:
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
        dependents = report.graph.dependents if report.graph is not None else 0
    finally:
        target.write_bytes(original)
        ws.tracker.record([rel])
        ws.sync()
    return cpu, wall, dependents


def _targets(tree: Path, count: int) -> list[Path]:
    """Python files of some size, spread over the tree (each edit adds a definition: one dirty
    name, and the interface facets it moves)."""
    return [p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000][::499][:count]


def edits(ws: Workspace, tree: Path, count: int) -> dict[str, Any]:
    runs: dict[str, list[tuple[float, float, int]]] = {"main": [], "new": []}
    try:
        for i, target in enumerate(_targets(tree, count)):
            for name in ("main", "new") if i % 2 == 0 else ("new", "main"):
                _use_dependents(name)
                runs[name].append(_edit(ws, tree, target, name))
    finally:
        _use_dependents("new")
    out: dict[str, Any] = {
        name: {
            "cpu_s": round(statistics.median(c for c, _, _ in values), 3),
            "wall_s": round(statistics.median(w for _, w, _ in values), 3),
            "dependents": [d for _, _, d in values],
            "n": len(values),
        }
        for name, values in runs.items()
    }
    out["same_dependents"] = out["main"]["dependents"] == out["new"]["dependents"]
    out["new_over_main_cpu"] = round(out["new"]["cpu_s"] / out["main"]["cpu_s"], 3)
    out["new_over_main_wall"] = round(out["new"]["wall_s"] / out["main"]["wall_s"], 3)
    return out


def impacts(ws: Workspace, settings: Any, symbols: list[str], rounds: int = 4) -> dict[str, Any]:
    times: dict[str, list[float]] = {"main": [], "new": []}
    walls: dict[str, list[float]] = {"main": [], "new": []}
    answers: dict[tuple[str, str], Any] = {}
    try:
        for round_ in range(rounds):
            for name in ("main", "new") if round_ % 2 == 0 else ("new", "main"):
                _use_unresolved(name)
                for symbol in symbols:
                    request = {"operation": "impact", "symbol": symbol, "depth": 3, "freshness": "fast"}
                    cpu, wall = _cpu(), time.perf_counter()
                    answer = execute(request, lambda _r: ws, settings).to_dict()
                    if round_:  # the first round warms both
                        times[name].append((_cpu() - cpu) * 1000)
                        walls[name].append((time.perf_counter() - wall) * 1000)
                    answers[(name, symbol)] = (answer["data"], answer["coverage"], answer["items"])
    finally:
        _use_unresolved("new")
    out: dict[str, Any] = {
        name: {
            "cpu_median_ms": round(statistics.median(v), 1),
            "cpu_p95_ms": round(_p95(v), 1),
            "wall_median_ms": round(statistics.median(walls[name]), 1),
            "wall_p95_ms": round(_p95(walls[name]), 1),
            "n": len(v),
        }
        for name, v in times.items()
    }
    out["new_over_main_median"] = round(out["new"]["cpu_median_ms"] / out["main"]["cpu_median_ms"], 3)
    out["new_over_main_p95"] = round(out["new"]["cpu_p95_ms"] / out["main"]["cpu_p95_ms"], 3)
    out["answers_equal"] = all(answers[("main", s)] == answers[("new", s)] for s in symbols)
    return out


def unresolved_alone(ws: Workspace, symbols: list[str], rounds: int = 5) -> dict[str, Any]:
    """The ``unresolved_named`` call of each symbol's last name, both ways, on one read view."""
    names = sorted({s.rsplit(".", 1)[-1] for s in symbols})
    times: dict[str, list[float]] = {"main": [], "new": []}
    same = True
    store = ws.store_path()
    assert store is not None
    conn = connect(str(store), readonly=True)
    try:
        for round_ in range(rounds):
            for name in ("main", "new") if round_ % 2 == 0 else ("new", "main"):
                for symbol in names:
                    started = time.perf_counter()
                    found = UNRESOLVED[name](conn, symbol, queries.IMPACT_TYPES)
                    if round_:
                        times[name].append((time.perf_counter() - started) * 1000)
                    same = same and found == UNRESOLVED["main"](conn, symbol, queries.IMPACT_TYPES)
    finally:
        conn.close()
    out: dict[str, Any] = {
        name: {"median_ms": round(statistics.median(v), 2), "p95_ms": round(_p95(v), 2), "n": len(v)}
        for name, v in times.items()
    }
    out["names"] = names
    out["new_over_main_median"] = round(out["new"]["median_ms"] / out["main"]["median_ms"], 4)
    out["same_sites"] = same
    return out


def slowest_statements(ws: Workspace, tree: Path, top: int = 6) -> list[str]:
    costs = statement_costs()
    with traced(sync_module, costs):
        _edit(ws, tree, _targets(tree, 2)[-1], "traced")
    ordered = sorted(costs.items(), key=lambda kv: -kv[1].wall_s)[:top]
    return [f"{cost.wall_s * 1000:7.1f} ms {cost.rows:>7} rows  {sql}" for sql, cost in ordered]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("state", type=Path)
    parser.add_argument("--edits", type=int, default=8)
    parser.add_argument("--upgrade-from", type=Path, default=None, metavar="OLD_STATE_DIR")
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]), "| load", os.getloadavg())
    settings = load_settings(env={**os.environ, "LAZY_INTEL_EMBEDDING": "none"})
    if args.upgrade_from is not None and not args.state.exists():
        print(
            "upgrade:", upgrade(args.upgrade_from, args.state, args.tree, settings.max_file_bytes), flush=True
        )
    ws = Workspace.open(args.tree, settings=settings, state_dir=args.state)
    ws.watching = lambda: True  # type: ignore[method-assign]  # the watcher's hint is trusted, as in serve
    try:
        report = ws.sync()
        if report.full_rebuild:
            raise SystemExit(f"the store was rebuilt, not reused: {report.to_dict()}")
        print("scoped one-file sync:", edits(ws, args.tree, args.edits), flush=True)
        symbols = pick_symbols(args.tree, args.state, {}, 5)
        print("unresolved_named alone:", unresolved_alone(ws, symbols), flush=True)
        print("impact depth 3:", impacts(ws, settings, symbols), flush=True)
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

"""Past one machine: a monorepo-sized build, SQLite against PostgreSQL, and the executors — in one run.

Usage:
    python bench/scale.py                                  # 100,000 files, SQLite and PostgreSQL
    python bench/scale.py --files 20000 --work /tmp/scale  # a smaller tree
    python bench/scale.py --no-postgres                    # SQLite only
    python bench/scale.py --kill-at 0.5                    # also: kill -9 the build half-way, resume
    python bench/scale.py --existing TREE STATE_DIR        # only edits and queries, on a build made there
    python bench/scale.py --reuse-sqlite                   # the SQLite build a previous run left in --work

The tree is built from the benchmark mirrors (``/work/.mirror/<owner>+<name>/repo``): each
repository exported with ``git archive`` at several commits spread over its history, side by side
(``<repo>@<commit>/``), until the tree holds at least ``--files`` files — real code at real sizes,
with the near-duplicates a monorepo of vendored copies and forks has. It is built once and kept.

Printed (and written as JSON with ``--out``): the full build (wall, CPU of the whole process tree,
CPU/wall against the core count, peak RSS of the tree, files/s), a one-file edit made visible by an
incremental sync, ``search`` and ``impact`` (depth 3) median and p95 in one warm process, the same
queries against a PostgreSQL store of the same tree (a real server this script starts and stops)
as ratios to SQLite (both stores open in one process, their rounds interleaved), and with ``--kill-at`` the wall of a build resumed after ``kill -9`` as a
ratio of the full build. Machine: shared and noisy, so every figure that compares is a ratio
measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from index_speed import measure  # noqa: E402

MIRRORS = Path("/work/.mirror")
QUERIES = (
    "parse the configuration file",
    "raise ValueError invalid argument",
    "read_table fits header",
    "assert warnings deprecated",
    "plugin hook call",
    "session request timeout",
    "coordinate transformation frame",
    "sphinx directive node visitor",
)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def build_tree(dest: Path, files: int, commits_per_repo: int, only: tuple[str, ...] = ()) -> int:
    """Export mirrors at several commits into ``dest`` until it holds ``files`` files; returns the
    count. ``only``: just these mirrors (``owner+name``)."""
    marker = dest.parent / f"{dest.name}.json"
    if marker.exists():
        return int(json.loads(marker.read_text())["files"])
    dest.mkdir(parents=True, exist_ok=True)
    repos = sorted(
        p / "repo" for p in MIRRORS.iterdir() if (p / "repo").exists() and (not only or p.name in only)
    )
    plans: list[tuple[Path, str]] = []
    for repo in repos:
        history = _git(repo, "rev-list", "--first-parent", "HEAD").split()
        step = max(1, len(history) // commits_per_repo)
        plans.extend((repo, history[i]) for i in range(0, len(history), step)[:commits_per_repo])
    random.Random(15).shuffle(plans)
    total = 0
    for repo, commit in plans:
        if total >= files:
            break
        name = f"{repo.parent.name.split('+', 1)[1]}@{commit[:10]}"
        target = dest / name
        target.mkdir(exist_ok=True)
        archive = subprocess.Popen(
            ["git", "-C", str(repo), "archive", commit], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        untar = subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout, check=False)
        if archive.wait() != 0 or untar.returncode != 0:
            # a mirror may lack some objects (large files left out of the fetch): skip that commit
            shutil.rmtree(target)
            continue
        total += sum(len(f) for _, _, f in os.walk(target))
    # not a git repository: the scope is the gitignore-aware walk (each export keeps its .gitignore)
    marker.write_text(json.dumps({"files": total, "exports": sorted(p.name for p in dest.iterdir())}))
    return total


def cli() -> str:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    if exe is None:
        raise SystemExit("lazy-intel is not installed next to this Python")
    return exe


# a 100k build takes 30-55 min on 2 cores: past the CLI's default bound (30 min) it would stop and
# need a second run to resume; the bound's maximum instead (a user's setting wins)
BUILD_TIMEOUT_MS = "3600000"


def full_build(tree: Path, state: Path, env: dict[str, str]) -> dict[str, Any]:
    os.environ.update(env)
    os.environ.setdefault("LAZY_INTEL_BOOTSTRAP_TIMEOUT_MS", BUILD_TIMEOUT_MS)
    run = measure([cli(), "index", str(tree), "--state-dir", str(state), "--json"])
    return {
        "wall_s": round(run.seconds, 1),
        "cpu_s": round(run.cpu_seconds, 1),
        "cores_busy": round(run.cpu_seconds / run.seconds, 2),
        "cores": os.cpu_count(),
        "peak_rss_mb": round(run.peak_rss_mb, 1),
    }


def killed_and_resumed(tree: Path, state: Path, full_wall: float, at: float) -> dict[str, Any]:
    """kill -9 a fresh build after ``at`` of the full build's wall time, then build again."""
    shutil.rmtree(state, ignore_errors=True)
    proc = psutil.Popen(
        [cli(), "index", str(tree), "--state-dir", str(state), "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(full_wall * at)
    for child in proc.children(recursive=True):
        child.send_signal(signal.SIGKILL)
    proc.send_signal(signal.SIGKILL)
    proc.wait(60)
    resumed = measure([cli(), "index", str(tree), "--state-dir", str(state), "--json"])
    return {
        "killed_after_s": round(full_wall * at, 1),
        "resumed_wall_s": round(resumed.seconds, 1),
        "resumed_over_full": round(resumed.seconds / full_wall, 2),
    }


def executors(tree: Path, work: Path, indexed: int) -> dict[str, Any]:
    """Full builds with the local and the Ray executor (a local Ray instance started by the build:
    its start-up is part of the wall) at 1 and 2 workers, each Ray build as a ratio to local."""
    out: dict[str, Any] = {}
    for workers in (1, 2):
        row: dict[str, Any] = {}
        for executor in ("local", "ray"):
            state = work / f"state-{executor}-{workers}"
            shutil.rmtree(state, ignore_errors=True)
            env = {
                "LAZY_INTEL_EMBEDDING": "none",
                "LAZY_INTEL_EXECUTOR": executor,
                "LAZY_INTEL_PARSE_WORKERS": str(workers),
                "LAZY_INTEL_RAY_ADDRESS": "local",
            }
            try:
                build = full_build(tree, state, env)
            except SystemExit as exc:  # report the failure and go on with the other builds
                row[executor] = {"failed": str(exc)[-300:]}
                continue
            build["files_s"] = round(indexed / build["wall_s"], 1)
            row[executor] = build
        if "wall_s" in row.get("ray", {}) and "wall_s" in row.get("local", {}):
            row["ray_wall_over_local"] = round(row["ray"]["wall_s"] / row["local"]["wall_s"], 2)
        out[f"{workers}_workers"] = row
        print(f"executors, {workers} worker(s): {row}", flush=True)
    for key in ("LAZY_INTEL_EXECUTOR", "LAZY_INTEL_PARSE_WORKERS", "LAZY_INTEL_RAY_ADDRESS"):
        os.environ.pop(key, None)
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def warm_latency(
    tree: Path, backends: dict[str, tuple[Path, dict[str, str]]], repeat: int, symbols: list[str]
) -> dict[str, dict[str, Any]]:
    """search and impact(depth 3) in one warm process (as in serve), medians and p95 in ms, per
    backend (label -> (state directory, environment)). Each backend's store is opened once and
    warmed (every request asked once, untimed); then every round asks all requests of each backend in turn, so that two backends
    compared share the machine's moments (interleaved, not one after the other)."""
    from lazy_intel.service.ops.operations import execute
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    requests = {
        "search": [{"operation": "search", "query": q, "limit": 10} for q in QUERIES],
        "impact_depth3": [{"operation": "impact", "symbol": s, "depth": 3} for s in symbols],
    }
    environment = {k: v for k, v in os.environ.items() if k != "LAZY_INTEL_STORE"}  # a backend's own
    opened: dict[str, tuple[Any, Any]] = {}
    try:
        for label, (state, env) in backends.items():
            settings = load_settings(env={**environment, **env, "LAZY_INTEL_EMBEDDING": "none"})
            opened[label] = (Workspace.open(tree, settings=settings, state_dir=state), settings)
        times: dict[str, dict[str, list[float]]] = {
            label: {name: [] for name in requests} for label in opened
        }

        def ask(label: str, request: dict[str, Any]) -> float:
            ws, settings = opened[label]
            started = time.perf_counter()
            answer = execute({**request, "freshness": "fast"}, lambda _r: ws, settings)
            if answer.status == "error":
                raise SystemExit(f"{label} {request}: {answer.to_dict()}")
            return (time.perf_counter() - started) * 1000

        first: dict[str, dict[str, list[float]]] = {
            label: {name: [] for name in requests} for label in opened
        }
        for label in opened:  # warm: every request once (a query's first use in a process reads its phrases)
            for name, asked in requests.items():
                first[label][name].extend(ask(label, request) for request in asked)
        for _ in range(repeat):
            for label in opened:
                for name, asked in requests.items():
                    times[label][name].extend(ask(label, request) for request in asked)
        return {
            label: {
                name: {
                    "median_ms": round(statistics.median(values), 1),
                    "p95_ms": round(_percentile(values, 0.95), 1),
                    "n": len(values),
                    # the untimed warm-up: each request's first use in the process (its phrases read)
                    "first_use_median_ms": round(statistics.median(first[label][name]), 1),
                    "first_use_p95_ms": round(_percentile(first[label][name], 0.95), 1),
                }
                for name, values in per_name.items()
            }
            for label, per_name in times.items()
        }
    finally:
        for ws, _settings in opened.values():
            ws.close()


def edit_visible(tree: Path, state: Path, env: dict[str, str]) -> dict[str, Any]:
    """A one-file edit, then an incremental sync in a warm process: seconds until it is published."""
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    settings = load_settings(env={**os.environ, **env, "LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(tree, settings=settings, state_dir=state)
    try:
        ws.sync()  # warm: a no-change sync
        target = next(p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000)
        original = target.read_bytes()
        try:
            target.write_bytes(original + b"\n\ndef scale_bench_added_function(x):\n    return x\n")
            started = time.perf_counter()
            report = ws.sync()
            seconds = time.perf_counter() - started
        finally:
            target.write_bytes(original)
            ws.sync()
        return {
            "path": str(target.relative_to(tree)),
            "sync_s": round(seconds, 3),
            "published": report.published,
        }
    finally:
        ws.close()


def edit_visible_serving(tree: Path, state: Path, env: dict[str, str], edits: int = 5) -> dict[str, Any]:
    """A one-file edit seen the way ``serve`` sees it: the workspace watches the tree
    (``start_serving``), the edit is written, and the time until a read view shows the new
    generation is taken (the watcher's debounce, a scoped sync and the publication included).
    ``edits`` different files, each edited once and restored. Also: one ``search`` in that process
    right after each edit is visible (the new generation's first: what it reads afresh per
    generation included)."""
    from lazy_intel.service.ops.operations import execute
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    settings = load_settings(env={**os.environ, **env, "LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(tree, settings=settings, state_dir=state)

    def generation() -> int:
        with ws.read() as view:
            return view.generation

    def wait_past(before: int, limit_s: float = 120) -> float:
        started = time.perf_counter()
        while generation() <= before:
            if time.perf_counter() - started > limit_s:
                raise SystemExit(f"the edit was not published within {limit_s} s")
            time.sleep(0.01)
        return time.perf_counter() - started

    try:
        ws.start_serving()
        targets = [p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000][::997][:edits]
        seconds = []
        searches = []
        for n, target in enumerate(targets):
            original = target.read_bytes()
            before = generation()
            try:
                started = time.perf_counter()
                target.write_bytes(original + b"\n\ndef scale_bench_added_function(x):\n    return x\n")
                wait_past(before)
                seconds.append(time.perf_counter() - started)
                started = time.perf_counter()
                request = {"operation": "search", "query": QUERIES[n % len(QUERIES)], "limit": 10}
                execute({**request, "freshness": "fast"}, lambda _r: ws, settings)
                searches.append(time.perf_counter() - started)
            finally:
                restored = generation()
                target.write_bytes(original)
                wait_past(restored)
        return {
            "edits": len(seconds),
            "median_s": round(statistics.median(seconds), 3),
            "max_s": round(max(seconds), 3),
            "each_s": [round(x, 3) for x in seconds],
            "search_after_edit_median_ms": round(statistics.median(searches) * 1000, 1),
            "search_after_edit_each_ms": [round(x * 1000, 1) for x in searches],
        }
    finally:
        ws.close()


def search_across_edits(tree: Path, state: Path, env: dict[str, str], edits: int = 3) -> dict[str, Any]:
    """The searches of a warm ``serve`` as edits land: every query of :data:`QUERIES` asked once
    (untimed), then after each watched edit (and after its restore) is visible, every query again,
    timed — each a new generation's first use of phrases the process has read before (issue 15:
    a per-generation cache read them all again)."""
    from lazy_intel.service.ops.operations import execute
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    settings = load_settings(env={**os.environ, **env, "LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(tree, settings=settings, state_dir=state)

    def generation() -> int:
        with ws.read() as view:
            return view.generation

    def wait_past(before: int, limit_s: float = 120) -> None:
        started = time.perf_counter()
        while generation() <= before:
            if time.perf_counter() - started > limit_s:
                raise SystemExit(f"the edit was not published within {limit_s} s")
            time.sleep(0.01)

    def ask_all() -> list[float]:
        out = []
        for query in QUERIES:
            started = time.perf_counter()
            answer = execute(
                {"operation": "search", "query": query, "limit": 10, "freshness": "fast"},
                lambda _r: ws,
                settings,
            )
            out.append((time.perf_counter() - started) * 1000)
            if answer.status == "error":
                raise SystemExit(f"{query}: {answer.to_dict()}")
        return out

    try:
        ws.start_serving()
        ask_all()  # every query once: the phrases a warm serve holds
        targets = [p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000][500::997][:edits]
        times: list[float] = []
        firsts: list[float] = []
        for target in targets:
            original = target.read_bytes()
            try:
                before = generation()
                target.write_bytes(original + b"\n\ndef scale_bench_across_edits(x):\n    return x\n")
                wait_past(before)
                round_ = ask_all()
                times.extend(round_)
                firsts.append(round_[0])
            finally:
                before = generation()
                target.write_bytes(original)
                wait_past(before)
            round_ = ask_all()
            times.extend(round_)
            firsts.append(round_[0])
        return {
            "generations": len(firsts),
            "median_ms": round(statistics.median(times), 1),
            "p95_ms": round(_percentile(times, 0.95), 1),
            "max_ms": round(max(times), 1),
            "n": len(times),
            "first_after_edit_median_ms": round(statistics.median(firsts), 1),
        }
    finally:
        ws.close()


def measure_existing(tree: Path, state: Path, repeat: int) -> dict[str, Any]:
    """The query part alone, on a build made elsewhere (e.g. a 100k build run in the background)."""
    result: dict[str, Any] = {"tree": str(tree), "state": str(state)}
    result["edit_serving"] = edit_visible_serving(tree, state, {})
    print(f"one-file edit, watched: {result['edit_serving']}", flush=True)
    result["search_across_edits"] = search_across_edits(tree, state, {})
    print(f"search across edits: {result['search_across_edits']}", flush=True)
    symbols = pick_symbols(tree, state, {}, 5)
    result["sqlite_latency"] = warm_latency(tree, {"sqlite": (state, {})}, repeat, symbols)["sqlite"]
    print(f"sqlite latency: {result['sqlite_latency']}", flush=True)
    result["edit"] = edit_visible(tree, state, {})
    print(f"one-file edit, sync listing the scope: {result['edit']}", flush=True)
    return result


def pick_symbols(tree: Path, state: Path, env: dict[str, str], count: int) -> list[str]:
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    ws = Workspace.open(tree, settings=load_settings(env={**os.environ, **env}), state_dir=state)
    try:
        with ws.read() as view:
            rows = view.conn.execute(
                "SELECT n.qualified_name, count(*) AS c FROM edges e JOIN nodes n ON n.id = e.dst "
                "WHERE e.type = 'CALLS' AND n.label IN ('Function', 'Method') GROUP BY n.qualified_name "
                "ORDER BY c DESC, n.qualified_name LIMIT ?",
                (count,),
            ).fetchall()
        return [r[0] for r in rows]
    finally:
        ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--commits-per-repo", type=int, default=40)
    parser.add_argument("--work", type=Path, default=HERE / ".cache" / "scale")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--kill-at", type=float, default=0.0, help="kill -9 a build at this share, resume")
    parser.add_argument("--ray", action="store_true", help="also: local vs Ray executor, 1 and 2 workers")
    parser.add_argument("--executors-only", action="store_true", help="only the local vs Ray builds")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--reuse-sqlite",
        action="store_true",
        help="keep the SQLite build a previous run left in WORK (its figures from WORK/sqlite-build.json)",
    )
    parser.add_argument(
        "--existing",
        type=Path,
        nargs=2,
        metavar=("TREE", "STATE_DIR"),
        help="only measure edits and queries on a build already made there",
    )
    args = parser.parse_args()
    if args.existing:
        result = {"command": " ".join([Path(sys.executable).name, *sys.argv])}
        result |= measure_existing(*args.existing, args.repeat)
        print(json.dumps(result, indent=2))
        if args.out:
            args.out.write_text(json.dumps(result, indent=2))
        return

    tree = args.work / "tree"
    count = build_tree(tree, args.files, args.commits_per_repo)
    result: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "tree_files": count,
    }
    print(f"tree: {count} files in {tree}", flush=True)
    if args.executors_only:
        result["executors"] = executors(tree, args.work, count)
        print(json.dumps(result, indent=2))
        return

    state = args.work / "state-sqlite"
    recorded = args.work / "sqlite-build.json"  # the figures of the build in ``state``
    if args.reuse_sqlite and recorded.is_file() and state.is_dir():
        build = json.loads(recorded.read_text()) | {"reused_from": str(recorded)}
    else:
        shutil.rmtree(state, ignore_errors=True)
        recorded.unlink(missing_ok=True)
        build = full_build(tree, state, {"LAZY_INTEL_EMBEDDING": "none"})
        recorded.write_text(json.dumps(build))
    with_status = json.loads(
        subprocess.run(
            [cli(), "status", "--root", str(tree), "--state-dir", str(state), "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    indexed = int(with_status["data"].get("counts", {}).get("files", count))
    build["files_s"] = round(indexed / build["wall_s"], 1)
    result["sqlite_build"] = build
    print(f"sqlite build: {build}", flush=True)
    result["edit"] = edit_visible(tree, state, {})
    print(f"one-file edit: {result['edit']}", flush=True)
    symbols = pick_symbols(tree, state, {}, 5)
    result["sqlite_latency"] = warm_latency(tree, {"sqlite": (state, {})}, args.repeat, symbols)["sqlite"]
    print(f"sqlite latency: {result['sqlite_latency']}", flush=True)

    if not args.no_postgres:
        from tests.pg_server import PostgresServer, postgres_bindir

        bindir = postgres_bindir()
        if bindir is None:
            raise SystemExit("no PostgreSQL binaries (.ci/postgres-install.sh), or pass --no-postgres")
        server = PostgresServer(bindir)
        server.start()
        try:
            dsn = server.create_database("scale_bench")
            pg_env = {"LAZY_INTEL_STORE": dsn, "LAZY_INTEL_EMBEDDING": "none"}
            pg_state = Path(tempfile.mkdtemp(prefix="scale-pg-state-"))
            pg_build = full_build(tree, pg_state, pg_env)
            pg_build["files_s"] = round(indexed / pg_build["wall_s"], 1)
            pg_build["wall_over_sqlite"] = round(pg_build["wall_s"] / build["wall_s"], 2)
            result["postgres_build"] = pg_build
            print(f"postgres build: {pg_build}", flush=True)
            # both stores open in one process, rounds interleaved: the ratio compares like moments
            both = warm_latency(
                tree, {"sqlite": (state, {}), "postgresql": (pg_state, pg_env)}, args.repeat, symbols
            )
            latency = both["postgresql"]
            result["sqlite_latency_beside_postgres"] = both["sqlite"]
            for name, figures in latency.items():
                base = both["sqlite"][name]
                figures["median_over_sqlite"] = round(figures["median_ms"] / base["median_ms"], 2)
                figures["p95_over_sqlite"] = round(figures["p95_ms"] / base["p95_ms"], 2)
            result["postgres_latency"] = latency
            print(f"postgres latency: {latency}", flush=True)
        finally:
            for key in ("LAZY_INTEL_STORE",):
                os.environ.pop(key, None)
            server.cleanup()

    if args.ray:
        result["executors"] = executors(tree, args.work, indexed)
        print(f"executors: {result['executors']}", flush=True)

    if args.kill_at:
        result["kill_9"] = killed_and_resumed(tree, args.work / "state-killed", build["wall_s"], args.kill_at)
        print(f"kill -9 and resume: {result['kill_9']}", flush=True)

    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""What a PostgreSQL full build costs in committed batches, and what a resume after ``kill -9`` costs.

Usage:
    python bench/pg_resume.py --baseline SNAP_BEFORE --after SNAP_AFTER \\
        --mirrors pallets+flask,psf+requests,pydata+xarray --work /tmp/pg-resume

``SNAP_BEFORE``/``SNAP_AFTER`` are ``git archive`` snapshots of two commits (each run with
``PYTHONPATH=<snap>/src:<snap>``). The tree is :func:`scale.build_tree` restricted to the named
mirrors, at one commit each (their HEAD). A real PostgreSQL 15 is started and stopped by the script
(``tests/pg_server.py``). Printed as JSON:

- ``full``: full builds of the tree into fresh repositories of one database, baseline and after
  alternated ``--repeat`` times (wall, CPU of the indexing process tree), and the after/before
  ratio of the median walls;
- ``resume`` (the after snapshot only): a full build killed with ``kill -9`` (the whole process
  tree) once its staging store holds ``--kill-share`` of the files written, then one killed once
  its first batch of resolved files is committed (``--kill-at``), each followed by the resumed ``index``: its wall as a ratio of the
  after snapshot's median full build, the files it parsed again and those the killed build had
  committed.

``LAZY_INTEL_BUILD_BATCH_FILES`` is ``--batch`` for every build (the baseline ignores it: its
PostgreSQL rebuild is one transaction).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from index_speed import measure  # noqa: E402
from scale import build_tree, cli  # noqa: E402


def _env(snap: Path, dsn: str, repository: str, batch: int) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": f"{snap}/src:{snap}",
        "LAZY_INTEL_STORE": dsn,
        "LAZY_INTEL_STORE_REPOSITORY": repository,
        "LAZY_INTEL_EMBEDDING": "none",
        "LAZY_INTEL_WATCH": "false",
        "LAZY_INTEL_BUILD_BATCH_FILES": str(batch),
    }


def full_build(tree: Path, state: Path, env: dict[str, str]) -> dict[str, float]:
    shutil.rmtree(state, ignore_errors=True)
    run = measure([cli(), "index", str(tree), "--state-dir", str(state), "--json"], env=env)
    return {"wall_s": round(run.seconds, 1), "cpu_s": round(run.cpu_seconds, 1)}


def _committed(dsn: str, repository: str, key: str = "build_files") -> int:
    """How many files the staging store of ``repository`` has committed (its meta ``key``); 0
    while the writer has not created the shared tables or the store yet."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as raw:
        try:
            row = raw.execute(
                "SELECT store FROM lazy_intel.builds WHERE repository = %s", [repository]
            ).fetchone()
            if row is None:
                return 0
            got = raw.execute(f'SELECT value FROM "{row[0]}".meta WHERE key = %s', [key]).fetchone()
        except (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName):
            return 0
        return int(got[0]) if got else 0


def killed_and_resumed(
    tree: Path, state: Path, env: dict[str, str], dsn: str, kill_at_files: int, *, key: str = "build_files"
) -> dict[str, Any]:
    """kill -9 a first build once its staging store's meta ``key`` counts ``kill_at_files`` files
    (``build_files``: written; ``build_resolved``: resolved), then resume it."""
    shutil.rmtree(state, ignore_errors=True)
    repository = env["LAZY_INTEL_STORE_REPOSITORY"]
    proc = psutil.Popen(
        [cli(), "index", str(tree), "--state-dir", str(state)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started = time.perf_counter()
    committed = 0
    while committed < kill_at_files:
        if proc.poll() is not None:
            raise SystemExit("the build finished before it could be killed: lower --kill-share or --batch")
        committed = _committed(dsn, repository, key)
        with contextlib.suppress(psutil.TimeoutExpired):
            proc.wait(0.25)  # a bounded wait on the build, which may finish
    killed_after = time.perf_counter() - started
    tree_procs = [proc, *proc.children(recursive=True)]
    for p in tree_procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    psutil.wait_procs(tree_procs, timeout=60)
    committed = _committed(dsn, repository, key)  # the last commit before the kill
    begun = time.perf_counter()
    done = subprocess.run(
        [cli(), "index", str(tree), "--state-dir", str(state), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - begun
    data = json.loads(done.stdout)["data"]
    report = data["last_sync"]
    return {
        "killed_after_s": round(killed_after, 1),
        "killed_at": key,
        "committed_at_kill": committed,
        "resumed_wall_s": round(wall, 1),
        "parsed_on_resume": report["added"] + report["modified"],
        "resolved_before_kill": (report.get("graph") or {}).get("resumed_files", 0),
        "decision": data.get("recovery", {}).get("decision"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--files", type=int, default=800)
    parser.add_argument("--mirrors", default="pallets+flask,psf+requests,pydata+xarray")
    parser.add_argument("--work", type=Path, default=Path("/tmp/pg-resume"))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--kill-share", type=float, default=0.4)
    parser.add_argument("--kill-at", default="build_files,build_resolved", help="build_files, build_resolved")
    args = parser.parse_args()

    from tests.pg_server import PostgresServer, postgres_bindir

    tree = args.work / "tree"
    count = build_tree(tree, args.files, 1, only=tuple(args.mirrors.split(",")))
    result: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "tree_files": count,
        "load_before": os.getloadavg(),
    }
    print(f"tree: {count} files in {tree}", flush=True)
    bindir = postgres_bindir()
    if bindir is None:
        raise SystemExit("no PostgreSQL binaries (.ci/postgres-install.sh)")
    server = PostgresServer(bindir)
    server.start()
    try:
        dsn = str(server.create_database("pg_resume_bench"))
        walls: dict[str, list[dict[str, float]]] = {"baseline": [], "after": []}
        for round_ in range(args.repeat):
            for label, snap in (("baseline", args.baseline), ("after", args.after)):
                env = _env(snap, dsn, f"{label}-{round_}", args.batch)
                walls[label].append(full_build(tree, args.work / f"state-{label}", env))
                print(f"{label} full build {round_}: {walls[label][-1]}", flush=True)
        medians = {
            label: statistics.median(r["wall_s"] for r in runs) for label, runs in walls.items() if runs
        }
        result["full"] = walls
        if len(medians) == 2:
            result["full"]["after_over_baseline"] = round(medians["after"] / medians["baseline"], 2)
        result["resume"] = []
        for key in args.kill_at.split(","):
            env = _env(args.after, dsn, f"killed-{key}", args.batch)
            # resolution counts only the parsed-language files: killed at its first committed batch
            at = int(count * args.kill_share) if key == "build_files" else 1
            resumed = killed_and_resumed(tree, args.work / "state-killed", env, dsn, at, key=key)
            if "after" in medians:
                resumed["resumed_over_full"] = round(resumed["resumed_wall_s"] / medians["after"], 2)
            result["resume"].append(resumed)
            print(f"kill -9 and resume: {resumed}", flush=True)
    finally:
        server.cleanup()
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""Full-index time of django with the dense projection, as a ratio to the index without it (same run).

Downloads the django 5.1.4 sdist once into ``bench/.cache`` (``pip download --no-deps --no-binary
:all: django==5.1.4``), then, for each round, runs ``lazy-intel index`` into a fresh state directory
once with ``LAZY_INTEL_EMBEDDING=none`` and once per ``--embedding`` value (alternating, so machine
load hits both alike), and prints wall and CPU seconds, peak RSS (the process tree, sampled), chunks
and vectors in the index, the embedding rate (vectors per second of (with - none) wall time) and the ratio
of each to the no-dense index. The static table (built once per machine, then cached) is built before
the first timed run and its build time printed apart: a user pays it once, not per index.

Usage:
    python bench/dense_index_time.py [--embedding static] [--rounds 1] [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_speed import Run, measure

CACHE = Path(__file__).resolve().parent / ".cache"
DJANGO = "django==5.1.4"


def django_tree() -> Path:
    """The extracted django 5.1.4 sdist (downloaded once with pip; the archive is ``Django-5.1.4``)."""
    found = [p for p in CACHE.glob("*") if p.is_dir() and p.name.lower() == "django-5.1.4"]
    if found:
        return found[0]
    CACHE.mkdir(exist_ok=True)
    archives = [p for p in CACHE.glob("*.tar.gz") if p.name.lower() == "django-5.1.4.tar.gz"]
    if not archives:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                DJANGO,
                "-d",
                str(CACHE),
            ],
            check=True,
        )
        archives = [p for p in CACHE.glob("*.tar.gz") if p.name.lower() == "django-5.1.4.tar.gz"]
    with tarfile.open(archives[0]) as tar:
        tar.extractall(CACHE, filter="data")
    return next(p for p in CACHE.glob("*") if p.is_dir() and p.name.lower() == "django-5.1.4")


def counts(state: Path) -> tuple[int, int]:
    """(chunks, chunks with a vector) of the store under ``state``."""
    stores = sorted((state / "stores").glob("*.sqlite"), key=lambda p: p.stat().st_mtime)
    conn = sqlite3.connect(f"file:{stores[-1]}?mode=ro", uri=True)
    try:
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        vectors = conn.execute(
            "SELECT count(*) FROM chunks c WHERE EXISTS (SELECT 1 FROM vectors v WHERE v.embed_sha = c.embed_sha)"
        ).fetchone()[0]
    finally:
        conn.close()
    return int(chunks), int(vectors)


def prepare(embedding: str) -> float:
    """Load the embedder once (builds the static table if this machine has none); seconds taken."""
    from lazy_intel.search.embedders import create_embedder, parse_provider_spec

    began = time.perf_counter()
    create_embedder(parse_provider_spec(embedding))
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--embedding", default="static", help="comma-separated LAZY_INTEL_EMBEDDING values")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tree", type=Path, default=None, help="directory to index (default: django 5.1.4)")
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    values = ["none", *[v for v in args.embedding.split(",") if v and v != "none"]]
    prepared = {v: prepare(v) for v in values if v != "none"}
    runs: dict[str, list[tuple[Run, int, int]]] = {v: [] for v in values}
    for _ in range(args.rounds):
        for value in values:
            with tempfile.TemporaryDirectory(prefix="dense-index-") as tmp:
                state = Path(tmp) / "state"
                env_before = os.environ.get("LAZY_INTEL_EMBEDDING")
                os.environ["LAZY_INTEL_EMBEDDING"] = value
                try:
                    run = measure([exe, "index", str(tree), "--state-dir", str(state), "--json"])
                finally:
                    if env_before is None:
                        os.environ.pop("LAZY_INTEL_EMBEDDING", None)
                    else:
                        os.environ["LAZY_INTEL_EMBEDDING"] = env_before
                runs[value].append((run, *counts(state)))
                print(f"{value}: {run.seconds:.0f} s wall, {run.cpu_seconds:.0f} s cpu", file=sys.stderr)
    base = statistics.median(r.seconds for r, _, _ in runs["none"])
    base_cpu = statistics.median(r.cpu_seconds for r, _, _ in runs["none"])
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(
        f"tree: {tree}; machine: {os.cpu_count()} cpus, python {sys.version.split()[0]}; median of {args.rounds}"
    )
    for value, seconds in prepared.items():
        print(
            f"embedder load for {value} before the timed runs (static: table build if not cached): {seconds:.1f} s"
        )
    print()
    print(
        "| LAZY_INTEL_EMBEDDING | wall s | cpu s | wall vs none | cpu vs none | peak RSS MB | chunks | with vector | embed chunks/s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for value in values:
        wall = statistics.median(r.seconds for r, _, _ in runs[value])
        cpu = statistics.median(r.cpu_seconds for r, _, _ in runs[value])
        rss = statistics.median(r.peak_rss_mb for r, _, _ in runs[value])
        chunks, vectors = runs[value][-1][1], runs[value][-1][2]
        rate = f"{vectors / (wall - base):.0f}" if vectors and wall > base else "-"
        print(
            f"| {value} | {wall:.0f} | {cpu:.0f} | {wall / base:.2f}x | {cpu / base_cpu:.2f}x | {rss:.0f} | "
            f"{chunks} | {vectors} | {rate} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

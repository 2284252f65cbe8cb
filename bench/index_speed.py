"""Index speed and memory on a real tree: lazy-intel's default configuration (graph included), Universal
Ctags and the npm CodeGraph indexer, measured in one run, interleaved.

Usage:
    python bench/index_speed.py                      # the Django 5.1.4 sdist (pip download, once)
    python bench/index_speed.py --tree /path/to/repo # any directory
    python bench/index_speed.py --repeat 3           # rounds; each round runs every tool once, in turn
    python bench/index_speed.py --no-codegraph       # ctags and lazy-intel only

Each round runs ``ctags -R``, a full ``lazy-intel index`` into a fresh state directory (the default
configuration: lexical + graph; no embedding model unless LAZY_INTEL_EMBEDDING says so) and
``codegraph init`` (``@colbymchenry/codegraph``, installed by this script with npm into
``bench/.cache/codegraph-<version>``, never committed) on a copy of the tree (CodeGraph writes its
index into the project). Then a no-change sync and a one-file edit of lazy-intel.

Prints per tool the median wall seconds, CPU seconds (user + system of the whole process tree, which a
busy shared machine disturbs less than wall time), peak RSS (the whole process tree, sampled every
20 ms), and ratios to ctags in the same run, with the load average before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

CACHE = Path(__file__).resolve().parent / ".cache"
SAMPLE_S = 0.02


@dataclass
class Run:
    seconds: float
    peak_rss_mb: float
    cpu_seconds: float = 0.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # waited-for descendants, grandchildren included
    return usage.ru_utime + usage.ru_stime


def measure(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
    """Wall time and peak RSS of ``cmd`` and all its descendants (sampled every 20 ms)."""
    started = time.perf_counter()
    cpu_before = _children_cpu()
    proc = psutil.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            try:
                procs = [proc, *proc.children(recursive=True)]
                total = 0
                for p in procs:
                    with contextlib.suppress(psutil.Error):
                        total += p.memory_info().rss
                peak = max(peak, total)
            except psutil.Error:
                pass
            done.wait(SAMPLE_S)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, err = proc.communicate()
    done.set()
    thread.join()
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return Run(elapsed, peak / 1e6, _children_cpu() - cpu_before)


DJANGO = "django==5.1.4"
CODEGRAPH = "@colbymchenry/codegraph@1.6.1"


def django_tree() -> Path:
    """The Django 5.1.4 sdist, downloaded once with pip into bench/.cache."""
    CACHE.mkdir(exist_ok=True)
    name, version = DJANGO.split("==")
    existing = sorted(p for p in CACHE.glob("*/") if p.name.lower() == f"{name}-{version}")
    if existing:
        return existing[-1]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-binary",
            ":all:",
            "--no-deps",
            DJANGO,
            "-d",
            str(CACHE),
        ],
        check=True,
    )
    archive = next(p for p in CACHE.glob("*.tar.gz") if p.name.lower() == f"{name}-{version}.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return next(p for p in CACHE.glob("*/") if p.name.lower() == f"{name}-{version}")


def codegraph_exe() -> Path:
    """The CodeGraph CLI, installed with npm into its own folder under bench/.cache (never committed)."""
    folder = CACHE / ("codegraph-" + CODEGRAPH.rsplit("@", 1)[1])
    exe = folder / "node_modules" / ".bin" / "codegraph"
    if not exe.exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
                str(folder),
                CODEGRAPH,
            ],
            check=True,
        )
    return exe


def tree_stats(root: Path) -> tuple[int, int]:
    from lazy_intel.parse.languages import is_parsed_language, language_for_path

    files = 0
    lines = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".lazy-intel"]
        for name in filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if is_parsed_language(language_for_path(rel)):
                files += 1
                with open(os.path.join(dirpath, name), "rb") as fh:
                    lines += fh.read().count(b"\n")
    return files, lines


def _median(runs: list[Run]) -> Run:
    return Run(
        statistics.median(r.seconds for r in runs),
        statistics.median(r.peak_rss_mb for r in runs),
        statistics.median(r.cpu_seconds for r in runs),
    )


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="directory to index (default: the Django 5.1.4 sdist)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds (the median of each tool is reported)")
    parser.add_argument("--no-codegraph", action="store_true", help="leave the npm CodeGraph indexer out")
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    ctags = shutil.which("ctags")
    if ctags is None:
        raise SystemExit("ctags not found: apt install universal-ctags")
    codegraph = None if args.no_codegraph else codegraph_exe()
    files, loc = tree_stats(tree)
    load_before = _load()
    runs: dict[str, list[Run]] = {"ctags": [], "full": [], "noop": [], "edit": [], "codegraph": []}
    total_files = 0
    cg_env = {**os.environ, "CODEGRAPH_TELEMETRY": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "copy"  # a copy for the tools that write into the tree they index
        shutil.copytree(tree, work, ignore=shutil.ignore_patterns(".lazy-intel", ".codegraph"))
        for round_ in range(args.repeat):
            tags = Path(tmp) / "tags"
            runs["ctags"].append(measure([ctags, "-R", "-f", str(tags), "--exclude=.lazy-intel", str(tree)]))
            state = Path(tmp) / f"state-{round_}"
            runs["full"].append(measure([exe, "index", str(tree), "--state-dir", str(state), "--json"]))
            if codegraph is not None:
                shutil.rmtree(work / ".codegraph", ignore_errors=True)
                runs["codegraph"].append(measure([str(codegraph), "init", "-y", str(work)], env=cg_env))
            runs["noop"].append(measure([exe, "index", str(tree), "--state-dir", str(state), "--json"]))
            status = subprocess.run(
                [exe, "status", "--root", str(tree), "--state-dir", str(state), "--json"],
                capture_output=True,
                text=True,
                check=True,
            )
            total_files = json.loads(status.stdout)["data"]["counts"]["files"]
            wstate = Path(tmp) / f"wstate-{round_}"
            subprocess.run(
                [exe, "index", str(work), "--state-dir", str(wstate), "--json"],
                capture_output=True,
                check=True,
            )
            victim = next(p for p in sorted(work.rglob("*.py")) if p.stat().st_size > 2000)
            victim.write_text(
                victim.read_text() + f"\n\ndef bench_added_function_{round_}():\n    return 1\n"
            )
            runs["edit"].append(measure([exe, "index", str(work), "--state-dir", str(wstate), "--json"]))
            shutil.rmtree(state, ignore_errors=True)
            shutil.rmtree(wstate, ignore_errors=True)
    ct = _median(runs["ctags"])
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"tree: {tree}")
    print(f"source files (parsed languages): {files}, lines: {loc}; files in scope: {total_files}")
    print(
        f"machine: {os.cpu_count()} cpus, python {sys.version.split()[0]}; {args.repeat} round(s), "
        f"tools interleaved, median per tool; load average before {load_before}, after {_load()}"
    )
    print()
    print(
        f"{'run':34} {'wall s':>8} {'cpu s':>8} {'files/s':>9} {'peak RSS MB':>12} {'wall vs ctags':>14} "
        f"{'cpu vs ctags':>13} {'RSS vs ctags':>13}"
    )
    rows = [
        ("ctags -R (baseline)", ct),
        ("lazy-intel index (full, default)", _median(runs["full"])),
        *([("codegraph init (npm 1.6.1)", _median(runs["codegraph"]))] if runs["codegraph"] else []),
        ("lazy-intel index (no change)", _median(runs["noop"])),
        ("lazy-intel index (1 file edit)", _median(runs["edit"])),
    ]
    for name, run in rows:
        rate = files / run.seconds if run.seconds else float("inf")
        print(
            f"{name:34} {run.seconds:8.2f} {run.cpu_seconds:8.2f} {rate:9.0f} {run.peak_rss_mb:12.1f} "
            f"{run.seconds / ct.seconds:13.1f}x {run.cpu_seconds / max(ct.cpu_seconds, 1e-9):12.1f}x "
            f"{run.peak_rss_mb / ct.peak_rss_mb:12.1f}x"
        )
    if runs["codegraph"]:
        full, cg = _median(runs["full"]), _median(runs["codegraph"])
        print(
            f"\nlazy-intel full vs codegraph: wall {full.seconds / cg.seconds:.2f}x, "
            f"cpu {full.cpu_seconds / max(cg.cpu_seconds, 1e-9):.2f}x, RSS {full.peak_rss_mb / cg.peak_rss_mb:.2f}x"
        )


if __name__ == "__main__":
    main()

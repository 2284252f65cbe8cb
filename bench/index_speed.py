"""Index speed and memory on a real tree, next to Universal Ctags on the same tree in the same run.

Usage:
    python bench/index_speed.py                      # downloads the django sdist once (pip download)
    python bench/index_speed.py --tree /path/to/repo # any directory
    python bench/index_speed.py --repeat 3

Prints files, lines of code, wall seconds, CPU seconds (user + system of the whole process tree, which
a busy shared machine disturbs less than wall time), files/s and peak RSS (the whole process tree, sampled) for
``lazy-intel index`` (full build into a fresh state directory), a no-change sync and a one-file-edit
sync, and for ``ctags -R``; speed and memory are also given as ratios to ctags.
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


def measure(cmd: list[str], cwd: Path | None = None) -> Run:
    """Wall time and peak RSS of ``cmd`` and all its descendants (sampled every 20 ms)."""
    started = time.perf_counter()
    cpu_before = _children_cpu()
    proc = psutil.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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


def django_tree() -> Path:
    CACHE.mkdir(exist_ok=True)
    existing = sorted(CACHE.glob("django-*/"))
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
            "django",
            "-d",
            str(CACHE),
        ],
        check=True,
    )
    archive = sorted(CACHE.glob("django-*.tar.gz"))[-1]
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return sorted(CACHE.glob("django-*/"))[-1]


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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="directory to index (default: the django sdist)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (the median is reported)")
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    ctags = shutil.which("ctags")
    if ctags is None:
        raise SystemExit("ctags not found: apt install universal-ctags")
    files, loc = tree_stats(tree)

    def median(runs: list[Run]) -> Run:
        return Run(
            statistics.median(r.seconds for r in runs),
            statistics.median(r.peak_rss_mb for r in runs),
            statistics.median(r.cpu_seconds for r in runs),
        )

    full_runs, noop_runs, edit_runs, ctags_runs = [], [], [], []
    total_files = 0
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp) / "state"
            full_runs.append(measure([exe, "index", str(tree), "--state-dir", str(state), "--json"]))
            noop_runs.append(measure([exe, "index", str(tree), "--state-dir", str(state), "--json"]))
            status = subprocess.run(
                [exe, "status", "--root", str(tree), "--state-dir", str(state), "--json"],
                capture_output=True,
                text=True,
                check=True,
            )
            total_files = json.loads(status.stdout)["data"]["counts"]["files"]
            work = Path(tmp) / "copy"
            shutil.copytree(tree, work, ignore=shutil.ignore_patterns(".lazy-intel"))
            wstate = Path(tmp) / "wstate"
            subprocess.run(
                [exe, "index", str(work), "--state-dir", str(wstate), "--json"],
                capture_output=True,
                check=True,
            )
            victim = next(p for p in sorted(work.rglob("*.py")) if p.stat().st_size > 2000)
            victim.write_text(victim.read_text() + "\n\ndef bench_added_function():\n    return 1\n")
            edit_runs.append(measure([exe, "index", str(work), "--state-dir", str(wstate), "--json"]))
            tags = Path(tmp) / "tags"
            ctags_runs.append(measure([ctags, "-R", "-f", str(tags), "--exclude=.lazy-intel", str(tree)]))
    full, noop, edit, ct = median(full_runs), median(noop_runs), median(edit_runs), median(ctags_runs)
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"tree: {tree}")
    print(f"source files (parsed languages): {files}, lines: {loc}; files in scope: {total_files}")
    print(f"machine: {os.cpu_count()} cpus, python {sys.version.split()[0]}; median of {args.repeat} run(s)")
    print()
    print(
        f"{'run':30} {'wall s':>8} {'cpu s':>8} {'files/s':>9} {'peak RSS MB':>12} {'time vs ctags':>14} "
        f"{'RSS vs ctags':>13}"
    )
    rows = [
        ("ctags -R (baseline)", ct),
        ("lazy-intel index (full)", full),
        ("lazy-intel index (no change)", noop),
        ("lazy-intel index (1 file edit)", edit),
    ]
    for name, run in rows:
        rate = files / run.seconds if run.seconds else float("inf")
        print(
            f"{name:30} {run.seconds:8.2f} {run.cpu_seconds:8.2f} {rate:9.0f} {run.peak_rss_mb:12.1f} "
            f"{run.seconds / ct.seconds:13.1f}x {run.peak_rss_mb / ct.peak_rss_mb:12.1f}x"
        )


if __name__ == "__main__":
    main()

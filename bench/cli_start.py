"""Wall and CPU time of a CLI call's start: ``lazy-intel --version`` and ``search --freshness fast``.

Usage:
    python bench/cli_start.py                                   # the django sdist, this checkout's code
    python bench/cli_start.py --tree /path/to/repo --rounds 7 \\
        --source base=/tmp/snapshot-of-main/src --source new=src  # code versions side by side

Indexes the tree once into a temporary state directory with this checkout's code (or uses
``--state``), then runs, round after round and interleaved, each source's ``--version`` and one
``search`` of a view as it is (``--freshness fast``: no sync), in a fresh interpreter with
``PYTHONPATH=<source>``. The baseline, in the same rounds, is the bare interpreter
(``python -c pass``). Two bytecode conditions: ``cached`` (a ``.pyc`` cache of the source written
by a first unmeasured call, as a ``pip install`` leaves one) and ``none`` (no ``.pyc`` read or
written for the package: a copy of the source without ``__pycache__`` and
``PYTHONDONTWRITEBYTECODE=1``, as an editable install on a machine that sets that variable; the
interpreter's and the dependencies' ``.pyc`` as installed). Prints medians and each source's ratio to the first.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_speed import django_tree

QUERY = "queryset filter by related field"
CLI = "import sys; from lazy_intel.cli.main import main; sys.argv[0] = 'lazy-intel'; main()"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one run; the run must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def environment(source: Path, cache: Path, bytecode: str) -> dict[str, str]:
    """``cached``: every .pyc in a prefix of its own; ``none``: a copy of the source without any
    ``__pycache__`` and nothing written (the interpreter's and dependencies' .pyc as installed)."""
    drop = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if bytecode == "cached":
        env["PYTHONPATH"] = str(source)
        env["PYTHONPYCACHEPREFIX"] = str(cache)  # one cache per source: nothing shared
    else:
        shutil.copytree(source, cache, ignore=shutil.ignore_patterns("__pycache__"))
        env["PYTHONPATH"] = str(cache)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="the tree to index (default: the Django 5.1.4 sdist)")
    parser.add_argument("--state", type=Path, help="a state directory already indexed for --tree")
    parser.add_argument("--source", action="append", default=[], help="NAME=DIR of a lazy_intel source tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bytecode", choices=("cached", "none", "both"), default="both")
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    sources = [(n, Path(d).resolve()) for n, d in (s.split("=", 1) for s in args.source)] or [
        ("this", Path(__file__).resolve().parent.parent / "src")
    ]
    conditions = ["cached", "none"] if args.bytecode == "both" else [args.bytecode]
    with tempfile.TemporaryDirectory(prefix="lazy-intel-cli-start-") as tmp:
        state = args.state
        if state is None:
            state = Path(tmp) / "state"
            subprocess.run(
                [sys.executable, "-c", CLI, "index", str(tree), "--state-dir", str(state), "--json"],
                check=True,
                stdout=subprocess.DEVNULL,
                env=environment(sources[0][1], Path(tmp) / "build-cache", "cached"),
            )
        calls = {
            "version": ["--version"],
            "search fast": [
                "search",
                QUERY,
                "--limit",
                "3",
                "--root",
                str(tree),
                "--state-dir",
                str(state),
                "--freshness",
                "fast",
            ],
        }
        samples: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
        envs = {
            (name, cond): environment(src, Path(tmp) / f"pyc-{i}-{cond}", cond)
            for i, (name, src) in enumerate(sources)
            for cond in conditions
        }
        for (_name, cond), env in envs.items():  # the unmeasured first call writes the cached .pyc
            if cond == "cached":
                subprocess.run(
                    [sys.executable, "-c", CLI, *calls["search fast"]],
                    env=env,
                    check=True,
                    capture_output=True,
                )
        for _ in range(args.rounds):
            samples.setdefault(("python -c pass", "-", "-"), []).append(
                timed([sys.executable, "-c", "pass"], dict(os.environ))
            )
            for (name, cond), env in envs.items():
                for call, argv in calls.items():
                    samples.setdefault((call, cond, name), []).append(
                        timed([sys.executable, "-c", CLI, *argv], env)
                    )
    print(f"tree {tree}; {args.rounds} rounds, interleaved; medians (min-max) of wall and child CPU")
    print("| call | bytecode | source | wall s | CPU s | wall / first source |")
    print("|---|---|---|---|---|---|")
    for (call, cond, name), runs in samples.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        first = samples.get((call, cond, sources[0][0]))
        ratio = statistics.median(walls) / statistics.median(w for w, _ in first) if first else float("nan")
        print(
            f"| {call} | {cond} | {name} | {statistics.median(walls):.3f} ({min(walls):.3f}-{max(walls):.3f}) "
            f"| {statistics.median(cpus):.3f} | {ratio:.2f}x |"
        )
    print("command: python " + " ".join(sys.argv))


if __name__ == "__main__":
    main()

"""Whether graph resolution depends on the hash seed: every file of a built store resolved under
several ``PYTHONHASHSEED`` values, one child process per seed, edges and dependency tokens compared.

Usage:
    python bench/hash_seed.py --state STATE_DIR [--every N] [--seeds 0 2 4 5 7]

Each worker process of a build has its own seed, so a resolution that iterates a set of strings in
an order that matters (a lookup that stops at its first answer, recording tokens as it goes) gives
workers different results. Prints the exact command, the files compared, and per kind of difference
(edges as a set, their order, tokens, the budget flag) the files that differ from the first seed,
with the tokens of the first few. ``tests/graph/test_hash_seed.py`` checks the same on a fixture.
"""

from __future__ import annotations

import argparse
import collections
import os
import pickle
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# run in each child: resolve every Nth file as one resolve worker does (bench/phase_cpu.py)
RESOLVE = """
import pickle, sys
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from phase_cpu import _described_files
from lazy_intel.graph.build import ResolvedFile
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file

conn, rows = _described_files(Path(sys.argv[1]), 1)
store = FactStore(conn, PathIndex({path: lang for path, lang, _, _ in rows}))
out = {}
for path, _, _, _ in rows[:: int(sys.argv[2])]:
    model = store.model(path)
    if model is not None:
        resolved = ResolvedFile.of(path, resolve_file(store, model))
        out[path] = (resolved.edges, resolved.deps, resolved.exhausted)
Path(sys.argv[3]).write_bytes(pickle.dumps(out))
"""


def resolve_under(seed: str, state: Path, every: int, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    command = [sys.executable, "-c", RESOLVE, str(state), str(every), str(out), str(HERE)]
    return subprocess.Popen(command, env=env)


def differences(first: dict, other: dict) -> dict[str, list[str]]:
    """Per kind of difference, the files of ``first`` that ``other`` resolves differently."""
    out: dict[str, list[str]] = collections.defaultdict(list)
    for path, (edges, deps, exhausted) in first.items():
        if path not in other or other[path] == (edges, deps, exhausted):
            continue
        other_edges, other_deps, other_exhausted = other[path]
        if set(map(repr, edges)) != set(map(repr, other_edges)):
            out["edges"].append(path)
        elif edges != other_edges:
            out["edge order"].append(path)
        if deps != other_deps:
            out["tokens"].append(path)
        if exhausted != other_exhausted:
            out["budget flag"].append(path)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--state", type=Path, required=True, help="a state directory holding a built store")
    parser.add_argument("--every", type=int, default=1, help="every Nth file")
    parser.add_argument("--seeds", nargs="+", default=["0", "2", "4"], help="PYTHONHASHSEED values")
    parser.add_argument("--jobs", type=int, default=2, help="child processes at a time")
    args = parser.parse_args()
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    with tempfile.TemporaryDirectory() as scratch:
        outputs = {seed: Path(scratch) / f"{seed}.pickle" for seed in args.seeds}
        children: list[subprocess.Popen[bytes]] = []
        for seed, out in outputs.items():
            if len(children) >= args.jobs:
                children[-args.jobs].wait()  # at most --jobs at a time
            children.append(resolve_under(seed, args.state, args.every, out))
        if any(child.wait() != 0 for child in children):
            raise SystemExit("a child process failed")
        results = {seed: pickle.loads(out.read_bytes()) for seed, out in outputs.items()}
    first_seed, *others = args.seeds
    first = results[first_seed]
    print(f"files: {len(first)}; seeds: {' '.join(args.seeds)}")
    for seed in others:
        found = differences(first, results[seed])
        summary = ", ".join(f"{kind} {len(paths)}" for kind, paths in found.items()) or "none"
        print(f"seed {seed} against {first_seed}: files that differ: {summary}")
        for path in found.get("tokens", [])[:5]:
            mine, theirs = set(first[path][1]), set(results[seed][path][1])
            print(
                f"  {path}: only {first_seed} {sorted(mine - theirs)[:3]}, only {seed} {sorted(theirs - mine)[:3]}"
            )


if __name__ == "__main__":
    main()

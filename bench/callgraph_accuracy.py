"""Precision and recall of our CALLS edges against the PyCG micro-benchmark, per category.

PyCG (Salis et al., ICSE 2021) ships 119 small Python programs, each with the call graph a sound
analysis should find (``micro-benchmark/snippets/<category>/<case>/main.py`` + ``callgraph.json``).
We index each case as its own workspace and compare our resolved CALLS edges, mapped to PyCG's
names (``module.Qualified.name``; module-level code is the module itself; a call of a builtin is
``<builtin>.name``), with the expected edges.

Usage:
    python bench/callgraph_accuracy.py --pycg /path/to/PyCG      # a checkout, or its git directory
    python bench/callgraph_accuracy.py                            # reuses bench/.cache/pycg-micro

The benchmark is not part of this repository: obtain PyCG with ``git clone
https://github.com/vitsalis/PyCG`` (or an offline mirror); the snippets are copied to
``bench/.cache/pycg-micro`` (git-ignored). Edges to ambiguous candidates are counted (they are
edges we emit); ``--min-confidence`` drops weaker ones.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from lazy_intel.graph.modules import python_module_key
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

CACHE = Path(__file__).resolve().parent / ".cache" / "pycg-micro"
# how PyCG names the methods of builtin types
BUILTIN_TYPES = {"str": "<**PyStr**>", "int": "<**PyInt**>", "dict": "<**PyDict**>", "list": "<**PyList**>"}


def obtain(source: Path | None) -> Path:
    """The snippets directory, copied into the cache from a PyCG checkout or git directory."""
    snippets = CACHE / "micro-benchmark" / "snippets"
    if source is None:
        if snippets.is_dir():
            return snippets
        sys.exit(
            f"no PyCG snippets in {CACHE}; pass --pycg /path/to/PyCG (git clone https://github.com/vitsalis/PyCG)"
        )
    shutil.rmtree(CACHE, ignore_errors=True)
    CACHE.mkdir(parents=True)
    if (source / "micro-benchmark").is_dir():
        shutil.copytree(source / "micro-benchmark", CACHE / "micro-benchmark")
    else:  # a git directory (bare mirror)
        archive = subprocess.run(
            ["git", "--git-dir", str(source), "archive", "HEAD", "micro-benchmark"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(CACHE)], input=archive, check=True)
    return snippets


def pycg_lambda_name(
    path: str, qualified: str, kinds: dict[tuple[str, str], str], seen: dict[tuple[str, str], int]
) -> str:
    """PyCG names a lambda ``<lambdaN>`` within its enclosing function (or module), N counting from 1
    in source order; ours is ``<lambda>`` under whatever encloses it (``x.<lambda>`` for ``x =``)."""
    parts = qualified.split(".")[:-1]
    enclosing: list[str] = []
    for i in range(len(parts)):
        name = ".".join(parts[: i + 1])
        if kinds.get((path, name)) in ("function", "method", "class", "lambda", "constructor"):
            enclosing.append(parts[i] if kinds.get((path, name)) != "lambda" else f"<{name}>")
    owner = ".".join(enclosing)
    seen[(path, owner)] += 1
    return ".".join([*enclosing, f"<lambda{seen[(path, owner)]}>"])


def our_edges(case: Path, min_confidence: float) -> tuple[set[tuple[str, str]], dict[str, int]]:
    """Our CALLS edges for one case, in PyCG's naming, and a count per strategy."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "case"
        shutil.copytree(case, root, ignore=shutil.ignore_patterns("callgraph.json", "README.md"))
        ws = Workspace.open(root, settings=load_settings(env={}), state_dir=Path(tmp) / "state")
        ws.sync(rebuild=True)
        with ws.read() as view:
            conn = view.conn
            names = {}
            rows = conn.execute(
                "SELECT id, label, qualified_name, path, kind, start_byte FROM nodes ORDER BY path, start_byte"
            ).fetchall()
            kinds = {(path, qualified): kind for _, _, qualified, path, kind, _ in rows}
            lambdas_seen: dict[tuple[str, str], int] = defaultdict(int)
            for node_id, label, written, path, kind, _ in rows:
                if path is None:
                    continue
                module = python_module_key(path)
                qualified = (
                    pycg_lambda_name(path, written, kinds, lambdas_seen) if kind == "lambda" else written
                )
                names[node_id] = (label, module if label == "File" else f"{module}.{qualified}")
            out: set[tuple[str, str]] = set()
            strategies: dict[str, int] = defaultdict(int)
            rows = conn.execute("SELECT src, dst, strategy, confidence, target FROM edges WHERE type='CALLS'")
            for src, dst, strategy, confidence, target in rows:
                if src not in names:
                    continue
                caller = names[src][1]
                if dst is None:  # a call out of the repository, named as written (PyCG's convention)
                    if strategy == "builtin" and target:
                        kind, _, member = target.partition(".")
                        builtin_type = BUILTIN_TYPES.get(kind) if member else None
                        out.add(
                            (caller, f"{builtin_type}.{member}" if builtin_type else f"<builtin>.{target}")
                        )
                        strategies[strategy] += 1
                    elif strategy == "external" and target:
                        out.add((caller, target))
                        strategies[strategy] += 1
                    continue
                if confidence < min_confidence or dst not in names:
                    continue
                label, callee = names[dst]
                if label in ("Class", "Interface"):
                    continue  # instantiation of a class without a constructor: PyCG records no call
                out.add((caller, callee))
                strategies[strategy] += 1
        return out, dict(strategies)


def expected_edges(case: Path) -> set[tuple[str, str]]:
    graph = json.loads((case / "callgraph.json").read_text())
    return {(caller, callee) for caller, callees in graph.items() for callee in callees}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pycg", type=Path, default=None, help="PyCG checkout or git directory")
    parser.add_argument("--min-confidence", type=float, default=0.0)
    parser.add_argument("--show", default="", help="print the differences for cases whose path contains this")
    args = parser.parse_args()
    snippets = obtain(args.pycg)
    started = time.perf_counter()
    per_category: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # true positives, ours, expected
    strategies: dict[str, int] = defaultdict(int)
    cases = sorted(p.parent for p in snippets.glob("*/*/callgraph.json"))
    for case in cases:
        category = case.parent.name
        ours, counts = our_edges(case, args.min_confidence)
        expected = expected_edges(case)
        for key, value in counts.items():
            strategies[key] += value
        hits = ours & expected
        totals = per_category[category]
        totals[0] += len(hits)
        totals[1] += len(ours)
        totals[2] += len(expected)
        name = f"{category}/{case.name}"
        if args.show and args.show in name and ours != expected:
            print(f"{name}: missing {sorted(expected - ours)} extra {sorted(ours - expected)}")
    seconds = time.perf_counter() - started
    print(f"{'category':<14} {'precision':>9} {'recall':>7} {'tp':>5} {'ours':>5} {'expected':>8}")
    all_tp = all_ours = all_expected = 0
    for category, (tp, ours_n, expected_n) in sorted(per_category.items()):
        precision = tp / ours_n if ours_n else 1.0
        recall = tp / expected_n if expected_n else 1.0
        print(f"{category:<14} {precision:>9.1%} {recall:>7.1%} {tp:>5} {ours_n:>5} {expected_n:>8}")
        all_tp, all_ours, all_expected = all_tp + tp, all_ours + ours_n, all_expected + expected_n
    print(
        f"{'overall':<14} {all_tp / max(1, all_ours):>9.1%} {all_tp / max(1, all_expected):>7.1%} "
        f"{all_tp:>5} {all_ours:>5} {all_expected:>8}"
    )
    print(f"edges by strategy: {dict(sorted(strategies.items()))}")
    print(f"{len(cases)} cases in {seconds:.1f} s")
    print(
        "command: python bench/callgraph_accuracy.py"
        + (f" --min-confidence {args.min_confidence}" if args.min_confidence else "")
    )


if __name__ == "__main__":
    main()

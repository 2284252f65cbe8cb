"""Code localization on the SWE-bench Lite dev set, cross-validated by repository.

For each issue of the dev set (``../shared/bench/swebench-lite-dev.jsonl``) the repository is
materialised at ``base_commit`` from a directory of git repositories (bare or not, named
``owner+name``, optionally with the git directory in ``owner+name/repo``): the **whole checkout**,
tests, documentation and data included, as a user's clone would be (``--scope source`` keeps the
non-test Python files only, the protocol before issue 13). It is indexed with lazy-intel (commits
of one repository applied as incremental syncs in commit-date order) and searched once with the raw
issue text; the evidence that search gathered (``hybrid.gather_evidence``) is then re-scored in
memory under every configuration and weight setting (``loc_scoring.FusionTable``), so a grid of
thousands of settings costs one search per issue.

**Protocol** (``loc_cv``): leave-one-repository-out cross-validation over the repositories of the
data set. Every tunable weight of the grid (``--grid``) is chosen on the issues of the other
repositories by the stated objective (mean of file Acc@1, file Acc@5 and function Acc@10; ties to
the better MRR, then to the shipped default) and scored on the held-out repository. The quoted
figure is the pooled held-out one; the in-sample figure (chosen on every issue) and the shipped
constants are printed beside it, with plain BM25 over whole files (``bm25s``) from the same run.

**Cache**: ``--work DIR/<profile>/<owner+name>/<commit>/`` holds the materialised tree and its
lazy-intel state per index profile (scope and store schema), reused by later runs: a re-run re-syncs
(a no-change sync) and re-runs the queries only. BM25 rankings are cached beside them.

Metrics: file Acc@1/3/5 = share of issues whose gold files are all in the top k; function Acc@5/10
the same for gold functions (``path:Class.method``; ``imports``/``impl`` pseudo-spans left out;
issues without a gold function are left out of function metrics); MRR of the first gold file.

Usage:
    python bench/swebench_loc.py --repos /path/to/git-repos --work DIR [--configs default,lexical,bm25]
        [--grid fusion] [--only pallets/flask] [--limit N] [--embedding none] [--json results.json]
        [--history pairs.pickle]

``--history`` (the pairs ``bench/loc_synthetic.py collect`` wrote against the same ``--work``): the
shipped second stage is fitted on the dev issues *and* the history pairs of their repositories;
with it every fold's fit trains on the pairs of its training repositories as well (never on the
held-out repository's), and the pairs' own held-out figure is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from loc_checkout import *  # noqa: F403  (re-exported: the tests and the other bench scripts use them)
from loc_checkout import SCOPES, default_data, index_profile, load_issues
from loc_collect import *  # noqa: F403
from loc_collect import collect
from loc_protocol import *  # noqa: F403
from loc_protocol import BASELINES, CONFIGS, GRIDS, VARIANTS, grid_candidates, parse_grid
from loc_report import *  # noqa: F403
from loc_report import percentile, report
from loc_scoring import IssueRun, Outcome, all_in_top, reciprocal_rank
from loc_synthetic import load_pairs

__all__ = ["IssueRun", "Outcome", "all_in_top", "reciprocal_rank"]  # re-exported for the tests


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repos", type=Path, required=True, help="directory of git repositories (owner+name)"
    )
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument(
        "--work", type=Path, default=None, help="index cache, kept between runs (default: a temporary dir)"
    )
    parser.add_argument(
        "--scope", choices=SCOPES, default="whole", help="whole checkout (default) or non-test Python"
    )
    parser.add_argument(
        "--configs",
        default="default,lexical,bm25,bm25-py",
        help=f"fixed configurations: {', '.join([*CONFIGS, *BASELINES])}",
    )
    parser.add_argument(
        "--grid", default="fusion", help=f"cross-validated grid: {', '.join(GRIDS)} or name=v1,v2;…"
    )
    parser.add_argument(
        "--embedding", default="none", help="LAZY_INTEL_EMBEDDING (the dense signal's provider)"
    )
    parser.add_argument(
        "--variants",
        default="default,no-stems",
        help=f"evidence variants searched per issue (tunable, CV chooses): {', '.join(VARIANTS)}",
    )
    parser.add_argument("--no-ablations", action="store_true", help="skip the held-out ablation pipelines")
    parser.add_argument(
        "--ablate", default="", help="only these second-stage features' ablation rows (comma-separated)"
    )
    parser.add_argument(
        "--runs-cache",
        type=Path,
        default=None,
        help="pickle of the gathered evidence: loaded when it exists (no indexing, no search), else written",
    )
    parser.add_argument("--only", default=None, help="only this repository (owner/name)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N issues")
    parser.add_argument("--json", type=Path, default=None, help="write per-issue scores and choices here")
    parser.add_argument(
        "--no-sync",
        action="store_true",
        help="search the indexed checkouts under --work as they are (no materialise, no sync): "
        "evidence gathered again after a change of search's constants, from the same indexes",
    )
    parser.add_argument(
        "--history",
        type=Path,
        default=None,
        help="pickle of history pairs (bench/loc_synthetic.py collect): every second stage's fit also "
        "trains on the pairs of its training repositories, as the shipped coefficients were fitted",
    )
    args = parser.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS and c not in BASELINES]
    if unknown:
        parser.error(f"unknown config(s) {unknown}; known: {', '.join([*CONFIGS, *BASELINES])}")
    try:
        space = parse_grid(args.grid)
    except ValueError as exc:
        parser.error(str(exc))
    variant_names = [
        "default",
        *(v.strip() for v in args.variants.split(",") if v.strip() and v.strip() != "default"),
    ]
    bad = [v for v in variant_names if v not in VARIANTS]
    if bad:
        parser.error(f"unknown variant(s) {bad}; known: {', '.join(VARIANTS)}")
    issues = load_issues(args.data or default_data())
    if args.only:
        issues = [i for i in issues if i.repo == args.only]
    if args.limit:
        issues = issues[: args.limit]
    temp = None
    work = args.work
    if work is None:
        temp = tempfile.TemporaryDirectory(prefix="swebench-loc-")
        work = Path(temp.name)
    began = time.perf_counter()
    if args.runs_cache is not None and args.runs_cache.is_file():
        with args.runs_cache.open("rb") as fh:
            runs, stats = pickle.load(fh)  # our own file, written below
        wanted = {i.instance_id for i in issues}
        runs = {
            v: [r for r in rs if r.issue.instance_id in wanted]
            for v, rs in runs.items()
            if v in variant_names
        }
        for rs in runs.values():
            for r in rs:
                r.tables.clear()  # derived (FusionTable): rebuilt by this code, not the pickling code
    else:
        runs, stats = collect(
            issues,
            repos=args.repos,
            work=work,
            scope=args.scope,
            embedding=args.embedding,
            baselines=[c for c in configs if c in BASELINES],
            variants={v: VARIANTS[v] for v in variant_names},
            pool=grid_candidates(space),
            log=lambda s: print(s, file=sys.stderr),
            sync=not args.no_sync,
        )
        if args.runs_cache is not None:
            with args.runs_cache.open("wb") as fh:
                pickle.dump((runs, stats), fh)
    collected = time.perf_counter()
    grid_name = args.grid if args.grid in GRIDS else "custom"
    text, record = report(
        runs,
        configs,
        grid_name,
        space,
        ablations=not args.no_ablations,
        only=[f.strip() for f in args.ablate.split(",") if f.strip()],
        work=work,
        history=load_pairs(args.history) if args.history else [],
    )
    print(text)
    print()
    default_runs = runs["default"]
    times = [r.search.seconds * 1000 for r in default_runs if r.search is not None]
    if times:
        print(
            f"search latency (default, one real search per issue): p50 {percentile(times, 0.5):.0f} ms, p95 {percentile(times, 0.95):.0f} ms"
        )
    print(
        f"consistency: the in-memory ranking equals the real search on {len(default_runs) - len(stats.inconsistent)}/{len(default_runs)} issues"
        + (f" (differs: {', '.join(stats.inconsistent)})" if stats.inconsistent else "")
    )
    if stats.embedded:
        print(
            f"embedding: {stats.embedded} chunks in {stats.embed_seconds:.0f} s = {stats.embedded / stats.embed_seconds:.1f} chunks/s"
        )
    print(
        f"index profile {index_profile(args.scope)}: indexing {stats.index_seconds:.0f} s ({stats.full_builds} full builds); "
        f"missing blobs skipped: {stats.missing_blobs}"
    )
    print(f"collect {collected - began:.0f} s, scoring {time.perf_counter() - collected:.0f} s")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        args.json.write_text(json.dumps(record, indent=1))
    if temp is not None:
        temp.cleanup()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())

"""History as a retrieval prior on the SWE-bench Lite dev set, cross-validated by repository.

Question: does "this file changed often lately" help rank the file to fix? The signal, fixed before
looking at any result: for every candidate file of an issue's search (the files other signals found),
``log(1 + c)`` where ``c`` is the number of the last ``--commits`` (500) non-merge commits up to and
including the issue's ``base_commit`` that touched the file. The history comes from the mirror's git
log walked back from ``base_commit`` (``lazy_intel.history``, one store per repository, refreshed
incrementally from issue to issue in commit order), so no commit after the tree the issue was filed
against is ever read; the tree itself is materialised by ``swebench_loc`` with ``git archive`` as
before and has no ``.git``.

The weight of the prior (``FusionWeights.history``) is chosen by leave-one-repository-out on the
other repositories' issues (``loc_cv``), every other weight at its shipped value; the pooled held-out
figure is quoted first, against the shipped default (history 0) from the same run. Decision rule,
fixed in advance: the prior ships (a non-zero default) only if the held-out objective (mean of file
Acc@1, file Acc@5, function Acc@10) beats the default's.

Usage:
    python bench/history_prior.py --repos /work/.mirror --work DIR [--commits 500] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import loc_cv
import swebench_loc
from lazy_intel.history.signals import file_churn
from lazy_intel.history.store import open_history, refresh
from lazy_intel.history.walk import HistorySource
from loc_cv import IssueScore
from loc_scoring import Config, IssueRun, issue_score, outcome_of

SPACE = {"history": (0.0, 0.025, 0.05, 0.1, 0.2, 0.4)}  # the shipped default (0) first


def history_signal(
    db: Path, git_dir: Path, base_commit: str, paths: dict[int, str], commits: int
) -> dict[int, float]:
    """file id -> log(1 + commits touching it) over the window ending at ``base_commit``."""
    refresh(db, HistorySource(git_dir, base_commit), commits, symbols=False)
    with open_history(db) as conn:
        churn = file_churn(conn, paths.values())
    return {fid: math.log1p(churn[p].commits) for fid, p in paths.items() if p in churn}


def add_history(runs: Sequence[IssueRun], repos: Path, work: Path, commits: int) -> float:
    began = time.perf_counter()

    def order(run: IssueRun) -> tuple[str, int]:
        git_dir = swebench_loc.git_dir_for(repos, run.issue.repo)
        assert git_dir is not None
        return run.issue.repo, swebench_loc.commit_time(git_dir, run.issue.base_commit)

    for run in sorted(runs, key=order):
        git_dir = swebench_loc.git_dir_for(repos, run.issue.repo)
        assert git_dir is not None
        db = work / "history" / f"{run.issue.repo.replace('/', '+')}-{commits}.sqlite"
        signal = history_signal(db, git_dir, run.issue.base_commit, dict(run.evidence.file_path), commits)
        run.evidence = replace(run.evidence, file_signals={**run.evidence.file_signals, "history": signal})
        run.tables.clear()
    return time.perf_counter() - began


def held_out(runs: Sequence[IssueRun]) -> tuple[loc_cv.HeldOut, list[Config]]:
    """The history weight chosen leave-one-repository-out, everything else as shipped."""
    shipped = swebench_loc.CONFIGS["default"]
    candidates = [replace(shipped, weights=replace(shipped.weights, history=w)) for w in SPACE["history"]]
    by_id = {r.issue.instance_id: r for r in runs}
    folds = loc_cv.leave_one_repository_out({i: r.issue.repo for i, r in by_id.items()})

    def scores(index: int) -> dict[str, IssueScore]:
        return {i: issue_score(r.issue, outcome_of(r, candidates[index])) for i, r in by_id.items()}

    return loc_cv.grid_search(folds, candidates, scores), candidates


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument(
        "--work", type=Path, required=True, help="index and history cache (kept between runs)"
    )
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--commits", type=int, default=500)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    issues = swebench_loc.load_issues(args.data or swebench_loc.default_data())
    began = time.perf_counter()
    by_variant, stats = swebench_loc.collect(
        issues, repos=args.repos, work=args.work, baselines=(), log=lambda s: print(s, file=sys.stderr)
    )
    runs = by_variant["default"]
    collected = time.perf_counter()
    history_s = add_history(runs, args.repos, args.work, args.commits)
    with_signal = sum(1 for r in runs if r.evidence.file_signals.get("history"))
    held, candidates = held_out(runs)
    shipped = swebench_loc.CONFIGS["default"]
    default_scores = {r.issue.instance_id: issue_score(r.issue, outcome_of(r, shipped)) for r in runs}
    by_repo = {r.issue.instance_id: r.issue.repo for r in runs}
    rows = [
        ("held-out: shipped + history (weight chosen without the repository)", held.scores),
        ("shipped default (history 0), same run", default_scores),
        ("in-sample: history weight chosen on all issues", held.in_sample_scores),
    ]
    print(swebench_loc.figure_table(rows, sorted(set(by_repo.values())), by_repo))
    print()
    for repo, index in held.chosen.items():
        print(f"  without {repo}: history {candidates[int(index)].weights.history:g}")  # type: ignore[call-overload]
    print(f"  chosen on all issues: history {candidates[int(held.in_sample)].weights.history:g}")  # type: ignore[call-overload]
    ours = loc_cv.objective(list(held.scores.values()))[0]
    base = loc_cv.objective(list(default_scores.values()))[0]
    verdict = "ships" if ours > base else "stays off"
    print(
        f"objective (mean file@1, file@5, func@10): held-out with history {ours:.2f}, shipped default {base:.2f} "
        f"-> the prior {verdict}"
    )
    print(
        f"history signal present for {with_signal}/{len(runs)} issues; history read in {history_s:.0f} s; "
        f"collect {collected - began:.0f} s ({stats.full_builds} full builds)"
    )
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        record = {
            "held_out": {i: vars(s) for i, s in held.scores.items()},
            "default": {i: vars(s) for i, s in default_scores.items()},
            "chosen": {r: candidates[int(c)].weights.history for r, c in held.chosen.items()},  # type: ignore[call-overload]
        }
        args.json.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A trial second-stage feature from version history, held out like every row (issue 13).

``churn``: how many of the last ``--window`` non-merge commits before the issue's base commit
touched the candidate file (what the history signals count over the product's default window,
``LAZY_INTEL_HISTORY_COMMITS`` 500), as ``log1p(count) / log1p(the most any file of the issue's
candidate pool has)``. Bug-localization work has long used version history as a prior (files that
changed often are fixed often); this asks whether it adds anything to the second stage's features.

Computed by the benchmark from the mirrors' history (``git log`` of ``/work/.mirror/<repo>/repo``
at the base commit: nothing after it is read) and added to the gathered evidence, then the second
stage is cross-validated with and without it, leave-one-repository-out, as ``swebench_loc.py``
does (the runs cache it wrote is read, no index or search is run).

Usage:
    python bench/loc_history_trial.py --runs-cache RUNS.pickle [--repos /work/.mirror] [--window 500]
"""

from __future__ import annotations

import argparse
import collections
import math
import pickle
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lazy_intel.search.rerank as rerank_module  # noqa: E402

# the trial feature joins the candidate features before the benchmark's modules read them
rerank_module.CANDIDATE_FEATURES = (*rerank_module.CANDIDATE_FEATURES, "churn")
rerank_module.TRIAL_FEATURES = (*rerank_module.TRIAL_FEATURES, "churn")

import loc_cv  # noqa: E402
import loc_protocol  # noqa: E402
from loc_rerank import Evaluator, Pipeline  # noqa: E402
from loc_synthetic import row  # noqa: E402


def commit_counts(mirror: Path, commit: str, window: int) -> collections.Counter[str]:
    """Path -> how many of the last ``window`` non-merge commits up to ``commit`` touched it."""
    out = subprocess.run(
        [
            "git",
            "-C",
            str(mirror),
            "log",
            "--no-merges",
            "--format=@%H",
            "--name-only",
            "-n",
            str(window),
            commit,
        ],
        capture_output=True,
        text=True,
        check=False,  # a mirror may lack some objects: what it has is counted
    ).stdout
    return collections.Counter(line.strip() for line in out.splitlines() if line.strip() and line[0] != "@")


def add_churn(runs: list, repos: Path, window: int) -> None:
    for run in runs:
        counts = commit_counts(
            repos / run.issue.repo.replace("/", "+") / "repo", run.issue.base_commit, window
        )
        of = {f: counts.get(run.evidence.file_path[f], 0) for f in run.static}
        top = max(of.values(), default=0)
        for f, n in of.items():
            run.static[f]["churn"] = math.log1p(n) / math.log1p(top) if top else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-cache", type=Path, required=True)
    parser.add_argument("--repos", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--window", type=int, default=500)
    args = parser.parse_args()
    with args.runs_cache.open("rb") as fh:
        runs, _stats = pickle.load(fh)  # our own file (swebench_loc.py --runs-cache)
    default = runs["default"]
    for run in default:
        run.tables.clear()
    add_churn(default, args.repos, args.window)
    evaluator = Evaluator({"default": {r.issue.instance_id: r for r in default}})
    base = loc_protocol.pipelines(loc_protocol.GRIDS["fusion"], ["default"], ablations=False)[1]
    trial = Pipeline(
        f"{base.name} with churn", base.candidates, (*base.features, "churn"), select_by=base.select_by
    )
    print(f"command: python {' '.join(sys.argv)}")
    print("| pipeline | held out file@1 / @3 / @5 / MRR | in sample file@1 / @3 / @5 |")
    print("|---|---|---|")
    for pipeline in (base, trial):
        held = evaluator.cross_validate(pipeline)
        out, ins = (
            loc_cv.summary(list(held.scores.values())),
            loc_cv.summary(list(held.in_sample_scores.values())),
        )
        print(
            f"| {pipeline.name} | {row(out, 'file@1', 'file@3', 'file@5', 'mrr')} | {row(ins, 'file@1', 'file@3', 'file@5')} |"
        )
        if pipeline is trial:
            for repo, choice in held.chosen.items():
                weight = dict(choice.coefficients or ()).get("churn")  # type: ignore[attr-defined]
                print(f"  without {repo}: churn coefficient {weight:+.2f}")


if __name__ == "__main__":
    main()

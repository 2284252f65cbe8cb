"""More real issues in the fit: half A of the unseen issues as training data (issue 13, session 35).

The second stage is a conditional logit fitted on 63 real issues (and 240 history pairs whose
reports are commit messages). ``loc_unseen.py`` converted 230 more real issues of the same eight
repositories; half A (``loc_unseen.half_of``, a hash of the instance id) already chose a pipeline in
session 34, half B was only ever reported. This bench asks whether the *data* is what limits the
second stage: the shipped pipeline ("two stages with callee + history pairs") fitted on the dev
issues **and** the half-A issues of its training repositories, every one weighing as a dev issue.

- **Dev held out**: leave one repository out over the dev issues and the half-A issues together — a
  fold never trains on any issue (dev or unseen) of the repository it scores; the figure is the 63
  dev issues' pooled held-out scores, paired with the shipped pipeline's (folds over the dev issues
  alone, as ``swebench_loc.py`` computes it).
- **Half B**: each pipeline fitted on everything it may train on (the dev issues, with half A or
  without), scored on half B, which nothing has chosen on.

**The decision, fixed 2026-12-05 (session 35) before any figure of this bench was computed**: the
half-A training ships iff, on the dev held-out figure, its file Acc@1 hits plus Acc@5 hits exceed
the shipped pipeline's by at least :data:`MIN_GAIN` (two issue-cutoffs: one issue more at both, or
two more at one) and neither falls by more than :data:`MAX_LOSS` issue. Half B is reported whatever
the outcome and decides nothing. If it ships, the coefficients are fitted on the dev issues, half A
and the pairs; half B stays out of every fit.

Usage:
    python bench/loc_more_issues.py --dev-runs RUNS.pickle --synthetic PAIRS.pickle --unseen UNSEEN.pickle
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import loc_cv  # noqa: E402
from loc_scoring import IssueScore  # noqa: E402

MIN_GAIN = 2  # Acc@1 hits + Acc@5 hits the new fit must add on the dev held-out figure
MAX_LOSS = 1  # issues either figure may lose on its own


def hits(scores: Sequence[IssueScore]) -> tuple[int, int]:
    """Issues with a gold file at rank 1, and within the top 5 (``loc_cv.FILE_KS`` 1, 3, 5)."""
    return sum(s.file_hits[0] for s in scores), sum(s.file_hits[2] for s in scores)


def ships(shipped: Sequence[IssueScore], more: Sequence[IssueScore]) -> bool:
    """The pre-registered rule (module docstring), on the dev issues' held-out scores."""
    (a1, a5), (b1, b5) = hits(shipped), hits(more)
    return (b1 + b5) - (a1 + a5) >= MIN_GAIN and b1 >= a1 - MAX_LOSS and b5 >= a5 - MAX_LOSS


def folds(dev: Mapping[str, str], extra: Mapping[str, str]) -> list[loc_cv.Fold]:
    """Leave one repository out over the dev issues and the extra (training) issues together: a
    fold's test holds every issue of its repository, its training set no issue of it. Repositories
    with extra issues but no dev issue are never held out (they only train)."""
    out = []
    for fold in loc_cv.leave_one_repository_out({**dev, **extra}):
        if fold.held_out in set(dev.values()):
            out.append(fold)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from loc_functions import load_runs
    from loc_rerank import Evaluator
    from loc_synthetic import decision_pipelines, load_pairs, row
    from loc_unseen import half_of

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev-runs", type=Path, required=True, help="the dev set's runs cache")
    parser.add_argument("--synthetic", type=Path, required=True, help="history pairs (loc_synthetic.py)")
    parser.add_argument("--unseen", type=Path, required=True, help="runs of loc_unseen.py collect")
    args = parser.parse_args(argv)

    dev = load_runs(args.dev_runs)
    with args.unseen.open("rb") as fh:
        unseen = {r.issue.instance_id: r for r in pickle.load(fh)}  # our own file (loc_unseen collect)
    for run in unseen.values():
        run.tables.clear()
    half_a = {i: r for i, r in unseen.items() if half_of(i) == "A"}
    half_b = {i: r for i, r in unseen.items() if half_of(i) == "B"}
    pairs = load_pairs(args.synthetic)
    evaluator = Evaluator(
        {"default": {**dev, **half_a}},
        history={"default": {r.issue.instance_id: r for r in pairs}},
        external={"default": half_b},
    )
    pipeline = next(p for p in decision_pipelines() if p.name == "two stages with callee + history pairs")
    dev_repos = {i: r.issue.repo for i, r in dev.items()}
    a_repos = {i: r.issue.repo for i, r in half_a.items()}

    def fit(train: Sequence[str]) -> object:
        return evaluator.fit(pipeline, train)

    def score(choice: object, instance: str) -> IssueScore:
        return evaluator.score(pipeline, choice, instance)  # type: ignore[arg-type]

    print("command: python " + " ".join(sys.argv))
    print(f"dev issues {len(dev)}, half A {len(half_a)} (training only), half B {len(half_b)} (reported)")
    rows = []
    for name, fold_list in (
        ("shipped: dev issues + pairs", loc_cv.leave_one_repository_out(dev_repos)),
        ("more issues: dev issues + half A + pairs", folds(dev_repos, a_repos)),
    ):
        held = loc_cv.cross_validate(fold_list, fit, score)
        dev_held = [held.scores[i] for i in sorted(dev)]
        b = [score(held.in_sample, i) for i in sorted(half_b)]
        b_single = [s for i, s in zip(sorted(half_b), b, strict=True) if len(half_b[i].issue.gold_files) == 1]
        rows.append((name, dev_held, b, b_single))
        print(
            f"{name}: folds {len(fold_list)}; in-sample fit on {len(held.in_sample_scores)} issues",
            flush=True,
        )
    print()
    print("| fit | dev held out: file@1 / @3 / @5 / MRR; func@5 / @10 | half B (reported): file@1 / @3 / @5 / MRR | half B single-file |")  # fmt: skip
    print("|---|---|---|---|")
    for name, dev_held, b, b_single in rows:
        print(
            f"| {name} | {row(loc_cv.summary(dev_held), 'file@1', 'file@3', 'file@5', 'mrr')}; "
            f"{row(loc_cv.summary(dev_held), 'func@5', 'func@10')} | "
            f"{row(loc_cv.summary(b), 'file@1', 'file@3', 'file@5', 'mrr')} | "
            f"{row(loc_cv.summary(b_single), 'file@1', 'file@3', 'file@5', 'mrr')} |"
        )
    (a1, a5), (b1, b5) = hits(rows[0][1]), hits(rows[1][1])
    decision = ships(rows[0][1], rows[1][1])
    print()
    print(
        f"dev held out hits @1 / @5: shipped {a1} / {a5}, more issues {b1} / {b5} -> "
        + ("ships (pre-registered rule)" if decision else "not shipped (pre-registered rule)")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

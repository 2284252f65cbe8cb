"""What every trial second-stage feature bench shares (``loc_recall_trial.py``, ``loc_literal_trial.py``;
for the function stage ``loc_twin_trial.py``, ``loc_phrase_trial.py``).

A trial feature is computed by its bench into each run's ``static`` features; :func:`install` makes it
a candidate feature before the benchmark's modules read the list (call it before importing them), and
:func:`compare` cross-validates the shipped pipeline (second stage + history pairs) with and without
it, printing one table row each and the feature's coefficient per fold. A trial *function-stage*
feature is added to ``function_rank``'s features by :func:`install_function_feature` (before
``loc_functions`` is imported); ``loc_functions.py`` then cross-validates it.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def install(feature: str) -> None:
    """Add ``feature`` to the candidate (and trial) features of ``search/rerank.py``."""
    from lazy_intel.search import rerank

    rerank.CANDIDATE_FEATURES = (*rerank.CANDIDATE_FEATURES, feature)
    rerank.TRIAL_FEATURES = (*rerank.TRIAL_FEATURES, feature)


def install_function_feature(feature: str, values: Callable[..., Mapping[int, float]]) -> None:
    """Add ``feature`` to ``search/function_rank.py``'s features: ``values(definitions, features,
    ranking)`` gives it per symbol id (``features``: the shipped ones, symbol id -> name -> value)."""
    from lazy_intel.search import function_rank

    original = function_rank.function_features

    def with_feature(analysis, query, definitions, ranking):  # type: ignore[no-untyped-def]
        features = original(analysis, query, definitions, ranking)
        for symbol, value in values(definitions, features, ranking).items():
            features[symbol][feature] = value
        return features

    function_rank.FUNCTION_FEATURES = (*function_rank.FUNCTION_FEATURES, feature)
    function_rank.function_features = with_feature


def compare(evaluator: object, feature: str, external: Sequence[str] = ()) -> tuple[list, list]:
    """The shipped pipeline without and with ``feature``, cross-validated by repository on the dev
    issues (the history pairs' held-out row and the in-sample row beside them; ``external`` ids are
    scored by the fit on every dev issue, reported only). Returns the dev held-out scores of both,
    in instance order."""
    import loc_cv
    import loc_protocol
    from loc_synthetic import row

    shipped = loc_protocol.pipelines(
        loc_protocol.GRIDS["fusion"], ["default"], ablations=False, history=True
    )[1]
    trial = dataclasses.replace(
        shipped, name=f"{shipped.name} with {feature}", features=(*shipped.features, feature)
    )
    extra = " | external (reported) file@1 / @3 / @5 / MRR" if external else ""
    print(
        "| pipeline | dev held out file@1 / @3 / @5 / MRR; func@5 / @10 | pairs held out file@1 / @3 / @5 / MRR "
        f"| dev in sample file@1 / @3 / @5{extra} |"
    )
    print("|---|---|---|---|" + ("---|" if external else ""))
    held_scores: list[list] = []
    for pipeline in (shipped, trial):
        held = evaluator.cross_validate(pipeline)  # type: ignore[attr-defined]
        held_scores.append([held.scores[i] for i in sorted(held.scores)])
        out = loc_cv.summary(held_scores[-1])
        ins = loc_cv.summary(list(held.in_sample_scores.values()))
        hist = loc_cv.summary(list(evaluator.history_scores(pipeline, held).values()))  # type: ignore[attr-defined]
        cells = [
            f"{row(out, 'file@1', 'file@3', 'file@5', 'mrr')}; {row(out, 'func@5', 'func@10')}",
            row(hist, "file@1", "file@3", "file@5", "mrr"),
            row(ins, "file@1", "file@3", "file@5"),
        ]
        if external:
            scored = [evaluator.score(pipeline, held.in_sample, i) for i in external]  # type: ignore[attr-defined]
            cells.append(row(loc_cv.summary(scored), "file@1", "file@3", "file@5", "mrr"))
        print(f"| {pipeline.name} | " + " | ".join(cells) + " |", flush=True)
        if pipeline is trial:
            for repo, choice in held.chosen.items():
                print(
                    f"  without {repo}: {feature} coefficient {dict(choice.coefficients or ()).get(feature):+.2f}"
                )
            print(
                f"  fitted on all: {feature} coefficient {dict(held.in_sample.coefficients).get(feature):+.2f}"
            )
    return held_scores[0], held_scores[1]


def run_file_trial(
    feature: str, add: Callable[[Iterable, Path], None], description: str, argv: Sequence[str] | None
) -> int:
    """The command of a trial second-stage feature computed from the repositories' git objects
    (``loc_literal_trial.py``, ``loc_size_trial.py``): ``add(runs, repos)`` sets ``static[file][feature]``
    for the dev runs, the history pairs and half B of the unseen issues; then :func:`compare`, and the
    pre-registered rule's verdict on the dev held-out hits (``loc_more_issues.ships``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--runs-cache", type=Path, required=True)
    parser.add_argument("--synthetic", type=Path, required=True, help="history pairs (loc_synthetic.py)")
    parser.add_argument(
        "--unseen", type=Path, default=None, help="runs of loc_unseen.py collect (half B reported)"
    )
    parser.add_argument("--repos", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args(argv)

    install(feature)  # before the benchmark's modules read the feature list
    import pickle

    from loc_functions import load_runs
    from loc_more_issues import hits, ships
    from loc_rerank import Evaluator
    from loc_synthetic import load_pairs
    from loc_unseen import half_of

    real = load_runs(args.runs_cache)
    pairs = load_pairs(args.synthetic)
    half_b: dict = {}
    if args.unseen is not None:
        with args.unseen.open("rb") as fh:
            half_b = {r.issue.instance_id: r for r in pickle.load(fh) if half_of(r.issue.instance_id) == "B"}
        for run in half_b.values():
            run.tables.clear()
    print(f"command: python {' '.join(sys.argv)}")
    for runs in (real.values(), pairs, half_b.values()):
        add(runs, args.repos)
    evaluator = Evaluator(
        {"default": real},
        history={"default": {r.issue.instance_id: r for r in pairs}},
        external={"default": half_b},
    )
    shipped, trial = compare(evaluator, feature, sorted(half_b))
    (a1, a5), (b1, b5) = hits(shipped), hits(trial)
    verdict = "ships" if ships(shipped, trial) else "not shipped"
    print(
        f"dev held out hits @1 / @5: shipped {a1} / {a5}, with {feature} {b1} / {b5} -> {feature} "
        f"{verdict} (pre-registered rule)"
    )
    return 0

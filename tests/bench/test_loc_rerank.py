"""Cross-validated pipelines (bench/loc_rerank.py): the second stage learns on other repositories."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from lazy_intel.search.fusion import WEIGHT_SYMBOL, Evidence, FusionWeights
from lazy_intel.search.rerank import FEATURES
from tests.bench import load_bench

cv = load_bench("loc_cv")
scoring = load_bench("loc_scoring")
pipes = load_bench("loc_rerank")


@dataclass(frozen=True)
class _Issue:
    instance_id: str
    repo: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...] = ()


def _run(instance: str, repo: str, gold_at: int) -> object:
    """Five files; BM25 prefers a.py … e.py in order; the gold file is the one whose coverage is 1."""
    paths = {i: f"pkg/{'abcde'[i]}.py" for i in range(5)}
    lexical = {i: 10.0 - i for i in range(5)}  # chunk i in file i
    evidence = Evidence({"lexical": lexical}, {}, {i: i for i in range(5)}, paths, False)
    static = {f: {name: 0.0 for name in FEATURES} | {"coverage": 1.0 if f == gold_at else 0.2} for f in paths}
    issue = _Issue(instance, repo, (paths[gold_at],))
    return scoring.IssueRun(issue, evidence, {i: None for i in range(5)}, static)


def _runs(repos: tuple[str, ...], per_repo: int, gold_at: Callable[[int, int], int]) -> dict[str, object]:
    """``per_repo`` issues of each repository, by instance id; issue k of repository r has its gold
    file at ``gold_at(k, r)``."""
    runs: dict[str, object] = {}
    for r, repo in enumerate(repos):
        for k in range(per_repo):
            runs[f"{repo}-{k}"] = _run(f"{repo}-{k}", repo, gold_at=gold_at(k, r))
    return runs


def test_the_second_stage_learns_a_feature_that_holds_across_repositories() -> None:
    runs = _runs(("o/x", "o/y", "o/z"), 4, lambda k, r: 2 + (k + r) % 3)
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    first = evaluator.cross_validate(pipes.Pipeline("first", candidates, None))
    two = evaluator.cross_validate(pipes.Pipeline("two", candidates, ("first", "first_rank", "coverage")))
    assert cv.summary(list(first.scores.values()))["file@1"] == 0.0  # BM25 never puts it first
    assert cv.summary(list(two.scores.values()))["file@1"] == 100.0  # learnt without the held-out repo
    for choice in two.chosen.values():
        coefficients = dict(choice.coefficients)
        assert coefficients["coverage"] > 0 and choice.penalty in pipes.PENALTIES
    # leaving the feature out, the order is all there is to learn from (gold is 3rd, 4th or 5th)
    blind = evaluator.cross_validate(pipes.Pipeline("blind", candidates, ("first", "first_rank")))
    assert cv.summary(list(blind.scores.values()))["file@1"] <= 100 / 3 + 1e-9
    text = pipes.describe(pipes.Pipeline("two", candidates, ("coverage",)), two.in_sample, ["symbol"])
    assert text.startswith(f"variant default; symbol {WEIGHT_SYMBOL:g}; penalty ") and "coverage " in text


def test_a_feature_that_only_fits_the_training_repositories_does_not_help_held_out() -> None:
    # in repository x the gold file has coverage 1, elsewhere coverage 0: held out, the choice made
    # on the other repositories cannot transfer to x, and vice versa
    runs = {}
    for repo in ("o/x", "o/y", "o/z"):
        for k in range(3):
            run = _run(f"{repo}-{k}", repo, gold_at=3)
            if repo != "o/x":
                for f in run.static:
                    run.static[f]["coverage"] = 0.0 if f == 3 else 1.0
            runs[run.issue.instance_id] = run
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    held = evaluator.cross_validate(pipes.Pipeline("two", candidates, ("first", "first_rank", "coverage")))
    x_scores = [s for i, s in held.scores.items() if i.startswith("o/x")]
    assert cv.summary(x_scores)["file@1"] == 0.0


def test_optional_feature_sets_go_from_none_to_each_alone_to_all() -> None:
    p = pipes.Pipeline("p", (), ("first",), optional=("a", "b", "first"))
    assert p.feature_sets() == [("first",), ("first", "a"), ("first", "b"), ("first", "a", "b")]
    assert pipes.Pipeline("q", (), ("first",), optional=("a",)).feature_sets() == [("first",), ("first", "a")]
    assert pipes.Pipeline("r", (), ("first",)).feature_sets() == [("first",)]


def test_the_inner_cross_validation_adds_an_optional_feature_that_holds_across_repositories() -> None:
    runs = _runs(("o/x", "o/y", "o/z", "o/w"), 4, lambda k, r: 2 + (k + r) % 3)
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    pipeline = pipes.Pipeline("two", candidates, ("first", "first_rank"), optional=("coverage",))
    held = evaluator.cross_validate(pipeline)
    assert cv.summary(list(held.scores.values()))["file@1"] == 100.0
    for choice in [*held.chosen.values(), held.in_sample]:
        assert [name for name, _ in choice.coefficients] == ["first", "first_rank", "coverage"]


def test_an_optional_feature_that_changes_nothing_is_left_out() -> None:
    runs = _runs(("o/x", "o/y", "o/z"), 3, lambda k, r: 2 + (k + r) % 3)
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    base = ("first", "first_rank", "coverage")
    held = evaluator.cross_validate(pipes.Pipeline("two", candidates, base, optional=("dense",)))
    for choice in [*held.chosen.values(), held.in_sample]:  # dense is 0 everywhere: a tie keeps fewer
        assert tuple(name for name, _ in choice.coefficients) == base


def test_the_inner_cross_validation_deepens_the_candidate_list_when_the_gold_file_lies_below_it() -> None:
    runs = _runs(("o/x", "o/y", "o/z"), 4, lambda k, r: 2 if (k + r) % 2 else 4)  # 3rd or 5th at first
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    features = ("first", "first_rank", "coverage")
    shallow = evaluator.cross_validate(pipes.Pipeline("shallow", candidates, features, depths=(3,)))
    deep = evaluator.cross_validate(pipes.Pipeline("deep", candidates, features, depths=(3, 5)))
    assert cv.summary(list(shallow.scores.values()))["file@1"] < 100.0  # the 5th file is out of reach
    assert cv.summary(list(deep.scores.values()))["file@1"] == 100.0
    assert {c.depth for c in deep.chosen.values()} == {5} and {c.depth for c in shallow.chosen.values()} == {
        3
    }
    text = pipes.describe(pipes.Pipeline("deep", candidates, features), deep.in_sample, [])
    assert ", depth 5;" in text


def test_the_likelihood_chooses_the_penalty_where_the_objective_only_ties() -> None:
    # coverage marks the gold file in every repository: every penalty ranks it first, so the
    # objective ties and keeps the strongest; the held-out likelihood prefers the confident fit
    runs = _runs(("o/x", "o/y", "o/z"), 4, lambda k, r: 2 + (k + r) % 3)
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    features = ("first", "first_rank", "coverage")
    by_objective = evaluator.cross_validate(pipes.Pipeline("o", candidates, features))
    by_likelihood = evaluator.cross_validate(
        pipes.Pipeline("l", candidates, features, select_by="likelihood")
    )
    assert {c.penalty for c in by_objective.chosen.values()} == {max(pipes.PENALTIES)}
    assert {c.penalty for c in by_likelihood.chosen.values()} == {min(pipes.PENALTIES)}
    assert cv.summary(list(by_likelihood.scores.values()))["file@1"] == 100.0
    weak = dict(next(iter(by_likelihood.chosen.values())).coefficients)["coverage"]
    strong = dict(next(iter(by_objective.chosen.values())).coefficients)["coverage"]
    assert weak > strong > 0


def test_an_unknown_selection_criterion_is_refused() -> None:
    with pytest.raises(ValueError, match="select_by"):
        pipes.Pipeline("p", (), ("first",), select_by="accuracy")


def test_repository_weights_make_every_repository_weigh_alike() -> None:
    repos = ["a"] * 6 + ["b"] * 2 + ["c"]
    weights = pipes.repository_weights(repos)
    assert sum(weights) == pytest.approx(len(repos))
    per_repo = {r: sum(w for w, s in zip(weights, repos, strict=True) if s == r) for r in set(repos)}
    assert max(per_repo.values()) == pytest.approx(min(per_repo.values()))
    assert pipes.repository_weights([]) == []


def test_a_balanced_fit_lets_small_repositories_outvote_a_large_one() -> None:
    # the large repository's gold file has the lowest coverage, the two small ones' the highest:
    # issue by issue the large one wins; repository by repository the small ones do
    runs = {}
    for repo, count in (("o/big", 9), ("o/s1", 2), ("o/s2", 2)):
        for k in range(count):
            run = _run(f"{repo}-{k}", repo, gold_at=3)
            if repo == "o/big":
                for f in run.static:
                    run.static[f]["coverage"] = 0.0 if f == 3 else 1.0
            runs[run.issue.instance_id] = run
    evaluator = pipes.Evaluator({"default": runs})
    candidates = (("default", scoring.Config(FusionWeights())),)
    every = sorted(runs)
    plain = evaluator.fit(pipes.Pipeline("plain", candidates, ("coverage",), penalties=(0.3,)), every)
    balanced = evaluator.fit(
        pipes.Pipeline("balanced", candidates, ("coverage",), penalties=(0.3,), balanced=True), every
    )
    assert dict(plain.coefficients)["coverage"] < 0 < dict(balanced.coefficients)["coverage"]


def _flat(run: object) -> object:
    """The run with coverage 1 for every file: its gold file says nothing through that feature."""
    for f in run.static:
        run.static[f]["coverage"] = 1.0
    return run


def test_history_pairs_train_only_the_folds_that_hold_their_repository_in() -> None:
    # the real issues say nothing about coverage (it is 1 for every file); the history pairs of
    # o/x and o/y say the gold file is the covered one. Held out, o/z is ranked by what o/x's and
    # o/y's pairs taught; o/x is ranked without o/x's pairs, and a fit never scores a pair
    runs = {i: _flat(r) for i, r in _runs(("o/x", "o/y", "o/z"), 3, lambda k, r: 3).items()}
    history = {}
    for repo in ("o/x", "o/y"):
        for k in range(4):
            run = _run(f"history:{repo}:{k}", repo, gold_at=3)
            history[run.issue.instance_id] = run
    evaluator = pipes.Evaluator({"default": runs}, history={"default": history})
    candidates = (("default", scoring.Config(FusionWeights())),)
    pipeline = pipes.Pipeline("two", candidates, ("first", "first_rank", "coverage"), history=True)
    held = evaluator.cross_validate(pipeline)
    assert set(held.scores) == set(runs)  # the pairs are never scored
    assert dict(held.chosen["o/z"].coefficients)["coverage"] > 0.1  # learnt from o/x's and o/y's pairs
    without = evaluator.cross_validate(pipes.Pipeline("two", candidates, ("first", "first_rank", "coverage")))
    assert dict(without.chosen["o/z"].coefficients)["coverage"] == pytest.approx(0.0, abs=1e-9)
    # the fold without o/x and o/y trains on o/z alone: it has no pairs, so it learns what "without" does
    ids = [i for i in runs if i.startswith("o/z")]
    only_z = evaluator.queries("default", candidates[0][1], ids, ("coverage",), history=True)
    assert len(only_z) == len(ids)
    # with o/x among the training issues, its four pairs join, weighing as much as the real issues
    ids = [i for i in runs if not i.startswith("o/y")]
    mixed = evaluator.queries("default", candidates[0][1], ids, ("coverage",), history=True)
    assert len(mixed) == len(ids) + 4
    real, pairs = mixed[: len(ids)], mixed[len(ids) :]
    assert sum(q.weight for q in pairs) == pytest.approx(pipes.HISTORY_SHARE * sum(q.weight for q in real))


def test_past_pairs_train_every_fold_the_held_out_repositorys_own_included() -> None:
    # only o/z's own past says the covered file is the gold one: with ``past`` the fold that holds
    # o/z out learns it from o/z's past pairs; without it nothing does
    runs = {i: _flat(r) for i, r in _runs(("o/x", "o/y", "o/z"), 3, lambda k, r: 3).items()}
    past = {}
    for k in range(4):
        run = _run(f"past:o/z:{k}", "o/z", gold_at=3)
        past[run.issue.instance_id] = run
    evaluator = pipes.Evaluator({"default": runs}, past={"default": past})
    candidates = (("default", scoring.Config(FusionWeights())),)
    features = ("first", "coverage")
    held = evaluator.cross_validate(pipes.Pipeline("two", candidates, features, past=True))
    assert set(held.scores) == set(runs)
    assert dict(held.chosen["o/z"].coefficients)["coverage"] > 0.1  # its own past, though o/z is held out
    plain = evaluator.cross_validate(pipes.Pipeline("two", candidates, features))
    assert dict(plain.chosen["o/z"].coefficients)["coverage"] == pytest.approx(0.0, abs=1e-9)
    x_ids = [i for i in runs if i.startswith("o/x")]
    queries = evaluator.queries("default", candidates[0][1], x_ids, features, past=True)
    assert len(queries) == len(x_ids) + 4
    assert sum(q.weight for q in queries[len(x_ids) :]) == pytest.approx(pipes.HISTORY_SHARE * len(x_ids))


def test_external_reports_are_scored_and_never_fitted_or_folded() -> None:
    runs = _runs(("o/x", "o/y"), 3, lambda k, r: 2 + (k + r) % 3)
    outside = {}
    for k in range(3):
        run = _run(f"history:o/w:{k}", "o/w", gold_at=4)
        for f in run.static:  # would teach "low coverage is gold" if it were ever fitted on
            run.static[f]["coverage"] = 0.0 if f == 4 else 1.0
        outside[run.issue.instance_id] = run
    evaluator = pipes.Evaluator({"default": runs}, external={"default": outside})
    candidates = (("default", scoring.Config(FusionWeights())),)
    pipeline = pipes.Pipeline("two", candidates, ("first", "first_rank", "coverage"), history=True, past=True)
    held = evaluator.cross_validate(pipeline)
    assert set(held.scores) == set(runs) and set(held.chosen) == {"o/x", "o/y"}
    assert dict(held.in_sample.coefficients)["coverage"] > 0  # learnt from the real issues only
    scored = [evaluator.score(pipeline, held.in_sample, i) for i in outside]
    assert cv.summary(scored)["file@1"] == 0.0  # the outside reports' gold is the uncovered file

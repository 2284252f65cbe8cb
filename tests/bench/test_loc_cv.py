"""Leave-one-repository-out cross-validation (bench/loc_cv.py): the splitter and honest selection."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.bench import load_bench

cv = load_bench("loc_cv")


def _score(hit1: bool, hit5: bool | None = None, func10: bool | None = None, rr: float | None = None):
    hit5 = hit1 if hit5 is None else hit5
    functions = None if func10 is None else (func10, func10)
    return cv.IssueScore((hit1, hit5, hit5), functions, rr if rr is not None else (1.0 if hit1 else 0.0))


@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=4), st.sampled_from("rstuvw"), min_size=2))
def test_every_issue_is_held_out_once_by_the_fold_of_its_repository(issue_repos: dict[str, str]) -> None:
    if len(set(issue_repos.values())) < 2:
        with pytest.raises(ValueError, match="two repositories"):
            cv.leave_one_repository_out(issue_repos)
        return
    folds = cv.leave_one_repository_out(issue_repos)
    assert [f.held_out for f in folds] == sorted(set(issue_repos.values()))
    tested = [i for f in folds for i in f.test]
    assert sorted(tested) == sorted(issue_repos)  # each issue tested exactly once
    for fold in folds:
        assert {issue_repos[i] for i in fold.test} == {fold.held_out}
        assert fold.held_out not in {issue_repos[i] for i in fold.train}  # nothing of it trains
        assert set(fold.train) | set(fold.test) == set(issue_repos)
        assert not set(fold.train) & set(fold.test)


def test_one_repository_cannot_be_cross_validated() -> None:
    with pytest.raises(ValueError, match="two repositories"):
        cv.leave_one_repository_out({"a": "r", "b": "r"})


def test_selection_never_sees_the_held_out_repository() -> None:
    # candidate 0 solves repository "x" only, candidate 1 the others: whichever repository is held
    # out, the choice is the one that does best on the *other* repositories
    repos = {"x1": "x", "x2": "x", "y1": "y", "y2": "y", "z1": "z"}
    per_candidate = [
        {i: _score(r == "x") for i, r in repos.items()},
        {i: _score(r != "x") for i, r in repos.items()},
    ]
    seen_train: list[tuple[str, ...]] = []

    def scores(index: int) -> dict:
        return per_candidate[index]

    folds = cv.leave_one_repository_out(repos)
    held = cv.grid_search(folds, [0, 1], scores)
    # without x: 0 of 3 against 3 of 3; without y: x1, x2 (2 of 3) against z1; without z: 2 of 4
    # each, a tie that keeps the first candidate
    assert held.chosen == {"x": 1, "y": 0, "z": 0}
    assert held.scores["x1"] == per_candidate[1]["x1"] and held.scores["y1"] == per_candidate[0]["y1"]
    assert cv.summary(list(held.scores.values()))["file@1"] == 0.0  # every issue by the wrong choice
    # in sample candidate 1 wins (3 of 5 against 2 of 5) and is what would ship
    assert held.in_sample == 1
    assert cv.summary(list(held.in_sample_scores.values()))["file@1"] == pytest.approx(60.0)
    # a fit that looks at its training ids only
    held2 = cv.cross_validate(
        folds,
        lambda train: seen_train.append(tuple(train)) or len(train),
        lambda choice, instance: _score(True),
    )
    assert held2.chosen == {"x": 3, "y": 3, "z": 4} and held2.in_sample == 5
    assert all(not {repos[i] for i in t} >= {"x", "y", "z"} for t in seen_train[:-1])


def test_in_sample_can_look_better_than_held_out() -> None:
    # each repository's issues are solved by a candidate of its own: in sample the best single
    # candidate solves 2 of 4; held out, the choice made on the other repository solves none
    repos = {"a1": "a", "a2": "a", "b1": "b", "b2": "b"}
    per_candidate = [
        {i: _score(r == "a") for i, r in repos.items()},
        {i: _score(r == "b") for i, r in repos.items()},
    ]
    held = cv.grid_search(cv.leave_one_repository_out(repos), [0, 1], lambda i: per_candidate[i])
    assert cv.summary(list(held.scores.values()))["file@1"] == 0.0
    assert cv.summary(list(held.in_sample_scores.values()))["file@1"] == 50.0


def test_objective_ties_go_to_mrr_then_to_the_first_candidate() -> None:
    issues = ["i1", "i2"]
    tied = [
        {"i1": _score(True), "i2": _score(False, rr=0.5)},
        {"i1": _score(True), "i2": _score(False, rr=0.5)},
    ]
    assert cv.select([0, 1], lambda i: tied[i], issues) == 0  # the default (listed first) keeps a tie
    better_mrr = [tied[0], {"i1": _score(True), "i2": _score(False, rr=0.9)}]
    assert cv.select([0, 1], lambda i: better_mrr[i], issues) == 1


def test_objective_is_the_mean_of_file_at_1_file_at_5_and_function_at_10() -> None:
    scores = [_score(True, True, func10=False), _score(False, True, func10=True)]
    value, mrr = cv.objective(scores)
    assert value == pytest.approx((50.0 + 100.0 + 50.0) / 3)
    assert mrr == pytest.approx(50.0)
    # issues without gold functions leave function Acc@10 out of the mean
    assert cv.objective([_score(True, True)])[0] == pytest.approx(100.0)


def test_grid_lists_the_first_values_first() -> None:
    points = cv.grid({"a": (1, 2), "b": (3, 4, 5)})
    assert len(points) == 6 and points[0] == {"a": 1, "b": 3} and points[-1] == {"a": 2, "b": 5}


def test_summary_counts_function_metrics_over_issues_with_gold_functions() -> None:
    s = cv.summary([_score(True, func10=True), _score(False)])
    assert s["n"] == 2 and s["n_functions"] == 1 and s["func@10"] == 100.0 and s["file@1"] == 50.0
    assert cv.summary([_score(True)])["func@10"] is None

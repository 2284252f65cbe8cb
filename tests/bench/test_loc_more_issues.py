"""More real issues in the fit (bench/loc_more_issues.py): the folds and the pre-registered rule."""

from __future__ import annotations

from tests.bench import load_bench

more = load_bench("loc_more_issues")


def _score(at1: bool, at5: bool) -> object:
    import loc_cv

    return loc_cv.IssueScore((at1, at5, at5), None, 1.0 if at1 else 0.0)


def test_a_fold_never_trains_on_an_issue_of_the_repository_it_scores() -> None:
    dev = {"d1": "x/a", "d2": "x/a", "d3": "x/b", "d4": "x/c"}
    extra = {"e1": "x/a", "e2": "x/b", "e3": "x/b", "e4": "x/z"}  # x/z has no dev issue
    folds = more.folds(dev, extra)
    assert sorted(f.held_out for f in folds) == ["x/a", "x/b", "x/c"]  # x/z only trains
    repos = {**dev, **extra}
    for fold in folds:
        assert all(repos[i] != fold.held_out for i in fold.train)
        assert {i for i, r in repos.items() if r == fold.held_out} == set(fold.test)
        assert "e4" in fold.train
    by_repo = {f.held_out: f for f in folds}
    assert set(by_repo["x/c"].train) == {"d1", "d2", "d3", "e1", "e2", "e3", "e4"}


def test_the_rule_needs_two_more_hits_and_loses_at_most_one_at_either_cutoff() -> None:
    base = [_score(True, True)] * 5 + [_score(False, True)] * 3 + [_score(False, False)] * 4
    assert more.hits(base) == (5, 8)
    one_more_each = [*base[:8], _score(True, True), *base[9:]]  # @1 +1, @5 +1
    assert more.hits(one_more_each) == (6, 9)
    assert more.ships(base, one_more_each)
    one_more_at_5 = [*base[:8], _score(False, True), *base[9:]]
    assert not more.ships(base, one_more_at_5)  # +1 in all: below MIN_GAIN
    trade = [_score(False, True)] + base[1:8] + [_score(False, True)] * 4  # @1 -1, @5 +4
    assert more.hits(trade) == (4, 12)
    assert more.ships(base, trade)
    steep = [_score(False, True)] * 2 + base[2:8] + [_score(False, True)] * 4  # @1 -2, @5 +4
    assert not more.ships(base, steep)
    assert not more.ships(base, base)

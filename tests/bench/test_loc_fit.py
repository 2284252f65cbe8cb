"""The conditional-logit fit of the second stage (bench/loc_fit.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bench import load_bench

fitting = load_bench("loc_fit")


def _queries(rng: np.random.Generator, beta: np.ndarray, n: int = 400) -> list:
    out = []
    for _ in range(n):
        x = rng.random((12, len(beta)))
        p = np.exp(x @ beta)
        p /= p.sum()
        gold = np.zeros(12, dtype=bool)
        gold[rng.choice(12, p=p)] = True
        out.append(fitting.Query(x, gold))
    return out


def test_fit_recovers_the_coefficients_that_generated_the_choices() -> None:
    rng = np.random.default_rng(7)
    truth = np.array([3.0, -2.0, 0.0])
    beta = fitting.fit(_queries(rng, truth), penalty=0.01)
    assert np.allclose(beta, truth, atol=0.6), beta
    assert beta[0] > 2 and beta[1] < -1


def test_the_fit_is_a_maximum_of_the_penalised_likelihood() -> None:
    rng = np.random.default_rng(3)
    queries = _queries(rng, np.array([1.0, 2.0]), n=60)
    beta = fitting.fit(queries, penalty=1.0)
    best = fitting.log_likelihood(queries, beta, 1.0)
    for step in (np.array([0.05, 0]), np.array([0, 0.05]), np.array([-0.05, 0.05])):
        assert fitting.log_likelihood(queries, beta + step, 1.0) < best
        assert fitting.log_likelihood(queries, beta - step, 1.0) < best


def test_a_stronger_penalty_shrinks_the_coefficients() -> None:
    rng = np.random.default_rng(5)
    queries = _queries(rng, np.array([2.0, -1.0]), n=80)
    weak, strong = fitting.fit(queries, 0.1), fitting.fit(queries, 100.0)
    assert np.linalg.norm(strong) < np.linalg.norm(weak)


def test_queries_without_a_gold_candidate_are_left_out() -> None:
    x = np.array([[1.0], [0.0]])
    with pytest.raises(ValueError, match="no training query"):
        fitting.fit([fitting.Query(x, np.array([False, False]))], 1.0)
    # one informative query: the gold candidate has the larger feature, so the coefficient is positive
    beta = fitting.fit(
        [fitting.Query(x, np.array([True, False])), fitting.Query(x, np.array([False, False]))], 0.1
    )
    assert beta[0] > 0


def test_a_query_of_weight_two_counts_as_the_query_twice() -> None:
    rng = np.random.default_rng(5)
    queries = _queries(rng, np.array([1.5, -1.0]), n=40)
    doubled = [fitting.Query(q.features, q.gold, 2.0) if i < 10 else q for i, q in enumerate(queries)]
    repeated = queries + queries[:10]
    assert np.allclose(fitting.fit(doubled, penalty=0.5), fitting.fit(repeated, penalty=0.5), atol=1e-8)
    assert not np.allclose(fitting.fit(doubled, penalty=0.5), fitting.fit(queries, penalty=0.5), atol=1e-3)

"""Fitting the second stage's coefficients: a conditional logit over each query's candidates (pure).

Each training query gives its candidate files' feature rows ``X`` (n x k) and which of them are gold.
The model scores a candidate ``x . beta`` and reads ``softmax(X beta)`` as the chance that each
candidate is the file to change; the fit maximises the mean log-chance of the gold files, minus an
L2 penalty ``lambda / 2 * |beta|^2`` (features lie in [0, 1], so one penalty suits all), by Newton's
method (the objective is concave: a few iterations suffice). Queries whose candidates hold no gold
file say nothing about the order among candidates and are left out. A query's ``weight`` scales its
term (1 by default: every issue alike; ``loc_rerank`` can weight every repository alike instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Query:
    features: np.ndarray  # (candidates, k)
    gold: np.ndarray  # (candidates,) bool
    weight: float = 1.0  # the query's share of the likelihood


def _softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max())
    return e / e.sum()


def log_likelihood(queries: Sequence[Query], beta: np.ndarray, penalty: float) -> float:
    total = 0.0
    for q in queries:
        s = q.features @ beta
        top = s.max()
        log_z = top + np.log(np.exp(s - top).sum())
        total += q.weight * float(np.mean(s[q.gold]) - log_z)
    return total - 0.5 * penalty * float(beta @ beta)


def fit(
    queries: Sequence[Query], penalty: float, *, iterations: int = 50, tolerance: float = 1e-9
) -> np.ndarray:
    """The coefficients maximising the penalised conditional log-likelihood (``penalty`` > 0)."""
    usable = [q for q in queries if q.gold.any() and len(q.gold) > 1]
    if not usable:
        raise ValueError("no training query has a gold file among several candidates")
    k = usable[0].features.shape[1]
    beta = np.zeros(k)
    current = log_likelihood(usable, beta, penalty)
    for _ in range(iterations):
        gradient = -penalty * beta
        hessian = -penalty * np.eye(k)
        for q in usable:
            p = _softmax(q.features @ beta)
            target = q.gold / q.gold.sum()
            gradient += q.weight * (q.features.T @ (target - p))
            weighted = q.features * p[:, None]
            hessian -= q.weight * (q.features.T @ weighted - np.outer(weighted.sum(0), weighted.sum(0)))
        step = np.linalg.solve(hessian, -gradient)
        scale = 1.0
        while scale > 1e-6:  # backtracking: the full Newton step can overshoot far from the optimum
            candidate = beta + scale * step
            value = log_likelihood(usable, candidate, penalty)
            if value >= current - 1e-12:
                break
            scale *= 0.5
        beta, previous, current = candidate, current, value
        if abs(current - previous) < tolerance:
            break
    return beta

"""Cross-validating the whole ranking: the first stage's weights chosen from a grid and the second
stage's coefficients fitted, both on the training repositories of each fold only.

A :class:`Pipeline` names what may be tuned: the first-stage candidates (evidence variant x fusion
weights) and the second-stage features (``None``: no second stage). Fitting on a set of training
issues (``Evaluator.fit``):

1. the first-stage candidate with the best objective on the training issues (``loc_cv.select``);
2. the L2 penalty of the conditional logit, the candidate depth (how many of the first stage's files
   the second stage re-orders, when the pipeline names more than one in ``depths``) — and, when the
   pipeline names ``optional`` features, which of them join the ``features`` (none, each one alone,
   or all) — by an inner
   leave-one-repository-out over the training repositories (pooled inner held-out objective, or
   with ``select_by="likelihood"`` the summed inner held-out conditional log-likelihood of the gold
   files; ties to fewer optional features, then to the shallower depth, then to the stronger penalty; the
   strongest penalty, the first depth and no optional feature when only one repository trains);
3. the coefficients fitted on every training issue with that penalty (``loc_fit.fit``);
4. the file-context weight chunks use after the second stage, by the objective on the training issues.

Everything runs on the evidence gathered once per issue (``loc_scoring``), so a pipeline costs
fits and in-memory re-ranking, never a search.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

import loc_cv
from lazy_intel.search.rerank import CANDIDATE_FEATURES, RERANK_FILES, candidates, stage_features
from loc_cv import HeldOut, IssueScore
from loc_fit import Query, fit, log_likelihood
from loc_scoring import Config, IssueRun, issue_score, outcome_of

PENALTIES = (10.0, 3.0, 1.0, 0.3)  # strongest first: an inner tie keeps the stronger penalty
SELECTION_CRITERIA = ("objective", "likelihood")  # what an inner cross-validation may maximise
CONTEXTS = (1.0, 0.5, 2.0, 4.0)  # file-context weight after the second stage (the default first)
# the history pairs of a fit weigh, all together, this share of its real issues' weight (fixed a
# priori: as much as the real issues, so neither kind of report outweighs the other)
HISTORY_SHARE = 1.0


@dataclass(frozen=True)
class Pipeline:
    name: str
    candidates: tuple[tuple[str, Config], ...]  # (evidence variant, first-stage configuration)
    features: tuple[str, ...] | None  # second-stage features; None: the first stage alone
    penalties: tuple[float, ...] = PENALTIES
    contexts: tuple[float, ...] = CONTEXTS
    optional: tuple[str, ...] = ()  # features the inner cross-validation may add (see fit)
    depths: tuple[int, ...] = (RERANK_FILES,)  # candidate depths it chooses among (the first on ties)
    # what the inner cross-validation maximises: the ranking objective (``loc_cv.objective``, moves
    # in steps of one issue) or the held-out conditional log-likelihood of the gold files (smooth)
    select_by: str = "objective"
    # after the penalty: drop features one at a time while that raises the inner held-out
    # likelihood (backward elimination; ``select_by="likelihood"`` only; see ``Evaluator._pruned``)
    prune: bool = False
    # every repository weighs alike in the fit and in the inner likelihood (each issue 1 / its
    # repository's issue count, scaled so the weights add up to the issue count): the model is for
    # repositories it has not seen, and two of eight repositories hold half the issues
    balanced: bool = False
    # every fit also trains on the history pairs (``loc_synthetic.py``) of its training
    # repositories: report = a later commit's message, gold = the Python files it modified;
    # together they weigh as much as the real training issues (``HISTORY_SHARE``); never scored
    history: bool = False
    # every fit also trains on the past pairs of *every* repository, the held-out one's included
    # (``loc_synthetic.py collect --past``: commits before its earliest base commit, which no dev
    # issue's fix can be): what a repository's own history could teach a search of that repository;
    # with ``history`` all the pairs together weigh ``HISTORY_SHARE`` of the real issues
    past: bool = False

    def __post_init__(self) -> None:
        if self.select_by not in SELECTION_CRITERIA:
            raise ValueError(f"select_by {self.select_by!r}: expected one of {SELECTION_CRITERIA}")

    def feature_sets(self) -> list[tuple[str, ...]]:
        """The feature sets the inner cross-validation chooses among: ``features``, then with each
        optional feature alone, then with all of them (fewer first: ties keep the smaller)."""
        base = self.features or ()
        extra = [f for f in self.optional if f not in base]
        sets = [base, *((*base, f) for f in extra)]
        if len(extra) > 1:
            sets.append((*base, *extra))
        return sets


@dataclass(frozen=True)
class Choice:
    """What a fit chose: a first-stage candidate and (with a second stage) penalty, coefficients and
    file-context weight."""

    candidate: int
    penalty: float | None = None
    coefficients: tuple[tuple[str, float], ...] | None = None
    file_context: float | None = None
    depth: int | None = None  # how many first-stage files the second stage re-orders


def repository_weights(repos: Sequence[str]) -> list[float]:
    """Each issue's weight when every repository weighs alike: ``1 / n(repository)``, scaled so the
    weights add up to the number of issues (the penalty keeps its scale)."""
    counts: dict[str, int] = {}
    for r in repos:
        counts[r] = counts.get(r, 0) + 1
    if not counts:
        return []
    scale = len(repos) / len(counts)
    return [scale / counts[r] for r in repos]


class Evaluator:
    """Scores pipelines over ``runs[variant][instance id]`` (the same issues in every variant)."""

    def __init__(
        self,
        runs: Mapping[str, Mapping[str, IssueRun]],
        history: Mapping[str, Mapping[str, IssueRun]] | None = None,
        past: Mapping[str, Mapping[str, IssueRun]] | None = None,
        external: Mapping[str, Mapping[str, IssueRun]] | None = None,
    ) -> None:
        self.runs = runs
        first = next(iter(runs.values()))
        self.repos = {i: r.issue.repo for i, r in first.items()}
        # training-only reports (``Pipeline.history``), by variant; never in a fold's test
        self.history = history or {}
        self.past = past or {}  # training-only reports of every repository's own past (``Pipeline.past``)
        # reports of other repositories, only ever scored (``score``), never in a fit or a fold
        self.external = external or {}
        self._all = {
            v: {**rs, **self.history.get(v, {}), **self.past.get(v, {}), **self.external.get(v, {})}
            for v, rs in runs.items()
        }
        self._first: dict[tuple[str, Config], dict[str, IssueScore]] = {}
        self._matrix: dict[tuple[str, Config, str], tuple[np.ndarray, np.ndarray]] = {}

    # ---- the first stage
    def first_scores(self, variant: str, config: Config) -> dict[str, IssueScore]:
        key = (variant, config)
        if key not in self._first:
            self._first[key] = {
                i: issue_score(r.issue, outcome_of(r, config)) for i, r in self.runs[variant].items()
            }
        return self._first[key]

    # ---- the second stage
    def matrix(self, variant: str, config: Config, instance: str) -> tuple[np.ndarray, np.ndarray]:
        """Feature rows (every candidate feature) of the candidates the first stage hands on, and
        which are gold."""
        key = (variant, config, instance)
        if key not in self._matrix:
            run = self._all[variant][instance]
            stage = run.table(config.weights.floor_rank).stage_scores(config.weights)
            chosen = candidates(stage, run.evidence.file_path, config.rerank_files)
            staged = stage_features(stage, chosen, run.evidence.file_path)
            rows = [
                [{**run.static[f], **staged[f]}.get(name, 0.0) for name in CANDIDATE_FEATURES] for f in chosen
            ]
            gold = set(run.issue.gold_files)
            self._matrix[key] = (
                np.array(rows, dtype=float).reshape(len(chosen), len(CANDIDATE_FEATURES)),
                np.array([run.evidence.file_path.get(f) in gold for f in chosen], dtype=bool),
            )
        return self._matrix[key]

    def queries(
        self,
        variant: str,
        config: Config,
        ids: Sequence[str],
        features: Sequence[str],
        *,
        balanced: bool = False,
        history: bool = False,
        past: bool = False,
    ) -> list[Query]:
        """The fit's queries for ``ids``; with ``history``, also the history pairs of their
        repositories, with ``past`` every repository's past pairs; the pairs weigh
        ``HISTORY_SHARE`` of the real issues' weight all together."""
        columns = [CANDIDATE_FEATURES.index(f) for f in features]
        weights = repository_weights([self.repos[i] for i in ids]) if balanced else [1.0] * len(ids)
        extra: list[str] = []
        if history:
            repos = {self.repos[i] for i in ids}
            extra += sorted(i for i, r in self.history.get(variant, {}).items() if r.issue.repo in repos)
        if past:
            extra += sorted(self.past.get(variant, {}))
        if extra:
            share = HISTORY_SHARE * sum(weights) / len(extra)
            ids, weights = [*ids, *extra], [*weights, *([share] * len(extra))]
        out = []
        for i, weight in zip(ids, weights, strict=True):
            x, gold = self.matrix(variant, config, i)
            out.append(Query(x[:, columns], gold, weight))
        return out

    def score(self, pipeline: Pipeline, choice: Choice, instance: str) -> IssueScore:
        variant, config = pipeline.candidates[choice.candidate]
        run = self._all[variant][instance]
        if choice.coefficients is None:
            if instance in self.runs[variant]:
                return self.first_scores(variant, config)[instance]
            return issue_score(run.issue, outcome_of(run, config))
        weights = replace(config.weights, file_context=choice.file_context or 0.0)
        depth = choice.depth or config.rerank_files
        second = Config(weights, file_context=True, rerank=dict(choice.coefficients), rerank_files=depth)
        return issue_score(run.issue, outcome_of(run, second))

    def _fitted(
        self,
        pipeline: Pipeline,
        candidate: int,
        ids: Sequence[str],
        penalty: float,
        features: Sequence[str],
        *,
        depth: int,
    ) -> tuple[tuple[str, float], ...]:
        variant, config = pipeline.candidates[candidate]
        config = replace(config, rerank_files=depth)
        queries = self.queries(
            variant,
            config,
            ids,
            features,
            balanced=pipeline.balanced,
            history=pipeline.history,
            past=pipeline.past,
        )
        beta = fit(queries, penalty)
        return tuple(zip(features, (float(b) for b in beta), strict=True))

    def _held_likelihood(
        self,
        pipeline: Pipeline,
        candidate: int,
        ids: Sequence[str],
        features: Sequence[str],
        coefficients: tuple[tuple[str, float], ...],
        *,
        depth: int,
    ) -> float:
        """The conditional log-likelihood of the gold files of ``ids`` under ``coefficients`` (no
        penalty term; queries without a gold file among several candidates say nothing and are
        left out, as in the fit)."""
        variant, config = pipeline.candidates[candidate]
        config = replace(config, rerank_files=depth)
        queries = [
            q
            for q in self.queries(variant, config, ids, features, balanced=pipeline.balanced)
            if q.gold.any() and len(q.gold) > 1
        ]
        beta = np.array([b for _, b in coefficients])
        return log_likelihood(queries, beta, 0.0)

    def fit(self, pipeline: Pipeline, train: Sequence[str]) -> Choice:
        first = loc_cv.select(
            pipeline.candidates, lambda k: self.first_scores(*pipeline.candidates[k]), train
        )
        if pipeline.features is None:
            return Choice(first)
        _, config = pipeline.candidates[first]
        default_context = config.weights.file_context
        train_repos = {i: self.repos[i] for i in train}
        # one training repository leaves no inner fold: the strongest penalty, untuned
        inner = loc_cv.leave_one_repository_out(train_repos) if len(set(train_repos.values())) > 1 else []
        sets = pipeline.feature_sets()
        best_features, best_penalty, best_depth = sets[0], pipeline.penalties[0], pipeline.depths[0]
        best_value = None
        for features in sets if inner else ():
            for depth in pipeline.depths:
                for penalty in pipeline.penalties:
                    pooled: list[IssueScore] = []
                    likelihood = 0.0
                    for fold in inner:
                        coefficients = self._fitted(
                            pipeline, first, fold.train, penalty, features, depth=depth
                        )
                        if pipeline.select_by == "likelihood":
                            likelihood += self._held_likelihood(
                                pipeline, first, fold.test, features, coefficients, depth=depth
                            )
                            continue
                        choice = Choice(first, penalty, coefficients, default_context, depth)
                        pooled += [self.score(pipeline, choice, i) for i in fold.test]
                    value = (likelihood,) if pipeline.select_by == "likelihood" else loc_cv.objective(pooled)
                    if best_value is None or value > best_value:
                        best_features, best_penalty, best_depth, best_value = features, penalty, depth, value
        if pipeline.prune and inner and pipeline.select_by == "likelihood":
            best_features = self._pruned(
                pipeline, first, inner, best_features, penalty=best_penalty, depth=best_depth
            )
        coefficients = self._fitted(pipeline, first, train, best_penalty, best_features, depth=best_depth)
        contexts = [Choice(first, best_penalty, coefficients, c, best_depth) for c in pipeline.contexts]
        chosen = loc_cv.select(
            contexts, lambda k: {i: self.score(pipeline, contexts[k], i) for i in train}, train
        )
        return contexts[chosen]

    def _inner_likelihood(
        self,
        pipeline: Pipeline,
        candidate: int,
        inner: Sequence[loc_cv.Fold],
        features: Sequence[str],
        *,
        penalty: float,
        depth: int,
    ) -> float:
        total = 0.0
        for fold in inner:
            coefficients = self._fitted(pipeline, candidate, fold.train, penalty, features, depth=depth)
            total += self._held_likelihood(
                pipeline, candidate, fold.test, features, coefficients, depth=depth
            )
        return total

    def _pruned(
        self,
        pipeline: Pipeline,
        candidate: int,
        inner: Sequence[loc_cv.Fold],
        features: Sequence[str],
        *,
        penalty: float,
        depth: int,
    ) -> tuple[str, ...]:
        """Backward elimination: while leaving one feature out raises the summed inner held-out
        log-likelihood of the gold files (at the chosen penalty), leave out the one that raises it
        most (ties: the later name). Strictly better only: a feature that changes nothing stays."""
        kept = list(features)
        value = self._inner_likelihood(pipeline, candidate, inner, kept, penalty=penalty, depth=depth)
        while len(kept) > 1:
            trials = [
                (
                    self._inner_likelihood(
                        pipeline, candidate, inner, [g for g in kept if g != f], penalty=penalty, depth=depth
                    ),
                    f,
                )
                for f in kept
            ]
            best, dropped = max(trials)
            if best <= value:
                break
            kept.remove(dropped)
            value = best
        return tuple(kept)

    def history_scores(
        self, pipeline: Pipeline, held: HeldOut, variant: str = "default"
    ) -> dict[str, IssueScore]:
        """Each history pair scored by the fold that held its repository out (``held.chosen``):
        reports no choice was made on, from the same folds as the real issues' held-out figure."""
        return {
            i: self.score(pipeline, held.chosen[r.issue.repo], i)  # type: ignore[arg-type]
            for i, r in self.history.get(variant, {}).items()
            if r.issue.repo in held.chosen
        }

    def cross_validate(self, pipeline: Pipeline) -> HeldOut:
        folds = loc_cv.leave_one_repository_out(self.repos)
        return loc_cv.cross_validate(
            folds,
            lambda train: self.fit(pipeline, train),
            lambda choice, instance: self.score(pipeline, choice, instance),  # type: ignore[arg-type]
        )


def describe(pipeline: Pipeline, choice: Choice, space: Sequence[str]) -> str:
    """A choice in words: variant, first-stage weights, and the second stage's coefficients."""
    variant, config = pipeline.candidates[choice.candidate]
    parts = [f"variant {variant}"] + [f"{n} {getattr(config.weights, n):g}" for n in space]
    if choice.coefficients is not None:
        depth = choice.depth or config.rerank_files
        parts.append(f"penalty {choice.penalty:g}, file_context {choice.file_context:g}, depth {depth}")
        parts.append("coefficients " + ", ".join(f"{n} {v:.3f}" for n, v in choice.coefficients))
    return "; ".join(parts)

"""The function-level stage (``search/function_rank.py``), cross-validated by repository.

Input: the runs cache of ``bench/swebench_loc.py`` (the evidence of one search per issue) and the
indexes it was gathered from (``--work``, read-only). For every outer leave-one-repository-out fold:

1. the file stages are the fold's own: the "two stages" pipeline of ``swebench_loc`` fitted on the
   training repositories (``loc_rerank.Evaluator.fit``, exactly as the held-out file figures);
2. under that ranking each issue's candidate definitions (``function_rank``: the best
   ``FUNCTION_FILES`` files' definitions, the best ``FUNCTION_CHUNKS`` chunks' symbols) get their
   features, read from the issue's index by the product's ``function_facts.read_definitions``;
3. the function stage's L2 penalty is chosen by the summed inner leave-one-repository-out held-out
   log-likelihood of the gold functions (``loc_fit``), the coefficients fitted on the training issues,
   and the held-out repository's functions ranked by them.

The baseline is today's function order (the chunk ranking deduplicated by qualified name) under the
same fold's file stages, from the same evidence: the comparison is paired. The in-sample figure
(everything fitted on all issues) is printed beside the held-out one.

Usage:
    python bench/loc_functions.py --runs-cache RUNS.pickle --work DIR/swe [--facts FACTS.pickle]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sqlite3
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import __main__
import loc_cv
from lazy_intel.search.function_facts import read_definitions
from lazy_intel.search.function_rank import (
    FUNCTION_FEATURES,
    Definition,
    StageRanking,
    candidates,
    function_features,
    rank_definitions,
)
from lazy_intel.search.hybrid import DEFAULT_CONFIG
from lazy_intel.search.query import analyze_query
from lazy_intel.search.rerank import rerank
from lazy_intel.search.rerank_facts import read_query_facts
from lazy_intel.search.signals import indexed_term_counts
from lazy_intel.store.reader import ReadView
from loc_cv import IssueScore
from loc_fit import Query, fit, log_likelihood
from loc_rerank import PENALTIES, Choice, Evaluator, Pipeline
from loc_scoring import RANKED_FUNCTIONS, FunctionFacts, IssueRun, all_in_top


@dataclass(frozen=True)
class Ranking:
    """One issue ranked by one file-stage choice: final file scores and order, chunk scores."""

    file_scores: dict[int, float]
    file_order: list[int]
    chunk_scores: dict[int, float]


def ranking_of(pipeline: Pipeline, choice: Choice, run: IssueRun) -> Ranking:
    """What ``Evaluator.score`` ranks for ``choice``, with the chunk scores it orders chunks by."""
    _, config = pipeline.candidates[choice.candidate]
    if choice.coefficients is None:
        raise ValueError("the function stage needs a file second stage")
    weights = replace(config.weights, file_context=choice.file_context or 0.0)
    table = run.table(weights.floor_rank)
    second, _ = rerank(
        table.stage_scores(weights),
        run.evidence.file_path,
        run.static,
        dict(choice.coefficients),
        choice.depth or config.rerank_files,
    )
    paths = run.evidence.file_path
    order = sorted(second, key=lambda f: (-second[f], paths.get(f, "")))
    return Ranking(second, order, table.chunk_ranking(weights, file_context=True, file_scores=second))


def stage_ranking(ranking: Ranking, facts: FunctionFacts) -> StageRanking:
    return StageRanking(ranking.chunk_scores, facts.chunk_symbol, ranking.file_scores, ranking.file_order)


def feature_rows(
    ranking: Ranking, facts: FunctionFacts, gold: Sequence[str]
) -> tuple[list[Definition], np.ndarray, np.ndarray]:
    """The candidates (``function_rank.candidates``), their feature rows (FUNCTION_FEATURES) and
    which are gold."""
    staged = stage_ranking(ranking, facts)
    cands = candidates(list(facts.definitions.values()), staged)
    feats = function_features(facts.analysis, facts.query, cands, staged)
    x = np.array([[feats[d.symbol_id][n] for n in FUNCTION_FEATURES] for d in cands], dtype=float)
    wanted = set(gold)
    return cands, x.reshape(len(cands), len(FUNCTION_FEATURES)), np.array([d.key in wanted for d in cands])


def ranked_keys(cands: Sequence[Definition], x: np.ndarray, coefficients: Mapping[str, float]) -> list[str]:
    """Distinct ``path:qualified`` of the candidates by the linear score, best first."""
    feats = {
        d.symbol_id: dict(zip(FUNCTION_FEATURES, row, strict=True)) for d, row in zip(cands, x, strict=True)
    }
    key = {d.symbol_id: d.key for d in cands}
    return list(dict.fromkeys(key[s] for s, _ in rank_definitions(feats, coefficients)))[:RANKED_FUNCTIONS]


class FunctionStage:
    """Cross-validates the function stage over runs, facts and per-fold file-stage choices."""

    def __init__(
        self,
        runs: Mapping[str, IssueRun],
        facts: Mapping[str, FunctionFacts],
        pipeline: Pipeline,
        evaluator: Evaluator,
    ) -> None:
        self.runs, self.facts, self.pipeline, self.evaluator = runs, facts, pipeline, evaluator
        self.repos = {i: r.issue.repo for i, r in runs.items()}
        self._rows: dict[tuple[Choice, str], tuple[list[Definition], np.ndarray, np.ndarray]] = {}

    def rows(self, choice: Choice, instance: str) -> tuple[list[Definition], np.ndarray, np.ndarray]:
        key = (choice, instance)
        if key not in self._rows:
            run = self.runs[instance]
            ranking = ranking_of(self.pipeline, choice, run)
            self._rows[key] = feature_rows(ranking, self.facts[instance], run.issue.gold_functions)
        return self._rows[key]

    def queries(self, choice: Choice, ids: Sequence[str]) -> list[Query]:
        out = []
        for i in ids:
            _, x, gold = self.rows(choice, i)
            if gold.any() and len(gold) > 1:
                out.append(Query(x, gold))
        return out

    def fit(self, choice: Choice, train: Sequence[str]) -> tuple[float, dict[str, float]]:
        """Penalty by the inner held-out log-likelihood (ties: the stronger), coefficients on ``train``."""
        train_repos = {i: self.repos[i] for i in train}
        best, best_value = PENALTIES[0], None
        if len(set(train_repos.values())) > 1:
            inner = loc_cv.leave_one_repository_out(train_repos)
            for penalty in PENALTIES:
                value = 0.0
                for fold in inner:
                    beta = fit(self.queries(choice, fold.train), penalty)
                    value += log_likelihood(self.queries(choice, fold.test), beta, 0.0)
                if best_value is None or value > best_value:
                    best, best_value = penalty, value
        beta = fit(self.queries(choice, train), best)
        return best, dict(zip(FUNCTION_FEATURES, (float(b) for b in beta), strict=True))

    def score(self, choice: Choice, coefficients: Mapping[str, float], instance: str) -> IssueScore:
        """The file figures of ``choice`` with the function stage's function order."""
        base = self.evaluator.score(self.pipeline, choice, instance)
        gold = self.runs[instance].issue.gold_functions
        if base.function_hits is None or not gold:
            return base
        cands, x, _ = self.rows(choice, instance)
        keys = ranked_keys(cands, x, coefficients)
        return replace(base, function_hits=tuple(all_in_top(keys, gold, k) for k in loc_cv.FUNCTION_KS))

    def recall(self, choice: Choice, instance: str) -> bool | None:
        """Whether every gold function is a candidate (None: the issue has no gold function)."""
        gold = self.runs[instance].issue.gold_functions
        if not gold:
            return None
        cands, _, _ = self.rows(choice, instance)
        return set(gold) <= {d.key for d in cands}


# ---- reading the facts from the indexes (read-only)
def store_path(work: Path, repo: str, commit: str) -> Path:
    """The store of ``swebench_loc``'s index slot of ``repo`` at ``commit`` (one per slot)."""
    profiles = sorted(work.glob(f"*/{repo.replace('/', '+')}/{commit[:12]}/state/stores/store-*.sqlite"))
    if len(profiles) != 1:
        raise FileNotFoundError(f"expected one store for {repo}@{commit[:12]} under {work}, got {profiles}")
    return profiles[0]


def read_issue_facts(view: ReadView, run: IssueRun, rankings: Sequence[Ranking]) -> FunctionFacts:
    """Query facts, every evidence chunk's symbol, and the definitions the candidates of any of
    ``rankings`` need (with the query terms their chunks hold)."""
    analysis = analyze_query(run.issue.query)  # type: ignore[attr-defined]
    stem_weight = DEFAULT_CONFIG.stem_weight if "stems" in view.fts_columns else 0.0
    terms = indexed_term_counts(view, analysis, stem_weight)
    query = read_query_facts(view, analysis, terms)
    chunks = sorted(run.evidence.chunk_file)
    chunk_symbol: dict[int, int | None] = {}
    for start in range(0, len(chunks), 400):
        batch = chunks[start : start + 400]
        marks = ",".join("?" * len(batch))
        for c, s in view.conn.execute(f"SELECT id, symbol_id FROM chunks WHERE id IN ({marks})", batch):
            chunk_symbol[int(c)] = None if s is None else int(s)
    staged = [StageRanking(r.chunk_scores, chunk_symbol, r.file_scores, r.file_order) for r in rankings]
    files = sorted({f for r in staged for f in r.top_files()})
    symbols = sorted({s for r in staged for s in r.top_symbols()})
    definitions = read_definitions(view, files, symbols, [t for t, _, _ in terms])
    return FunctionFacts(analysis, query, chunk_symbol, {d.symbol_id: d for d in definitions})


def gather_facts(
    work: Path, runs: Mapping[str, IssueRun], rankings: Mapping[str, Sequence[Ranking]]
) -> dict[str, FunctionFacts]:
    """Every issue's facts for the union of the candidates of its rankings."""
    out = {}
    for instance, run in runs.items():
        path = store_path(work, run.issue.repo, run.issue.base_commit)  # type: ignore[attr-defined]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            out[instance] = read_issue_facts(ReadView(conn, path), run, rankings[instance])
        finally:
            conn.close()
    return out


def load_runs(path: Path) -> dict[str, IssueRun]:
    """The default variant's runs of a ``swebench_loc`` runs cache (pickled from its ``__main__``)."""
    import swebench_loc

    for name in ("Issue", "RunStats"):  # the cache was pickled by swebench_loc run as a script
        if not hasattr(__main__, name):
            setattr(__main__, name, getattr(swebench_loc, name))
    with path.open("rb") as fh:
        runs, _ = pickle.load(fh)  # our own file
    for r in runs["default"]:
        r.tables.clear()
    return {r.issue.instance_id: r for r in runs["default"]}


def check(stage: FunctionStage, choices: Mapping[str, Choice]) -> int:
    """Whether ranking by ``chunk_rank`` alone gives today's function list for every choice, and the
    candidate recall under the in-sample choice (no figure of the function stage is computed)."""
    differs = []
    for instance in stage.runs:
        for choice in choices.values():
            today = stage.evaluator.score(stage.pipeline, choice, instance)
            again = stage.score(choice, {"chunk_rank": 1.0}, instance)
            if today != again:
                differs.append(instance)
    known = [v for i in stage.runs if (v := stage.recall(choices["*"], i)) is not None]
    print(
        f"today's order reproduced: {len(stage.runs) - len(set(differs))}/{len(stage.runs)} issues {sorted(set(differs))}"
    )
    print(f"candidate recall (in-sample file stage): {_pct(known):.1f}% of {len(known)}")
    return 1 if differs else 0


def _pct(hits: Sequence[bool]) -> float:
    return 100.0 * sum(hits) / len(hits) if hits else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    import swebench_loc

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs-cache", type=Path, required=True)
    parser.add_argument(
        "--work", type=Path, required=True, help="the index cache the runs were gathered from"
    )
    parser.add_argument("--choices", type=Path, default=None, help="pickle of the file-stage choices (cache)")
    parser.add_argument("--facts", type=Path, default=None, help="pickle of the facts read (cache)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--check", action="store_true", help="only check the reproduction of today's order and recall"
    )
    args = parser.parse_args(argv)
    began = time.perf_counter()
    runs = load_runs(args.runs_cache)
    evaluator = Evaluator({"default": runs})
    pipeline = swebench_loc.pipelines(swebench_loc.GRIDS["fusion"], ["default"], ablations=False)[1]
    folds = loc_cv.leave_one_repository_out(evaluator.repos)
    everything = sorted(runs)
    if args.choices is not None and args.choices.is_file():
        with args.choices.open("rb") as fh:
            choices = pickle.load(fh)  # our own file
    else:
        choices = {f.held_out: evaluator.fit(pipeline, f.train) for f in folds}
        choices["*"] = evaluator.fit(pipeline, everything)
        if args.choices is not None:
            with args.choices.open("wb") as fh:
                pickle.dump(choices, fh)
    fitted = time.perf_counter()
    if args.facts is not None and args.facts.is_file():
        with args.facts.open("rb") as fh:
            facts = pickle.load(fh)  # our own file
    else:
        rankings = {i: [ranking_of(pipeline, c, r) for c in choices.values()] for i, r in runs.items()}
        facts = gather_facts(args.work, runs, rankings)
        if args.facts is not None:
            with args.facts.open("wb") as fh:
                pickle.dump(facts, fh)
    read = time.perf_counter()
    stage = FunctionStage(runs, facts, pipeline, evaluator)
    if args.check:
        return check(stage, choices)
    held: dict[str, IssueScore] = {}
    base: dict[str, IssueScore] = {}
    recall: dict[str, bool | None] = {}
    lines = []
    for fold in folds:
        choice = choices[fold.held_out]
        penalty, coefficients = stage.fit(choice, fold.train)
        lines.append(
            f"  without {fold.held_out}: penalty {penalty:g}; "
            + ", ".join(f"{n} {v:.2f}" for n, v in coefficients.items())
        )
        for i in fold.test:
            held[i] = stage.score(choice, coefficients, i)
            base[i] = evaluator.score(pipeline, choice, i)
            recall[i] = stage.recall(choice, i)
    penalty, coefficients = stage.fit(choices["*"], everything)
    in_sample = {i: stage.score(choices["*"], coefficients, i) for i in everything}
    in_base = {i: evaluator.score(pipeline, choices["*"], i) for i in everything}
    with_gold = [i for i in everything if held[i].function_hits is not None]
    wins = sum(bool(held[i].function_hits[1] and not base[i].function_hits[1]) for i in with_gold)  # type: ignore[index]
    losses = sum(bool(base[i].function_hits[1] and not held[i].function_hits[1]) for i in with_gold)  # type: ignore[index]
    rows = [
        ("held-out: function stage", held),
        ("held-out: today's function order (same file stages)", base),
        ("in-sample: function stage (fitted on all)", in_sample),
        ("in-sample: today's function order", in_base),
    ]
    print(swebench_loc.figure_table(rows, sorted(set(evaluator.repos.values())), evaluator.repos))
    print()
    print("function stage coefficients per fold:")
    print("\n".join(lines))
    print(
        f"  fitted on all {len(everything)} (to ship): penalty {penalty:g}; "
        + ", ".join(f"{n} {v:.3f}" for n, v in coefficients.items())
    )
    known = [v for v in recall.values() if v is not None]
    print(
        f"candidate recall (every gold function a candidate, held-out file stages): {_pct(known):.1f}% of {len(known)}"
    )
    print(f"held-out function Acc@10: {wins} issues gained, {losses} lost against today's order")
    print(
        f"file stages {fitted - began:.0f} s, facts {read - fitted:.0f} s, function stage {time.perf_counter() - read:.0f} s"
    )
    print("command: " + " ".join([sys.executable, *sys.argv]))
    if args.json:
        record = {
            "held_out": loc_cv.summary(list(held.values())),
            "held_out_baseline": loc_cv.summary(list(base.values())),
            "in_sample": loc_cv.summary(list(in_sample.values())),
            "in_sample_baseline": loc_cv.summary(list(in_base.values())),
            "coefficients": coefficients,
            "penalty": penalty,
            "per_issue": {i: {"stage": vars(held[i]), "baseline": vars(base[i])} for i in everything},
        }
        args.json.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    import loc_functions  # the module, not __main__: what the caches pickle is importable by name

    sys.exit(loc_functions.main())

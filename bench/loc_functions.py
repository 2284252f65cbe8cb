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

``--rules FILESxCHUNKS,…`` adds candidate rules beside the shipped one (``FUNCTION_FILES`` x
``FUNCTION_CHUNKS``): each gets its own row (penalty and coefficients per fold as above), and one row
lets each fold choose among them by the inner leave-one-repository-out held-out function Acc@10 on
its training repositories (ties to the shipped rule). ``--penalties`` sets the penalty grid (a wider
grid after a look at the held-out figure is a second look: say so). ``--misses`` lists every gold
function that is not a candidate under its fold's file stage, and why (``miss_reason``).

The baseline is today's function order (the chunk ranking deduplicated by qualified name) under the
same fold's file stages, from the same evidence: the comparison is paired. The in-sample figure
(everything fitted on all issues) is printed beside the held-out one.

Usage:
    python bench/loc_functions.py --runs-cache RUNS.pickle --work DIR/swe [--facts FACTS.pickle]
        [--rules 10x80,5x160] [--penalties 10,3,1,0.3] [--misses] [--json out.json]
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
from lazy_intel.search.function_facts import read_callpath, read_definitions
from lazy_intel.search.function_rank import (
    DEFINITION_KINDS,
    FUNCTION_CHUNKS,
    FUNCTION_FEATURES,
    FUNCTION_FILES,
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
from loc_rerank import HISTORY_SHARE, PENALTIES, Choice, Evaluator, Pipeline
from loc_scoring import RANKED_FUNCTIONS, FunctionFacts, IssueRun, all_in_top


@dataclass(frozen=True)
class CandidateRule:
    """How many of the best files (every definition) and of the best chunks (their symbols) give the
    stage's candidates (``function_rank.candidates``)."""

    files: int = FUNCTION_FILES
    chunks: int = FUNCTION_CHUNKS

    def __str__(self) -> str:
        return f"{self.files} files + {self.chunks} chunks"


SHIPPED_RULE = CandidateRule()
# The function stage's L2 penalties, strongest first: the file stage's (``loc_rerank.PENALTIES``,
# 10/3/1/0.3) and three weaker, since every fold chose the weakest of those (0.3) on the first look;
# widened after that held-out figure was known (a second look, docs/retrieval.md).
FUNCTION_PENALTIES: tuple[float, ...] = (*PENALTIES, 0.1, 0.03, 0.01)


def parse_rules(spec: str) -> list[CandidateRule]:
    """``--rules``: ``FILESxCHUNKS`` comma-separated; the shipped rule is always first (ties go to it)."""
    rules = [SHIPPED_RULE]
    for part in filter(None, (p.strip() for p in spec.split(","))):
        files, _, chunks = part.partition("x")
        rule = CandidateRule(int(files), int(chunks))
        if rule not in rules:
            rules.append(rule)
    return rules


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
    ranking: Ranking, facts: FunctionFacts, gold: Sequence[str], rule: CandidateRule = SHIPPED_RULE
) -> tuple[list[Definition], np.ndarray, np.ndarray]:
    """The candidates (``function_rank.candidates`` under ``rule``), their feature rows
    (FUNCTION_FEATURES) and which are gold."""
    staged = stage_ranking(ranking, facts)
    cands = candidates(list(facts.definitions.values()), staged, files=rule.files, chunks=rule.chunks)
    feats = function_features(facts.analysis, facts.query, cands, staged, facts.callpath)
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


FeatureRows = tuple[list[Definition], np.ndarray, np.ndarray]  # candidates, features, which are gold


class FunctionStage:
    """Cross-validates the function stage over runs, facts and per-fold file-stage choices."""

    def __init__(
        self,
        runs: Mapping[str, IssueRun],
        facts: Mapping[str, FunctionFacts],
        pipeline: Pipeline,
        evaluator: Evaluator,
        *,
        penalties: Sequence[float] = FUNCTION_PENALTIES,
        history: Mapping[str, IssueRun] | None = None,
    ) -> None:
        self.runs, self.facts, self.pipeline, self.evaluator = runs, facts, pipeline, evaluator
        self.penalties = tuple(penalties)
        self.repos = {i: r.issue.repo for i, r in runs.items()}
        # training-only reports (history pairs with their gold functions; their facts in ``facts``):
        # a fit on some issues also trains on the pairs of their repositories, weighing
        # ``HISTORY_SHARE`` of the issues all together, as the file stage's fits do
        self.history = dict(history or {})
        self._all = {**self.runs, **self.history}
        self._rows: dict[tuple[Choice, str, CandidateRule], FeatureRows] = {}
        self._fits: dict[tuple[Choice, tuple[str, ...], CandidateRule, float], np.ndarray] = {}

    def rows(
        self, choice: Choice, instance: str, rule: CandidateRule = SHIPPED_RULE
    ) -> tuple[list[Definition], np.ndarray, np.ndarray]:
        key = (choice, instance, rule)
        if key not in self._rows:
            run = self._all[instance]
            ranking = ranking_of(self.pipeline, choice, run)
            self._rows[key] = feature_rows(ranking, self.facts[instance], run.issue.gold_functions, rule)
        return self._rows[key]

    def queries(
        self, choice: Choice, ids: Sequence[str], rule: CandidateRule = SHIPPED_RULE, *, training: bool = True
    ) -> list[Query]:
        """The fit's queries for ``ids`` (``training``: with the history pairs of their repositories;
        a held-out likelihood is taken over the issues alone)."""
        weights = dict.fromkeys(ids, 1.0)
        if training and self.history:
            repos = {self.repos[i] for i in ids}
            extra = sorted(i for i, r in self.history.items() if r.issue.repo in repos)
            if extra:
                share = HISTORY_SHARE * len(ids) / len(extra)
                weights.update(dict.fromkeys(extra, share))
        out = []
        for i, weight in weights.items():
            _, x, gold = self.rows(choice, i, rule)
            if gold.any() and len(gold) > 1:
                out.append(Query(x, gold, weight))
        return out

    def _beta(self, choice: Choice, train: Sequence[str], rule: CandidateRule, penalty: float) -> np.ndarray:
        key = (choice, tuple(sorted(train)), rule, penalty)
        if key not in self._fits:
            self._fits[key] = fit(self.queries(choice, train, rule), penalty)
        return self._fits[key]

    def penalty(self, choice: Choice, train: Sequence[str], rule: CandidateRule = SHIPPED_RULE) -> float:
        """The penalty with the best summed inner leave-one-repository-out held-out log-likelihood
        of the gold functions (ties: the stronger, earlier in ``penalties``)."""
        train_repos = {i: self.repos[i] for i in train}
        best, best_value = self.penalties[0], None
        if len(set(train_repos.values())) > 1:
            inner = loc_cv.leave_one_repository_out(train_repos)
            for penalty in self.penalties:
                value = 0.0
                for fold in inner:
                    beta = self._beta(choice, fold.train, rule, penalty)
                    value += log_likelihood(self.queries(choice, fold.test, rule, training=False), beta, 0.0)
                if best_value is None or value > best_value:
                    best, best_value = penalty, value
        return best

    def fit(
        self, choice: Choice, train: Sequence[str], rule: CandidateRule = SHIPPED_RULE
    ) -> tuple[float, dict[str, float]]:
        """Penalty by the inner held-out log-likelihood, coefficients on ``train``."""
        best = self.penalty(choice, train, rule)
        beta = self._beta(choice, train, rule, best)
        return best, dict(zip(FUNCTION_FEATURES, (float(b) for b in beta), strict=True))

    def choose_rule(
        self, choice: Choice, train: Sequence[str], rules: Sequence[CandidateRule]
    ) -> tuple[CandidateRule, float, dict[str, float]]:
        """The candidate rule with the best inner leave-one-repository-out held-out function Acc@10
        (then Acc@5) over ``train`` (ties: the earlier rule, the shipped one first), each inner fold
        fitted at the penalty the rule gets on all of ``train``; then its penalty and coefficients."""
        train_repos = {i: self.repos[i] for i in train}
        if len(rules) == 1 or len(set(train_repos.values())) < 2:
            return rules[0], *self.fit(choice, train, rules[0])
        inner = loc_cv.leave_one_repository_out(train_repos)
        best, best_value = rules[0], None
        for rule in rules:
            penalty = self.penalty(choice, train, rule)
            hits: list[tuple[bool, ...]] = []
            for fold in inner:
                beta = self._beta(choice, fold.train, rule, penalty)
                coefficients = dict(zip(FUNCTION_FEATURES, (float(b) for b in beta), strict=True))
                for i in fold.test:
                    got = self.score(choice, coefficients, i, rule).function_hits
                    if got is not None:
                        hits.append(got)
            value = (sum(h[1] for h in hits), sum(h[0] for h in hits))
            if best_value is None or value > best_value:
                best, best_value = rule, value
        return best, *self.fit(choice, train, best)

    def score(
        self,
        choice: Choice,
        coefficients: Mapping[str, float],
        instance: str,
        rule: CandidateRule = SHIPPED_RULE,
    ) -> IssueScore:
        """The file figures of ``choice`` with the function stage's function order."""
        base = self.evaluator.score(self.pipeline, choice, instance)
        gold = self.runs[instance].issue.gold_functions
        if base.function_hits is None or not gold:
            return base
        cands, x, _ = self.rows(choice, instance, rule)
        keys = ranked_keys(cands, x, coefficients)
        return replace(base, function_hits=tuple(all_in_top(keys, gold, k) for k in loc_cv.FUNCTION_KS))

    def recall(self, choice: Choice, instance: str, rule: CandidateRule = SHIPPED_RULE) -> bool | None:
        """Whether every gold function is a candidate (None: the issue has no gold function)."""
        gold = self.runs[instance].issue.gold_functions
        if not gold:
            return None
        cands, _, _ = self.rows(choice, instance, rule)
        return set(gold) <= {d.key for d in cands}


@dataclass(frozen=True)
class StageFigures:
    """The function stage cross-validated: held-out scores (each repository by its fold's stage),
    today's function order under the same file stages, the in-sample fit, candidate recall."""

    held: dict[str, IssueScore]
    baseline: dict[str, IssueScore]
    in_sample: dict[str, IssueScore]
    in_sample_baseline: dict[str, IssueScore]
    recall: dict[str, bool | None]  # held-out rule under the held-out file stage
    in_sample_recall: dict[str, bool | None]
    folds: dict[str, tuple[CandidateRule, float, dict[str, float]]]  # held-out repo -> rule, penalty, fit
    shipped: tuple[CandidateRule, float, dict[str, float]]  # chosen on every issue


def cross_validate_stage(
    stage: FunctionStage, choices: Mapping[str, Choice], rules: Sequence[CandidateRule] = (SHIPPED_RULE,)
) -> StageFigures:
    """Leave one repository out: each fold's file stage is ``choices[held-out repo]`` (``"*"``: on
    every issue); its candidate rule (among ``rules``), penalty and coefficients are chosen on the
    fold's training issues only."""
    held: dict[str, IssueScore] = {}
    base: dict[str, IssueScore] = {}
    recall: dict[str, bool | None] = {}
    per_fold = {}
    everything = sorted(stage.runs)
    for fold in loc_cv.leave_one_repository_out(stage.repos):
        choice = choices[fold.held_out]
        rule, penalty, coefficients = stage.choose_rule(choice, fold.train, rules)
        per_fold[fold.held_out] = (rule, penalty, coefficients)
        for i in fold.test:
            held[i] = stage.score(choice, coefficients, i, rule)
            base[i] = stage.evaluator.score(stage.pipeline, choice, i)
            recall[i] = stage.recall(choice, i, rule)
    rule, penalty, coefficients = stage.choose_rule(choices["*"], everything, rules)
    return StageFigures(
        held,
        base,
        {i: stage.score(choices["*"], coefficients, i, rule) for i in everything},
        {i: stage.evaluator.score(stage.pipeline, choices["*"], i) for i in everything},
        recall,
        {i: stage.recall(choices["*"], i, rule) for i in everything},
        per_fold,
        (rule, penalty, coefficients),
    )


# ---- reading the facts from the indexes (read-only)
def store_path(work: Path, repo: str, commit: str) -> Path:
    """The store of ``swebench_loc``'s index slot of ``repo`` at ``commit``: the one the slot's
    catalog publishes (a rebuilt slot keeps its previous store file beside it for a while)."""
    states = sorted(work.glob(f"*/{repo.replace('/', '+')}/{commit[:12]}/state"))
    if len(states) != 1:
        raise FileNotFoundError(
            f"expected one index slot for {repo}@{commit[:12]} under {work}, got {states}"
        )
    catalog = json.loads((states[0] / "catalog.json").read_text())
    return states[0] / catalog["store"]


def read_issue_facts(
    view: ReadView, run: IssueRun, rankings: Sequence[Ranking], widest: CandidateRule = SHIPPED_RULE
) -> FunctionFacts:
    """Query facts, every evidence chunk's symbol, and the definitions the candidates of any of
    ``rankings`` need under ``widest`` (with the query terms their chunks hold)."""
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
    files = sorted({f for r in staged for f in r.top_files(widest.files)})
    symbols = sorted({s for r in staged for s in r.top_symbols(widest.chunks)})
    definitions = read_definitions(view, files, symbols, [t for t, _, _ in terms])
    callpath = read_callpath(view, analysis, query.definition_counts, definitions)
    return FunctionFacts(analysis, query, chunk_symbol, {d.symbol_id: d for d in definitions}, callpath)


def gather_facts(
    work: Path,
    runs: Mapping[str, IssueRun],
    rankings: Mapping[str, Sequence[Ranking]],
    widest: CandidateRule = SHIPPED_RULE,
) -> dict[str, FunctionFacts]:
    """Every issue's facts for the union of the candidates of its rankings under ``widest``."""
    out = {}
    for instance, run in runs.items():
        path = store_path(work, run.issue.repo, run.issue.base_commit)  # type: ignore[attr-defined]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            out[instance] = read_issue_facts(ReadView(conn, path), run, rankings[instance], widest)
        finally:
            conn.close()
    return out


def load_runs(path: Path) -> dict[str, IssueRun]:
    """The default variant's runs of a ``swebench_loc`` runs cache (pickled from its ``__main__``)."""
    import loc_checkout
    import loc_collect

    for name, module in (
        ("Issue", loc_checkout),
        ("RunStats", loc_collect),
    ):  # pickled by swebench_loc's __main__
        if not hasattr(__main__, name):
            setattr(__main__, name, getattr(module, name))
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


# ---- why a gold function is not a candidate
@dataclass(frozen=True)
class GoldInIndex:
    """What the index holds of one gold ``path:qualified`` span, and where the ranking put it."""

    file_indexed: bool
    kinds: tuple[str, ...]  # kinds of the symbols with that path and qualified name (none: no such)
    own_chunk: bool  # one of them has a chunk of its own
    file_rank: int | None  # its file's rank in the final file ranking (None: not ranked)
    chunk_position: int | None  # its best chunk's position in the chunk ranking (None: none ranked)


def miss_reason(gold: GoldInIndex, rule: CandidateRule = SHIPPED_RULE) -> str:
    """Why a gold span is not a candidate under ``rule`` (the first reason that applies)."""
    if not gold.file_indexed:
        return "file not indexed"
    if not gold.kinds:
        return "no definition of that qualified name"
    if not gold.own_chunk:
        return "no chunk of its own (nested in another definition)"
    in_files = gold.file_rank is not None and gold.file_rank <= rule.files
    in_chunks = gold.chunk_position is not None and gold.chunk_position <= rule.chunks
    if in_files and not set(gold.kinds) & set(DEFINITION_KINDS):
        return (
            f"kind {'/'.join(gold.kinds)} (not a definition kind) and its chunk not in the best {rule.chunks}"
        )
    if in_files or in_chunks:
        return "a candidate"
    return f"file outside the best {rule.files} and its chunks outside the best {rule.chunks}"


def gold_in_index(conn: sqlite3.Connection, key: str, staged: StageRanking) -> GoldInIndex:
    """Look ``key`` (``path:qualified``) up in the store and in ``staged``."""
    path, _, qualified = key.partition(":")
    row = conn.execute("SELECT id FROM files WHERE path = ? AND status = 'indexed'", (path,)).fetchone()
    if row is None:
        return GoldInIndex(False, (), False, None, None)
    file_id = int(row[0])
    symbols = conn.execute(
        "SELECT s.id, s.kind FROM symbols s WHERE s.file_id = ? AND s.qualified_name = ?",
        (file_id, qualified),
    ).fetchall()
    chunk_ids: set[int] = set()
    for symbol_id, _ in symbols:
        chunk_ids |= {
            int(c) for (c,) in conn.execute("SELECT id FROM chunks WHERE symbol_id = ?", (symbol_id,))
        }
    order = staged.file_order
    file_rank = order.index(file_id) + 1 if file_id in order else None
    position = next((n + 1 for n, c in enumerate(staged.chunk_order) if c in chunk_ids), None)
    kinds = tuple(sorted({str(k) for _, k in symbols}))
    return GoldInIndex(True, kinds, bool(chunk_ids), file_rank, position)


def candidate_misses(stage: FunctionStage, choices: Mapping[str, Choice], work: Path) -> list[str]:
    """Every gold function that is not a candidate under each issue's held-out file stage, with why."""
    lines = [
        "| issue | gold function | file rank | best chunk position | kinds | why |",
        "|---|---|---|---|---|---|",
    ]
    counts: dict[str, int] = {}
    for instance, run in sorted(stage.runs.items()):
        gold = run.issue.gold_functions
        if not gold or stage.recall(choices[run.issue.repo], instance):
            continue
        cands, _, _ = stage.rows(choices[run.issue.repo], instance)
        keys = {d.key for d in cands}
        staged = stage_ranking(
            ranking_of(stage.pipeline, choices[run.issue.repo], run), stage.facts[instance]
        )
        path = store_path(work, run.issue.repo, run.issue.base_commit)  # type: ignore[attr-defined]
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            for key in gold:
                if key in keys:
                    continue
                found = gold_in_index(conn, key, staged)
                why = miss_reason(found)
                counts[why] = counts.get(why, 0) + 1
                lines.append(
                    f"| {instance} | `{key}` | {found.file_rank or '-'} | {found.chunk_position or '-'} | "
                    f"{'/'.join(found.kinds) or '-'} | {why} |"
                )
        finally:
            conn.close()
    lines.append("")
    lines.extend(f"{n} x {why}" for why, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    return lines


def stage_rows(figures: StageFigures, label: str) -> list[tuple[str, dict[str, IssueScore]]]:
    return [(f"held-out: {label}", figures.held), (f"in-sample: {label} (fitted on all)", figures.in_sample)]


def describe_fit(fitted: tuple[CandidateRule, float, dict[str, float]]) -> str:
    rule, penalty, coefficients = fitted
    return f"{rule}, penalty {penalty:g}; " + ", ".join(f"{n} {v:.3f}" for n, v in coefficients.items())


def _recall(values: Mapping[str, bool | None]) -> str:
    known = [v for v in values.values() if v is not None]
    return f"{_pct(known):.1f}% of {len(known)}"


def file_stage_choices(evaluator: Evaluator, pipeline: Pipeline) -> dict[str, Choice]:
    """Each fold's file-stage choice (held-out repository -> choice) and ``"*"``: on every issue."""
    choices = {
        f.held_out: evaluator.fit(pipeline, f.train) for f in loc_cv.leave_one_repository_out(evaluator.repos)
    }
    choices["*"] = evaluator.fit(pipeline, sorted(evaluator.repos))
    return choices


def load_unseen(paths: Sequence[Path], *, single_file: bool = False) -> dict[str, IssueRun]:
    """The runs of ``loc_unseen.py collect`` files (``single_file``: gold patches of one file only)."""
    out: dict[str, IssueRun] = {}
    for path in paths:
        with path.open("rb") as fh:
            for run in pickle.load(fh):  # our own files
                if single_file and len(run.issue.gold_files) != 1:
                    continue
                run.tables.clear()
                out[run.issue.instance_id] = run
    return out


def gather_unseen_facts(
    work: Path, unseen: Mapping[str, IssueRun], pipeline: Pipeline, choice: Choice, widest: CandidateRule
) -> dict[str, FunctionFacts]:
    """The facts of the unseen issues' candidates under the in-sample file stage (``choice``)."""
    rankings = {i: [ranking_of(pipeline, choice, r)] for i, r in unseen.items()}
    return gather_facts(work, unseen, rankings, widest)


def score_unseen(
    unseen: Mapping[str, IssueRun],
    facts: Mapping[str, FunctionFacts],
    shipped: StageFigures,
    dev: FunctionStage,
    choice: Choice,
) -> dict[str, object]:
    """Print (and return) the unseen issues' figures: the function stage as fitted on every dev issue
    (``shipped.shipped``) against today's function order, under the in-sample file stage ``choice``."""
    rule, _, coefficients = shipped.shipped
    stage = FunctionStage(unseen, facts, dev.pipeline, dev.evaluator, penalties=dev.penalties)
    held = {i: stage.score(choice, coefficients, i, rule) for i in sorted(unseen)}
    base = {i: dev.evaluator.score(dev.pipeline, choice, i) for i in sorted(unseen)}
    with_gold = [i for i in held if held[i].function_hits is not None]
    wins = sum(bool(held[i].function_hits[1] and not base[i].function_hits[1]) for i in with_gold)  # type: ignore[index]
    losses = sum(bool(base[i].function_hits[1] and not held[i].function_hits[1]) for i in with_gold)  # type: ignore[index]
    rows = [
        ("unseen: function stage fitted on every dev issue", held),
        ("unseen: today's function order (same file stage)", base),
    ]
    repos = {i: r.issue.repo for i, r in unseen.items()}
    from loc_report import figure_table

    print(figure_table(rows, sorted(set(repos.values())), repos))
    print(f"unseen function Acc@10: {wins} issues gained, {losses} lost against today's order")
    return {
        "stage": loc_cv.summary(list(held.values())),
        "baseline": loc_cv.summary(list(base.values())),
        "per_issue": {i: {"stage": vars(held[i]), "baseline": vars(base[i])} for i in held},
    }


def main(argv: Sequence[str] | None = None) -> int:
    import loc_protocol
    from loc_report import figure_table

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
    parser.add_argument("--history", type=Path, default=None, help="history pairs in the file stages' fits")
    parser.add_argument(
        "--function-history",
        action="store_true",
        help="the function stage's fits train on the history pairs too (their gold functions)",
    )
    parser.add_argument(
        "--rules",
        default="",
        help="candidate rules FILESxCHUNKS beside the shipped one (each its own row, and one row "
        "choosing among them per fold by the inner held-out function Acc@10)",
    )
    parser.add_argument(
        "--penalties",
        default=",".join(f"{p:g}" for p in FUNCTION_PENALTIES),
        help="the L2 penalties the inner cross-validation chooses among (strongest first)",
    )
    parser.add_argument(
        "--misses", action="store_true", help="also list the gold functions that are not candidates"
    )
    parser.add_argument(
        "--check", action="store_true", help="only check the reproduction of today's order and recall"
    )
    parser.add_argument(
        "--unseen",
        type=Path,
        action="append",
        default=[],
        help="runs of `loc_unseen.py collect` (repeatable): scored by the function stage fitted on every "
        "dev issue, as it would ship (reported only; nothing is chosen on them)",
    )
    parser.add_argument("--unseen-work", type=Path, default=None, help="the index cache of the --unseen runs")
    parser.add_argument(
        "--single-file", action="store_true", help="--unseen: only issues whose gold patch modifies one file"
    )
    args = parser.parse_args(argv)
    if args.unseen and args.unseen_work is None:
        parser.error("--unseen needs --unseen-work")
    rules = parse_rules(args.rules)
    widest = CandidateRule(max(r.files for r in rules), max(r.chunks for r in rules))
    penalties = [float(p) for p in args.penalties.split(",") if p.strip()]
    began = time.perf_counter()
    runs = load_runs(args.runs_cache)
    from loc_synthetic import load_pairs

    pairs = load_pairs(args.history) if args.history else []
    if args.function_history and not pairs:
        parser.error("--function-history needs --history")
    # pairs the function stage trains on: those naming a gold function the base commit's index holds
    trained = (
        {r.issue.instance_id: r for r in pairs if r.issue.gold_functions} if args.function_history else {}
    )
    unseen = load_unseen(args.unseen, single_file=args.single_file)
    evaluator = Evaluator(
        {"default": runs},
        history={"default": {r.issue.instance_id: r for r in pairs}} if pairs else None,
        external={"default": unseen} if unseen else None,
    )
    pipeline = loc_protocol.pipelines(
        loc_protocol.GRIDS["fusion"], ["default"], ablations=False, history=bool(pairs)
    )[1]
    if args.choices is not None and args.choices.is_file():
        with args.choices.open("rb") as fh:
            choices = pickle.load(fh)  # our own file
    else:
        choices = file_stage_choices(evaluator, pipeline)
        if args.choices is not None:
            with args.choices.open("wb") as fh:
                pickle.dump(choices, fh)
    fitted = time.perf_counter()
    if args.facts is not None and args.facts.is_file():
        with args.facts.open("rb") as fh:
            facts, read_widest = pickle.load(fh)  # our own file
        if read_widest.files < widest.files or read_widest.chunks < widest.chunks:
            parser.error(f"--facts holds candidates of {read_widest} only; --rules needs {widest}")
    else:
        rankings = {
            i: [ranking_of(pipeline, c, r) for c in choices.values()] for i, r in {**runs, **trained}.items()
        }
        facts = gather_facts(args.work, {**runs, **trained}, rankings, widest)
        if args.facts is not None:
            with args.facts.open("wb") as fh:
                pickle.dump((facts, widest), fh)
    read = time.perf_counter()
    stage = FunctionStage(runs, facts, pipeline, evaluator, penalties=penalties, history=trained)
    if args.check:
        return check(stage, choices)
    shipped = cross_validate_stage(stage, choices)
    rows = [
        *stage_rows(shipped, f"function stage, {SHIPPED_RULE}"),
        ("held-out: today's function order (same file stages)", shipped.baseline),
        ("in-sample: today's function order", shipped.in_sample_baseline),
    ]
    recall_lines = [
        f"  {SHIPPED_RULE}: held out {_recall(shipped.recall)}, in sample {_recall(shipped.in_sample_recall)}"
    ]
    fit_lines = [f"{SHIPPED_RULE}:", *(f"  without {r}: {describe_fit(v)}" for r, v in shipped.folds.items())]
    fit_lines.append(f"  fitted on all (to ship): {describe_fit(shipped.shipped)}")
    record: dict[str, object] = {}
    for rule in rules[1:]:
        figures = cross_validate_stage(stage, choices, [rule])
        rows[2:2] = stage_rows(figures, f"function stage, {rule}")
        recall_lines.append(
            f"  {rule}: held out {_recall(figures.recall)}, in sample {_recall(figures.in_sample_recall)}"
        )
        record[str(rule)] = loc_cv.summary(list(figures.held.values()))
    if len(rules) > 1:
        chosen = cross_validate_stage(stage, choices, rules)
        rows[:0] = stage_rows(chosen, "function stage, candidate rule chosen per fold")
        fit_lines.append("candidate rule chosen per fold (inner held-out function Acc@10):")
        fit_lines += [f"  without {r}: {describe_fit(v)}" for r, v in chosen.folds.items()]
        fit_lines.append(f"  chosen on all: {describe_fit(chosen.shipped)}")
        recall_lines.append(f"  chosen per fold: held out {_recall(chosen.recall)}")
        record["chosen per fold"] = loc_cv.summary(list(chosen.held.values()))
    held, base = shipped.held, shipped.baseline
    with_gold = [i for i in held if held[i].function_hits is not None]
    wins = sum(bool(held[i].function_hits[1] and not base[i].function_hits[1]) for i in with_gold)  # type: ignore[index]
    losses = sum(bool(base[i].function_hits[1] and not held[i].function_hits[1]) for i in with_gold)  # type: ignore[index]
    print(figure_table(rows, sorted(set(evaluator.repos.values())), evaluator.repos))
    print()
    print(f"penalties offered: {', '.join(f'{p:g}' for p in penalties)}")
    print("function stage fits per fold:")
    print("\n".join(fit_lines))
    print("candidate recall (every gold function a candidate; held out: each fold's file stage):")
    print("\n".join(recall_lines))
    print(
        f"held-out function Acc@10 ({SHIPPED_RULE}): {wins} issues gained, {losses} lost against today's order"
    )
    if unseen:
        print()
        unseen_record = score_unseen(
            unseen,
            gather_unseen_facts(args.unseen_work, unseen, pipeline, choices["*"], widest),
            shipped,
            stage,
            choices["*"],
        )
    if args.misses:
        print()
        print(f"gold functions that are not candidates ({SHIPPED_RULE}, held-out file stages):")
        print("\n".join(candidate_misses(stage, choices, args.work)))
    print(
        f"file stages {fitted - began:.0f} s, facts {read - fitted:.0f} s, function stage {time.perf_counter() - read:.0f} s"
    )
    print("command: " + " ".join([sys.executable, *sys.argv]))
    if args.json:
        everything = sorted(runs)
        record.update(
            {
                "held_out": loc_cv.summary(list(held.values())),
                "held_out_baseline": loc_cv.summary(list(base.values())),
                "in_sample": loc_cv.summary(list(shipped.in_sample.values())),
                "in_sample_baseline": loc_cv.summary(list(shipped.in_sample_baseline.values())),
                "coefficients": shipped.shipped[2],
                "penalty": shipped.shipped[1],
                "per_issue": {i: {"stage": vars(held[i]), "baseline": vars(base[i])} for i in everything},
            }
        )
        if unseen:
            record["unseen"] = unseen_record
        args.json.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    import loc_functions  # the module, not __main__: what the caches pickle is importable by name

    sys.exit(loc_functions.main())

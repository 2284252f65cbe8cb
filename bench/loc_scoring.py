"""Re-scoring gathered evidence under many fusion weights, in memory (pure; numpy).

Search gathers evidence once per query (``hybrid.gather_evidence``: BM25, phrases, symbols, paths,
graph priors, dense); fusion (``fusion.fuse_evidence``) is a pure function of that evidence and the
weights. A grid over weights therefore needs one search per issue, not one per grid point. Each
signal's rescaling (best = 1, ``floor_rank``-th = 0) and its per-file aggregation do not depend on
the weights, so :class:`FusionTable` computes them once, with fusion's own functions, and a weight
setting only costs a weighted sum and a sort. The ranking it returns is the one
``fusion.fuse_evidence`` returns for the same evidence and weights (``tests/bench`` checks this on
random evidence; the benchmark checks it again on every issue against a real search).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from lazy_intel.search.function_rank import (
    Definition,
    StageRanking,
    candidates,
    function_features,
    rank_definitions,
)
from lazy_intel.search.fusion import (
    Evidence,
    FusionWeights,
    aggregate_by_file,
    fuse_files,
    is_auxiliary_path,
    is_test_path,
    rank_stage,
    rescaled,
)
from lazy_intel.search.query import QueryAnalysis
from lazy_intel.search.rerank import RERANK_FILES, QueryFacts, rerank
from loc_cv import FILE_KS, FUNCTION_KS, IssueScore

NONE, TEST, AUXILIARY = 0, 1, 2  # the down-weighting class of a file (for failure reports)


def _file_class(path: str, locate_bug: bool) -> int:
    """Which down-weighting factor fusion applies to a file (only when the query reports a failure)."""
    if not locate_bug:
        return NONE
    return TEST if is_test_path(path) else AUXILIARY if is_auxiliary_path(path) else NONE


@dataclass(frozen=True)
class Ranked:
    files: list[str]  # paths, best first
    functions: list[str]  # "path:qualified", best first, distinct
    file_scores: list[float]  # fused score of each listed file


@dataclass(frozen=True)
class _Columns:
    names: tuple[str, ...]  # signal names, in the order fusion sums them
    values: np.ndarray  # (signals, candidates) rescaled contribution, 0 where absent
    present: np.ndarray  # (signals, candidates) bool: the candidate is among the signal's


def _columns(signals: Sequence[tuple[str, Mapping[int, float]]], keys: Sequence[int], floor: int) -> _Columns:
    index = {k: i for i, k in enumerate(keys)}
    values = np.zeros((len(signals), len(keys)))
    present = np.zeros((len(signals), len(keys)), dtype=bool)
    for row, (_, scores) in enumerate(signals):
        for key, value in rescaled(scores, floor_rank=floor).items():
            values[row, index[key]] = value
            present[row, index[key]] = True
    return _Columns(tuple(name for name, _ in signals), values, present)


class FusionTable:
    """One issue's evidence, rescaled once (for one ``floor_rank``), ready to rank under any weights."""

    def __init__(
        self,
        evidence: Evidence,
        chunk_keys: Mapping[int, str | None],
        *,
        floor_rank: int,
        ranked_files: int = 20,
        ranked_functions: int = 20,
    ) -> None:
        self.floor_rank = floor_rank
        self.ranked_files = ranked_files
        self.ranked_functions = ranked_functions
        chunk_signals = [(n, s) for n, s in evidence.chunk_signals.items() if s]
        # a signal given per file as well as per chunk (graph proximity) counts once for files: per file
        file_signals: list[tuple[str, Mapping[int, float]]] = [
            (n, aggregate_by_file((evidence.chunk_file[c], v) for c, v in s.items()))  # type: ignore[misc]
            for n, s in chunk_signals
            if not evidence.file_signals.get(n)
        ]
        file_signals += [(n, s) for n, s in evidence.file_signals.items() if s]
        self.chunk_ids = sorted({c for _, s in chunk_signals for c in s})
        self.file_ids = sorted({f for _, s in file_signals for f in s})
        self.paths = [evidence.file_path.get(f, "") for f in self.file_ids]
        self.chunks = _columns(chunk_signals, self.chunk_ids, floor_rank)
        self.files = _columns(file_signals, self.file_ids, floor_rank)
        file_index = {f: i for i, f in enumerate(self.file_ids)}
        self.chunk_file = np.array(
            [file_index.get(evidence.chunk_file[c], -1) for c in self.chunk_ids], dtype=int
        )
        self.chunk_key = [chunk_keys.get(c) for c in self.chunk_ids]
        by_path = sorted(range(len(self.paths)), key=lambda i: self.paths[i])
        self.path_order = np.empty(len(self.paths), dtype=int)
        self.path_order[by_path] = np.arange(len(self.paths))
        self.file_class = np.array([_file_class(p, evidence.locate_bug) for p in self.paths], dtype=int)
        self.chunk_class = np.array(
            [
                _file_class(evidence.file_path.get(evidence.chunk_file[c], ""), evidence.locate_bug)
                for c in self.chunk_ids
            ],
            dtype=int,
        )
        self.chunk_id_array = np.array(self.chunk_ids, dtype=np.int64)

    @staticmethod
    def _weighted_sum(columns: _Columns, weights: FusionWeights) -> tuple[np.ndarray, np.ndarray]:
        """Fusion's sum over signals of positive weight, added in fusion's order; and who is present."""
        total = np.zeros(columns.values.shape[1])
        present = np.zeros(columns.values.shape[1], dtype=bool)
        for row, name in enumerate(columns.names):
            weight = weights.of(name)
            if weight <= 0:
                continue
            mask = columns.present[row]
            total[mask] = total[mask] + weight * columns.values[row, mask]
            present |= mask
        return total, present

    def file_scores(self, weights: FusionWeights) -> tuple[np.ndarray, np.ndarray]:
        """Fused file scores (down-weighting applied) and the mask of files fusion ranks at all."""
        score, present = self._weighted_sum(self.files, weights)
        factor = np.ones(len(score))
        factor[self.file_class == TEST] = weights.test_file_factor
        factor[self.file_class == AUXILIARY] = weights.auxiliary_file_factor
        return score * factor, present

    def top_files(self, weights: FusionWeights, n: int) -> list[int]:
        """The first stage's best ``n`` file ids (score, then path)."""
        files, present = self.file_scores(weights)
        order = np.lexsort((self.path_order, -files))
        return [self.file_ids[i] for i in order[present[order]][:n]]

    def stage_scores(self, weights: FusionWeights) -> dict[int, float]:
        """The first stage's file scores (``fusion.fuse_files``), file id -> score."""
        files, present = self.file_scores(weights)
        return {self.file_ids[i]: float(files[i]) for i in np.flatnonzero(present)}

    def rank(
        self,
        weights: FusionWeights,
        *,
        file_context: bool = True,
        file_scores: Mapping[int, float] | None = None,
    ) -> Ranked:
        """The file and function ranking ``fusion.rank_stage`` gives for these weights; ``file_scores``
        (a second stage's, file id -> score) replace the first stage's as in ``rank_stage``."""
        if weights.method != "score":
            raise ValueError("FusionTable re-scores score fusion only")
        files, file_present = self._file_scores_of(weights, file_scores)
        order = np.lexsort((self.path_order, -files))
        order = order[file_present[order]][: self.ranked_files]
        chunk, chunk_present = self._chunk_scores(weights, file_context, files, file_present)
        chunk_order = np.lexsort((self.chunk_id_array, -chunk))
        chunk_order = chunk_order[chunk_present[chunk_order]][: self.ranked_functions * 4]
        functions: dict[str, None] = {}
        for i in chunk_order:
            key = self.chunk_key[i]
            if key is not None:
                functions.setdefault(key)
        return Ranked(
            [self.paths[i] for i in order],
            list(functions)[: self.ranked_functions],
            [float(files[i]) for i in order],
        )

    def _file_scores_of(
        self, weights: FusionWeights, file_scores: Mapping[int, float] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        if file_scores is None:
            return self.file_scores(weights)
        index = {f: i for i, f in enumerate(self.file_ids)}
        unknown = [f for f in file_scores if f not in index]
        if unknown:
            raise ValueError(f"file scores for files without evidence: {unknown[:5]}")
        files = np.zeros(len(self.file_ids))
        present = np.zeros(len(self.file_ids), dtype=bool)
        for f, value in file_scores.items():
            files[index[f]] = value
            present[index[f]] = True
        return files, present

    def chunk_ranking(
        self,
        weights: FusionWeights,
        *,
        file_context: bool = True,
        file_scores: Mapping[int, float] | None = None,
    ) -> dict[int, float]:
        """The chunk scores :meth:`rank` orders chunks by (chunk id -> score, every ranked chunk)."""
        files, file_present = self._file_scores_of(weights, file_scores)
        chunk, present = self._chunk_scores(weights, file_context, files, file_present)
        return {self.chunk_ids[i]: float(chunk[i]) for i in np.flatnonzero(present)}

    def _chunk_scores(
        self, weights: FusionWeights, file_context: bool, files: np.ndarray, file_present: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        chunk, chunk_present = self._weighted_sum(self.chunks, weights)
        if file_context and file_present.any() and weights.file_context > 0:
            top_file = float(files[file_present].max()) or 1.0
            top_chunk = (float(chunk[chunk_present].max()) if chunk_present.any() else 0.0) or 1.0
            inherited = np.where(
                (self.chunk_file >= 0) & file_present[np.maximum(self.chunk_file, 0)],
                files[np.maximum(self.chunk_file, 0)],
                0.0,
            )
            chunk = chunk + weights.file_context * top_chunk * inherited / top_file
        factor = np.ones(len(chunk))
        factor[self.chunk_class == TEST] = weights.test_file_factor
        factor[self.chunk_class == AUXILIARY] = weights.auxiliary_file_factor
        return chunk * factor, chunk_present


# ---- one issue's evidence, scored under a configuration
RANKED_FILES = 20
RANKED_FUNCTIONS = 20


class Gold(Protocol):
    instance_id: str
    repo: str
    gold_files: tuple[str, ...]

    @property
    def gold_functions(self) -> tuple[str, ...]: ...


@dataclass
class Outcome:
    files: list[str]
    functions: list[str] | None  # "path:qualified"; None: this ranker does not rank functions
    seconds: float = 0.0


@dataclass(frozen=True)
class Config:
    """A configuration: fusion weights, whether chunks inherit their file's score, and the second
    stage's coefficients (``None``: no second stage)."""

    weights: FusionWeights
    file_context: bool = True
    rerank: Mapping[str, float] | None = None
    rerank_files: int = RERANK_FILES
    functions: Mapping[str, float] | None = None  # the function stage's coefficients (with rerank)


@dataclass(frozen=True)
class FunctionFacts:
    """What the function stage reads from the index for one issue: the query's facts, every evidence
    chunk's symbol, and the definitions its candidates may need (symbol id -> definition)."""

    analysis: QueryAnalysis
    query: QueryFacts
    chunk_symbol: Mapping[int, int | None]
    definitions: Mapping[int, Definition]
    # the ``callpath`` feature of the definitions it is not 0 for (None: gathered before it existed)
    callpath: Mapping[int, float] | None = None


@dataclass
class IssueRun:
    """One issue searched once: its evidence, what each candidate chunk is, and the second stage's
    weight-independent features of every file some configuration may re-rank (its pool)."""

    issue: Gold
    evidence: Evidence
    chunk_keys: dict[int, str | None]  # chunk id -> "path:qualified" (None: not in a definition)
    static: dict[int, dict[str, float]] = field(default_factory=dict)  # file id -> rerank features
    search: Outcome | None = None  # a real hybrid_search with the default configuration
    baselines: dict[str, Outcome] = field(default_factory=dict)
    files_indexed: int = 0
    tables: dict[int, FusionTable] = field(default_factory=dict)  # by floor rank
    # what the function stage reads (``FunctionFacts``; None: not gathered, the stage is skipped)
    functions: FunctionFacts | None = None

    def table(self, floor_rank: int) -> FusionTable:
        if floor_rank not in self.tables:
            self.tables[floor_rank] = FusionTable(
                self.evidence,
                self.chunk_keys,
                floor_rank=floor_rank,
                ranked_files=RANKED_FILES,
                ranked_functions=RANKED_FUNCTIONS,
            )
        return self.tables[floor_rank]


def outcome_of(run: IssueRun, config: Config) -> Outcome:
    """The ranking ``hybrid_search`` gives under ``config``, from the issue's evidence (in memory)."""
    w = config.weights
    if w.method == "score":
        table = run.table(w.floor_rank)
        second = None
        if config.rerank is not None:
            second, _ = rerank(
                table.stage_scores(w), run.evidence.file_path, run.static, config.rerank, config.rerank_files
            )
        ranked = table.rank(w, file_context=config.file_context, file_scores=second)
        if second is not None and config.functions is not None and run.functions is not None:
            chunks = table.chunk_ranking(w, file_context=config.file_context, file_scores=second)
            return Outcome(ranked.files, function_stage(run, second, chunks, config.functions))
        return Outcome(ranked.files, ranked.functions)
    stage = fuse_files(run.evidence, w)
    second = None
    if config.rerank is not None:
        second, _ = rerank(
            stage.file_scores, run.evidence.file_path, run.static, config.rerank, config.rerank_files
        )
    chunks, files = rank_stage(run.evidence, stage, w, file_context=config.file_context, file_scores=second)
    functions: dict[str, None] = {}
    for chunk in chunks[: RANKED_FUNCTIONS * 4]:
        key = run.chunk_keys.get(chunk.chunk_id)
        if key is not None:
            functions.setdefault(key)
    return Outcome([f.path for f in files[:RANKED_FILES]], list(functions)[:RANKED_FUNCTIONS])


def function_stage(
    run: IssueRun,
    file_scores: Mapping[int, float],
    chunk_scores: Mapping[int, float],
    coefficients: Mapping[str, float],
) -> list[str]:
    """The function stage's order (``path:qualified``, distinct, best first) — what search returns."""
    facts = run.functions
    if facts is None:
        raise ValueError("no function facts gathered for this run")
    paths = run.evidence.file_path
    order = sorted(file_scores, key=lambda f: (-file_scores[f], paths.get(f, "")))
    staged = StageRanking(chunk_scores, facts.chunk_symbol, file_scores, order)
    cands = candidates(list(facts.definitions.values()), staged)
    features = function_features(facts.analysis, facts.query, cands, staged, facts.callpath)
    key = {d.symbol_id: d.key for d in cands}
    return list(dict.fromkeys(key[s] for s, _ in rank_definitions(features, coefficients)))[:RANKED_FUNCTIONS]


def all_in_top(ranked: Sequence[str], gold: Iterable[str], k: int) -> bool:
    top = set(ranked[:k])
    gold = list(gold)
    return bool(gold) and all(g in top for g in gold)


def reciprocal_rank(ranked: Sequence[str], gold: Iterable[str]) -> float:
    wanted = set(gold)
    for i, item in enumerate(ranked):
        if item in wanted:
            return 1.0 / (i + 1)
    return 0.0


def issue_score(issue: Gold, outcome: Outcome) -> IssueScore:
    gold_functions = issue.gold_functions
    return IssueScore(
        tuple(all_in_top(outcome.files, issue.gold_files, k) for k in FILE_KS),
        tuple(all_in_top(outcome.functions, gold_functions, k) for k in FUNCTION_KS)
        if gold_functions and outcome.functions is not None
        else None,
        reciprocal_rank(outcome.files, issue.gold_files),
    )

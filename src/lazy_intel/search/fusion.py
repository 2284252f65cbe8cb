"""Score fusion: pure functions from per-signal scores to one ranking that shows its reasons.

Each retrieval signal scores candidates on its own scale (BM25, cosine, match strength). Each is
rescaled over its own candidates — its best candidate scores 1, its ``FLOOR_RANK``-th best and
anything below 0 — and the rescaled scores are summed with the named weights below:

    fused(d) = sum over signals s of  weight_s * (score_s(d) - floor_s) / (best_s - floor_s)

Unlike reciprocal-rank fusion this keeps each signal's margins: a file BM25 scores far above the
rest stays first unless another signal is nearly as sure of something else, and a signal whose
candidates all score alike (a general-text embedding's compressed cosines) separates nothing.
Weights are tuned on the dev benchmark only (``bench/swebench_loc.py``; the ablation table is in
``docs/retrieval.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from lazy_intel.text.paths import is_test_path

K = TypeVar("K", bound=Hashable)

# How signals are combined: "score" (the default, above) or "rrf" (weighted reciprocal-rank fusion,
# ``weight / (RRF_K + rank)`` per signal; LAZY_INTEL_FUSION). On the dev set, same evidence and
# weights, RRF ranked files worse (docs/retrieval.md): ranks drop how sure BM25 is of its first file.
FUSION_METHODS = ("score", "rrf")
DEFAULT_FUSION = "score"
# RRF's rank offset: with the usual 60 a file two weak signals rank 5th and 10th beat BM25's first
# file (1/65 + 1/70 > 1/61) on the dev set; 10 lets the top of the strongest signal count.
RRF_K = 10.0

# The zero point of a signal's rescaling: the score of its candidate at this rank (0 when it has
# fewer). 0, 20, 50 and 100 gave the same file ranking on the dev set for BM25; the floor is there
# for signals whose raw scores do not start near zero (cosines of an embedding model).
FLOOR_RANK = 50

# ---- what each signal contributes to a chunk's (and, aggregated, a file's) score
WEIGHT_LEXICAL = 1.0  # BM25 over name / qualified / signature / doc / body / path: the main signal
# Cosine of chunk and query embeddings. The bundled general-text model (all-MiniLM-L6-v2, 128 word
# pieces of the issue) alone ranks files worse than BM25 on the dev set (9 issues measured), so it
# counts half; not re-tuned since fusion became score-based (dense is opt-in).
WEIGHT_DENSE = 0.5
# The query names this symbol (exact name or Class.method suffix). Reports name many symbols that are
# not where the bug is (the user's calls, library APIs): a tie-breaker. Chosen by the
# cross-validated grid (0, 0.1, 0.2) on all 63 dev issues: 0.2 (docs/retrieval.md).
WEIGHT_SYMBOL = 0.2
# A phrase the report quotes (a message, inline code, a quoted string) occurs in this chunk in order.
# It finds where a warning is printed or an option parsed; where an error is raised is not always
# where it is fixed. The cross-validated grid (0, 0.2, 0.4) chose 0 for the first stage: the
# phrase evidence counts through the second stage's ``phrase`` feature instead (search/rerank.py).
WEIGHT_PHRASE = 0.0
WEIGHT_PATH = 0.3  # the query names this file (path, module, stack frame); also often the caller's file
# Structural priors from the graph (``search/graph_priors.py``); both absent without a graph.
# proximity: one resolved call/reference/inheritance edge from a named identifier. The
# cross-validated grid (0, 0.05, 0.15) chose 0 and holding it at 0 changed no held-out figure, so
# the default search does not compute it; ``backend=graph`` weighs it GRAPH_BACKEND_WEIGHT.
WEIGHT_PRIOR = 0.0
GRAPH_BACKEND_WEIGHT = 0.05
# resolved in-degree of a candidate file: at 0.1 or 0.05 it cost file Acc@1 (-1.6, with rank
# fusion), so it is off and not computed; kept as a switch for other corpora.
WEIGHT_CENTRALITY = 0.0
# A chunk also inherits its file's fused score: the bug is in a method of the file the report is about.
WEIGHT_FILE_CONTEXT = 1.0
# History prior: log(1 + commits touching a candidate file among the last 500 before the tree's commit)
# (``bench/history_prior.py``). Off unless the held-out figures say it helps (docs/design/git.md).
WEIGHT_HISTORY = 0.0

# ---- file ranking: a file's evidence from its best chunks
FILE_TOP_CHUNKS = 3  # chunk scores that count for a file
FILE_CHUNK_DECAY = 0.5  # the i-th best chunk counts DECAY**i

# Test files rank lower when the query reports a failure ("where is the bug"): fixes go in the code.
TEST_FILE_FACTOR = 0.5

# Files beside the product code rank lower for the same queries: documentation examples, benchmarks
# and vendored third-party copies. On the dev set they took the top file in 5 of 63 reports
# (``doc/usage/extensions/example_google.py``, ``asv_bench/…``, ``requests/packages/urllib3/…``).
AUXILIARY_FILE_FACTOR = 0.5
AUXILIARY_PATH_RE = re.compile(
    r"(^|/)(docs?|examples?|benchmarks?|asv_bench|vendor|vendored|third_party|thirdparty|_vendor)/|"
    r"(^|/)(packages|extern|cextern)/[^/]+/|"
    # the hosting service's issue and pull-request templates: a report written from one repeats its
    # headings, and its fix is in the project, never in the template (workflows and other CI files
    # stay ordinary: the second stage scores every query, and "where is CI configured" is one)
    r"(^|/)\.github/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE)|(^|/)\.github/(issue|pull_request)_template\.md$|"
    r"(^|/)\.gitlab/(issue|merge_request)_templates/"
)
# Third-party files kept beside the project's own code without a vendor directory, and tables a tool
# generated, recognised by name (a demanding user's rule, not fitted: GitHub's linguist keeps lists
# of the same kind). On 230 SWE-bench reports outside the dev set a theme's ``static/jquery-3.5.1.js``
# or ``underscore-1.13.1.js`` (and an issue template) held 21 top-5 places in 18 reports, two of them
# first: a large library file holds most English words of any report somewhere.
# - a minified asset (``*.min.js``, ``*.min.css``), or a library copy named with its version
#   (``jquery-3.5.1.js``, ``bootstrap.v4.1.css``);
# - a widely vendored JavaScript library by its own name (``jquery.js``, ``underscore.js``) in an
#   asset directory (``static/``, ``assets/``, ``js/``, ``lib/``…): the library's own repository keeps
#   it under ``src/``, where it is the project's code;
# - generated parser tables and protocol-buffer modules (``parsetab.py``, ``*_pb2.py``).
VENDORED_NAME_RE = re.compile(
    r"(^|/)[^/]+\.min\.(js|css)$|"
    r"(^|/)[A-Za-z][\w.]*?[-.]v?\d+\.\d+(\.\d+)*(\.min)?\.(js|css)$|"
    r"(^|/)(_?static|assets?|js|javascripts?|libs?|public|scripts)/([^/]+/)*"
    r"(jquery|underscore|lodash|backbone|bootstrap|modernizr|require|d3|popper|select2|xregexp|mathjax)"
    r"([-.](v?\d[\w\-]*(\.\d[\w\-]*)*|min|slim|bundle|dev|full|umd|esm|core))*\.js$|"
    r"(^|/)[^/]*(parsetab|lextab)\.py$|_pb2(_grpc)?\.py$"
)


@dataclass(frozen=True)
class Signal:
    """One signal's opinion: candidate -> raw score (higher is better). Ranks are derived."""

    name: str
    weight: float
    scores: Mapping[Hashable, float]


@dataclass(frozen=True)
class Fused:
    key: Hashable
    score: float
    signals: dict[str, float] = field(default_factory=dict)  # raw score and rank per contributing signal


def ranks(scores: Mapping[K, float]) -> dict[K, int]:
    """1-based ranks, best first; ties keep insertion order."""
    order = sorted(scores, key=lambda k: -scores[k])
    return {key: i + 1 for i, key in enumerate(order)}


def rescaled(scores: Mapping[K, float], *, floor_rank: int = FLOOR_RANK) -> dict[K, float]:
    """``scores`` mapped to [0, 1]: the best is 1, the ``floor_rank``-th best (or 0) and below are 0."""
    if not scores:
        return {}
    order = sorted(scores.values(), reverse=True)
    top = order[0]
    floor = order[floor_rank] if len(order) > floor_rank else min(0.0, order[-1])
    if top <= floor:
        return dict.fromkeys(scores, 1.0)
    return {key: max(0.0, (value - floor) / (top - floor)) for key, value in scores.items()}


def score_fusion(signals: Sequence[Signal], *, floor_rank: int = FLOOR_RANK) -> list[Fused]:
    """Fuse signals by rescaled score; best first, each with ``<signal>`` and ``<signal>_rank``."""
    return _fuse(signals, lambda signal: rescaled(signal.scores, floor_rank=floor_rank))


def reciprocal_rank_fusion(signals: Sequence[Signal], *, k: float = RRF_K) -> list[Fused]:
    """Weighted RRF: ``sum weight / (k + rank)``; best first, with raw scores and ranks."""
    return _fuse(signals, lambda signal: {key: 1.0 / (k + r) for key, r in ranks(signal.scores).items()})


def _fuse(
    signals: Sequence[Signal], contribution: Callable[[Signal], Mapping[Hashable, float]]
) -> list[Fused]:
    """Sum ``weight x contribution`` per key; ties keep the order keys were first seen."""
    fused: dict[Hashable, float] = {}
    reasons: dict[Hashable, dict[str, float]] = {}
    order: dict[Hashable, int] = {}
    for signal in signals:
        if signal.weight <= 0 or not signal.scores:
            continue
        part = contribution(signal)
        name, rank_name, weight, raw = signal.name, f"{signal.name}_rank", signal.weight, signal.scores
        for key, rank in ranks(raw).items():
            if key not in order:
                order[key] = len(order)
                reasons[key] = {}
            fused[key] = fused.get(key, 0.0) + weight * part[key]
            why = reasons[key]
            why[name] = float(raw[key])
            why[rank_name] = float(rank)
    out = [Fused(key, score, reasons[key]) for key, score in fused.items()]
    out.sort(key=lambda f: (-f.score, order[f.key]))
    return out


def aggregate_by_file(
    chunk_scores: Iterable[tuple[Hashable, float]],
    *,
    top: int = FILE_TOP_CHUNKS,
    decay: float = FILE_CHUNK_DECAY,
) -> dict[Hashable, float]:
    """File score from its chunks' scores: best + decay * second + decay² * third … (``top`` chunks).

    ``chunk_scores`` yields ``(file key, chunk score)``; scores must be non-negative.
    """
    per_file: dict[Hashable, list[float]] = {}
    for file_key, score in chunk_scores:
        per_file.setdefault(file_key, []).append(max(0.0, score))
    powers = [decay**i for i in range(top)]
    out: dict[Hashable, float] = {}
    for file_key, scores in per_file.items():
        scores.sort(reverse=True)
        out[file_key] = sum(s * p for s, p in zip(scores[:top], powers, strict=False))
    return out


def is_auxiliary_path(path: str) -> bool:
    """Documentation examples, benchmarks, vendored copies of other projects and generated tables."""
    return bool(AUXILIARY_PATH_RE.search(path) or VENDORED_NAME_RE.search(path))


@dataclass(frozen=True)
class FusionWeights:
    """All fusion weights in one value (defaults: the named constants above); the bench tunes these."""

    lexical: float = WEIGHT_LEXICAL
    dense: float = WEIGHT_DENSE
    symbol: float = WEIGHT_SYMBOL
    path: float = WEIGHT_PATH
    phrase: float = WEIGHT_PHRASE
    graph: float = WEIGHT_PRIOR
    centrality: float = WEIGHT_CENTRALITY
    file_context: float = WEIGHT_FILE_CONTEXT
    history: float = WEIGHT_HISTORY
    floor_rank: int = FLOOR_RANK
    method: str = DEFAULT_FUSION  # "score" or "rrf"
    rrf_k: float = RRF_K

    def fuse(self, signals: Sequence[Signal]) -> list[Fused]:
        """Combine ``signals`` by :attr:`method`."""
        if self.method == "rrf":
            return reciprocal_rank_fusion(signals, k=self.rrf_k)
        if self.method != "score":
            raise ValueError(f"unknown fusion method {self.method!r} (known: {', '.join(FUSION_METHODS)})")
        return score_fusion(signals, floor_rank=self.floor_rank)

    test_file_factor: float = TEST_FILE_FACTOR
    auxiliary_file_factor: float = AUXILIARY_FILE_FACTOR

    def of(self, signal: str) -> float:
        return float(getattr(self, signal, 1.0))


@dataclass(frozen=True)
class Evidence:
    """What the retrieval signals found, before fusion: raw scores per signal (higher is better).

    ``graph`` in either mapping is the structural-prior seam: per-file or per-chunk prior scores from
    the property graph (centrality, proximity to mentioned symbols); absent without a graph.
    """

    chunk_signals: Mapping[str, Mapping[int, float]]  # signal -> chunk id -> score
    file_signals: Mapping[str, Mapping[int, float]]  # file-only signals (path, graph) -> file id -> score
    chunk_file: Mapping[int, int]
    file_path: Mapping[int, str]
    locate_bug: bool


@dataclass(frozen=True)
class FusedChunk:
    chunk_id: int
    file_id: int
    score: float
    signals: dict[str, float]


@dataclass(frozen=True)
class FusedFile:
    file_id: int
    path: str
    score: float
    signals: dict[str, float]
    best_chunk_id: int | None


@dataclass(frozen=True)
class FileStage:
    """The first stage's file ranking, and each chunk's own fused score (before file context)."""

    file_scores: dict[int, float]  # fused, down-weighting applied
    file_reasons: dict[int, dict[str, float]]
    chunk_scores: dict[int, float]  # fused over the chunk signals only, no factor applied
    chunk_reasons: dict[int, dict[str, float]]
    factors: dict[int, dict[str, float]]  # file -> the down-weighting factors that apply, by name

    def factor(self, file_id: int) -> float:
        return next(iter(self.factors.get(file_id, {}).values()), 1.0)


def fuse_files(evidence: Evidence, weights: FusionWeights | None = None) -> FileStage:
    """Fuse every signal per file, and each chunk's signals (pure; see :func:`fuse_evidence`)."""
    weights = weights or FusionWeights()
    chunk_level = [
        Signal(name, weights.of(name), scores) for name, scores in evidence.chunk_signals.items() if scores
    ]
    # a signal given per file as well as per chunk (graph proximity) counts once for files: per file
    file_level = [
        Signal(s.name, s.weight, aggregate_by_file((evidence.chunk_file[c], v) for c, v in s.scores.items()))
        for s in chunk_level
        if not evidence.file_signals.get(s.name)
    ]
    file_level += [
        Signal(name, weights.of(name), scores) for name, scores in evidence.file_signals.items() if scores
    ]
    factors: dict[int, dict[str, float]] = {}
    if evidence.locate_bug:
        for file_id, path in evidence.file_path.items():
            if is_test_path(path):
                factors[file_id] = {"test_file_factor": weights.test_file_factor}
            elif is_auxiliary_path(path):
                factors[file_id] = {"auxiliary_file_factor": weights.auxiliary_file_factor}
    file_scores: dict[int, float] = {}
    file_reasons: dict[int, dict[str, float]] = {}
    for f in weights.fuse(file_level):
        file_id = int(f.key)  # type: ignore[call-overload]
        file_scores[file_id] = f.score * next(iter(factors.get(file_id, {}).values()), 1.0)
        file_reasons[file_id] = {**f.signals, **factors.get(file_id, {})}
    fused = weights.fuse(chunk_level)
    return FileStage(
        file_scores,
        file_reasons,
        {int(f.key): f.score for f in fused},  # type: ignore[call-overload]
        {int(f.key): f.signals for f in fused},  # type: ignore[call-overload]
        factors,
    )


def rank_stage(
    evidence: Evidence,
    stage: FileStage,
    weights: FusionWeights | None = None,
    *,
    file_context: bool = True,
    file_scores: Mapping[int, float] | None = None,
    file_reasons: Mapping[int, Mapping[str, float]] | None = None,
) -> tuple[list[FusedChunk], list[FusedFile]]:
    """Ranked chunks and files from a stage; ``file_scores`` (a second stage's) replace the stage's.

    Chunks: their own fused score plus (``file_context``) their file's score, scaled to the best
    chunk, then down-weighted like their file. Files: by score, then path.
    """
    weights = weights or FusionWeights()
    files_by = dict(stage.file_scores if file_scores is None else file_scores)
    reasons_by = {k: dict(v) for k, v in (file_reasons or {}).items()}
    scores = dict(stage.chunk_scores)
    if file_context and files_by and weights.file_context > 0:
        top_file = max(files_by.values()) or 1.0
        top_chunk = max(scores.values(), default=0.0) or 1.0
        scores = {
            k: v + weights.file_context * top_chunk * files_by.get(evidence.chunk_file[k], 0.0) / top_file
            for k, v in scores.items()
        }
    chunks: list[FusedChunk] = []
    chunk_file, chunk_reasons = evidence.chunk_file, stage.chunk_reasons
    factor_of = {f: next(iter(v.values()), 1.0) for f, v in stage.factors.items()}  # FileStage.factor
    with_file = file_context and bool(files_by)
    for chunk_id, score in scores.items():
        file_id = chunk_file[chunk_id]
        reasons = dict(chunk_reasons[chunk_id])
        if with_file and file_id in files_by:
            reasons["file_score"] = files_by[file_id]
        chunks.append(FusedChunk(chunk_id, file_id, score * factor_of.get(file_id, 1.0), reasons))
    chunks.sort(key=lambda c: (-c.score, c.chunk_id))
    best: dict[int, int] = {}
    for chunk in chunks:
        best.setdefault(chunk.file_id, chunk.chunk_id)
    files = [
        FusedFile(
            fid,
            evidence.file_path.get(fid, ""),
            score,
            {**stage.file_reasons.get(fid, {}), **reasons_by.get(fid, {})},
            best.get(fid),
        )
        for fid, score in files_by.items()
    ]
    files.sort(key=lambda f: (-f.score, f.path))
    return chunks, files


def fuse_evidence(
    evidence: Evidence, weights: FusionWeights | None = None, *, file_context: bool = True
) -> tuple[list[FusedChunk], list[FusedFile]]:
    """Rank files and chunks from ``evidence`` (pure).

    Files: score fusion of every chunk signal aggregated per file plus the file-only signals. Chunks: score fusion of
    the chunk signals plus (``file_context``) their file's fused score, scaled to the best chunk.
    When the query reports a failure, test files are scaled by ``test_file_factor`` and auxiliary
    files (documentation examples, benchmarks, vendored code) by ``auxiliary_file_factor``.
    """
    return rank_stage(evidence, fuse_files(evidence, weights), weights, file_context=file_context)

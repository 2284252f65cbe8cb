"""Rank fusion: pure functions from per-signal scores to one ranking that shows its reasons.

Each retrieval signal ranks candidates on its own scale (BM25, cosine, match strength); reciprocal-rank
fusion (RRF) combines ranks, not scores, so no scale has to be calibrated against another:

    fused(d) = sum over signals s of  weight_s / (RRF_K + rank_s(d))

Weights are the named constants below, tuned on the dev benchmark only (``bench/swebench_loc.py``;
the ablation table is in ``docs/retrieval.md``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60.0  # the usual RRF constant: rank 1 and rank 10 differ, rank 200 and 210 barely

# ---- what each signal contributes to a chunk's rank
WEIGHT_LEXICAL = 1.0  # BM25 over name / qualified / signature / doc / body / path columns
WEIGHT_DENSE = 1.0  # cosine similarity of chunk and query embeddings (when a model is configured)
WEIGHT_SYMBOL = 1.0  # the query names this symbol (exact name or Class.method suffix)
WEIGHT_PATH = 1.0  # the query names this file (path, module, stack frame)
WEIGHT_PRIOR = 0.5  # structural prior from the graph (centrality, proximity); off without a graph
# A chunk also inherits its file's fused score: the bug is in a method of the file the report is about.
WEIGHT_FILE_CONTEXT = 1.0

# ---- file ranking: a file's evidence from its best chunks
FILE_TOP_CHUNKS = 3  # chunk scores that count for a file
FILE_CHUNK_DECAY = 0.5  # the i-th best chunk counts DECAY**i

# Test files rank lower when the query reports a failure ("where is the bug"): fixes go in the code.
TEST_FILE_FACTOR = 0.5
TEST_PATH_RE = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec|specs)/|(^|/)test_[^/]*$|_tests?\.[^/]+$|\.(test|spec)\.[^/]+$|"
    r"(^|/)conftest\.py$|Tests?\.(java|kt|cs|swift|scala)$"
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


def reciprocal_rank_fusion(signals: Sequence[Signal], *, k: float = RRF_K) -> list[Fused]:
    """Fuse signals; result best first, each with ``<signal>`` (raw) and ``<signal>_rank`` entries."""
    fused: dict[Hashable, float] = {}
    reasons: dict[Hashable, dict[str, float]] = {}
    order: dict[Hashable, int] = {}
    for signal in signals:
        if signal.weight <= 0 or not signal.scores:
            continue
        for key, rank in ranks(signal.scores).items():
            order.setdefault(key, len(order))
            fused[key] = fused.get(key, 0.0) + signal.weight / (k + rank)
            why = reasons.setdefault(key, {})
            why[signal.name] = float(signal.scores[key])
            why[f"{signal.name}_rank"] = float(rank)
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
    out: dict[Hashable, float] = {}
    for file_key, scores in per_file.items():
        scores.sort(reverse=True)
        out[file_key] = sum(s * decay**i for i, s in enumerate(scores[:top]))
    return out


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH_RE.search(path))


def path_factor(path: str, locate_bug: bool) -> float:
    """Multiplier of a candidate's fused score: test files count less for failure reports."""
    return TEST_FILE_FACTOR if locate_bug and is_test_path(path) else 1.0


def with_file_context(
    chunk_scores: Mapping[K, float], chunk_file: Mapping[K, Hashable], file_scores: Mapping[Hashable, float]
) -> dict[K, float]:
    """Chunk score plus ``WEIGHT_FILE_CONTEXT`` x its file's (normalised) fused score."""
    top_file = max(file_scores.values(), default=0.0) or 1.0
    top_chunk = max(chunk_scores.values(), default=0.0) or 1.0
    return {
        key: score + WEIGHT_FILE_CONTEXT * top_chunk * file_scores.get(chunk_file[key], 0.0) / top_file
        for key, score in chunk_scores.items()
    }


def prior_signal(
    name: str, priors: Mapping[Hashable, float] | None, weight: float = WEIGHT_PRIOR
) -> Signal | None:
    """A structural prior (graph centrality, proximity to mentioned symbols) as one more RRF signal.

    This is the seam for the property graph: pass per-file or per-symbol prior scores (higher is
    more likely); ``None`` or empty means "no graph" and adds nothing.
    """
    if not priors:
        return None
    return Signal(name, weight, {k: v for k, v in priors.items() if v > 0 and math.isfinite(v)})

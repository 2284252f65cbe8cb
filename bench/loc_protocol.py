"""What ``swebench_loc`` scores and cross-validates: fixed configurations, evidence variants, grids
and the pipelines of the leave-one-repository-out protocol (``loc_cv``, ``loc_rerank``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import loc_cv
from lazy_intel.search.function_rank import FUNCTION_COEFFICIENTS
from lazy_intel.search.fusion import FusionWeights
from lazy_intel.search.hybrid import DEFAULT_CONFIG, SearchConfig
from lazy_intel.search.lexical import ColumnWeights
from lazy_intel.search.rerank import (
    CANDIDATE_FEATURES,
    COEFFICIENTS,
    FEATURES,
    RERANK_FILE_CONTEXT,
    RERANK_FILES,
    TRIAL_FEATURES,
)
from loc_rerank import Pipeline
from loc_scoring import Config

POOL_DEPTH = 60  # first-stage files whose second-stage features every run gathers (>= RERANK_FILES)

# ---- configurations: weight settings over the same evidence (fusion.FusionWeights fields)
_NO_EXTRAS = {"dense": 0.0, "symbol": 0.0, "path": 0.0, "phrase": 0.0, "graph": 0.0, "centrality": 0.0}
_SHIPPED = (
    Config(
        FusionWeights(file_context=RERANK_FILE_CONTEXT),
        rerank=COEFFICIENTS,
        functions=FUNCTION_COEFFICIENTS if DEFAULT_CONFIG.functions else None,
    )
    if DEFAULT_CONFIG.rerank
    else Config(FusionWeights())
)

CONFIGS: dict[str, Config] = {
    "default": _SHIPPED,  # what search ships: first stage, second stage when on by default
    "first-stage": Config(FusionWeights()),  # the shipped weights without the second stage
    "lexical": Config(FusionWeights(**_NO_EXTRAS), file_context=False),  # type: ignore[arg-type]
    "dense": Config(FusionWeights(**{**_NO_EXTRAS, "lexical": 0.0, "dense": 1.0}), file_context=False),  # type: ignore[arg-type]
    # ablations of the shipped first stage: without one signal (in sample; the held-out ablation
    # comes from the pipelines below)
    "no-dense": Config(FusionWeights(dense=0.0)),
    "no-symbol": Config(FusionWeights(symbol=0.0)),
    "no-path": Config(FusionWeights(path=0.0)),
    "no-file-context": Config(FusionWeights(), file_context=False),
    "no-graph": Config(FusionWeights(graph=0.0, centrality=0.0)),
    "no-phrase": Config(FusionWeights(phrase=0.0)),
    "no-factors": Config(FusionWeights(test_file_factor=1.0, auxiliary_file_factor=1.0)),
    "rrf": Config(FusionWeights(method="rrf")),  # the default signals, weighted reciprocal-rank fusion
}
BASELINES = ("bm25", "bm25-py")  # plain BM25 over every indexed file / over the indexed .py files

# ---- evidence variants: search settings that change what is gathered (a second search per issue)
VARIANTS: dict[str, SearchConfig] = {
    "default": DEFAULT_CONFIG,
    "no-stems": replace(DEFAULT_CONFIG, stem_weight=0.0, columns=ColumnWeights(stems=0.0)),
    "stems-terms-only": replace(DEFAULT_CONFIG, columns=ColumnWeights(stems=0.0)),
    "stems-column-only": replace(DEFAULT_CONFIG, stem_weight=0.0),
    "stems-full": replace(DEFAULT_CONFIG, columns=ColumnWeights(stems=1.0)),  # the column as body text
    # the weighted BM25 query over every match instead of over the 2,000 prefiltered candidates
    "one-phase": replace(DEFAULT_CONFIG, lexical_prefilter=0),
}

# ---- grids of the cross-validation: parameter -> values, the shipped default first
GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "fusion": {
        "symbol": (0.2, 0.0, 0.1),
        "path": (0.3, 0.0, 0.15, 0.6),
        "phrase": (0.0, 0.2, 0.4),
        "graph": (0.0, 0.05, 0.15),
        "file_context": (1.0, 2.0),
        "test_file_factor": (0.5, 1.0),
        "auxiliary_file_factor": (0.5, 1.0),
    },
    "wide": {
        "symbol": (0.2, 0.0, 0.05, 0.1, 0.4),
        "path": (0.3, 0.0, 0.15, 0.6),
        "phrase": (0.0, 0.1, 0.2, 0.4),
        "graph": (0.0, 0.05, 0.1, 0.2),
        "file_context": (1.0, 0.5, 2.0),
        "test_file_factor": (0.5, 0.25, 1.0),
        "auxiliary_file_factor": (0.5, 0.25, 1.0),
    },
    "small": {"symbol": (0.2, 0.0, 0.1), "path": (0.3, 0.0, 0.6), "test_file_factor": (0.5, 1.0)},
}


def grid_candidates(space: Mapping[str, Sequence[float]]) -> list[Config]:
    """One first-stage configuration per point of ``space`` (FusionWeights field -> values)."""
    out = []
    for point in loc_cv.grid(space):
        values = dict(point)
        floor = values.pop("floor_rank", None)
        weights = replace(FusionWeights(), **values)  # type: ignore[arg-type]
        if floor is not None:
            weights = replace(weights, floor_rank=int(floor))  # type: ignore[arg-type]
        out.append(Config(weights))
    return out


def parse_grid(spec: str) -> dict[str, tuple[float, ...]]:
    """``--grid``: a named grid, or ``name=v1,v2;name=v1,…`` (FusionWeights fields and floor_rank)."""
    if spec in GRIDS:
        return GRIDS[spec]
    space: dict[str, tuple[float, ...]] = {}
    known = set(FusionWeights.__dataclass_fields__) - {"method"}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, _, values = part.partition("=")
        if name.strip() not in known or not values:
            raise ValueError(f"grid parameter {name!r}: expected one of {sorted(known)} with values")
        space[name.strip()] = tuple(float(v) for v in values.split(","))
    if not space:
        raise ValueError("empty grid")
    return space


# The main pipeline fits every feature search uses (``FEATURES``), always, at the shipped candidate
# depth, and each fold's inner cross-validation chooses only the L2 penalty, by the inner held-out
# log-likelihood of the gold files (``SELECT_BY``): the penalty, not a choice among feature subsets,
# keeps a weak feature small, and a smooth criterion over ~50 training issues chooses it more
# steadily than the objective, which moves in steps of one issue. The procedure before this round
# also let the inner cross-validation choose, by the objective, which of the optional features join
# (none, each alone, or all: ``loc_rerank.Pipeline.optional``) and the candidate depth among
# ``DEPTHS``; that choice among 6 x 2 x 4 settings did not generalize (docs/retrieval.md). It stays
# as a comparison row, with 541fa27's (the same without ``tested``, at depth 30) and the main
# pipeline with the penalty chosen by the objective.
SELECT_BY = "likelihood"
OPTIONAL_FEATURES = ("prose", "named_stem", "named_dir", "central")
DEPTHS = (RERANK_FILES, POOL_DEPTH)
PER_FOLD_SUBSETS = "two stages, feature subsets and depth chosen per fold (the procedure before)"
BEFORE_TESTED = "two stages, feature subsets chosen per fold, depth 30, no tested (541fa27, shipped before)"
BY_OBJECTIVE = "two stages, penalty chosen by the objective"
# every feature in, then features left out per fold while that raises the inner held-out likelihood
PRUNED = "two stages, features pruned per fold by the inner likelihood"
# every repository weighs alike in the fit and the inner likelihood (loc_rerank.Pipeline.balanced)
BALANCED = "two stages, every repository weighed alike"
# the main pipeline's fits without the history pairs (``bench/loc_synthetic.py``), when they are given
WITHOUT_HISTORY = "two stages without the history pairs in the fit"

# first-stage signals whose held-out ablation is computed when the grid offers them weight 0
SIGNAL_ABLATIONS = ("symbol", "path", "phrase", "graph", "dense")


# Evidence variants that are comparisons, not settings to tune: the cross-validation never picks them
# for the main pipelines; each gets its own "only" pipeline.
COMPARISON_VARIANTS = frozenset({"no-stems", "one-phase"})


def pipelines(
    space: Mapping[str, Sequence[float]],
    variants: Sequence[str],
    *,
    ablations: bool = True,
    only: Sequence[str] = (),
    history: bool = False,
) -> list[Pipeline]:
    """The cross-validated pipelines: first stage alone, both stages, and the held-out ablations
    (each second-stage feature left out; each first-stage signal held at 0; each variant alone).

    The main pipelines choose among the tunable variants (``default`` and any not in
    :data:`COMPARISON_VARIANTS`) x the grid; a variant's own pipeline uses its evidence only.
    """
    grid = grid_candidates(space)
    tunable = [v for v in variants if v not in COMPARISON_VARIANTS]
    every = tuple((v, c) for v in tunable for c in grid)
    base = tuple(f for f in FEATURES if f not in OPTIONAL_FEATURES)
    optional = tuple(f for f in OPTIONAL_FEATURES if f in CANDIDATE_FEATURES)

    def two(name: str, kept: tuple[tuple[str, Config], ...], features: tuple[str, ...]) -> Pipeline:
        return Pipeline(name, kept, features, select_by=SELECT_BY, history=history)

    out = [Pipeline("first stage", every, None), two("two stages", every, FEATURES)]
    if not ablations:
        return out
    if history:
        out.append(Pipeline(WITHOUT_HISTORY, every, FEATURES, select_by=SELECT_BY))
    out.append(Pipeline(BY_OBJECTIVE, every, FEATURES, history=history))
    out.append(Pipeline(PRUNED, every, FEATURES, select_by=SELECT_BY, prune=True, history=history))
    out.append(Pipeline(BALANCED, every, FEATURES, select_by=SELECT_BY, balanced=True, history=history))
    if optional:  # the procedure before, with and without ``tested`` (541fa27's, what main shipped)
        out.append(Pipeline(PER_FOLD_SUBSETS, every, base, optional=optional, depths=DEPTHS))
        untested = tuple(f for f in base if f != "tested")
        out.append(Pipeline(BEFORE_TESTED, every, untested, optional=optional))
    # each feature search does not use, added alone, and the trial features together
    extras = [f for f in CANDIDATE_FEATURES if f not in FEATURES]
    added = [two(f"two stages with {f}", every, (*FEATURES, f)) for f in extras]
    if len(TRIAL_FEATURES) > 1:
        added.append(two(f"two stages with {', '.join(TRIAL_FEATURES)}", every, (*FEATURES, *TRIAL_FEATURES)))
    if only:  # just these features' "without" rows, and the added ones
        return (
            out
            + added
            + [two(f"two stages without {f}", every, tuple(g for g in FEATURES if g != f)) for f in only]
        )
    out.extend(added)
    for feature in FEATURES:
        out.append(two(f"two stages without {feature}", every, tuple(f for f in FEATURES if f != feature)))
    for signal in SIGNAL_ABLATIONS:
        if 0.0 in space.get(signal, ()):
            kept = tuple((v, c) for v, c in every if getattr(c.weights, signal) == 0.0)
            out.append(two(f"two stages without the {signal} signal", kept, FEATURES))
    for variant in variants:
        if len(variants) > 1:
            only = tuple((variant, c) for c in grid)
            out.append(two(f"two stages, {variant} evidence only", only, FEATURES))
    return out

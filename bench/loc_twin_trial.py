"""A trial function-stage feature: ``twin``, a same-named definition's support (issue 13).

A fix often changes a method and its overrides together (``format_signature`` of three
``Documenter`` classes, ``visit_Call_35`` and ``visit_Call_legacy``), and function Acc@k counts an
issue only when *every* gold function is in the top k. The function stage scores each definition on
its own, so the override whose chunk the report's words did not reach ranks low.

``twin`` of a candidate definition = the largest ``chunk`` feature (its best chunk's score over the
best chunk's) of the *other* candidates with the same bare name; 0 for classes, for dunder names
(``__init__``, ``__repr__``: every class has one) and when no other candidate shares the name.

Everything above, and the rule, was fixed before any figure of it was computed. **The rule**:
``twin`` joins ``FUNCTION_FEATURES`` iff the dev held-out function Acc@10 hits plus Acc@5 hits
(``bench/loc_functions.py``, the same folds and file stages) rise by at least
``loc_more_issues.MIN_GAIN`` with neither falling by more than ``MAX_LOSS`` issue; the file figures
cannot move (the function stage ranks functions only).

This runs ``loc_functions.py`` with the feature added (same arguments): compare its held-out row
with a run of ``loc_functions.py`` itself on the same runs cache.

Usage:
    python bench/loc_twin_trial.py --runs-cache RUNS.pickle --work DIR/swe --history PAIRS.pickle [--json out.json]
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def is_twin_name(name: str, kind: str) -> bool:
    return kind != "class" and not (name.startswith("__") and name.endswith("__"))


def twin_values(definitions: Sequence, chunk: Mapping[int, float]) -> dict[int, float]:
    """``twin`` per symbol id (module docstring), from each candidate's ``chunk`` feature."""
    by_name: dict[str, list[int]] = {}
    for d in definitions:
        if is_twin_name(d.name, d.kind):
            by_name.setdefault(d.name, []).append(d.symbol_id)
    out: dict[int, float] = {}
    for d in definitions:
        others = (
            [s for s in by_name.get(d.name, ()) if s != d.symbol_id] if is_twin_name(d.name, d.kind) else []
        )
        out[d.symbol_id] = max((chunk.get(s, 0.0) for s in others), default=0.0)
    return out


def install() -> None:
    """Add ``twin`` to the function stage's features before the benchmark's modules import them."""
    from loc_feature_trial import install_function_feature

    install_function_feature(
        "twin",
        lambda definitions, features, _ranking: twin_values(
            definitions, {s: f["chunk"] for s, f in features.items()}
        ),
    )


if __name__ == "__main__":
    install()
    import loc_functions

    sys.exit(loc_functions.main(sys.argv[1:]))

"""A trial function-stage feature: ``phrase``, the report's quoted text inside a definition (issue 13).

The file stage scores a file that holds a phrase the report quotes (an error message, inline code, a
quoted string; ``search/phrases.py``) with its ``phrase`` feature, the second largest coefficient it
has. The function stage has no such feature: its chunk scores come from the fused chunk ranking, in
which the phrase signal weighs 0 (``fusion.WEIGHT_PHRASE``), so the one definition that holds
``"no number is assigned for %s"`` gets no credit for it over its file's other definitions. Issue
trackers quote messages the failing function formats or raises; that function is often the fix.

``phrase`` of a candidate definition = the largest phrase-signal score among the evidence chunks of
that definition (``chunk_symbol``) over the largest phrase-signal score of the issue; 0 when none of
its chunks holds a quoted phrase (and for every candidate when the report quotes nothing the index
holds). In [0, 1], like every function feature.

Everything above, and the rule, was fixed before any figure of it was computed (session 36). **The
rule** (the same as ``twin``'s): ``phrase`` joins ``FUNCTION_FEATURES`` iff the dev held-out
function Acc@10 hits plus Acc@5 hits (``bench/loc_functions.py``, the same folds and file stages)
rise by at least ``loc_more_issues.MIN_GAIN`` with neither falling by more than ``MAX_LOSS`` issue;
and then, as a second judge nothing here was chosen on for this feature, the 161 single-file unseen
issues (``bench/loc_unseen.py``) must not lose function Acc@10 hits. The file figures cannot move
(the function stage ranks functions only).

This runs ``loc_functions.py`` with the feature added (same arguments): compare its held-out row
with a run of ``loc_functions.py`` itself on the same runs cache.

Usage:
    python bench/loc_phrase_trial.py --runs-cache RUNS.pickle --work DIR/swe --history PAIRS.pickle [--json out.json]
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

_PHRASES: dict[str, Mapping[int, float]] = {"current": {}}  # the issue being featurised: chunk -> score


def phrase_values(
    symbols: list[int], chunk_symbol: Mapping[int, int | None], phrase: Mapping[int, float]
) -> dict[int, float]:
    """``phrase`` per symbol id in ``symbols`` (module docstring)."""
    top = max(phrase.values(), default=0.0)
    best: dict[int, float] = {}
    if top > 0:
        for chunk, score in phrase.items():
            symbol = chunk_symbol.get(chunk)
            if symbol is not None and score > best.get(symbol, 0.0):
                best[symbol] = score
    return {s: (best.get(s, 0.0) / top if top > 0 else 0.0) for s in symbols}


def install() -> None:
    """Add ``phrase`` to the function stage's features before the benchmark's modules import them."""
    from loc_feature_trial import install_function_feature

    install_function_feature(
        "phrase",
        lambda _definitions, features, ranking: phrase_values(
            list(features), ranking.chunk_symbol, _PHRASES["current"]
        ),
    )


def track_issue() -> None:
    """Let ``with_phrase`` see the phrase scores of the issue whose rows ``FunctionStage`` builds."""
    import loc_functions

    original = loc_functions.FunctionStage.rows

    def rows(self, choice, instance, rule=loc_functions.SHIPPED_RULE):  # type: ignore[no-untyped-def]
        _PHRASES["current"] = self._all[instance].evidence.chunk_signals.get("phrase", {})
        return original(self, choice, instance, rule)

    loc_functions.FunctionStage.rows = rows  # type: ignore[method-assign]


if __name__ == "__main__":
    install()
    track_issue()
    import loc_functions

    sys.exit(loc_functions.main(sys.argv[1:]))

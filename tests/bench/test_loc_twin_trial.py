"""The ``twin`` trial feature (bench/loc_twin_trial.py): a same-named candidate's support."""

from __future__ import annotations

from lazy_intel.search.function_rank import Definition
from tests.bench import load_bench

trial = load_bench("loc_twin_trial")


def _d(symbol: int, name: str, kind: str = "method") -> Definition:
    return Definition(symbol, 1, "a.py", name, f"C{symbol}.{name}", kind, 10, frozenset())


def test_twin_is_the_best_other_same_named_candidates_chunk_support() -> None:
    defs = [
        _d(1, "format_signature"),
        _d(2, "format_signature"),
        _d(3, "format_signature"),
        _d(4, "__init__"),
        _d(5, "__init__"),
        _d(6, "Documenter", "class"),
        _d(7, "Documenter", "function"),
        _d(8, "alone"),
    ]
    chunk = {1: 0.9, 2: 0.2, 3: 0.0, 4: 1.0, 5: 0.5, 6: 0.8, 7: 0.1, 8: 0.7}
    twin = trial.twin_values(defs, chunk)
    assert twin[1] == 0.2 and twin[2] == 0.9 and twin[3] == 0.9  # the others' best, never its own
    assert twin[4] == twin[5] == 0.0  # dunder names: every class has one
    assert twin[6] == 0.0 and twin[7] == 0.0  # a class neither has nor lends a twin
    assert twin[8] == 0.0


def test_install_adds_the_feature_to_the_function_stage() -> None:
    from lazy_intel.search import function_rank

    saved = (function_rank.FUNCTION_FEATURES, function_rank.function_features)
    try:
        trial.install()
        assert function_rank.FUNCTION_FEATURES[-1] == "twin"
    finally:
        function_rank.FUNCTION_FEATURES, function_rank.function_features = saved

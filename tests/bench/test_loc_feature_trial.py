"""The trial-feature harness (bench/loc_feature_trial.py)."""

from __future__ import annotations

from tests.bench import load_bench

harness = load_bench("loc_feature_trial")


def test_install_makes_the_feature_a_candidate_and_a_trial_one() -> None:
    from lazy_intel.search import rerank

    saved = (rerank.CANDIDATE_FEATURES, rerank.TRIAL_FEATURES, rerank.FEATURES)
    try:
        harness.install("probe")
        assert rerank.CANDIDATE_FEATURES[-1] == "probe" and "probe" in rerank.TRIAL_FEATURES
        assert "probe" not in rerank.FEATURES  # search itself never scores a trial feature
    finally:
        rerank.CANDIDATE_FEATURES, rerank.TRIAL_FEATURES, rerank.FEATURES = saved


def test_a_function_feature_is_added_to_every_definition_and_to_the_feature_list() -> None:
    from lazy_intel.search import function_rank

    saved = (function_rank.FUNCTION_FEATURES, function_rank.function_features)
    try:
        function_rank.function_features = lambda analysis, query, definitions, ranking: {7: {"chunk": 0.5}}
        harness.install_function_feature(
            "probe", lambda definitions, features, ranking: {7: features[7]["chunk"] * 2}
        )
        assert function_rank.FUNCTION_FEATURES[-1] == "probe"
        assert function_rank.function_features(None, None, [], None) == {7: {"chunk": 0.5, "probe": 1.0}}
    finally:
        function_rank.FUNCTION_FEATURES, function_rank.function_features = saved

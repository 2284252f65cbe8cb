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

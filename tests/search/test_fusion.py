"""Rank fusion: RRF, file aggregation, test-file down-weighting, the structural-prior seam."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.search.fusion import (
    RRF_K,
    TEST_FILE_FACTOR,
    Signal,
    aggregate_by_file,
    is_test_path,
    path_factor,
    prior_signal,
    ranks,
    reciprocal_rank_fusion,
    with_file_context,
)


def test_ranks_are_one_based_best_first() -> None:
    assert ranks({"a": 0.1, "b": 3.0, "c": 1.0}) == {"b": 1, "c": 2, "a": 3}


def test_rrf_agreement_beats_a_single_strong_signal() -> None:
    lexical = Signal("lexical", 1.0, {"a": 10.0, "b": 9.0, "c": 1.0})
    dense = Signal("dense", 1.0, {"b": 0.9, "c": 0.8, "a": 0.1})
    fused = reciprocal_rank_fusion([lexical, dense])
    assert [f.key for f in fused] == ["b", "a", "c"]
    top = fused[0]
    assert top.score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert top.signals == {"lexical": 9.0, "lexical_rank": 2.0, "dense": 0.9, "dense_rank": 1.0}


def test_rrf_uses_ranks_not_scales() -> None:
    small = reciprocal_rank_fusion([Signal("s", 1.0, {"a": 0.002, "b": 0.001})])
    large = reciprocal_rank_fusion([Signal("s", 1.0, {"a": 2000.0, "b": 1000.0})])
    assert [(f.key, f.score) for f in small] == [(f.key, f.score) for f in large]


def test_signal_weights_and_empty_signals() -> None:
    heavy = Signal("symbol", 3.0, {"x": 1.0})
    light = Signal("lexical", 1.0, {"y": 1.0})
    assert [f.key for f in reciprocal_rank_fusion([light, heavy])] == ["x", "y"]
    assert reciprocal_rank_fusion([Signal("none", 1.0, {}), Signal("off", 0.0, {"z": 1.0})]) == []


@given(st.dictionaries(st.integers(0, 50), st.floats(0, 100), min_size=1), st.integers(1, 4))
def test_rrf_of_one_signal_keeps_its_order(scores: dict[int, float], weight: int) -> None:
    fused = reciprocal_rank_fusion([Signal("s", float(weight), scores)])
    assert [f.key for f in fused] == sorted(scores, key=lambda k: -scores[k])


def test_file_aggregation_rewards_several_good_chunks_but_best_dominates() -> None:
    scores = aggregate_by_file([("a.py", 10.0), ("a.py", 8.0), ("b.py", 12.0), ("c.py", 10.0)], decay=0.5)
    assert scores["a.py"] == pytest.approx(14.0)
    assert scores["b.py"] == pytest.approx(12.0)
    assert scores["c.py"] == pytest.approx(10.0)
    many_weak = aggregate_by_file([("w.py", 1.0)] * 50, top=3, decay=0.5)
    assert many_weak["w.py"] == pytest.approx(1.75)  # only the top three count


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("tests/test_models.py", True),
        ("pkg/tests/helpers.py", True),
        ("src/app.test.ts", True),
        ("lib/foo_test.go", True),
        ("conftest.py", True),
        ("src/main/java/FooTest.java", True),
        ("testing/python/collect.py", True),
        ("src/_pytest/python.py", False),
        ("pkg/contest.py", False),
        ("src/attestation.py", False),
    ],
)
def test_test_paths(path: str, is_test: bool) -> None:
    assert is_test_path(path) is is_test


def test_test_files_count_less_only_for_failure_reports() -> None:
    assert path_factor("tests/test_a.py", locate_bug=True) == TEST_FILE_FACTOR
    assert path_factor("tests/test_a.py", locate_bug=False) == 1.0
    assert path_factor("pkg/a.py", locate_bug=True) == 1.0


def test_file_context_lifts_chunks_of_the_best_file() -> None:
    chunk_scores = {1: 0.02, 2: 0.02}
    lifted = with_file_context(chunk_scores, {1: "a", 2: "b"}, {"a": 0.1, "b": 0.01})
    assert lifted[1] > lifted[2] > 0.02


def test_prior_seam() -> None:
    assert prior_signal("graph", None) is None
    assert prior_signal("graph", {}) is None
    signal = prior_signal("graph", {"a": 0.5, "b": 0.0, "c": float("nan")})
    assert signal is not None and dict(signal.scores) == {"a": 0.5}

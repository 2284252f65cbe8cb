"""Score fusion: rescaling, file aggregation, test-file down-weighting, the structural-prior seam."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lazy_intel.search.fusion import (
    AUXILIARY_FILE_FACTOR,
    FLOOR_RANK,
    RRF_K,
    TEST_FILE_FACTOR,
    Evidence,
    FusionWeights,
    Signal,
    aggregate_by_file,
    fuse_evidence,
    is_auxiliary_path,
    is_test_path,
    ranks,
    reciprocal_rank_fusion,
    rescaled,
    score_fusion,
)


def test_ranks_are_one_based_best_first() -> None:
    assert ranks({"a": 0.1, "b": 3.0, "c": 1.0}) == {"b": 1, "c": 2, "a": 3}


def test_rescaled_best_is_one_and_the_floor_rank_is_zero() -> None:
    few = rescaled({"a": 10.0, "b": 5.0, "c": 0.0})
    assert few == {"a": 1.0, "b": 0.5, "c": 0.0}
    many = {i: float(100 - i) for i in range(FLOOR_RANK + 10)}
    scaled = rescaled(many)
    assert scaled[0] == 1.0 and scaled[FLOOR_RANK] == 0.0 and scaled[FLOOR_RANK + 5] == 0.0
    assert 0.0 < scaled[FLOOR_RANK // 2] < 1.0
    assert rescaled({"x": 3.0, "y": 3.0}) == {"x": 1.0, "y": 1.0}
    assert rescaled({}) == {}
    # negative raw scores (cosines) land in [0, 1] too
    assert rescaled({"a": 0.5, "b": -0.5}) == {"a": 1.0, "b": 0.0}


def test_a_clear_margin_survives_fusion_and_agreement_wins_a_close_call() -> None:
    # BM25 is far surer of "a" than of "b"; a weak signal for "b" does not overturn it
    lexical = Signal("lexical", 1.0, {"a": 30.0, "b": 10.0, "c": 9.0})
    symbol = Signal("symbol", 0.2, {"b": 1.0})
    fused = score_fusion([lexical, symbol])
    assert [f.key for f in fused] == ["a", "b", "c"]
    assert fused[1].signals == {"lexical": 10.0, "lexical_rank": 2.0, "symbol": 1.0, "symbol_rank": 1.0}
    assert fused[1].score == pytest.approx(10 / 30 + 0.2)
    # when BM25 hardly tells them apart, the second signal decides
    close = Signal("lexical", 1.0, {"a": 10.2, "b": 10.0, "c": 9.0})
    assert [f.key for f in score_fusion([close, symbol])][:2] == ["b", "a"]


def test_fusion_ignores_a_signal_scale() -> None:
    small = score_fusion([Signal("s", 1.0, {"a": 0.002, "b": 0.001})])
    large = score_fusion([Signal("s", 1.0, {"a": 2000.0, "b": 1000.0})])
    assert [(f.key, f.score) for f in small] == [(f.key, pytest.approx(f.score)) for f in large]


def test_signal_weights_and_empty_signals() -> None:
    heavy = Signal("symbol", 3.0, {"x": 1.0})
    light = Signal("lexical", 1.0, {"y": 1.0})
    assert [f.key for f in score_fusion([light, heavy])] == ["x", "y"]
    assert score_fusion([Signal("none", 1.0, {}), Signal("off", 0.0, {"z": 1.0})]) == []


@given(st.dictionaries(st.integers(0, 50), st.floats(0, 100), min_size=1), st.integers(1, 4))
def test_fusion_of_one_signal_keeps_its_order(scores: dict[int, float], weight: int) -> None:
    fused = score_fusion([Signal("s", float(weight), scores)])
    expected = sorted(scores, key=lambda k: -scores[k])
    got = [f.key for f in fused]
    # equal rescaled scores (everything at or below the floor) keep the signal's own order
    assert [scores[k] for k in got] == [scores[k] for k in expected] or all(
        f.score == pytest.approx(0.0) for f in fused[1:]
    )


def test_rrf_agreement_beats_a_single_strong_signal() -> None:
    lexical = Signal("lexical", 1.0, {"a": 10.0, "b": 9.0, "c": 1.0})
    dense = Signal("dense", 1.0, {"b": 0.9, "c": 0.8, "a": 0.1})
    fused = reciprocal_rank_fusion([lexical, dense])
    assert [f.key for f in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert fused[0].signals == {"lexical": 9.0, "lexical_rank": 2.0, "dense": 0.9, "dense_rank": 1.0}


def test_rrf_drops_the_margin_that_score_fusion_keeps() -> None:
    lexical = Signal("lexical", 1.0, {"a": 30.0, "b": 10.0})
    symbol = Signal("symbol", 0.2, {"b": 1.0})
    assert [f.key for f in score_fusion([lexical, symbol])] == ["a", "b"]
    assert [f.key for f in reciprocal_rank_fusion([lexical, symbol])] == ["b", "a"]


def test_the_fusion_method_is_a_weight_of_its_own() -> None:
    evidence = Evidence(
        {"lexical": {1: 30.0, 2: 10.0}, "symbol": {2: 1.0}},
        {},
        {1: 10, 2: 20},
        {10: "a.py", 20: "b.py"},
        False,
    )
    _, by_score = fuse_evidence(evidence, FusionWeights(symbol=0.2))
    _, by_rank = fuse_evidence(evidence, FusionWeights(symbol=0.2, method="rrf"))
    assert [f.path for f in by_score] == ["a.py", "b.py"]
    assert [f.path for f in by_rank] == ["b.py", "a.py"]
    with pytest.raises(ValueError, match="unknown fusion method"):
        fuse_evidence(evidence, FusionWeights(method="borda"))


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


def _evidence(locate_bug: bool) -> Evidence:
    return Evidence(
        chunk_signals={
            "lexical": {1: 9.0, 2: 8.0, 3: 7.0, 4: 6.0},
            "symbol": {2: 1.0},
        },
        file_signals={"path": {20: 1.0}},
        chunk_file={1: 10, 2: 20, 3: 30, 4: 20},
        file_path={10: "pkg/a.py", 20: "pkg/b.py", 30: "tests/test_a.py"},
        locate_bug=locate_bug,
    )


def test_fuse_evidence_ranks_files_and_chunks_with_reasons() -> None:
    chunks, files = fuse_evidence(_evidence(False))
    assert files[0].path == "pkg/b.py"  # two good chunks + symbol + path
    top_file = files[0]
    assert set(top_file.signals) == {"lexical", "lexical_rank", "symbol", "symbol_rank", "path", "path_rank"}
    assert top_file.best_chunk_id == 2
    assert chunks[0].chunk_id == 2 and chunks[0].signals["file_score"] == pytest.approx(top_file.score)
    # file context lifts chunk 4 (weak lexically) above chunk 3 of a file with less evidence
    order = [c.chunk_id for c in chunks]
    assert order.index(4) < order.index(3)
    no_context, _ = fuse_evidence(_evidence(False), file_context=False)
    assert [c.chunk_id for c in no_context].index(3) < [c.chunk_id for c in no_context].index(4)


def test_test_files_count_less_only_for_failure_reports() -> None:
    _, calm = fuse_evidence(_evidence(False))
    _, bug = fuse_evidence(_evidence(True))
    calm_test = next(f for f in calm if f.path == "tests/test_a.py")
    bug_test = next(f for f in bug if f.path == "tests/test_a.py")
    assert "test_file_factor" not in calm_test.signals
    assert bug_test.signals["test_file_factor"] == TEST_FILE_FACTOR
    assert bug_test.score == pytest.approx(calm_test.score * TEST_FILE_FACTOR)


def test_weights_change_the_order_and_the_graph_seam() -> None:
    _, files = fuse_evidence(_evidence(False), FusionWeights(symbol=0.0, path=0.0))
    # lexical alone: b.py's two good chunks (8 + 0.5 x 6) outweigh a.py's one (9)
    assert [f.path for f in files] == ["pkg/b.py", "pkg/a.py", "tests/test_a.py"]
    _, by_chunk = fuse_evidence(_evidence(False), FusionWeights(symbol=0.0, path=0.0, lexical=0.0))
    assert by_chunk == []  # no weight, no ranking
    primed = Evidence(
        {"lexical": {1: 1.0, 3: 2.0}}, {"graph": {10: 1.0}}, {1: 10, 3: 30}, {10: "a.py", 30: "c.py"}, False
    )
    _, plain = fuse_evidence(primed, FusionWeights(graph=0.0))
    _, graph = fuse_evidence(primed, FusionWeights(graph=5.0))
    assert plain[0].path == "c.py"
    assert graph[0].path == "a.py" and graph[0].signals["graph_rank"] == 1


def test_auxiliary_files_count_less_for_failure_reports() -> None:
    for path in (
        "doc/usage/example_google.py",
        "asv_bench/benchmarks/io.py",
        "requests/packages/urllib3/x.py",
        # vendored libraries and generated tables outside a vendor directory, by name
        "sphinx/themes/basic/static/jquery-3.5.1.js",
        "sphinx/themes/basic/static/jquery.js",
        "sphinx/themes/basic/static/underscore-1.13.1.js",
        "app/assets/javascripts/vendor-ish/lodash.js",
        "web/static/js/jquery-3.5.1.slim.min.js",
        "web/static/js/d3.v7.js",
        "web/css/bootstrap.v4.1.css",
        "app/static/app.min.js",
        "astropy/units/format/generic_parsetab.py",
        "astropy/coordinates/angle_lextab.py",
        "proto/service_pb2.py",
        "proto/service_pb2_grpc.py",
        # the hosting service's issue and pull-request templates
        ".github/ISSUE_TEMPLATE/bug_report.md",
        ".github/PULL_REQUEST_TEMPLATE.md",
        ".github/pull_request_template.md",
        ".gitlab/issue_templates/Bug.md",
    ):
        assert is_auxiliary_path(path), path
    for path in (
        "src/pkg/docstring.py",
        "pkg/packages.py",
        "sphinx/ext/napoleon/docstring.py",
        # the project's own scripts and modules whose names merely contain a number or a library's
        "sphinx/themes/basic/static/doctools.js",
        "sphinx/themes/basic/static/searchtools.js",
        "pkg/version.py",
        "lib/v1.2.py",
        "src/d3.py",
        "src/requirements.js",
        "src/jqueryish.py",
        "src/jquery.js",  # the library's own repository: its source, not a vendored copy
        "django/contrib/admin/static/admin/js/jquery.init.js",  # the project's own code beside it
        "lodash.js",
        "pkg/github.py",
        "pkg/parse.py",
        # CI configuration is a real answer to a question about CI
        ".github/workflows/tests.yml",
        ".circleci/config.yml",
    ):
        assert not is_auxiliary_path(path), path
    evidence = Evidence(
        {"lexical": {1: 3.0, 2: 2.0}},
        {},
        {1: 10, 2: 20},
        {10: "docs/examples/demo.py", 20: "pkg/core.py"},
        True,
    )
    _, files = fuse_evidence(evidence)
    assert [f.path for f in files] == ["pkg/core.py", "docs/examples/demo.py"]
    assert files[1].signals["auxiliary_file_factor"] == AUXILIARY_FILE_FACTOR
    assert "auxiliary_file_factor" not in files[0].signals
    _, calm = fuse_evidence(replace(evidence, locate_bug=False))
    assert calm[0].path == "docs/examples/demo.py"  # not a failure report: BM25 order stands


_DIRS = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), max_size=3).map(
    lambda parts: "".join(f"{p}/" for p in parts if p not in ("docs", "doc", "examples", "example", "vendor"))
)


@settings(max_examples=200, deadline=None)
@given(
    dirs=_DIRS,
    name=st.from_regex(r"[a-z][a-z0-9]{1,10}", fullmatch=True),
    version=st.from_regex(r"v?[0-9]{1,2}\.[0-9]{1,2}(\.[0-9]{1,2})?", fullmatch=True),
    minified=st.booleans(),
    ext=st.sampled_from(["js", "css"]),
)
def test_a_library_copy_named_with_its_version_is_auxiliary_anywhere(
    dirs: str, name: str, version: str, minified: bool, ext: str
) -> None:
    assert is_auxiliary_path(f"{dirs}{name}-{version}{'.min' if minified else ''}.{ext}")


@settings(max_examples=200, deadline=None)
@given(
    dirs=st.sampled_from(["", "src/", "lib/pkg/", "pkg/sub/"]),
    stem=st.from_regex(r"[a-z_][a-z0-9_]{0,20}", fullmatch=True),
)
def test_a_project_module_is_not_auxiliary(dirs: str, stem: str) -> None:
    assume(not stem.endswith(("parsetab", "lextab", "_pb2", "_pb2_grpc")))
    assert not is_auxiliary_path(f"{dirs}{stem}.py")

"""The second stage (search/rerank.py): features of candidate files and the re-ranking (pure)."""

from __future__ import annotations

import math

import pytest

from lazy_intel.search.fusion import Evidence
from lazy_intel.search.query import analyze_query
from lazy_intel.search.rerank import (
    CANDIDATE_FEATURES,
    FEATURES,
    TOKEN_FEATURES,
    FileFacts,
    QueryFacts,
    central,
    coverage,
    is_prose_path,
    is_test_of,
    linear_scores,
    mentioned_names,
    named_weight,
    path_parts,
    rerank,
    second_stage_scores,
    stage_features,
    static_features,
    subject_of_test,
    term_weights,
)

TRACE = """Session.resolve_redirects drops the method

Traceback (most recent call last):
  File "/home/me/proj/requests/api.py", line 10, in get
    return session.request('GET', url)
  File "/home/me/proj/requests/sessions.py", line 99, in resolve_redirects
    raise TooManyRedirectsError('Exceeded 30 redirects.')
requests.exceptions.TooManyRedirectsError: Exceeded 30 redirects.
"""


def _evidence(locate_bug: bool = True) -> Evidence:
    # files: 1 sessions.py, 2 api.py, 3 tests/test_sessions.py, 4 requests/__init__.py
    return Evidence(
        {
            "lexical": {10: 5.0, 11: 4.0, 12: 3.0, 20: 4.5, 30: 4.0, 40: 1.0},
            "phrase": {11: 2.0},
            "dense": {20: 0.9, 10: 0.5},
        },
        {"path": {1: 3.0, 2: 2.0}},
        {10: 1, 11: 1, 12: 1, 20: 2, 30: 3, 40: 4},
        {
            1: "requests/sessions.py",
            2: "requests/api.py",
            3: "tests/test_sessions.py",
            4: "requests/__init__.py",
        },
        locate_bug,
    )


def _facts() -> dict[int, FileFacts]:
    return {
        1: FileFacts(
            "requests/sessions.py",
            (("resolve_redirects", "SessionRedirectMixin.resolve_redirects"), ("Session", "Session")),
            frozenset({"session", "redirects", "toomanyredirectserror", "method", "resolve_redirects"}),
        ),
        2: FileFacts("requests/api.py", (("get", "get"),), frozenset({"get", "session"})),
        3: FileFacts("tests/test_sessions.py", (), frozenset({"session", "redirects", "method", "test"})),
        4: FileFacts("requests/__init__.py", (), frozenset()),
    }


def _query() -> QueryFacts:
    return QueryFacts(
        (("resolve_redirects", 2.0, 3), ("redirects", 1.0, 40), ("method", 1.0, 400), ("session", 1.0, 200)),
        1000,
        {"resolve_redirects": 1, "Session": 2, "get": 30},
    )


def test_mentioned_names_include_frame_functions() -> None:
    names = mentioned_names(analyze_query(TRACE))
    assert "resolve_redirects" in names and "get" in names and "Session" in names


def test_coverage_is_the_weight_times_idf_share_found() -> None:
    q = _query()
    idf = [w * math.log(1 + q.total_chunks / d) for _, w, d in q.terms]
    assert coverage(frozenset({"resolve_redirects"}), q) == pytest.approx(idf[0] / sum(idf))
    assert coverage(frozenset(), q) == 0.0
    assert coverage(frozenset(t for t, _, _ in q.terms), q) == pytest.approx(1.0)
    assert coverage(frozenset({"x"}), QueryFacts((), 10, {})) == 0.0


def test_static_features_describe_each_file() -> None:
    features = static_features(analyze_query(TRACE), _evidence(), _query(), _facts())
    sessions, api, tests, init = (features[i] for i in (1, 2, 3, 4))
    assert set(sessions) | set(stage_features({1: 1.0}, [1])[1]) == set(CANDIDATE_FEATURES)
    assert sessions["defines"] == pytest.approx(1.0)  # defined once: full specificity
    # Session.resolve_redirects is not SessionRedirectMixin.resolve_redirects: no qualified match
    assert sessions["defines_qualified"] == 0.0
    assert sessions["frame"] == 1.0 and api["frame"] == pytest.approx(0.5)  # innermost, then the caller
    assert sessions["path"] == 1.0 and api["path"] == pytest.approx(2 / 3) and tests["path"] == 0.0
    assert sessions["phrase"] == 1.0 and sessions["raises"] == 1.0  # message quoted, error type named
    assert api["phrase"] == 0.0 and api["raises"] == 0.0
    assert sessions["coverage"] > tests["coverage"] > api["coverage"] > init["coverage"] == 0.0
    assert sessions["breadth"] > api["breadth"] > 0.0
    assert tests["test"] == 1.0 and sessions["test"] == 0.0 and init["init"] == 1.0
    assert api["dense"] == 1.0 and sessions["dense"] == pytest.approx(0.5 / 0.9) and tests["dense"] == 0.0
    # a name defined 30 times says less than one defined once
    assert 0 < api["defines"] < sessions["defines"]


def test_a_qualified_mention_matches_its_dotted_suffix() -> None:
    analysis = analyze_query("SessionRedirectMixin.resolve_redirects loses the method")
    facts = {1: _facts()[1], 2: _facts()[2]}
    features = static_features(analysis, _evidence(), _query(), facts)
    assert features[1]["defines_qualified"] == 1.0 and features[2]["defines_qualified"] == 0.0


def test_rerank_orders_candidates_by_the_linear_score_and_keeps_the_rest_below() -> None:
    stage = {1: 1.0, 2: 0.9, 3: 0.8, 4: 0.1}
    paths = _evidence().file_path
    static = {f: {"coverage": c} for f, c in {1: 0.1, 2: 0.9, 3: 0.5, 4: 0.0}.items()}
    new, features = rerank(stage, paths, static, {"first": 1.0, "coverage": 2.0}, n=3)
    assert sorted(new, key=lambda f: -new[f]) == [2, 3, 1, 4]
    assert new[2] == 1.0 and all(0 < v <= 1 for v in new.values())
    assert new[4] < min(new[f] for f in (1, 2, 3))  # beyond the candidates: below them, first-stage order
    assert features[1]["first"] == 1.0 and features[3]["first_rank"] == pytest.approx(1 / 3)
    assert 4 not in features
    # identity coefficients keep the first stage's order
    same, _ = rerank(stage, paths, static, {"first": 1.0}, n=3)
    assert sorted(same, key=lambda f: -same[f]) == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="no second-stage features"):
        rerank(stage, paths, {1: {}}, {"first": 1.0}, n=3)


def test_scores_are_relative_to_the_best() -> None:
    assert second_stage_scores({1: 2.0, 2: 1.0}) == {1: 1.0, 2: pytest.approx(math.exp(-1))}
    assert second_stage_scores({}) == {}
    assert linear_scores({1: {"a": 1.0, "b": 2.0}}, {"a": 0.5, "c": 9.0}) == {1: 0.5}


def test_the_setting_and_the_default_search_agree() -> None:
    from lazy_intel.search.hybrid import DEFAULT_CONFIG, RERANK_DEFAULT
    from lazy_intel.settings import load_settings

    assert load_settings(env={}).rerank is RERANK_DEFAULT is DEFAULT_CONFIG.rerank


def test_search_uses_the_features_it_ships_and_reads_tokens_only_for_token_features() -> None:
    from lazy_intel.search.rerank import COEFFICIENTS, DROPPED_FEATURES, TRIAL_FEATURES

    left_out = set(TOKEN_FEATURES) | set(TRIAL_FEATURES) | set(DROPPED_FEATURES)
    assert set(FEATURES) | left_out == set(CANDIDATE_FEATURES)
    assert not set(FEATURES) & left_out
    assert set(COEFFICIENTS) == set(FEATURES)  # a named, documented constant per shipped feature
    # chosen on unseen real issues (bench/loc_unseen.py --decide): callee scored, first_rank back
    assert {"callee", "first_rank"} <= set(COEFFICIENTS)


def test_callee_is_the_best_weighted_specific_name_reaching_a_file() -> None:
    from lazy_intel.search.rerank import MAX_CALLEE_SEEDS, callee_scores

    analysis = analyze_query("`raises` and `helper` and `common` misbehave")
    rows = [
        ("raises", "src/api.py", "src/code.py"),
        ("helper", "src/api.py", "src/code.py"),
        ("helper", "src/api.py", "src/util.py"),
        ("raises", "tests/test_api.py", "src/other.py"),  # a named test function's callee: left out
        ("common", "src/api.py", "src/common.py"),  # defined too often to say anything
        ("unnamed", "src/api.py", "src/x.py"),  # not a name the report mentions
    ]
    counts = {"raises": 1, "helper": 4, "common": MAX_CALLEE_SEEDS + 1}
    scores = callee_scores(rows, analysis, counts)
    assert set(scores) == {"src/code.py", "src/util.py"}
    assert scores["src/code.py"] == pytest.approx(1.0)  # the best: a name defined once
    assert scores["src/util.py"] == pytest.approx(1 / (1 + math.log(4)))


def test_neighbour_is_the_graph_signal_log_scaled_to_the_best() -> None:
    evidence = Evidence({}, {"graph": {1: 9.0, 2: 1.0}}, {}, {1: "a.py", 2: "b.py", 3: "c.py"}, False)
    facts = {f: FileFacts(p, (), frozenset()) for f, p in evidence.file_path.items()}
    features = static_features(analyze_query("x"), evidence, QueryFacts((), 1, {}), facts)
    assert features[1]["neighbour"] == pytest.approx(1.0)
    assert features[2]["neighbour"] == pytest.approx(math.log(2) / math.log(10))
    assert features[3]["neighbour"] == 0.0


def test_path_parts_leave_out_the_package_and_name_a_package_by_its_directory() -> None:
    assert path_parts("src/_pytest/skipping.py") == ("skipping", [])
    assert path_parts("sphinx/ext/napoleon/__init__.py") == ("napoleon", ["ext"])
    assert path_parts("sphinx/ext/napoleon/docstring.py") == ("docstring", ["ext", "napoleon"])
    assert path_parts("lib/pkg/a/b.py") == ("b", ["a"])
    assert path_parts("CHANGES") == ("CHANGES", [])
    assert path_parts(".gitignore") == (".gitignore", [])


def test_a_path_part_is_named_exactly_or_by_its_stem_at_half() -> None:
    terms = term_weights(analyze_query("napoleon: skipped attributes in docstrings"))
    exact, _ = terms
    assert named_weight("napoleon", terms) == pytest.approx(exact["napoleon"])
    # "skipped" and "skipping" share the stem "skip": named at half the term's weight
    assert named_weight("skipping", terms) == pytest.approx(0.5 * exact["skipped"])
    assert named_weight("_napoleon_", terms) == named_weight("napoleon", terms)  # underscores aside
    assert named_weight("autodoc", terms) == 0.0 and named_weight("__", terms) == 0.0


def test_named_stem_and_named_dir_features() -> None:
    analysis = analyze_query("napoleon escapes the trailing underscore of an attribute in docstring")
    facts = {
        1: FileFacts("sphinx/ext/napoleon/docstring.py", (), frozenset()),
        2: FileFacts("sphinx/ext/napoleon/__init__.py", (), frozenset()),
        3: FileFacts("sphinx/ext/autodoc/__init__.py", (), frozenset()),
        4: FileFacts("sphinx/napoleon.py", (), frozenset()),
    }
    evidence = Evidence({}, {}, {}, {f: x.path for f, x in facts.items()}, False)
    features = static_features(analysis, evidence, QueryFacts((), 1, {}), facts)
    assert features[1]["named_stem"] > 0 and features[1]["named_dir"] > 0  # docstring, in napoleon/
    assert features[2]["named_stem"] > 0 and features[2]["named_dir"] == 0.0  # the package napoleon
    assert features[3]["named_stem"] == features[3]["named_dir"] == 0.0
    # the top-level package (every file's) never counts as a named directory
    sphinx = analyze_query("sphinx napoleon")
    assert static_features(sphinx, evidence, QueryFacts((), 1, {}), {4: facts[4]})[4]["named_dir"] == 0.0


def test_prose_is_whatever_is_not_parsed_source() -> None:
    assert is_prose_path("CHANGES") and is_prose_path("CHANGELOG.rst") and is_prose_path("doc/usage.md")
    assert is_prose_path("HISTORY.rst") and is_prose_path("setup.cfg")
    assert not is_prose_path("src/flask/cli.py") and not is_prose_path("lib/index.ts")
    features = static_features(analyze_query("x"), _evidence(), _query(), _facts())
    assert {f: v["prose"] for f, v in features.items()} == {1: 0.0, 2: 0.0, 3: 0.0, 4: 0.0}


def test_central_grows_with_the_in_degree_and_saturates() -> None:
    from lazy_intel.search.rerank import CENTRAL_SATURATION

    values = [central(d) for d in (0, 1, 5, 20, CENTRAL_SATURATION, 10 * CENTRAL_SATURATION)]
    assert values[0] == 0.0 and values == sorted(values) and len(set(values[:5])) == 5
    assert values[4] == pytest.approx(1.0) and values[5] == 1.0
    facts = {1: FileFacts("a.py", (), frozenset(), in_degree=7), 2: FileFacts("b.py", (), frozenset())}
    evidence = Evidence({}, {}, {}, {1: "a.py", 2: "b.py"}, False)
    features = static_features(analyze_query("x"), evidence, QueryFacts((), 1, {}), facts)
    assert features[1]["central"] == pytest.approx(central(7)) and features[2]["central"] == 0.0


def test_a_test_file_names_its_subject_after_test_and_sits_in_its_package() -> None:
    assert subject_of_test("testing/test_skipping.py") == ("", ("skipping",))
    assert subject_of_test("tests/test_ext_napoleon_docstring.py") == ("", ("ext", "napoleon", "docstring"))
    assert subject_of_test("astropy/io/fits/tests/test_header.py") == ("astropy/io/fits", ("header",))
    assert subject_of_test("tests/checkers/unittest_format.py") == ("", ("format",))
    assert subject_of_test("pkg/io_test.py") == ("pkg", ("io",))
    # not a test module, or a test module that names no subject
    assert subject_of_test("src/_pytest/skipping.py") is None
    assert subject_of_test("testing/conftest.py") is None and subject_of_test("tests/helpers.py") is None
    assert subject_of_test("tests/test_.py") is None


def test_a_test_file_tests_the_file_its_stem_and_directories_name() -> None:
    def tests(test: str, path: str) -> bool:
        subject = subject_of_test(test)
        assert subject is not None
        return is_test_of(subject, path)

    assert tests("testing/test_skipping.py", "src/_pytest/skipping.py")
    assert tests("tests/test_ext_napoleon_docstring.py", "sphinx/ext/napoleon/docstring.py")
    assert tests("testing/test_mark.py", "src/_pytest/mark/__init__.py")  # a package by its directory
    assert tests("testing/test_mark_expression.py", "src/_pytest/mark/expression.py")
    assert tests("xarray/tests/test_dataarray.py", "xarray/core/dataarray.py")
    # the earlier words must be the file's directories, the last its stem
    assert not tests("tests/test_ext_napoleon_docstring.py", "sphinx/util/docstring.py")
    assert not tests("testing/test_skipping.py", "src/_pytest/nose.py")
    assert not tests("tests/test_util_typing.py", "sphinx/typing.py")
    # tests inside a package test that package's files only
    assert tests("astropy/io/fits/tests/test_header.py", "astropy/io/fits/header.py")
    assert not tests("astropy/io/fits/tests/test_header.py", "astropy/io/ascii/header.py")


def test_tested_hands_a_ranked_test_file_on_to_the_file_it_tests() -> None:
    paths = {
        1: "testing/test_skipping.py",
        2: "src/_pytest/skipping.py",
        3: "src/_pytest/nose.py",
        4: "testing/test_nose.py",
        5: "testing/conftest.py",
    }
    stage = {1: 2.0, 2: 1.0, 3: 0.8, 4: 0.0, 5: 1.5}
    features = stage_features(stage, [1, 2, 3], paths)
    assert features[2]["tested"] == pytest.approx(1.0)  # its test file is the first stage's best
    assert features[3]["tested"] == 0.0  # test_nose.py has no first-stage score
    assert features[1]["tested"] == 0.0  # a test file is not tested by itself
    weaker = stage_features({**stage, 1: 0.5}, [5, 2, 3], paths)
    assert weaker[2]["tested"] == pytest.approx(0.5 / 1.5)  # over the best candidate's score
    assert stage_features(stage, [2, 3])[2]["tested"] == 0.0  # no paths: nothing known

"""The function stage (search/function_rank.py): candidates, features and the order (pure)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from lazy_intel.search.function_rank import (
    CALLPATH_SECOND_HOP,
    FUNCTION_COEFFICIENTS,
    FUNCTION_FEATURES,
    Definition,
    StageRanking,
    callpath_seeds,
    callpath_values,
    candidates,
    function_features,
    function_order,
    name_terms,
    rank_definitions,
)
from lazy_intel.search.query import analyze_query
from lazy_intel.search.rerank import QueryFacts, coverage
from lazy_intel.text.tokens import split_identifier

TRACE = """Session.resolve_redirects drops the redirect method

Traceback (most recent call last):
  File "/home/me/proj/requests/api.py", line 10, in get
    return session.request('GET', url)
  File "/home/me/proj/requests/sessions.py", line 99, in resolve_redirects
    raise TooManyRedirects('Exceeded 30 redirects.')
"""


def _definition(symbol: int, file: int, qualified: str, kind: str = "method", **kw: object) -> Definition:
    path = {1: "requests/sessions.py", 2: "requests/models.py", 3: "tests/test_sessions.py"}[file]
    return Definition(
        symbol,
        file,
        path,
        qualified.rsplit(".", 1)[-1],
        qualified,
        kind,
        int(kw.get("lines", 10)),  # type: ignore[call-overload]
        frozenset(kw.get("tokens", ())),  # type: ignore[arg-type]
        symbol * 10,
    )


DEFS = [
    _definition(1, 1, "Session.resolve_redirects", lines=200, tokens=("redirect", "method")),
    _definition(2, 1, "Session", kind="class", lines=400),
    _definition(3, 2, "Request.prepare"),
    _definition(4, 3, "test_redirect", kind="function", tokens=("redirect",)),
    _definition(5, 2, "CONSTANT", kind="variable"),
]
# chunk 10*s belongs to symbol s; chunk 60 to no symbol
RANKING = StageRanking(
    {30: 5.0, 40: 4.0, 60: 3.5, 10: 2.0, 50: 1.0},
    {10: 1, 30: 3, 40: 4, 50: 5, 60: None},
    {1: 0.5, 2: 1.0, 3: 0.1},
    [2, 1, 3],
)


def _query() -> QueryFacts:
    return QueryFacts((("redirect", 1.0, 5), ("method", 0.5, 50)), 1000, {"resolve_redirects": 1})


def test_name_words_split_snake_and_camel_case() -> None:
    assert split_identifier("_parse_header_line") == ["parse", "header", "line"]
    assert split_identifier("HTTPAdapter") == ["http", "adapter"]
    assert split_identifier("resolveRedirects2") == ["resolve", "redirects", "2"]
    assert name_terms("resolve_redirects", {"redirects": 1.0}, {}) == 0.5
    assert name_terms("resolve_redirects", {}, {"redirect": 1.0}) == 0.5  # by the English stem
    assert name_terms("__", {"x": 1.0}, {}) == 0.0


def test_function_order_is_the_best_chunk_of_each_symbol() -> None:
    assert function_order([30, 60, 40, 10, 31], {30: 3, 31: 3, 40: 4, 10: 1, 60: None}) == [3, 4, 1]
    assert RANKING.top_symbols() == [3, 4, 1, 5]
    assert RANKING.top_symbols(2) == [3, 4]
    assert RANKING.top_files(2) == [2, 1]


def test_candidates_are_the_best_files_definitions_and_the_best_chunks_symbols() -> None:
    only_top_file = StageRanking({30: 1.0}, {30: 3}, {2: 1.0, 1: 0.5}, [2, 1, 3])
    # the best 5 files: every definition of a definition kind; a variable only through a chunk
    assert [d.symbol_id for d in candidates(DEFS, only_top_file)] == [1, 2, 3, 4]
    with_constant = StageRanking({50: 1.0}, {50: 5}, {2: 1.0}, [2])
    assert [d.symbol_id for d in candidates(DEFS, with_constant)] == [3, 5]
    # a function nested in another has no chunk of its own: search cannot answer with it
    nested = replace(DEFS[0], symbol_id=6, qualified_name="Session.resolve_redirects.inner", chunk_id=None)
    assert 6 not in {d.symbol_id for d in candidates([*DEFS, nested], only_top_file)}


def test_features_say_what_the_report_names_and_where_the_stages_ranked_it() -> None:
    analysis = analyze_query(TRACE)
    feats = function_features(analysis, _query(), DEFS, RANKING)
    assert set(feats) == {1, 2, 3, 4, 5}
    assert all(set(f) == set(FUNCTION_FEATURES) for f in feats.values())
    assert all(0.0 <= v <= 1.0 for f in feats.values() for v in f.values())
    resolve, session, prepare, test, constant = (feats[s] for s in (1, 2, 3, 4, 5))
    assert resolve["named_qualified"] > 0 and prepare["named_qualified"] == 0.0  # weighted like the mention
    assert resolve["named"] > 0 and resolve["frame"] == 1.0  # the innermost frame of the project
    assert session["named_owner"] == 0.0 and resolve["named_owner"] > 0  # Session is named (its class)
    assert session["class"] == 1.0 and resolve["class"] == 0.0
    assert test["test"] == 1.0 and resolve["test"] == 0.0
    assert resolve["size"] == 1.0 and prepare["size"] == pytest.approx(math.log1p(10) / math.log1p(200))
    assert prepare["chunk"] == 1.0 and prepare["chunk_rank"] == 1.0  # chunk 30 is the best
    assert resolve["chunk"] == pytest.approx(2.0 / 5.0) and resolve["chunk_rank"] == pytest.approx(1 / 3)
    assert session["chunk"] == 0.0 and session["chunk_rank"] == 0.0  # no chunk of it ranked
    assert prepare["file"] == 1.0 and prepare["file_rank"] == 1.0
    assert resolve["file"] == 0.5 and resolve["file_rank"] == 0.5
    assert resolve["body_terms"] == 1.0 and test["body_terms"] < 1.0 and prepare["body_terms"] == 0.0
    assert test["body_terms"] == coverage(DEFS[3].tokens, _query())  # the file stage's coverage, per symbol
    assert resolve["name_terms"] > 0 and constant["name_terms"] == 0.0
    assert all(f["callpath"] == 0.0 for f in feats.values())  # none read: 0
    with_calls = function_features(analysis, _query(), DEFS, RANKING, {3: 0.5})
    assert with_calls[3]["callpath"] == 0.5 and with_calls[1]["callpath"] == 0.0


def test_callpath_seeds_weigh_mentions_by_specificity_and_frames_as_they_are() -> None:
    analysis = analyze_query(
        "Calling `update()` or `get()` or `missing()` fails\n\n" + TRACE.split("\n", 2)[2]
    )
    seeds = callpath_seeds(analysis, {"update": 1, "get": 60, "resolve_redirects": 1})
    assert seeds["update"] > 0  # defined once: the mention's weight
    assert "get" not in seeds  # defined 60 times: says little
    assert "missing" not in seeds  # the project defines no such name
    assert seeds["resolve_redirects"] == 1.0  # the innermost frame of the project
    assert 0 < seeds["update"] <= 1.0


def test_callpath_takes_the_best_seed_and_weighs_the_second_hop_less() -> None:
    seeds = {1: 1.0, 2: 0.4}
    got = callpath_values(seeds, [(1, 10), (2, 10), (2, 11), (1, 2)], [(10, 20), (11, 20), (11, 1)])
    assert got[10] == 1.0  # the better of the two seeds calling it
    assert got[11] == 0.4
    assert got[20] == CALLPATH_SECOND_HOP * 1.0  # through 10, the better path
    assert 1 not in got and 2 not in got  # a seed gets nothing from its own name or another seed
    assert callpath_values(seeds, [], [(10, 20)]) == {}  # a second hop needs a first


def test_rank_definitions_orders_by_the_linear_score_and_ties_by_todays_order() -> None:
    feats = {1: {"chunk": 1.0, "chunk_rank": 0.5}, 2: {"chunk": 0.0, "chunk_rank": 1.0}, 3: {"chunk": 0.0}}
    ranked = rank_definitions(feats, {"chunk": 2.0})
    assert [s for s, _ in ranked] == [1, 2, 3]  # 2 and 3 tie at 0: the one today ranks first
    assert ranked[0][1] == 1.0 and ranked[1][1] == pytest.approx(math.exp(-2.0))
    assert rank_definitions({}) == []
    # the shipped coefficients: a named, well-ranked function above an unranked test function
    analysis = analyze_query(TRACE)
    shipped = rank_definitions(function_features(analysis, _query(), DEFS, RANKING), FUNCTION_COEFFICIENTS)
    order = [s for s, _ in shipped]
    assert order.index(1) < order.index(4)
    assert set(FUNCTION_COEFFICIENTS) <= set(FUNCTION_FEATURES)


def test_candidate_depths_are_parameters() -> None:
    # files=1: only the best file's (models.py) definitions; chunks=1: only the best chunk's symbol
    assert [d.symbol_id for d in candidates(DEFS, RANKING, files=1, chunks=0)] == [3]
    assert [d.symbol_id for d in candidates(DEFS, RANKING, files=0, chunks=2)] == [3, 4]
    # the third file (tests/) joins at files=3; the variable only through its chunk (position 5)
    assert [d.symbol_id for d in candidates(DEFS, RANKING, files=3, chunks=0)] == [1, 2, 3, 4]
    assert [d.symbol_id for d in candidates(DEFS, RANKING, files=0, chunks=5)] == [1, 3, 4, 5]

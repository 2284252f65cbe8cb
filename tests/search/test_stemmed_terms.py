"""A report's inflected words find the code's base forms through the index's stems column."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lazy_intel.search.hybrid import DEFAULT_CONFIG, hybrid_search, indexed_terms
from lazy_intel.search.lexical import ColumnWeights
from lazy_intel.search.query import STEM_TERM_FACTOR, analyze_query, stem_terms
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILLER = {f"pkg/part{i}.py": f"def step_{i}(state):\n    return state.advance({i})\n" for i in range(10)}


def test_stem_terms_adds_each_new_stem_once_at_a_share_of_the_weight() -> None:
    terms = [("fitted", 2.0), ("fitting", 1.0), ("fit", 1.0), ("retries", 1.0), ("hook", 1.0)]
    assert stem_terms(terms) == [("retri", STEM_TERM_FACTOR)]  # "fit" is a term already
    assert stem_terms([("fitted", 2.0), ("fitting", 1.0)]) == [("fit", 2.0 * STEM_TERM_FACTOR)]
    assert stem_terms(terms, 0.0) == []


def test_a_report_saying_fitted_finds_fit(make_repo: Callable[..., Path]) -> None:
    root = make_repo(
        {
            **FILLER,
            "pkg/model.py": "class Estimator:\n    def fit(self, samples):\n        self.coef = sum(samples)\n",
            "pkg/twice.py": "def twice(values):\n    return [v * 2 for v in values]\n",
        }
    )
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    query = "values are wrong when it was fitted twice"
    no_stems = replace(DEFAULT_CONFIG, stem_weight=0.0, columns=ColumnWeights(stems=0.0))
    with ws.read() as view:
        assert "stems" in view.fts_columns
        assert ("fit", STEM_TERM_FACTOR) in indexed_terms(view, analyze_query(query), STEM_TERM_FACTOR)
        stemmed = hybrid_search(view, query)
        exact = hybrid_search(view, query, config=no_stems)
        retries = hybrid_search(view, "the retries are lost", config=replace(DEFAULT_CONFIG, stem_weight=0.0))
    assert "pkg/model.py" in [f.path for f in stemmed.files]
    assert "pkg/model.py" not in [f.path for f in exact.files]  # only the stem links them
    assert any("English stems" in c for c in stemmed.coverage)
    assert not any("English stems" in c for c in exact.coverage)
    assert retries.files == []  # no retry anywhere: a stem column never invents a match
    ws.close()


def test_the_stems_column_matches_inflections_of_a_plain_query_word(make_repo: Callable[..., Path]) -> None:
    # the query says "hook"; the code only ever says "hooks": the stems column holds "hook" for it
    root = make_repo({**FILLER, "pkg/events.py": "def dispatch(hooks):\n    return [h() for h in hooks]\n"})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    with ws.read() as view:
        found = hybrid_search(view, "every hook runs twice")
        without = hybrid_search(
            view, "every hook runs twice", config=replace(DEFAULT_CONFIG, columns=ColumnWeights(stems=0.0))
        )
    assert [f.path for f in found.files][:1] == ["pkg/events.py"]
    assert "pkg/events.py" not in [f.path for f in without.files]
    ws.close()


def test_terms_in_half_the_chunks_or_more_stay_out_of_the_bm25_query() -> None:
    from lazy_intel.search.hybrid import bm25_terms

    counted = [("astropy", 6.0, 820), ("table", 2.0, 490), ("rst", 5.0, 3), ("half", 1.0, 500)]
    assert bm25_terms(counted, 1000) == [("table", 2.0), ("rst", 5.0)]
    assert bm25_terms([], 0) == []
    # a small index keeps them: there the query is cheap, and they may be all that matches
    assert bm25_terms([("x", 1.0, 3)], 4) == [("x", 1.0)]


def test_two_phase_bm25_scores_the_prefiltered_candidates_like_one_phase(make_repo, monkeypatch) -> None:
    from lazy_intel.search import hybrid, signals

    files = {
        f"pkg/m{i}.py": f"def handler_{i}(request):\n    return request.session.get({i})  # retry\n"
        for i in range(30)
    }
    files["pkg/retry.py"] = "def retry_request(request, session):\n    return session.retry(request)\n"
    ws = Workspace.open(make_repo(files), settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    monkeypatch.setattr(signals, "LEXICAL_TWO_PHASE_MIN_ROWS", 0)
    query = "`retry_request` loses the session of a request on retry"
    one = replace(DEFAULT_CONFIG, lexical_prefilter=0, rerank=False)
    with ws.read() as view:
        single = hybrid.gather_evidence(view, query, config=one).evidence.chunk_signals["lexical"]
        wide = hybrid.gather_evidence(view, query, config=replace(one, lexical_prefilter=1000))
        narrow = hybrid.gather_evidence(view, query, config=replace(one, lexical_prefilter=3))
    # a prefilter that keeps every match changes nothing, scores included
    assert wide.evidence.chunk_signals["lexical"] == pytest.approx(single)
    # a narrow one keeps the chunks the terms (each once) rank best, scored by the weighted query
    kept = narrow.evidence.chunk_signals["lexical"]
    assert len(kept) == 3 and all(kept[c] == pytest.approx(single[c]) for c in kept)
    best = max(single, key=single.get)
    assert best in kept
    ws.close()

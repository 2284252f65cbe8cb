"""Compound terms: joined spellings of hyphenated names and word pairs, kept only when indexed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lazy_intel.search.compounds import (
    MIN_JOINED_CHARS,
    WEIGHT_HYPHENATED,
    WEIGHT_JOINED_WORDS,
    compound_terms,
)
from lazy_intel.search.hybrid import hybrid_search, indexed_terms
from lazy_intel.search.query import analyze_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings


def test_hyphenated_names_and_word_pairs() -> None:
    terms = dict(compound_terms("run with --collect-only, see ignore-paths; the JUnit XML host name"))
    assert terms["collect_only"] == terms["collectonly"] == WEIGHT_HYPHENATED
    assert terms["ignore_paths"] == terms["ignorepaths"] == WEIGHT_HYPHENATED
    assert terms["junitxml"] == WEIGHT_JOINED_WORDS
    assert terms["hostname"] == WEIGHT_JOINED_WORDS
    assert all(len(t) >= MIN_JOINED_CHARS for t in terms)
    # pairs do not cross punctuation or lines, nor take a part of a dotted or called name
    assert "pathsthe" not in terms and "onlysee" not in terms
    assert "fooframe" not in dict(compound_terms("call foo\nframe.build() then obj.attr name"))
    assert "attrname" not in dict(compound_terms("call foo\nframe.build() then obj.attr name"))


def test_title_mentions_count_more() -> None:
    text = "junit xml broke\nthe junit xml output"
    boosted = dict(compound_terms(text, title_end=len("junit xml broke"), title_boost=2.0))
    assert boosted["junitxml"] == 2.0 * WEIGHT_JOINED_WORDS
    assert dict(compound_terms(text))["junitxml"] == WEIGHT_JOINED_WORDS


def test_only_compounds_the_index_holds_become_terms(make_repo: Callable[..., Path]) -> None:
    filler = {f"pkg/part{i}.py": f"def step_{i}(state):\n    return state.advance({i})\n" for i in range(8)}
    root = make_repo(
        {
            **filler,
            "pkg/junitxml.py": "def write_suite(suite):\n    return suite.render()\n",
            "pkg/report.py": "def xml_of(suite):\n    # for junit suites\n    return suite\n",
        }
    )
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    query = "Hostname missing in JUnit XML reports"
    with ws.read() as view:
        terms = dict(indexed_terms(view, analyze_query(query)))
        result = hybrid_search(view, query)
        plain = hybrid_search(view, "Hostname missing in JUnit-ish XML reports")
    assert "junitxml" in terms  # the module's name
    assert "hostname" not in terms and "xmlreports" not in terms  # nobody's identifier here
    # the module is found by its name only through the compound; the words apart miss it
    assert "pkg/junitxml.py" in [f.path for f in result.files]
    assert "pkg/junitxml.py" not in [f.path for f in plain.files]
    ws.close()

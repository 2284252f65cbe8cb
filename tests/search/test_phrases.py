"""Quoted phrases: messages, inline code and strings matched as token sequences in the index."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from lazy_intel.search.hybrid import DEFAULT_CONFIG, hybrid_search
from lazy_intel.search.lexical import ColumnWeights, phrase_match_expression
from lazy_intel.search.phrases import (
    MAX_WINDOWS_PER_SNIPPET,
    PHRASE_WINDOW,
    WEIGHT_INLINE_CODE,
    WEIGHT_MESSAGE,
    WEIGHT_QUOTED_TEXT,
    phrase_tokens,
    quoted_phrases,
    windows,
)
from lazy_intel.search.query import analyze_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings


def test_tokens_split_like_the_index() -> None:
    assert phrase_tokens("node.add_marker(mark)") == ("node", "add_marker", "add", "marker", "mark")
    assert phrase_tokens("--collect-only") == ("collect", "only")


def test_long_phrases_become_overlapping_windows() -> None:
    tokens = tuple(["no", "number", "is", "assigned", "for", "table"])
    assert windows(tokens) == [tokens[i : i + PHRASE_WINDOW] for i in range(3)]
    assert windows(tokens[:3]) == [tokens[:3]]
    many = windows(tuple(str(i) for i in range(40)))
    assert len(many) == MAX_WINDOWS_PER_SNIPPET
    assert many[0][0] == "0" and many[-1][-1] == "39"  # both ends kept


def test_kinds_of_quotation_and_what_is_not_a_phrase() -> None:
    a = analyze_query(
        'numref broke\nWe get `WARNING: no number is assigned for table:` with "singlehtml builds"\n'
        "ValueError: bad entry here\n"
        "`Session.resolve_redirects` and `NaN` are names, and 'x' is too short"
    )
    phrases = {p.tokens: p.weight for p in quoted_phrases(a)}
    assert phrases[("bad", "entry", "here")] == WEIGHT_MESSAGE
    assert phrases[("no", "number", "is", "assigned")] == WEIGHT_INLINE_CODE
    assert phrases[("singlehtml", "builds")] == WEIGHT_QUOTED_TEXT
    assert not any("resolve_redirects" in t for t in phrases)  # one dotted name: the symbol signal's
    assert not any(t[0] == "nan" for t in phrases)
    assert phrase_match_expression([(("a", "b"), 2.0), (("c", "d"), 1.0)]) == '"a b" OR "a b" OR "c d"'


def test_a_quoted_warning_finds_the_code_that_prints_it(make_repo: Callable[..., Path]) -> None:
    # unrelated modules, so that the warning's words are rare in the repository (BM25 needs an IDF)
    filler = {f"pkg/part{i}.py": f"def step_{i}(state):\n    return state.advance({i})\n" for i in range(12)}
    root = make_repo(
        {
            **filler,
            "pkg/__init__.py": "",
            # has the warning's words, in another order
            "pkg/tables.py": (
                "def layout(page):\n"
                "    # each table gets a number assigned\n"
                "    page.number = next_number(page)\n"
            ),
            # prints the warning
            "pkg/refs.py": (
                "def resolve(node, logger):\n"
                "    if node.get('number') is None:\n"
                "        logger.warning('no number is assigned for %s: %s', node.kind, node.id)\n"
            ),
        }
    )
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    report = "Warning since 3.3\nThe build says `WARNING: no number is assigned for table:`"
    # stems off on both sides: "warning" would meet logger.warning's stem without the phrase
    no_stems = replace(DEFAULT_CONFIG, stem_weight=0.0, columns=ColumnWeights(stems=0.0))
    with ws.read() as view:
        with_phrases = hybrid_search(view, report, config=no_stems)
        without = hybrid_search(view, report, config=replace(no_stems, phrase=False))
    assert without.files[0].path == "pkg/tables.py"
    assert with_phrases.files[0].path == "pkg/refs.py"
    # the phrase evidence ranks it through the second stage (the first stage weighs phrases 0)
    assert with_phrases.files[0].signals["rerank_phrase"] == 1.0
    assert "phrase_rank" not in without.files[0].signals
    assert "phrase" not in without.used and "phrase" in with_phrases.used
    ws.close()

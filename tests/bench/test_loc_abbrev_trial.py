"""The trial ``name_terms`` of bench/loc_abbrev_trial.py: abbreviated name words count, nothing else moves."""

from __future__ import annotations

from lazy_intel.search.function_rank import name_terms as shipped
from lazy_intel.text.stems import stem
from tests.bench import load_bench

trial = load_bench("loc_abbrev_trial")


def _terms(*words: str) -> tuple[dict[str, float], dict[str, float]]:
    exact = dict.fromkeys(words, 1.0)
    return exact, {stem(w): 1.0 for w in words}


def test_a_name_word_abbreviating_a_report_word_counts() -> None:
    exact, stems = _terms("text", "representation")
    assert shipped("__repr__", exact, stems) == 0.0
    assert trial.name_terms("__repr__", exact, stems) == 1.0
    assert trial.name_terms("get_attr", *_terms("attribute")) == 0.5  # `get` is no query term


def test_short_words_and_near_whole_words_are_no_abbreviations() -> None:
    assert trial.name_terms("id", *_terms("identifier")) == 0.0  # under three characters
    assert (
        trial.name_terms("forma", *_terms("format")) == 0.0
    )  # one character short: a typo, not a short form
    assert trial.abbreviations(["repr"]) == frozenset()  # a four-letter term has no three-letter short form
    assert trial.abbreviations(["string"]) == frozenset({"str", "stri"})


def test_the_trial_agrees_with_today_where_no_abbreviation_applies() -> None:
    for name in ("parse_args", "FieldFile", "__init__", "visit_Call_35", ""):
        for words in (("parse", "arguments"), ("fields", "file"), ("init",), ()):
            exact, stems = _terms(*words)
            expected = shipped(name, exact, stems)
            got = trial.name_terms(name, exact, stems)
            assert got >= expected
            if not (trial.abbreviations(words) & set(name.lower().replace("_", " ").split())):
                assert got == expected, (name, words)

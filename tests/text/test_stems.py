"""English stems beside exact tokens (text/stems.py)."""

from __future__ import annotations

import threading

from lazy_intel.text.stems import MIN_STEM_CHARS, stem, stems_text
from lazy_intel.text.tokens import index_text


def test_inflections_share_a_stem() -> None:
    for forms in (("fitted", "fitting", "fits"), ("retries", "retry"), ("deprecated", "deprecation")):
        assert len({stem(f) for f in forms}) == 1, forms
    assert stem("fitted") == "fit" and stem("redirects") == "redirect"


def test_identifiers_digits_and_short_tokens_are_their_own_stem() -> None:
    for token in ("max_retries", "http2", "get", "is", "x" * (MIN_STEM_CHARS - 1)):
        assert stem(token) == token


def test_the_stems_column_holds_only_stems_that_differ_in_order() -> None:
    tokens = index_text("def is_fitted(self): return self.fitted and fit(hooks)")
    assert tokens.split()[:3] == ["def", "is_fitted", "is"]
    assert stems_text(tokens) == "fit fit hook"  # fitted (part of is_fitted), self.fitted, hooks
    assert stems_text("") == "" and stems_text("fit get") == ""


def test_stemming_from_many_threads_agrees_with_one() -> None:
    words = [f"{w}{s}" for w in ("connect", "redirect", "parse", "render") for s in ("ed", "ing", "s", "ion")]
    expected = [stem(w) for w in words]
    stem.cache_clear()  # make the threads stem, not read the cache
    results: list[list[str]] = []

    def work() -> None:
        results.append([stem(w) for w in words * 50][: len(words)])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 8

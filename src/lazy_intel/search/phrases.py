"""Phrases a report quotes from the code: messages, inline code, quoted strings (pure).

A report often copies text the program printed or a line of its source: a warning
(``WARNING: no number is assigned for table``), an option (``--collect-only``), a call
(``node.add_marker(mark)``). The words alone match half the repository; the same words *in that
order* match the place that prints or parses them. Each quoted piece becomes a sequence of index
tokens (the tokenizer the index uses, so identifiers split the same way on both sides), and a long
one becomes its overlapping windows of :data:`PHRASE_WINDOW` tokens: a message the code formats
(``no number is assigned for %s``) still matches by its fixed part.

The lexical module turns the phrases into one FTS5 query of ``"…"`` phrases (token sequences).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lazy_intel.search.query import QueryAnalysis
from lazy_intel.text.tokens import index_text

PHRASE_WINDOW = 4  # tokens per window of a long phrase: specific, yet short enough to survive %s
MIN_PHRASE_TOKENS = 2  # a single token is an ordinary term already
MAX_SNIPPET_CHARS = 200  # longer pieces are code blocks, not quotations
MAX_WINDOWS_PER_SNIPPET = 8
MAX_PHRASES = 32
# What each kind of quotation says (relative weights; the phrase signal's raw score is BM25 of the
# phrase query, and these repeat a phrase in it like the term weights of the lexical query)
WEIGHT_MESSAGE = 2.0  # the text after ``SomethingError:`` or a quoted warning: printed by the code
WEIGHT_INLINE_CODE = 2.0  # `inline code` of the report
WEIGHT_QUOTED_TEXT = 1.0  # "double" or 'single' quoted prose

# one identifier or dotted name, optionally called: not a phrase
ONE_NAME_RE = re.compile(r"[@$]?[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*(?:\(\))?")
QUOTED_TEXT_RE = re.compile(r"\"([^\"\n]{4,200})\"|(?<![\w'])'([^'\n]{4,200})'(?![\w'])")


@dataclass(frozen=True)
class Phrase:
    tokens: tuple[str, ...]
    weight: float


def phrase_tokens(text: str) -> tuple[str, ...]:
    """Index tokens of ``text`` in order (identifiers whole and split, as the index stores them)."""
    return tuple(index_text(text).split())


def windows(tokens: tuple[str, ...], size: int = PHRASE_WINDOW) -> list[tuple[str, ...]]:
    """``tokens`` itself when short, else its overlapping windows of ``size`` (evenly sampled)."""
    if len(tokens) <= size:
        return [tokens]
    all_windows = [tokens[i : i + size] for i in range(len(tokens) - size + 1)]
    if len(all_windows) <= MAX_WINDOWS_PER_SNIPPET:
        return all_windows
    step = (len(all_windows) - 1) / (MAX_WINDOWS_PER_SNIPPET - 1)
    return [all_windows[round(i * step)] for i in range(MAX_WINDOWS_PER_SNIPPET)]


def quoted_phrases(analysis: QueryAnalysis) -> list[Phrase]:
    """The phrases of ``analysis`` worth matching in order, best first, at most ``MAX_PHRASES``."""
    snippets: list[tuple[str, float]] = []
    snippets += [(m, WEIGHT_MESSAGE) for m in analysis.error_messages]
    snippets += [(q, WEIGHT_INLINE_CODE) for q in analysis.quoted if "\n" not in q]
    for m in QUOTED_TEXT_RE.finditer(analysis.text):
        snippets.append((m.group(1) or m.group(2), WEIGHT_QUOTED_TEXT))
    best: dict[tuple[str, ...], float] = {}
    for snippet, weight in snippets:
        if len(snippet) > MAX_SNIPPET_CHARS or ONE_NAME_RE.fullmatch(snippet.strip()):
            continue  # a name alone (``Session.resolve_redirects``, ``NaN``) is the symbol signal's
        tokens = phrase_tokens(snippet)
        if len(tokens) < MIN_PHRASE_TOKENS:
            continue
        for window in windows(tokens):
            best[window] = max(best.get(window, 0.0), weight)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return [Phrase(tokens, weight) for tokens, weight in ranked[:MAX_PHRASES]]

"""Compound terms: the one-word spellings of what a report writes as several (pure).

Code glues words together that people write apart: a report says "JUnit XML" where the module is
``junitxml``, "host name" for ``hostname``, ``--collect-only`` for ``collectonly`` /
``collect_only``. Each adjacent pair of words and each hyphenated name yields its joined spellings;
search keeps only those the index holds (a joined pair that is nobody's identifier matches nothing
and must not take a term slot), so guessing many costs one vocabulary look-up.
"""

from __future__ import annotations

import re

# A hyphenated name is a code name (a CLI option, a config key, a package), so it counts like an
# identifier; two words joined are a guess that the index confirmed, so they count a little less.
WEIGHT_HYPHENATED = 2.0
WEIGHT_JOINED_WORDS = 1.5
MIN_JOINED_CHARS = 6  # "setup", "inplace" …; shorter joins ("isnot") are accidents
MAX_COMPOUNDS = 128

# ``ignore-paths``, and the name of an option ``--collect-only``
HYPHENATED_RE = re.compile(r"(?<![\w-])-{0,2}([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)+)(?![\w-])")
# two words with exactly one space between them, on one line: "host name", "JUnit XML"
WORD_PAIR_RE = re.compile(r"(?=(?<![\w.-])([A-Za-z][a-z]*|[A-Z]+[a-z]*) ([A-Za-z][a-z]*|[A-Z]+)(?![\w(.-]))")


def compound_terms(text: str, *, title_end: int = -1, title_boost: float = 1.0) -> list[tuple[str, float]]:
    """Joined spellings of hyphenated names and adjacent word pairs of ``text``, best first.

    Hyphenated names give ``a_b`` and ``ab``; word pairs give ``ab``. Mentions before ``title_end``
    (the first line of a report) count ``title_boost`` times more.
    """
    best: dict[str, float] = {}

    def add(token: str, weight: float, pos: int) -> None:
        if len(token) < MIN_JOINED_CHARS:
            return
        weight *= title_boost if pos < title_end else 1.0
        best[token] = max(best.get(token, 0.0), weight)

    for m in HYPHENATED_RE.finditer(text):
        parts = m.group(1).lower().split("-")
        add("_".join(parts), WEIGHT_HYPHENATED, m.start())
        add("".join(parts), WEIGHT_HYPHENATED, m.start())
    for m in WORD_PAIR_RE.finditer(text):
        add((m.group(1) + m.group(2)).lower(), WEIGHT_JOINED_WORDS, m.start(1))
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return ranked[:MAX_COMPOUNDS]

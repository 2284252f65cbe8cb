"""``=~`` without catastrophic backtracking: patterns are checked before they run.

SQLite cannot interrupt a user function, so the progress handler cannot stop a runaway regular
expression; instead a pattern is refused when it nests repetition (``(a+)+``), repeats an alternation (``(ab|a)*``), uses backreferences,
or has many unbounded repeats, and values longer than :data:`MAX_SUBJECT_CHARS` never match.
"""

from __future__ import annotations

import re
import re._constants as sre_constants  # the stdlib's own regex parser (Python >= 3.11)
import re._parser as sre_parse
from functools import lru_cache
from typing import Any

MAX_PATTERN_CHARS = 500
MAX_SUBJECT_CHARS = 4_096
MAX_REPEATS = 8
SQL_FUNCTION = "lazy_regexp"

_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT}
_BACKREFS = {sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS}


def _walk(items: Any, inside_repeat: bool, counts: list[int]) -> str | None:
    for op, av in items:
        if op in _BACKREFS:
            return "backreferences"
        if op in _REPEATS:
            _low, high, sub = av
            if high == sre_constants.MAXREPEAT or high > 100:
                counts[0] += 1
            if inside_repeat and (high == sre_constants.MAXREPEAT or high > 1):
                return "nested repetition"
            found = _walk(sub, inside_repeat or high > 1, counts)
            if found:
                return found
        elif op == sre_constants.SUBPATTERN:
            found = _walk(av[-1], inside_repeat, counts)
            if found:
                return found
        elif op == sre_constants.BRANCH:
            if inside_repeat:
                return "alternation inside repetition"
            for branch in av[1]:
                found = _walk(branch, inside_repeat, counts)
                if found:
                    return found
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _walk(av[1], inside_repeat, counts)
            if found:
                return found
        elif op == sre_constants.ATOMIC_GROUP:
            found = _walk(av, inside_repeat, counts)
            if found:
                return found
    return None


def unsafe_reason(pattern: str) -> str | None:
    """Why ``pattern`` may not run (``None`` when it may)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"the pattern is longer than {MAX_PATTERN_CHARS} characters"
    try:
        parsed = sre_parse.parse(pattern)
    except re.error as exc:
        return f"not a regular expression ({exc.msg})"
    counts = [0]
    found = _walk(parsed, False, counts)
    if found:
        return f"{found} can backtrack catastrophically"
    if counts[0] > MAX_REPEATS:
        return f"more than {MAX_REPEATS} unbounded repeats"
    return None


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def regexp(pattern: str | None, value: Any) -> int | None:
    """The SQL function behind ``=~``: full match, NULL when either side is NULL (as in Cypher)."""
    if pattern is None or value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    if len(text) > MAX_SUBJECT_CHARS or unsafe_reason(pattern) is not None:
        return 0
    return 1 if _compiled(pattern).fullmatch(text) else 0

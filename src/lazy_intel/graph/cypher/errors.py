"""Cypher errors: INVALID_ARGUMENT with a stable reason, the construct and its position."""

from __future__ import annotations

from lazy_intel.errors import InvalidArgument

# Stable reasons (``data.reason`` of the error answer); documented in docs/reference.md.
REASONS: tuple[str, ...] = (
    "syntax",  # the text is not Cypher we can read
    "unsupported",  # Cypher we do not run (write clauses, OPTIONAL MATCH, WITH, ...)
    "unknown_label",
    "unknown_type",
    "unknown_variable",
    "unsafe_regex",
)


def position_of(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return line, column


class CypherError(InvalidArgument):
    """A query we cannot run, located in the query text."""

    def __init__(
        self,
        reason: str,
        construct: str,
        offset: int,
        text: str,
        detail: str,
        *,
        next_step: str | None = None,
    ) -> None:
        assert reason in REASONS, reason
        line, column = position_of(text, offset)
        super().__init__(
            f"{detail} at line {line}, column {column} (near {construct!r})",
            next_step=next_step or "see the query operation in docs/reference.md for the supported subset",
        )
        self.reason = reason
        self.construct = construct
        self.offset = offset
        self.line = line
        self.column = column

    def details(self) -> dict[str, object]:
        return {
            "reason": self.reason,
            "construct": self.construct,
            "offset": self.offset,
            "line": self.line,
            "column": self.column,
        }

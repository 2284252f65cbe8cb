"""Text output a terminal cannot be tricked by (issue 18, class 9).

File names and source excerpts come from the repository, which may hold escape sequences (``\\x1b[``
recolours, retitles or clears a terminal), carriage returns that overwrite a line, or bidirectional
overrides that show code in an order other than the one it runs in ("Trojan Source"). Every text
form the CLI prints passes through :func:`terminal_safe`, which writes such characters as visible
escapes (``\\x1b``, ``\\u202e``); names and paths also escape newlines and tabs
(:func:`safe_name`), so one file name cannot forge a line or a table cell. The ``--json`` forms are
never escaped this way: JSON already escapes control characters and keeps every other one exact.
"""

from __future__ import annotations

import re

# C0 controls but newline and tab, DEL, C1 controls; bidi embeddings, overrides, isolates and marks;
# the line and paragraph separators (some terminals break lines there)
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufff9-\ufffb]"
)
UNSAFE_IN_NAMES = re.compile(UNSAFE.pattern[:-1] + "\n\t]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every character that could drive or mislead a terminal shown as an escape;
    newlines and tabs are kept (they are the output's own layout)."""
    return UNSAFE.sub(_escape, text)


def safe_name(text: str) -> str:
    """A path or a name for one field of a line: newlines and tabs are escaped too."""
    return UNSAFE_IN_NAMES.sub(_escape, text)

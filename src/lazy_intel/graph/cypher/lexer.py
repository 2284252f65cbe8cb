"""Tokens of the Cypher subset: names, keywords, literals and punctuation, with their offsets."""

from __future__ import annotations

from dataclasses import dataclass

from lazy_intel.graph.cypher.errors import CypherError

# Token kinds
NAME = "name"  # identifier or keyword (keywords are recognised by the parser, case-insensitively)
QUOTED = "quoted"  # `backtick identifier`
STRING = "string"
INTEGER = "integer"
FLOAT = "float"
PARAM = "param"  # $name
PUNCT = "punct"
END = "end"

# Longest first, so "<>" wins over "<".
PUNCTUATION: tuple[str, ...] = (
    "<>",
    "<=",
    ">=",
    "=~",
    "!=",
    "->",
    "<-",
    "..",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    ".",
    "|",
    "*",
    "-",
    "+",
    "/",
    "%",
    "<",
    ">",
    "=",
    ";",
)
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str  # the value: identifier, decoded string, number text, punctuation
    offset: int
    end: int  # offset just after the token

    def is_keyword(self, *words: str) -> bool:
        return self.kind == NAME and self.text.upper() in words

    def is_punct(self, *marks: str) -> bool:
        return self.kind == PUNCT and self.text in marks


def _string(text: str, start: int) -> tuple[str, int]:
    quote = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch == "\\":
            if i + 1 >= len(text):
                break
            nxt = text[i + 1]
            if nxt == "u":
                digits = text[i + 2 : i + 6]
                if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
                    out.append(chr(int(digits, 16)))
                    i += 6
                    continue
            if nxt not in _ESCAPES:
                raise CypherError("syntax", "\\" + nxt, i, text, f"unknown escape \\{nxt} in a string")
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise CypherError("syntax", text[start : start + 20], start, text, "unterminated string")


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; comments (``//`` and ``/* */``) and whitespace are skipped."""
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise CypherError("syntax", "/*", i, text, "unterminated comment")
            i = end + 2
            continue
        if ch in "'\"":
            value, end = _string(text, i)
            tokens.append(Token(STRING, value, i, end))
            i = end
            continue
        if ch == "`":
            end = text.find("`", i + 1)
            if end < 0 or end == i + 1:
                raise CypherError("syntax", "`", i, text, "unterminated or empty quoted name")
            tokens.append(Token(QUOTED, text[i + 1 : end], i, end + 1))
            i = end + 1
            continue
        if ch.isdigit():
            j = i
            while j < n and text[j].isdigit():
                j += 1
            kind = INTEGER
            # a fraction, but not the ".." of a range like *1..3
            if j + 1 < n and text[j] == "." and text[j + 1].isdigit():
                j += 1
                while j < n and text[j].isdigit():
                    j += 1
                kind = FLOAT
            if j < n and (text[j].isalpha() or text[j] == "_"):
                raise CypherError("syntax", text[i : j + 1], i, text, "malformed number")
            tokens.append(Token(kind, text[i:j], i, j))
            i = j
            continue
        if ch.isalpha() or ch == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token(NAME, text[i:j], i, j))
            i = j
            continue
        if ch == "$":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token(PARAM, text[i + 1 : j], i, j))
            i = j
            continue
        for mark in PUNCTUATION:
            if text.startswith(mark, i):
                tokens.append(Token(PUNCT, mark, i, i + len(mark)))
                i += len(mark)
                break
        else:
            raise CypherError("syntax", ch, i, text, f"unexpected character {ch!r}")
    tokens.append(Token(END, "", n, n))
    return tokens

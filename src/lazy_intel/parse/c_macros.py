"""Attribute-like macros hidden from the C/C++ grammar, byte offsets kept.

Without a preprocessor, tree-sitter reads ``FMT_CONSTEXPR buffer(grow_fun g) : grow_(g) {}`` as a
declaration of ``buffer`` of type ``FMT_CONSTEXPR``, fails at the initializer list, and closes the
class there: every later member of fmt's ``buffer`` landed outside it, and ``class buffer`` was no
definition at all. The same happens to ``FMT_API void f()``, ``class FMT_API format_error {``, a
``FMT_BEGIN_NAMESPACE`` line, Qt's ``Q_OBJECT``, ``void f() FMT_NOEXCEPT {``. ctags asks its user for
such names (``-I``); we recognise them by where they stand.

A macro candidate is an identifier in capitals (digits and ``_`` allowed, at least three characters
after any leading underscores, so ``T`` and ``U`` of a template stay). It is replaced by spaces — so
every node keeps its bytes and the extraction reads names from the original text — where a type name
could not stand:

1. before a declaration keyword (``FMT_API void``, ``EXPORT static``, ``FMT_BEGIN_NAMESPACE
   namespace``, also after ``const``/``volatile``: ``LUA_API const char *``), ``~``, ``[[``, or
   another candidate that stands so (``A B void``);
2. before a class of the same file followed by ``(`` (a constructor: ``FMT_CONSTEXPR20 buffer(``);
3. before a type and a declared name (``FMT_API std::string name(``, ``LIB_API format_error e;``,
   ``LUA_API lua_Number (lua_tonumberx) (``, ``LUA_API const TValue *x``): a type is never followed
   by two names (unless the middle one is a candidate too: in ``LPCSTR WINAPI f(`` neither is
   hidden);
4. between ``class``/``struct``/``union`` and the class's name (``class FMT_API buffer {``);
5. alone on a line whose next code starts a declaration (a letter, ``#``, ``~``, ``[``), unless the
   code before it continues (``A,\n  LAST\n#if``: an enum's last value);
6. after a parameter list, before ``{``, ``->``, ``;`` or ``=`` (``void f() FMT_NOEXCEPT {``, ``int
   f(void) ATTR_DEPRECATED;``); before ``;`` and ``=`` only when a name stands before the list's
   ``(`` (``(size_t) SIZE_MAX;`` is a cast of a constant, ``if (x) BREAK;`` a statement).

Decisions: preprocessor lines are never changed (``#define FMT_API …`` keeps its name); ``const`` and
``volatile`` are not declaration keywords here (``FILE const *f`` is C); the rules read the file alone,
so a file's parse stays a function of its bytes.
"""

from __future__ import annotations

import re

_DECLARATION_WORDS = (
    "constexpr|consteval|constinit|inline|static|extern|virtual|explicit|friend|void|bool|char|short|int|long"
    "|float|double|unsigned|signed|auto|class|struct|union|enum|typename|template|typedef|using|namespace"
)
# one way only to match a candidate (a pattern with two ways per word backtracks exponentially over a
# run of capitals: curses.h's `NCURSES_EXPORT_VAR(…)` lines hung the parse)
_CAPITALS = r"_*[A-Z][A-Z0-9_]{2,}"
_CANDIDATE = rf"(?<![\w.>:]){_CAPITALS}(?![\w(])"
_TYPE = r"(?:::)?\w+(?:::\w+)*(?:<[^;{}()\n]*>)?"

# Each candidate is found first, then its surroundings are matched where it stands (one regex over the
# file with every rule as an alternative tried each rule at every byte: ~0.3 s per MB).
_CANDIDATES = re.compile(_CAPITALS)  # whole words only: checked in code (a leading \b costs 4x)
_QUALIFIERS = r"(?:(?:const|volatile)\s+)*"  # `LUA_API const char *f(`: a qualifier, then the type
_BEFORE = re.compile(rf"(?:\s+{_CANDIDATE}){{0,8}}\s+{_QUALIFIERS}(?:(?:{_DECLARATION_WORDS})\b|~|\[\[)")
_CONSTRUCTOR = re.compile(r"\s+(\w+)\s*\(")
# the declared name may stand in parentheses (`LUA_API lua_Number (lua_tonumberx) (…)`, a name kept
# from function-like macros)
_TYPED = re.compile(
    rf"\s+{_QUALIFIERS}(?!const\b|volatile\b|{_CANDIDATE}\s){_TYPE}[\s*&]+\(?\w+\)?\s*[(;=,\[{{]"
)
_CLASS_KEY = re.compile(r"\b(?:class|struct|union)\s+$")
_CLASS_NAME_NEXT = re.compile(r"\s+\w+\s*(?:final\b\s*)?[:{]")
_ALONE_NEXT = re.compile(r"[ \t]*\n\s*[A-Za-z_#~\[]")
_TRAILING_BEFORE = re.compile(r"\)(?:\s*(?:const|override|final|noexcept))*\s*$")
# what may stand between a trailing macro and the end of its declaration: more macros, and attributes
# spelled as calls (`__THROW __nonnull ((1)) __wur;`)
_MORE_ATTRIBUTES = rf"(?:\s+(?:{_CAPITALS}|\w+\s*\((?:[^;{{}}()]|\([^;{{}}()]*\))*\)))*"
_TRAILING_NEXT = re.compile(rf"{_MORE_ATTRIBUTES}[ \t]*\n?[ \t]*(?:\{{|->)")
_TERMINATOR_NEXT = re.compile(rf"{_MORE_ATTRIBUTES}\s*[;=]")
_NOT_FUNCTIONS = frozenset(
    {"return", "sizeof", "if", "while", "for", "switch", "case", "alignof", "decltype"}
)
_CONTINUES = frozenset(",=(|&+-*<?:")  # a line ending so continues an expression or a list
PARAMETER_LIST_CHARS = 4096  # how far back the `(` of a parameter list is looked for
_CLASS_NAMES = re.compile(r"(?:class|struct)\s+(?:[A-Z][A-Z0-9_]+\s+)*(\w+)")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_NOT_BEFORE = _WORD | {".", ">", ":"}  # `a.FOO`, `p->FOO`, `ns::FOO`: members and qualified names
_NOT_AFTER = _WORD | {"("}  # `FOO(x)`: a function-like macro's use
LOOK_BEHIND = 80  # characters read before a candidate for the rules that look back


def blank_attribute_macros(source: bytes) -> bytes:
    """``source`` with its attribute-like macros replaced by spaces (same length, same offsets)."""
    text = source.decode("latin-1")  # one byte per character: offsets stay byte offsets
    scan = _Scan(text)
    pieces: list[str] = []
    last = 0
    for match in _CANDIDATES.finditer(text):
        start, end = match.span()
        if (start and text[start - 1] in _NOT_BEFORE) or (end < len(text) and text[end] in _NOT_AFTER):
            continue
        if scan.hidden(start, end):
            pieces.append(text[last:start])
            pieces.append(" " * (end - start))
            last = end
    if last == 0:
        return source
    pieces.append(text[last:])
    return "".join(pieces).encode("latin-1")


class _Scan:
    """The rules of the module's docstring, asked of one candidate word at a time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._classes: set[str] | None = None

    def hidden(self, start: int, end: int) -> bool:
        text = self.text
        line_start = text.rfind("\n", 0, start) + 1
        if _in_directive(text, line_start):
            return False
        if _BEFORE.match(text, end) or _TYPED.match(text, end):
            return True
        found = _CONSTRUCTOR.match(text, end)
        if found is not None and found.group(1) in self.classes():
            return True
        behind = text[max(0, start - LOOK_BEHIND) : start]
        if _CLASS_KEY.search(behind):
            return _CLASS_NAME_NEXT.match(text, end) is not None
        trailing = _TRAILING_BEFORE.search(behind)
        if trailing is not None:
            return _TRAILING_NEXT.match(text, end) is not None or (
                _TERMINATOR_NEXT.match(text, end) is not None
                and _closes_parameter_list(text, start - len(behind) + trailing.start())
            )
        if text[line_start:start].strip() or not _ALONE_NEXT.match(text, end):
            return False
        # alone on its line: not the last value of a list (`A,\n  LAST\n#if …`) nor an operand
        code_before = text[max(0, line_start - LOOK_BEHIND) : line_start].rstrip()
        return not code_before or code_before[-1] not in _CONTINUES

    def classes(self) -> set[str]:
        """The names after ``class``/``struct`` in the file (read once, when first asked)."""
        if self._classes is None:
            text = self.text
            self._classes = {
                m.group(1)
                for m in _CLASS_NAMES.finditer(text)
                if not m.start() or text[m.start() - 1] not in _WORD
            }
        return self._classes


def macro_prefix_start(source: bytes, parsed: bytes, start: int) -> int:
    """Where a definition starting at ``start`` of ``parsed`` starts in ``source``: before the macros
    hidden on its line just before it (``FMT_API void f()`` starts at ``FMT_API``, as it would at
    ``static``), else at ``start``."""
    index = start
    while index > 0 and parsed[index - 1] in b" \t":
        index -= 1
    hidden = source[index:start]
    if not hidden.strip():
        return start
    return index + len(hidden) - len(hidden.lstrip())


def _closes_parameter_list(text: str, close: int) -> bool:
    """Whether the ``)`` at ``close`` ends a function's parameter list (``f(int x)``), not a cast or a
    condition (``(size_t)``, ``if (x)``): a name other than a keyword stands before its ``(``."""
    depth = 0
    index = close
    floor = max(0, close - PARAMETER_LIST_CHARS)
    while index > floor:
        index -= 1
        char = text[index]
        if char == ")":
            depth += 1
        elif char == "(":
            if depth == 0:
                break
            depth -= 1
    else:
        return False
    name_end = index
    while name_end > 0 and text[name_end - 1] in " \t\n":
        name_end -= 1
    name_start = name_end
    while name_start > 0 and text[name_start - 1] in _WORD:
        name_start -= 1
    return name_start < name_end and text[name_start:name_end] not in _NOT_FUNCTIONS


def _in_directive(text: str, line_start: int) -> bool:
    """Whether the line starting at ``line_start`` is a preprocessor line or continues one."""
    while True:
        index = line_start
        while index < len(text) and text[index] in " \t":
            index += 1
        if index < len(text) and text[index] == "#":
            return True
        if line_start < 2 or text[line_start - 2] != "\\":  # the line before does not continue here
            return False
        line_start = text.rfind("\n", 0, line_start - 1) + 1

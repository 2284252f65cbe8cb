"""Whether a ``.h`` header is C or C++, decided from its own bytes.

``.h`` is both languages' header suffix. Parsed as C, a C++ header loses every class, namespace and
template (fmt's ``include/fmt/*.h``: none of its types were definitions); parsed as C++, a C header
whose fields are named ``new``, ``class`` or ``this`` (common in C) gets syntax errors. So the
language of a ``.h`` file is a function of its content alone: C++ when, outside comments and string
literals, it holds a construct C has no spelling for. A decision from the file's own bytes (not from
the other files of the tree, nor a compile database) keeps the incremental rules as they are: the
language changes only when the bytes do, and bytes that change are parsed again anyway.

Decisions:
- ``extern "C"`` and ``__cplusplus`` are not markers: they are how a C header says it may be included
  from C++. What such a header guards with ``#ifdef __cplusplus`` still counts (a C header with a C++
  wrapper class parses as C++, which C++'s grammar reads, C's constructs included).
- A macro's body does not count (``#define lzma_nothrow noexcept``): it is text until expanded.
- ``::`` counts only outside ``[[…]]`` (C23 spells attributes ``[[gnu::pure]]``).
- An include of a header without a suffix (``<vector>``, ``<cstdio>``) counts: C's standard headers
  all end in ``.h``.
- Words C also has or may use as names are not markers: ``constexpr``, ``nullptr`` and
  ``static_assert`` are C23; ``virtual``, ``typename``, ``this`` and ``new`` are common C names.
- Only the first ``HEADER_SNIFF_BYTES`` are read: a C++ header shows itself early (its includes and
  its namespace come first), and the scan stays linear in a bounded prefix.
"""

from __future__ import annotations

import re

HEADER_SNIFF_BYTES = 256 * 1024

# Macro bodies, comments and literals first, so that a marker inside them is skipped with them (a
# `// class Foo {`, `#define nothrow noexcept`).
_SKIPPED = re.compile(
    rb"^[ \t]*#[ \t]*define(?:[^\n\\]|\\.)*|//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|\[\[.*?\]\]",
    re.DOTALL | re.MULTILINE,
)
_MARKERS = re.compile(
    rb"^[ \t]*#[ \t]*include[ \t]*<[A-Za-z_][A-Za-z0-9_]*>"  # <vector>, <cstdio>: not C's <stdio.h>
    rb"|^[ \t]*(?:inline[ \t]+)?namespace(?:[ \t]+[A-Za-z_][\w:]*)?[ \t\n]*\{"
    rb"|^[ \t]*template[ \t\n]*<"
    rb"|^[ \t]*(?:public|private|protected)[ \t]*:(?!:)"
    rb"|\b(?:class|struct)[ \t\n]+(?:\w+[ \t\n]+)*?[A-Za-z_]\w*(?:[ \t\n]+final)?[ \t\n]*:[ \t\n]*(?:public|private|protected)\b"
    rb"|\bclass[ \t\n]+(?:\w+[ \t\n]+)*?[A-Za-z_]\w*(?:[ \t\n]+final)?[ \t\n]*(?:\{|:[^:])"
    rb"|\busing[ \t]+namespace\b"
    rb"|\b(?:noexcept|decltype)\b"
    rb"|\boperator[ \t]*(?:[-+*/%^&|~!=<>]+|\(\)|\[\])[ \t]*\("
    rb"|::~?[A-Za-z_]",
    re.MULTILINE,
)


def is_cplusplus_header(data: bytes) -> bool:
    """Whether the header ``data`` is C++ (see the module's decisions); ``False`` means C."""
    head = data[:HEADER_SNIFF_BYTES]
    if _MARKERS.search(head) is None:  # removing comments and literals only removes markers
        return False
    return _MARKERS.search(_SKIPPED.sub(b" ", head)) is not None

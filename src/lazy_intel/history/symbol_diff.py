"""Which definitions differ between two versions of one file (pure functions over parsed facts).

A definition is identified by its qualified name and its occurrence among same-named definitions
(``if``/``else`` variants, overloads). It is *modified* when its own text differs — its bytes
without the nested definitions, blank lines and trailing whitespace — so an edit inside a method
changes the method, not the class around it (nor does adding a method), while an edit to the class
header or a class attribute changes the class. Bytes outside every top-level definition are the
file's module-level code, compared the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lazy_intel.parse.extract import extract_symbols
from lazy_intel.parse.facts import SymbolFact
from lazy_intel.parse.languages import is_parsed_language, language_for_content

ADDED = "added"
MODIFIED = "modified"
DELETED = "deleted"


@dataclass(frozen=True)
class Definition:
    qualified_name: str
    name: str
    kind: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int

    @classmethod
    def of(cls, fact: SymbolFact) -> Definition:
        return cls(
            fact.qualified_name,
            fact.name,
            fact.kind,
            fact.start_byte,
            fact.end_byte,
            fact.start_line,
            fact.end_line,
        )


@dataclass(frozen=True)
class SymbolChange:
    change: str  # added | modified | deleted
    qualified_name: str
    name: str
    kind: str
    old: Definition | None
    new: Definition | None


@dataclass(frozen=True)
class FileDiff:
    symbols: tuple[SymbolChange, ...]
    module_changed: bool  # code outside every definition differs (blank lines and trailing spaces aside)
    parsed: bool  # False: the language is not parsed, only the file is known to differ


def definitions(path: str, data: bytes | None) -> list[Definition] | None:
    """The definitions of one version of ``path`` (``None``: not a parsed language or no bytes)."""
    if data is None:
        return []
    lang = language_for_content(path, data)
    if not is_parsed_language(lang):
        return None
    assert lang is not None
    facts = extract_symbols(path, lang, data)
    return [Definition.of(s) for s in facts.symbols]


def _children(defs: Sequence[Definition]) -> tuple[dict[int, list[int]], list[int]]:
    """Direct nesting: index -> indexes of the definitions directly inside it, and the top level."""
    order = sorted(range(len(defs)), key=lambda i: (defs[i].start_byte, -defs[i].end_byte))
    children: dict[int, list[int]] = {}
    top: list[int] = []
    stack: list[int] = []
    for i in order:
        d = defs[i]
        while stack and not (
            defs[stack[-1]].start_byte <= d.start_byte and d.end_byte <= defs[stack[-1]].end_byte
        ):
            stack.pop()
        if stack:
            children.setdefault(stack[-1], []).append(i)
        else:
            top.append(i)
        stack.append(i)
    return children, top


def _own_text(data: bytes, start: int, end: int, inner: Sequence[Definition]) -> bytes:
    """The bytes of ``[start, end)`` outside the nested definitions, as non-blank lines without
    trailing whitespace (indentation kept: it is syntax in some languages)."""
    parts: list[bytes] = []
    pos = start
    for child in sorted(inner, key=lambda d: d.start_byte):
        if child.start_byte < pos:
            continue
        parts.append(data[pos : child.start_byte])
        parts.append(b"\n")
        pos = child.end_byte
    parts.append(data[pos:end])
    lines = (line.rstrip() for line in b"".join(parts).split(b"\n"))
    return b"\n".join(line for line in lines if line)


def _keyed(
    data: bytes, defs: Sequence[Definition]
) -> tuple[dict[tuple[str, int], tuple[Definition, bytes]], bytes]:
    children, top = _children(defs)
    seen: dict[str, int] = {}
    out: dict[tuple[str, int], tuple[Definition, bytes]] = {}
    for i in sorted(range(len(defs)), key=lambda i: (defs[i].start_byte, defs[i].end_byte)):
        d = defs[i]
        occurrence = seen.get(d.qualified_name, 0)
        seen[d.qualified_name] = occurrence + 1
        inner = [defs[c] for c in children.get(i, [])]
        out[(d.qualified_name, occurrence)] = (
            d,
            d.kind.encode() + b"\0" + _own_text(data, d.start_byte, d.end_byte, inner),
        )
    module = _own_text(data, 0, len(data), [defs[i] for i in top])
    return out, module


def _position(change: SymbolChange) -> int:
    where = change.new or change.old
    return where.start_byte if where is not None else 0


def diff_definitions(
    old_data: bytes | None,
    old_defs: Sequence[Definition],
    new_data: bytes | None,
    new_defs: Sequence[Definition],
) -> FileDiff:
    """The definitions added, modified and deleted from ``old`` to ``new`` (either may be absent)."""
    old_keyed, old_module = _keyed(old_data or b"", old_defs)
    new_keyed, new_module = _keyed(new_data or b"", new_defs)
    changes: list[SymbolChange] = []
    for key, (new, text) in new_keyed.items():
        before = old_keyed.get(key)
        if before is None:
            changes.append(SymbolChange(ADDED, new.qualified_name, new.name, new.kind, None, new))
        elif before[1] != text:
            changes.append(SymbolChange(MODIFIED, new.qualified_name, new.name, new.kind, before[0], new))
    for key, (old, _) in old_keyed.items():
        if key not in new_keyed:
            changes.append(SymbolChange(DELETED, old.qualified_name, old.name, old.kind, old, None))
    changes.sort(key=lambda c: (_position(c), c.change))
    module_changed = old_module != new_module
    return FileDiff(tuple(changes), module_changed, True)


def diff_file(path: str, old_data: bytes | None, new_data: bytes | None) -> FileDiff:
    """Parse both versions of ``path`` and diff their definitions."""
    old_defs = definitions(path, old_data)
    new_defs = definitions(path, new_data)
    if old_defs is None or new_defs is None:
        return FileDiff((), old_data != new_data, False)
    return diff_definitions(old_data, old_defs, new_data, new_defs)

"""Edit our own ``[mcp_servers.<name>]`` table in a Codex ``config.toml``, leaving every other byte.

A minimal, careful writer rather than a TOML round-tripper: it finds the text region of the
tables we own (a header ``[mcp_servers.<name>]`` and its sub-tables, up to the next header),
removes it, appends our table at the end, and then *verifies* the result with ``tomllib``: our
entry must read back exactly, and everything else must read back equal to the original. If our
entry was written in a form this writer does not rewrite (an inline table, dotted keys), the
verification fails and the file is left alone with a clear error.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from lazy_intel.errors import InvalidArgument

_HEADER = re.compile(r"^[ \t]*\[(?!\[)(?P<key>[^\]\n]*)\][ \t]*(?:#.*)?$")
_ARRAY_HEADER = re.compile(r"^[ \t]*\[\[")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def loads(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidArgument(
            f"{source} is not valid TOML: {exc}", next_step="fix the file by hand (nothing was written)"
        ) from None


def toml_string(value: str) -> str:
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def toml_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else toml_string(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def table_text(path: tuple[str, ...], entry: dict[str, Any], newline: str = "\n") -> str:
    lines = ["[" + ".".join(toml_key(k) for k in path) + "]"]
    lines += [f"{toml_key(k)} = {_value(v)}" for k, v in entry.items()]
    return newline.join(lines) + newline


def _split_key(raw: str) -> tuple[str, ...] | None:
    """A dotted TOML key into its parts (bare, "basic" or 'literal'); ``None`` if malformed."""
    parts: list[str] = []
    i = 0
    raw = raw.strip()
    while i < len(raw):
        ch = raw[i]
        if ch in " \t":
            i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < len(raw) and raw[j] != '"':
                j += 2 if raw[j] == "\\" else 1
            try:
                parts.append(tomllib.loads(f"k = {raw[i : j + 1]}")["k"])
            except tomllib.TOMLDecodeError:
                return None
            i = j + 1
        elif ch == "'":
            j = raw.find("'", i + 1)
            if j < 0:
                return None
            parts.append(raw[i + 1 : j])
            i = j + 1
        else:
            match = _BARE.match(raw, i)
            if not match:
                return None
            parts.append(match.group(0))
            i = match.end()
        while i < len(raw) and raw[i] in " \t":
            i += 1
        if i < len(raw):
            if raw[i] != ".":
                return None
            i += 1
    return tuple(parts) if parts else None


def _header_lines(lines: list[str]) -> list[tuple[int, tuple[str, ...] | None]]:
    """(line index, key path) of each table header; ``None`` path for ``[[array]]`` headers.
    Lines inside multi-line strings are skipped."""
    headers: list[tuple[int, tuple[str, ...] | None]] = []
    open_quote: str | None = None
    for index, line in enumerate(lines):
        if open_quote is None:
            if _ARRAY_HEADER.match(line):
                headers.append((index, None))
            else:
                match = _HEADER.match(line.rstrip("\r\n"))
                if match:
                    headers.append((index, _split_key(match.group("key"))))
        for quote in ('"""', "'''"):
            if open_quote in (None, quote) and line.count(quote) % 2 == 1:
                open_quote = quote if open_quote is None else None
    return headers


def _regions(text: str, table: tuple[str, ...], names: set[str]) -> list[tuple[int, int]]:
    """Character spans of the tables ``table + (name,)`` (and their sub-tables) for ``names``."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    spans: list[tuple[int, int]] = []
    current: int | None = None
    depth = len(table) + 1
    for index, path in _header_lines(lines):
        ours = (
            path is not None
            and len(path) >= depth
            and path[: len(table)] == table
            and path[len(table)] in names
        )
        if current is not None and not ours:
            spans.append((offsets[current], offsets[index]))
            current = None
        if ours and current is None:
            current = index
    if current is not None:
        spans.append((offsets[current], len(text)))
    return spans


def _without(data: dict[str, Any], table: tuple[str, ...], names: set[str]) -> dict[str, Any]:
    """A copy of ``data`` without ``table.<name>`` for ``names`` (and without an emptied table)."""
    copy = dict(data)
    node = copy
    parents: list[tuple[dict[str, Any], str]] = []
    for key in table:
        child = node.get(key)
        if not isinstance(child, dict):
            return copy
        child = dict(child)
        node[key] = child
        parents.append((node, key))
        node = child
    for name in names:
        node.pop(name, None)
    for parent, key in reversed(parents):
        if parent[key]:
            break
        del parent[key]
    return copy


def remove_tables(text: str, table: tuple[str, ...], names: set[str]) -> str:
    for start, end in reversed(_regions(text, table, names)):
        head = text[:start]
        if end >= len(text) and head.endswith(("\n\n", "\r\n\r\n")):
            head = head[: -2 if head.endswith("\r\n\r\n") else -1]
        text = head + text[end:]
    return text


def set_table(
    text: str, table: tuple[str, ...], name: str, entry: dict[str, Any], *, remove: set[str], source: str
) -> str:
    """Replace tables ``table.<n>`` for ``n`` in ``remove | {name}`` by one ``table.<name>`` = entry."""
    before = loads(text, source)
    drop = remove | {name}
    current = before
    for key in (*table, name):
        current = current.get(key) if isinstance(current, dict) else None
    others_present = any(_lookup(before, (*table, n)) is not None for n in remove - {name})
    if current == entry and not others_present:
        return text
    newline = "\r\n" if "\r\n" in text else "\n"
    body = remove_tables(text, table, drop)
    if body.strip():
        if not body.endswith("\n"):
            body += newline
        body += newline
    else:
        body = ""
    result = body + table_text((*table, name), entry, newline)
    _verify(result, before, table, name=name, entry=entry, dropped=drop, source=source)
    return result


def remove_entries(text: str, table: tuple[str, ...], names: set[str], source: str) -> str:
    before = loads(text, source)
    result = remove_tables(text, table, names)
    _verify(result, before, table, name=None, entry=None, dropped=names, source=source)
    return result


def _lookup(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = data
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _verify(
    result: str,
    before: dict[str, Any],
    table: tuple[str, ...],
    *,
    name: str | None,
    entry: dict[str, Any] | None,
    dropped: set[str],
    source: str,
) -> None:
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        after = None
        problem = str(exc)
    else:
        problem = ""
        if name is not None and _lookup(after, (*table, name)) != entry:
            problem = "the new entry does not read back"
        elif _without(after, table, dropped) != _without(before, table, dropped):
            problem = "other settings would change"
        elif name is None and any(_lookup(after, (*table, n)) is not None for n in dropped):
            problem = "the old entry is still there"
    if after is None or problem:
        dotted = ".".join((*table, name or "<name>"))
        raise InvalidArgument(
            f"cannot edit {source} safely ({problem}): [{dotted}] is written in a form this "
            "installer does not rewrite (inline table or dotted keys)",
            next_step=f"edit the [{dotted}] entry by hand (nothing was written)",
        )

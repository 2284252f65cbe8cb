"""Edit JSON / JSONC config files in place, touching only the bytes of the entries we change.

Client configs (``.mcp.json``, ``~/.claude.json``, VS Code's ``mcp.json``, Zed's ``settings.json``)
hold the user's own settings, comments (JSONC) and formatting. Re-serialising the whole file would
rewrite all of it; instead this module parses the text into nodes that remember their byte spans
and splices new text into the one container being changed. Everything outside the splice is kept
byte-for-byte. New entries follow the surrounding indentation and line endings.

Supported input: JSON plus ``//`` and ``/* */`` comments and trailing commas (the JSONC that VS Code
and Zed accept). A file that does not parse is refused, never overwritten.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import InvalidArgument

MAX_DEPTH = 200
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WS = " \t\r\n"
_SPACE = re.compile("[ \t\r\n\ufeff]+")
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')


@dataclass
class Node:
    kind: str  # object | array | string | number | literal
    start: int
    end: int
    value: Any = None  # scalars only
    entries: list[Entry] = field(default_factory=list)  # object members / array items

    def to_python(self) -> Any:
        if self.kind == "object":
            return {e.key: e.value.to_python() for e in self.entries}
        if self.kind == "array":
            return [e.value.to_python() for e in self.entries]
        return self.value

    def last_member(self, key: str) -> Entry | None:
        found = None
        for entry in self.entries:
            if entry.key == key:
                found = entry
        return found


@dataclass
class Entry:
    key: str | None  # None for array items
    start: int  # first byte of the key (members) or of the value (items)
    value: Node
    comma: int | None = None  # offset of the comma that follows, if any


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.pos = 0
        self.source = source

    def fail(self, what: str, at: int | None = None) -> InvalidArgument:
        at = self.pos if at is None else at
        line = self.text.count("\n", 0, at) + 1
        col = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return InvalidArgument(
            f"{self.source} is not valid JSON/JSONC at line {line}, column {col}: {what}",
            next_step="fix the file by hand (nothing was written)",
        )

    def skip_trivia(self) -> None:
        text = self.text
        while True:
            match = _SPACE.match(text, self.pos)
            if match:
                self.pos = match.end()
            if text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated comment")
                self.pos = end + 2
            else:
                return

    def parse_document(self) -> Node:
        self.skip_trivia()
        node = self.parse_value(0)
        self.skip_trivia()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the top-level value")
        return node

    def parse_value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail("nesting is too deep")
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        ch = self.text[self.pos]
        if ch == "{":
            return self.parse_container("object", "}", depth)
        if ch == "[":
            return self.parse_container("array", "]", depth)
        if ch == '"':
            start = self.pos
            value = self.parse_string()
            return Node("string", start, self.pos, value)
        for literal, value in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(literal, self.pos):
                start = self.pos
                self.pos += len(literal)
                return Node("literal", start, self.pos, value)
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return Node("number", match.start(), match.end(), json.loads(match.group(0)))
        raise self.fail(f"unexpected character {ch!r}")

    def parse_string(self) -> str:
        start = self.pos
        match = _STRING.match(self.text, start)
        if not match:
            raise self.fail("unterminated string", start)
        self.pos = match.end()
        try:
            return json.loads(match.group(0))
        except json.JSONDecodeError as exc:
            raise self.fail(f"bad string: {exc.msg}", start) from None

    def parse_container(self, kind: str, close: str, depth: int) -> Node:
        node = Node(kind, self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip_trivia()
            if self.pos >= len(self.text):
                raise self.fail(f"unterminated {kind}", node.start)
            if self.text[self.pos] == close:
                self.pos += 1
                node.end = self.pos
                return node
            if node.entries and node.entries[-1].comma is None:
                raise self.fail(f"expected ',' or '{close}'")
            start = self.pos
            key = None
            if kind == "object":
                if self.text[self.pos] != '"':
                    raise self.fail("expected a member name in double quotes")
                key = self.parse_string()
                self.skip_trivia()
                if self.pos >= len(self.text) or self.text[self.pos] != ":":
                    raise self.fail("expected ':'")
                self.pos += 1
                self.skip_trivia()
            value = self.parse_value(depth + 1)
            entry = Entry(key, start, value)
            node.entries.append(entry)
            self.skip_trivia()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                entry.comma = self.pos
                self.pos += 1


def parse(text: str, source: str = "config") -> Node:
    return _Parser(text, source).parse_document()


# -- layout helpers -------------------------------------------------------------------------------
def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _leading_ws(text: str, pos: int) -> str | None:
    """The indentation before ``pos`` if only whitespace precedes it on its line, else ``None``."""
    before = text[_line_start(text, pos) : pos]
    return before if before.strip(" \t") == "" else None


def _line_indent(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _ws_before(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in _WS:
        pos -= 1
    return pos


def indent_unit(text: str, root: Node) -> str:
    for entry in root.entries:
        lead = _leading_ws(text, entry.start)
        if lead:
            return lead
    return "  "


def _dump(value: Any, unit: str, base: str, newline: str, *, multiline: bool) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    raw = json.dumps(value, ensure_ascii=False, indent=unit)
    return raw.replace("\n", newline + base)


def _member_text(key: str | None, value: Any, unit: str, base: str, newline: str, *, multiline: bool) -> str:
    prefix = json.dumps(key, ensure_ascii=False) + ": " if key is not None else ""
    return prefix + _dump(value, unit, base, newline, multiline=multiline)


# -- edits ------------------------------------------------------------------------------------------
def insert_entry(text: str, root: Node, container: Node, key: str | None, value: Any) -> str:
    """Append a member (object) or item (array) at the end of ``container``."""
    newline = _newline(text)
    unit = indent_unit(text, root)
    if container.entries:
        last = container.entries[-1]
        lead = _leading_ws(text, last.start)
        if lead is None:  # compact container: `{"a": 1, "b": 2}`
            piece = _member_text(key, value, unit, "", newline, multiline=False)
            if last.comma is not None:
                return text[: last.comma + 1] + " " + piece + text[last.comma + 1 :]
            return text[: last.value.end] + ", " + piece + text[last.value.end :]
        piece = _member_text(key, value, unit, lead, newline, multiline=True)
        if last.comma is not None:  # keep the trailing-comma style
            at = last.comma + 1
            return text[:at] + newline + lead + piece + "," + text[at:]
        at = last.value.end
        return text[:at] + "," + newline + lead + piece + text[at:]
    close = container.end - 1
    outer = _line_indent(text, container.start)
    inner = outer + unit
    piece = _member_text(key, value, unit, inner, newline, multiline=True)
    cut = max(_ws_before(text, close), container.start + 1)
    return text[:cut] + newline + inner + piece + newline + outer + text[close:]


def replace_value(text: str, root: Node, entry: Entry, value: Any) -> str:
    newline = _newline(text)
    lead = _leading_ws(text, entry.start)
    multiline = lead is not None
    body = _dump(value, indent_unit(text, root), lead or "", newline, multiline=multiline)
    return text[: entry.value.start] + body + text[entry.value.end :]


def delete_entry(text: str, container: Node, index: int) -> str:
    entries = container.entries
    entry = entries[index]
    end = entry.comma + 1 if entry.comma is not None else entry.value.end
    if len(entries) == 1:
        inner_rest = text[container.start + 1 : entry.start] + text[end : container.end - 1]
        if inner_rest.strip(_WS) == "":
            return text[: container.start + 1] + text[container.end - 1 :]
        return text[: _ws_before(text, entry.start)] + text[end:]
    if index < len(entries) - 1 or entry.comma is not None:
        return text[: _ws_before(text, entry.start)] + text[end:]
    prev = entries[index - 1]
    assert prev.comma is not None
    start = _ws_before(text, entry.start)
    return text[: prev.comma] + text[prev.comma + 1 : start] + text[end:]


# -- path operations (each re-parses, so every step sees the current text) ----------------------------
def _nest(path: tuple[str, ...], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value


def find(root: Node, path: tuple[str, ...]) -> Node | None:
    node: Node | None = root
    for key in path:
        if node is None or node.kind != "object":
            return None
        entry = node.last_member(key)
        node = entry.value if entry else None
    return node


def set_path(text: str, path: tuple[str, ...], value: Any, source: str = "config") -> str:
    """Set ``path`` (object keys) to ``value``, creating missing objects; unchanged if equal."""
    root = parse(text, source)
    if root.kind != "object":
        raise InvalidArgument(f"{source}: the top-level value is not a JSON object")
    node = root
    for depth, key in enumerate(path):
        entry = node.last_member(key)
        rest = path[depth + 1 :]
        if entry is None:
            return insert_entry(text, root, node, key, _nest(rest, value))
        if not rest:
            if entry.value.to_python() == value:
                return text
            return replace_value(text, root, entry, value)
        if entry.value.kind != "object":
            return replace_value(text, root, entry, _nest(rest, value))
        node = entry.value
    raise InvalidArgument("empty path")


def delete_members(
    text: str,
    path: tuple[str, ...],
    match: Callable[[str, Any], bool],
    source: str = "config",
    prune: int = 0,
) -> str:
    """Delete members of the object at ``path`` for which ``match(key, value)``; then remove up to
    ``prune`` levels of objects that this left empty."""
    while True:
        root = parse(text, source)
        container = find(root, path)
        if container is None or container.kind != "object":
            return text
        index = next(
            (i for i, e in enumerate(container.entries) if match(e.key or "", e.value.to_python())), None
        )
        if index is None:
            break
        text = delete_entry(text, container, index)
    return _prune(text, path, prune, source)


def append_item(text: str, path: tuple[str, ...], value: Any, source: str = "config") -> str:
    root = parse(text, source)
    node = find(root, path)
    if node is None or node.kind != "array":
        return set_path(text, path, [value], source)
    return insert_entry(text, root, node, None, value)


def delete_items(
    text: str, path: tuple[str, ...], match: Callable[[Any], bool], source: str = "config", prune: int = 0
) -> str:
    """Delete items of the array at ``path`` that ``match``; prune emptied containers as above."""
    while True:
        root = parse(text, source)
        node = find(root, path)
        if node is None or node.kind != "array":
            return text
        index = next((i for i, e in enumerate(node.entries) if match(e.value.to_python())), None)
        if index is None:
            break
        text = delete_entry(text, node, index)
    return _prune(text, path, prune, source)


def _prune(text: str, path: tuple[str, ...], levels: int, source: str) -> str:
    for depth in range(len(path), max(len(path) - levels, 0), -1):
        root = parse(text, source)
        node = find(root, path[:depth])
        if node is None or node.entries or node.kind not in ("object", "array"):
            break
        parent = find(root, path[: depth - 1])
        if parent is None or parent.kind != "object":
            break
        key = path[depth - 1]
        index = max(i for i, e in enumerate(parent.entries) if e.key == key)
        text = delete_entry(text, parent, index)
    return text

"""Validation of operation requests: one typed :class:`Request` from raw JSON-like arguments.

Every refusal is ``INVALID_ARGUMENT`` naming the field, what was given and what is accepted, so an
agent can correct its call. Unknown fields are refused rather than silently ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import InvalidArgument
from lazy_intel.parse.languages import is_parsed_language, language_for_path
from lazy_intel.settings import Settings

FRESHNESS_MODES: tuple[str, ...] = ("auto", "strict", "fast")
BACKENDS: tuple[str, ...] = ("all", "lexical", "dense", "graph", "semantic")
GRANULARITIES: tuple[str, ...] = ("chunk", "symbol", "file")
DIRECTIONS: tuple[str, ...] = ("incoming", "outgoing", "supertypes", "subtypes")
POSITION_ENCODINGS: tuple[str, ...] = ("utf-16", "utf-8", "utf-32")
MAX_LIMIT = 200
# the smallest maxChars a request may ask for: every answer's header fits in it, and so does every
# error answer (shed to its code, a cut message and a bare view)
MIN_MAX_CHARS = 500
MAX_ARGUMENT_DEPTH = 16  # nesting of lists/objects in a request's arguments (anchors need 2)
MAX_QUERY_CHARS = 20_000
MAX_ANCHORS = 100

# a symbol written with where it lives: `path/to/file.py::Class::method` (a pytest node id, its
# parametrisation `[…]` dropped), `path/to/file.py:Class.method`, `package.module:attr` (an entry
# point, as `pyproject.toml` scripts write it)
LOCATED_SYMBOL = re.compile(r"^(?P<where>[^\s:]+)(?P<sep>::|:)(?P<name>[^\s:\[\d].*)$")
DOTTED_MODULE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
PYTEST_PARAMETERS = re.compile(r"\[[^\[\]]*\]$")

# camelCase wire names -> Request attribute names
WIRE_NAMES: dict[str, str] = {
    "operation": "operation",
    "root": "root",
    "freshness": "freshness",
    "maxChars": "max_chars",
    "limit": "limit",
    "cursor": "cursor",
    "query": "query",
    "symbol": "symbol",
    "relativePath": "relative_path",
    "lang": "lang",
    "path": "path_glob",
    "kind": "kind",
    "layer": "layer",
    "granularity": "granularity",
    "anchors": "anchors",
    "backend": "backend",
    "depth": "depth",
    "line": "line",
    "character": "character",
    "includeDeclaration": "include_declaration",
    "includeCandidates": "include_candidates",
    "direction": "direction",
    "positionEncoding": "position_encoding",
    "binding": "binding",
    "since": "since",
}


@dataclass(frozen=True)
class Request:
    operation: str
    root: str | None = None
    freshness: str = "auto"
    max_chars: int = 20_000
    limit: int = 10
    cursor: str | None = None
    query: str | None = None
    symbol: str | None = None
    relative_path: str | None = None
    lang: str | None = None
    path_glob: str | None = None
    kind: str | None = None
    layer: str | None = None
    granularity: str = "chunk"
    anchors: tuple[Mapping[str, Any], ...] = field(default=())
    backend: str = "all"
    depth: int | None = None  # each operation has its own default
    line: int | None = None
    character: int | None = None
    include_declaration: bool = True
    include_candidates: bool = False  # references: list name-only (ambiguous, unique-name) sites too
    direction: str | None = None
    position_encoding: str = "utf-16"
    binding: Mapping[str, Any] | None = None  # verify: view.repository of the answer being checked
    since: str | None = None  # changes: the git ref compared with the working tree (default HEAD)

    def fingerprint(self) -> str:
        """What a cursor is bound to: everything but the cursor and the budget."""
        parts = [
            self.operation,
            self.query or "",
            self.symbol or "",
            self.relative_path or "",
            self.lang or "",
            self.path_glob or "",
            self.kind or "",
            self.granularity,
            str(self.depth),
            self.direction or "",
            self.since or "",
            str(self.include_candidates),
        ]
        return "\x1f".join(parts)


def _string(name: str, value: Any, max_chars: int = 4_096) -> str:
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidArgument(f"{name} contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(f"{name} contains an unpaired surrogate (not valid Unicode text)") from None
    if len(value) > max_chars:
        raise InvalidArgument(f"{name} is {len(value)} characters; the limit is {max_chars}")
    return value


def _shown(value: Any) -> str:
    """A value echoed in a message: its repr, cut at 80 characters."""
    text = repr(value) if not isinstance(value, list | dict) else type(value).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _integer(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} must be an integer, got {_shown(value)}")
    if value < low or value > high:
        raise InvalidArgument(f"{name}={_shown(value)} is out of range {low}..{high}")
    return value


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    text = _string(name, value)
    if text not in choices:
        raise InvalidArgument(f"{name}={_shown(text)} is not one of {', '.join(choices)}")
    return text


def _ref(value: Any) -> str:
    """A git revision as a user writes it (branch, tag, commit, ``HEAD~2``); never an option or a range."""
    text = _string("since", value, 256).strip()
    if not text or text.startswith("-") or ".." in text or any(ord(c) < 33 or c == "\x7f" for c in text):
        raise InvalidArgument(
            f"since={text!r} is not a revision: give a branch, tag, commit or HEAD~N "
            "(no ranges, options, spaces or control characters)"
        )
    return text


def argument_depth_problem(value: Any, limit: int = MAX_ARGUMENT_DEPTH) -> str | None:
    """Why ``value`` nests too deeply to be handled (walked without recursion), or ``None``."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return f"arguments nest more than {limit} levels deep"
        if isinstance(current, Mapping):
            stack.extend((v, depth + 1) for v in current.values())
        elif isinstance(current, list | tuple):
            stack.extend((v, depth + 1) for v in current)
    return None


def operation_name(args: Any, operations: tuple[str, ...]) -> str:
    """The operation an answer names: the requested one when it exists, else ``unknown`` (never an
    echo of whatever was sent)."""
    name = args.get("operation") if isinstance(args, Mapping) else None
    return name if isinstance(name, str) and name in operations else "unknown"


def requested_budget(args: Any, settings: Settings) -> int:
    """The budget an answer to ``args`` reports: a valid ``maxChars``, else the default."""
    value = args.get("maxChars") if isinstance(args, Mapping) else None
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and MIN_MAX_CHARS <= value <= settings.max_output_chars
    ):
        return value
    return settings.default_max_chars


def parse_request(args: Mapping[str, Any], settings: Settings, *, operations: tuple[str, ...]) -> Request:
    """Validate raw arguments (wire names) into a :class:`Request`."""
    if not isinstance(args, Mapping):
        raise InvalidArgument("arguments must be a JSON object")
    deep = argument_depth_problem(args)
    if deep:
        raise InvalidArgument(deep, next_step="send flat values (anchors: a list of objects)")
    unknown = sorted(str(k)[:64] for k in args if k not in WIRE_NAMES)
    if unknown:
        raise InvalidArgument(
            f"unknown argument(s) {', '.join(unknown)[:300]}; accepted: {', '.join(WIRE_NAMES)}",
            next_step="remove the unknown arguments",
        )
    if "operation" not in args:
        raise InvalidArgument(f"operation is required; one of {', '.join(operations)}")
    operation = _string("operation", args["operation"], 64)
    if operation not in operations:
        raise InvalidArgument(f"unknown operation {operation[:64]!r}; one of {', '.join(operations)}")
    values: dict[str, Any] = {"operation": operation, "max_chars": settings.default_max_chars}
    for wire, value in args.items():
        attr = WIRE_NAMES[wire]
        if wire == "operation" or value is None:
            continue
        if wire in ("root", "relativePath", "path", "lang", "kind", "layer", "cursor"):
            values[attr] = _string(wire, value)
        elif wire == "since":
            values[attr] = _ref(value)
        elif wire == "binding":
            if not isinstance(value, Mapping) or not isinstance(value.get("git"), bool):
                raise InvalidArgument("binding must be the view.repository object of an earlier answer")
            values[attr] = dict(value)
        elif wire in ("query", "symbol"):
            values[attr] = _string(wire, value, MAX_QUERY_CHARS)
        elif wire == "freshness":
            values[attr] = _choice(wire, value, FRESHNESS_MODES)
        elif wire == "backend":
            values[attr] = _choice(wire, value, BACKENDS)
        elif wire == "granularity":
            values[attr] = _choice(wire, value, GRANULARITIES)
        elif wire == "direction":
            values[attr] = _choice(wire, value, DIRECTIONS)
        elif wire == "positionEncoding":
            values[attr] = _choice(wire, value, POSITION_ENCODINGS)
        elif wire == "maxChars":
            values[attr] = _integer(wire, value, MIN_MAX_CHARS, settings.max_output_chars)
        elif wire == "limit":
            values[attr] = _integer(wire, value, 1, MAX_LIMIT)
        elif wire == "depth":
            values[attr] = _integer(wire, value, 1, 10)
        elif wire in ("line", "character"):
            values[attr] = _integer(wire, value, 0, 10_000_000)
        elif wire in ("includeDeclaration", "includeCandidates"):
            if not isinstance(value, bool):
                raise InvalidArgument(f"{wire} must be a boolean, got {_shown(value)}")
            values[attr] = value
        elif wire == "anchors":
            if not isinstance(value, list) or not all(isinstance(a, Mapping) for a in value):
                raise InvalidArgument("anchors must be a list of anchor objects")
            if len(value) > MAX_ANCHORS:
                raise InvalidArgument(f"anchors has {len(value)} entries; the limit is {MAX_ANCHORS}")
            values[attr] = tuple(value)
    if values.get("symbol"):
        _split_located_symbol(values)
    return Request(**values)


def split_symbol_location(symbol: str) -> tuple[str | None, str]:
    """``(file, name)`` of a symbol written with the source file it is defined in (``a/b.py::C::m``,
    ``a/b.py:C.m``; a pytest node id's ``[params]`` dropped), ``(None, "pkg.mod.attr")`` for the
    entry-point form ``pkg.mod:attr``, else ``(None, symbol)`` unchanged. Pure."""
    match = LOCATED_SYMBOL.match(symbol.strip())
    if match is None:
        return None, symbol
    where, name = _normal_path(match["where"]), match["name"].strip()
    language = language_for_path(where)
    if is_parsed_language(language):
        return where, PYTEST_PARAMETERS.sub("", name).replace("::", ".")
    if language is None and match["sep"] == ":" and DOTTED_MODULE.match(where) and DOTTED_MODULE.match(name):
        return None, f"{where}.{name}"
    return None, symbol


def _normal_path(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def _split_located_symbol(values: dict[str, Any]) -> None:
    """``symbol`` written with its file: the file becomes ``relativePath`` (one given must agree)."""
    where, name = split_symbol_location(values["symbol"])
    if where is None:
        values["symbol"] = name
        return
    given = values.get("relative_path")
    if given is not None and _normal_path(given) != where:
        raise InvalidArgument(
            f"symbol {values['symbol'][:200]!r} names the file {where!r} but relativePath is {given[:200]!r}",
            next_step="pass the file once: in symbol or in relativePath",
        )
    values["symbol"], values["relative_path"] = name, given if given is not None else where


def require(request: Request, *names: str) -> None:
    """Refuse a request that lacks a field the operation needs."""
    reverse = {v: k for k, v in WIRE_NAMES.items()}
    for name in names:
        value = getattr(request, name)
        if value is None or value in ("", ()):
            raise InvalidArgument(f"{request.operation} needs {reverse.get(name, name)}")

"""Node and edge rows as written to the store, and the per-strategy confidence table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# How sure an edge is, by how it was resolved. Named constants, documented in docs/design.md.
CONFIDENCE: dict[str, float] = {
    "syntax": 1.0,  # DEFINES, CONTAINS: read off the tree
    "local": 0.95,  # a definition in an enclosing scope of the same file
    "import": 0.95,  # through an import statement
    "package": 0.9,  # a sibling file of the same package (Go)
    "self": 0.9,  # a member of the enclosing class through self/this (or implicitly)
    "member": 0.85,  # a member of an instance/class whose type was inferred
    "inheritance": 0.85,  # found in a base class
    "dataflow": 0.75,  # followed through assignments, arguments or returns
    "naming": 0.6,  # TESTS by naming convention
    "unique-name": 0.5,  # the only definition with that name anywhere
    "ambiguous": 0.5,  # divided among the candidates
    "unresolved": 0.0,
    "external": 0.0,
    "builtin": 0.0,
    "lambda": 0.0,
}
MAX_AMBIGUOUS = 5
# Strategies that tie a site to a definition through scopes, imports or members (no name-only guess)
DIRECT_STRATEGIES = frozenset({"local", "import", "self", "package", "member", "inheritance"})
# methods of one name read to find an extension of a type (ClassMixin.extension_members, and the
# `symbol` lookup of `Type.Member`)
EXTENSION_CANDIDATES = 32
# Strategies that tie a site to a definition by its name alone, with no scope, import or type
# evidence: counted apart from resolved edges wherever structure is derived (architecture, status).
NAME_GUESS_STRATEGIES: tuple[str, ...] = ("unique-name", "ambiguous")

EDGE_TYPES = (
    "CONTAINS",
    "DEFINES",
    "IMPORTS",
    "CALLS",
    "REFERENCES",
    "INHERITS",
    "IMPLEMENTS",
    "OVERRIDES",
    "ASSIGNED_FROM",
    "HANDLES",
    "TESTS",
)
NODE_LABELS = (
    "File",
    "Module",
    "Class",
    "Interface",
    "Function",
    "Method",
    "Variable",
    "Type",
    "Route",
    "Test",
)


_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def props(values: dict[str, Any] | None) -> str | None:
    """Edge/node properties as canonical JSON (keys sorted), ``None`` when there are none."""
    if not values:
        return None
    return _ENCODE(values)


@dataclass(frozen=True, slots=True)
class NodeRow:
    id: int
    file_key: int
    label: str
    labels: str
    name: str
    qualified_name: str
    kind: str | None
    path: str | None
    lang: str | None
    start_byte: int | None
    end_byte: int | None
    start_line: int | None
    end_line: int | None
    properties: str | None


@dataclass(frozen=True, slots=True)
class EdgeRow:
    file_key: int
    type: str
    src: int
    dst: int | None
    strategy: str
    confidence: float
    target: str | None
    path: str | None
    start_byte: int | None
    end_byte: int | None
    line: int | None
    properties: str | None


def labels_text(*labels: str) -> str:
    return " " + " ".join(dict.fromkeys(labels)) + " "

"""The parsed query: frozen dataclasses, each node keeping the offset of its first token."""

from __future__ import annotations

from dataclasses import dataclass

# ---- expressions


@dataclass(frozen=True, slots=True)
class Literal:
    value: str | int | float | bool | None
    offset: int


@dataclass(frozen=True, slots=True)
class ListLiteral:
    items: tuple[Expr, ...]
    offset: int


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    offset: int


@dataclass(frozen=True, slots=True)
class Property:
    subject: Variable
    key: str
    offset: int


@dataclass(frozen=True, slots=True)
class Call:
    """A function call; ``name`` is lower-cased. ``star`` is ``count(*)``."""

    name: str
    args: tuple[Expr, ...]
    offset: int
    distinct: bool = False
    star: bool = False


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # NOT | - | IS NULL | IS NOT NULL
    operand: Expr
    offset: int


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # OR AND = <> < > <= >= =~ STARTS WITH | ENDS WITH | CONTAINS | IN | + - * / %
    left: Expr
    right: Expr
    offset: int


Expr = Literal | ListLiteral | Variable | Property | Call | Unary | Binary

# ---- patterns


@dataclass(frozen=True, slots=True)
class NodePattern:
    variable: str | None
    labels: tuple[tuple[str, ...], ...]  # AND of groups; each group is an OR (``:A|B``)
    properties: tuple[tuple[str, Expr], ...]
    offset: int


@dataclass(frozen=True, slots=True)
class RelPattern:
    variable: str | None
    types: tuple[str, ...]  # empty: any type
    direction: str  # "out" (-->), "in" (<--), "both" (--)
    properties: tuple[tuple[str, Expr], ...]
    offset: int
    min_hops: int | None = None  # both None: a single relationship
    max_hops: int | None = None
    variable_length: bool = False


@dataclass(frozen=True, slots=True)
class PathPattern:
    """``(a)-[r]->(b)-[s]->(c)``: nodes[i] and nodes[i+1] are joined by rels[i]."""

    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...]
    offset: int


@dataclass(frozen=True, slots=True)
class Match:
    patterns: tuple[PathPattern, ...]
    where: Expr | None
    offset: int


# ---- projection


@dataclass(frozen=True, slots=True)
class ReturnItem:
    expr: Expr
    alias: str | None
    text: str  # the expression as written: the column name when there is no alias
    offset: int


@dataclass(frozen=True, slots=True)
class SortItem:
    expr: Expr
    descending: bool
    offset: int


@dataclass(frozen=True, slots=True)
class Query:
    matches: tuple[Match, ...]
    distinct: bool
    items: tuple[ReturnItem, ...]
    order: tuple[SortItem, ...]
    skip: int | None
    limit: int | None
    text: str

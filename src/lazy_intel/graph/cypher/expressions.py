"""Cypher expressions -> SQL fragments with bound parameters.

User values never enter the SQL text: literals become ``?`` parameters, variables become generated
table aliases, and properties map through a whitelist to columns or to ``json_extract`` with a
bound JSON path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lazy_intel.graph.cypher import ast
from lazy_intel.graph.cypher.errors import CypherError
from lazy_intel.graph.cypher.regex import SQL_FUNCTION, unsafe_reason

NODE = "node"
EDGE = "edge"
PATH = "path"  # a variable-length relationship: not a value

# Every column of a node / relationship row, in the order a returned variable's record is read.
NODE_FIELDS: tuple[str, ...] = (
    "id",
    "label",
    "labels",
    "name",
    "qualified_name",
    "kind",
    "path",
    "lang",
    "start_byte",
    "end_byte",
    "start_line",
    "end_line",
    "properties",
)
EDGE_FIELDS: tuple[str, ...] = (
    "id",
    "type",
    "src",
    "dst",
    "strategy",
    "confidence",
    "target",
    "path",
    "start_byte",
    "end_byte",
    "line",
    "properties",
)
# Properties that are columns; anything else is looked up in the JSON ``properties`` column
# (``labels`` is matched through label predicates, not as a property).
NODE_COLUMNS: dict[str, str] = {n: n for n in NODE_FIELDS if n not in ("labels", "properties")}
EDGE_COLUMNS: dict[str, str] = {n: n for n in EDGE_FIELDS if n != "properties"}
EDGE_COMPUTED: dict[str, str] = {"resolved": "({a}.dst IS NOT NULL)"}
PROPERTY_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

AGGREGATES = frozenset({"count", "min", "max", "sum", "avg", "collect"})
# name -> (SQL template with {0}, {1}..., arity)
SCALAR_FUNCTIONS: dict[str, tuple[str, int]] = {
    "tolower": ("lower({0})", 1),
    "toupper": ("upper({0})", 1),
    "lower": ("lower({0})", 1),
    "upper": ("upper({0})", 1),
    "trim": ("trim({0})", 1),
    "size": ("length({0})", 1),
    "length": ("length({0})", 1),
    "abs": ("abs({0})", 1),
    "tostring": ("CAST({0} AS TEXT)", 1),
    "tointeger": ("CAST({0} AS INTEGER)", 1),
    "tofloat": ("CAST({0} AS REAL)", 1),
}


@dataclass(frozen=True)
class Binding:
    kind: str  # NODE | EDGE | PATH
    alias: str
    offset: int


@dataclass(frozen=True)
class Fragment:
    sql: str
    params: tuple[object, ...]
    aggregate: bool = False
    uses_regex: bool = False
    value_kind: str = "value"  # "value" | "json" | "labels" | NODE | EDGE (a bare variable)


def variables_of(expr: ast.Expr) -> set[str]:
    if isinstance(expr, ast.Variable):
        return {expr.name}
    if isinstance(expr, ast.Property):
        return {expr.subject.name}
    if isinstance(expr, ast.Unary):
        return variables_of(expr.operand)
    if isinstance(expr, ast.Binary):
        return variables_of(expr.left) | variables_of(expr.right)
    if isinstance(expr, ast.Call):
        out: set[str] = set()
        for arg in expr.args:
            out |= variables_of(arg)
        return out
    if isinstance(expr, ast.ListLiteral):
        out = set()
        for item in expr.items:
            out |= variables_of(item)
        return out
    return set()


def split_and(expr: ast.Expr | None) -> list[ast.Expr]:
    if expr is None:
        return []
    if isinstance(expr, ast.Binary) and expr.op == "AND":
        return split_and(expr.left) + split_and(expr.right)
    return [expr]


def _is_string(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.Literal) and isinstance(expr.value, str)


class ExpressionCompiler:
    """Compiles expressions against variable bindings; ``allow_aggregates`` only in RETURN/ORDER BY."""

    def __init__(self, bindings: dict[str, Binding], text: str) -> None:
        self.bindings = bindings
        self.text = text

    def error(self, reason: str, construct: str, offset: int, detail: str) -> CypherError:
        return CypherError(reason, construct, offset, self.text, detail)

    def binding(self, var: ast.Variable) -> Binding:
        found = self.bindings.get(var.name)
        if found is None:
            known = ", ".join(sorted(self.bindings)) or "none"
            raise self.error(
                "unknown_variable",
                var.name,
                var.offset,
                f"variable {var.name!r} is not bound (bound: {known})",
            )
        if found.kind == PATH:
            raise self.error(
                "unsupported",
                var.name,
                var.offset,
                f"{var.name!r} is a variable-length relationship; its hops cannot be returned or compared",
            )
        return found

    def property(self, expr: ast.Property) -> Fragment:
        found = self.binding(expr.subject)
        columns = NODE_COLUMNS if found.kind == NODE else EDGE_COLUMNS
        if expr.key in columns:
            return Fragment(f"{found.alias}.{columns[expr.key]}", ())
        if found.kind == EDGE and expr.key in EDGE_COMPUTED:
            return Fragment(EDGE_COMPUTED[expr.key].format(a=found.alias), ())
        if not PROPERTY_KEY.match(expr.key):
            raise self.error(
                "unsupported",
                expr.key,
                expr.offset,
                f"property name {expr.key!r} (letters, digits and _ only)",
            )
        return Fragment(f"json_extract({found.alias}.properties, ?)", (f"$.{expr.key}",))

    def compile(self, expr: ast.Expr, *, allow_aggregates: bool = False) -> Fragment:
        if isinstance(expr, ast.Literal):
            if expr.value is None:
                return Fragment("NULL", ())
            if isinstance(expr.value, bool):
                return Fragment("?", (1 if expr.value else 0,))
            return Fragment("?", (expr.value,))
        if isinstance(expr, ast.ListLiteral):
            raise self.error("unsupported", "list", expr.offset, "a list is only supported after IN")
        if isinstance(expr, ast.Variable):
            found = self.binding(expr)
            return Fragment(f"{found.alias}.id", (), value_kind=found.kind)
        if isinstance(expr, ast.Property):
            return self.property(expr)
        if isinstance(expr, ast.Call):
            return self.call(expr, allow_aggregates)
        if isinstance(expr, ast.Unary):
            inner = self.compile(expr.operand, allow_aggregates=allow_aggregates)
            if expr.op == "NOT":
                sql = f"(NOT {inner.sql})"
            elif expr.op == "-":
                sql = f"(-{inner.sql})"
            else:
                sql = f"({inner.sql} {expr.op})"
            return Fragment(sql, inner.params, inner.aggregate, inner.uses_regex)
        return self.binary(expr, allow_aggregates)

    def binary(self, expr: ast.Binary, allow_aggregates: bool) -> Fragment:
        left = self.compile(expr.left, allow_aggregates=allow_aggregates)
        agg = left.aggregate
        if expr.op == "IN":
            if not isinstance(expr.right, ast.ListLiteral):
                raise self.error("unsupported", "IN", expr.offset, "IN needs a list literal on its right")
            items = [self.compile(i) for i in expr.right.items]
            params = left.params + tuple(p for i in items for p in i.params)
            marks = ", ".join(i.sql for i in items)
            return Fragment(f"({left.sql} IN ({marks}))", params, agg, left.uses_regex)
        if expr.op == "=~":
            if not _is_string(expr.right):
                raise self.error("unsupported", "=~", expr.offset, "=~ needs a string literal pattern")
            pattern = str(expr.right.value)  # type: ignore[union-attr]
            reason = unsafe_reason(pattern)
            if reason:
                raise self.error(
                    "unsafe_regex", pattern, expr.right.offset, f"regular expression refused: {reason}"
                )
            return Fragment(f"{SQL_FUNCTION}(?, {left.sql})", (pattern, *left.params), agg, True)
        right = self.compile(expr.right, allow_aggregates=allow_aggregates)
        agg = agg or right.aggregate
        regex = left.uses_regex or right.uses_regex
        lp, rp = left.params, right.params
        if expr.op == "STARTS WITH":
            sql = f"(substr({left.sql}, 1, length({right.sql})) = {right.sql})"
            return Fragment(sql, lp + rp + rp, agg, regex)
        if expr.op == "ENDS WITH":
            sql = (
                f"(CASE WHEN {left.sql} IS NULL OR {right.sql} IS NULL THEN NULL "
                f"WHEN length({right.sql}) = 0 THEN 1 "
                f"ELSE substr({left.sql}, -length({right.sql})) = {right.sql} END)"
            )
            return Fragment(sql, lp + rp + rp + lp + rp + rp, agg, regex)
        if expr.op == "CONTAINS":
            return Fragment(f"(instr({left.sql}, {right.sql}) > 0)", lp + rp, agg, regex)
        if expr.op == "+" and (_is_string(expr.left) or _is_string(expr.right)):
            return Fragment(f"({left.sql} || {right.sql})", lp + rp, agg, regex)
        if (
            expr.op in ("=", "<>")
            and left.value_kind != right.value_kind
            and "value"
            not in (
                left.value_kind,
                right.value_kind,
            )
        ):
            raise self.error(
                "unsupported", expr.op, expr.offset, "a node cannot be compared with a relationship"
            )
        return Fragment(f"({left.sql} {expr.op} {right.sql})", lp + rp, agg, regex)

    def call(self, expr: ast.Call, allow_aggregates: bool) -> Fragment:
        name = expr.name
        if name in AGGREGATES:
            if not allow_aggregates:
                raise self.error(
                    "unsupported", name, expr.offset, f"{name}() is only allowed in RETURN and ORDER BY"
                )
            if expr.star:
                if name != "count":
                    raise self.error(
                        "syntax", name, expr.offset, f"{name}(*) is not a function; use count(*)"
                    )
                return Fragment("count(*)", (), aggregate=True)
            if len(expr.args) != 1:
                raise self.error("syntax", name, expr.offset, f"{name}() takes one argument")
            inner = self.compile(expr.args[0])
            if inner.aggregate:
                raise self.error("unsupported", name, expr.offset, "nested aggregates")
            distinct = "DISTINCT " if expr.distinct else ""
            if name == "collect":
                return Fragment(
                    f"json_group_array({distinct}{inner.sql})", inner.params, True, inner.uses_regex, "json"
                )
            return Fragment(f"{name}({distinct}{inner.sql})", inner.params, True, inner.uses_regex)
        if expr.star or expr.distinct:
            raise self.error("syntax", name, expr.offset, f"{name}() takes no * or DISTINCT")
        if name in ("type", "id", "labels"):
            if len(expr.args) != 1 or not isinstance(expr.args[0], ast.Variable):
                raise self.error("syntax", name, expr.offset, f"{name}() takes one variable")
            found = self.binding(expr.args[0])
            wanted = EDGE if name == "type" else NODE if name == "labels" else found.kind
            if found.kind != wanted:
                raise self.error("syntax", name, expr.offset, f"{name}() needs a {wanted} variable")
            column = {"type": "type", "id": "id", "labels": "labels"}[name]
            kind = "labels" if name == "labels" else "value"
            return Fragment(f"{found.alias}.{column}", (), value_kind=kind)
        if name == "coalesce":
            if not expr.args:
                raise self.error("syntax", name, expr.offset, "coalesce() needs arguments")
            parts = [self.compile(a, allow_aggregates=allow_aggregates) for a in expr.args]
            sql = parts[0].sql if len(parts) == 1 else f"coalesce({', '.join(p.sql for p in parts)})"
            return Fragment(
                sql,
                tuple(x for p in parts for x in p.params),
                any(p.aggregate for p in parts),
                any(p.uses_regex for p in parts),
            )
        if name in SCALAR_FUNCTIONS:
            template, arity = SCALAR_FUNCTIONS[name]
            if len(expr.args) != arity:
                raise self.error("syntax", name, expr.offset, f"{name}() takes {arity} argument(s)")
            parts = [self.compile(a, allow_aggregates=allow_aggregates) for a in expr.args]
            return Fragment(
                template.format(*(p.sql for p in parts)),
                tuple(x for p in parts for x in p.params),
                any(p.aggregate for p in parts),
                any(p.uses_regex for p in parts),
            )
        known = sorted(AGGREGATES | set(SCALAR_FUNCTIONS) | {"type", "id", "labels", "coalesce"})
        raise self.error(
            "unsupported", name, expr.offset, f"function {name}() (supported: {', '.join(known)})"
        )

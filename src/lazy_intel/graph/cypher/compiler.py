"""A parsed query -> one SQLite SELECT over ``nodes``/``edges`` with bound parameters (pure).

- Every node pattern is a ``nodes`` alias, every single relationship an ``edges`` alias joined on
  ``src``/``dst`` (both ways for ``--``). A relationship whose other end is an anonymous, unconstrained
  ``()`` at the end of a path is not joined to it, so unresolved edges (``dst`` NULL) match there.
- A variable-length relationship ``*min..max`` is a recursive CTE over (start, node, depth), seeded
  from the end that has constraints (labels, properties, WHERE conjuncts on it alone); ``max`` is
  capped at ``max_hops``. It yields each reachable (start, end) pair once, not one row per path.
- Rows are ordered (the user's ORDER BY, then every returned column) so paging is stable, and
  bounded: ``LIMIT min(user limit, max_rows + 1)`` — the extra row tells the caller it was cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lazy_intel.graph.cypher import ast
from lazy_intel.graph.cypher.errors import CypherError
from lazy_intel.graph.cypher.expressions import (
    EDGE,
    EDGE_FIELDS,
    NODE,
    NODE_FIELDS,
    PATH,
    Binding,
    ExpressionCompiler,
    Fragment,
    split_and,
    variables_of,
)
from lazy_intel.graph.cypher.paths import walk_cte
from lazy_intel.graph.cypher.regex import SQL_FUNCTION
from lazy_intel.graph.rows import EDGE_TYPES, NODE_LABELS


@dataclass(frozen=True)
class Column:
    """One returned column: ``kind`` node/edge (``width`` SQL columns, the fields above) or a value."""

    name: str
    kind: str  # "node" | "edge" | "value" | "json" | "labels"
    width: int


@dataclass(frozen=True)
class CompiledQuery:
    sql: str
    params: tuple[object, ...]
    columns: tuple[Column, ...]
    row_cap: int  # rows beyond this were cut (the SQL asks for one more to tell)
    capped_hops: tuple[str, ...] = ()  # variable-length relationships whose max was capped
    uses_regex: bool = False
    variable_length: bool = False  # has a *min..max relationship


@dataclass
class _VarLength:
    rel: ast.RelPattern
    left: Binding
    right: Binding
    cte: str
    alias: str


@dataclass
class _State:
    text: str
    bindings: dict[str, Binding] = field(default_factory=dict)
    from_items: list[str] = field(default_factory=list)
    where: list[Fragment] = field(default_factory=list)
    node_conditions: dict[str, list[Fragment]] = field(default_factory=dict)  # by alias, alias-relative
    var_lengths: list[_VarLength] = field(default_factory=list)
    capped: list[str] = field(default_factory=list)
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


def _label_condition(
    alias: str, groups: tuple[tuple[str, ...], ...], node: ast.NodePattern, text: str
) -> list[Fragment]:
    out: list[Fragment] = []
    for group in groups:
        for label in group:
            if label not in NODE_LABELS:
                raise CypherError(
                    "unknown_label",
                    label,
                    node.offset,
                    text,
                    f"unknown label {label!r} (labels: {', '.join(NODE_LABELS)})",
                )
        sql = " OR ".join(f"instr({alias}.labels, ?) > 0" for _ in group)
        out.append(Fragment(f"({sql})", tuple(f" {label} " for label in group)))
    return out


def _property_conditions(
    compiler: ExpressionCompiler, var: ast.Variable, entries: tuple[tuple[str, ast.Expr], ...]
) -> list[Fragment]:
    out: list[Fragment] = []
    for key, value in entries:
        if not isinstance(value, ast.Literal):
            raise compiler.error("unsupported", key, var.offset, "property map values must be literals")
        prop = compiler.property(ast.Property(var, key, var.offset))
        lit = compiler.compile(value)
        out.append(Fragment(f"({prop.sql} = {lit.sql})", prop.params + lit.params))
    return out


def _is_free(node: ast.NodePattern) -> bool:
    return node.variable is None and not node.labels and not node.properties


# A path end whose variable is used nowhere else: the relationship needs a node there (so not an
# unresolved edge) but joining ``nodes`` to find it would only cost time.
_EXISTS = Binding(NODE, "", -1)


def _single_use_variables(query: ast.Query) -> set[str]:
    """Node variables written once in the patterns and never in WHERE, RETURN or ORDER BY."""
    counts: dict[str, int] = {}
    elsewhere: set[str] = set()
    for match in query.matches:
        for path in match.patterns:
            for node in path.nodes:
                if node.variable is not None:
                    counts[node.variable] = counts.get(node.variable, 0) + 1
            for rel in path.rels:
                if rel.variable is not None:
                    elsewhere.add(rel.variable)
        if match.where is not None:
            elsewhere |= variables_of(match.where)
    for item in query.items:
        elsewhere |= variables_of(item.expr)
        if item.alias:
            elsewhere.add(item.alias)
    for sort in query.order:
        elsewhere |= variables_of(sort.expr)
    return {name for name, n in counts.items() if n == 1 and name not in elsewhere}


class _Compiler:
    def __init__(self, query: ast.Query, max_rows: int, max_hops: int) -> None:
        self.query = query
        self.max_rows = max_rows
        self.max_hops = max_hops
        self.state = _State(query.text)
        self.exprs = ExpressionCompiler(self.state.bindings, query.text)
        self.single_use = _single_use_variables(query)

    def error(self, reason: str, construct: str, offset: int, detail: str) -> CypherError:
        return CypherError(reason, construct, offset, self.query.text, detail)

    # ---- patterns
    def bind_node(self, node: ast.NodePattern) -> Binding:
        st = self.state
        if node.variable is not None and node.variable in st.bindings:
            found = st.bindings[node.variable]
            if found.kind != NODE:
                raise self.error(
                    "unsupported", node.variable, node.offset, f"{node.variable!r} is bound to a relationship"
                )
        else:
            found = Binding(NODE, st.fresh("n"), node.offset)
            st.from_items.append(f"nodes AS {found.alias}")
            if node.variable is not None:
                st.bindings[node.variable] = found
        conditions = st.node_conditions.setdefault(found.alias, [])
        conditions.extend(_label_condition(found.alias, node.labels, node, self.query.text))
        if node.properties:
            name = node.variable or f"\x00{found.alias}"
            st.bindings.setdefault(name, found)
            conditions.extend(
                _property_conditions(self.exprs, ast.Variable(name, node.offset), node.properties)
            )
            if node.variable is None:
                del st.bindings[name]
        return found

    def rel_types(self, rel: ast.RelPattern) -> tuple[str, tuple[object, ...]]:
        for name in rel.types:
            if name not in EDGE_TYPES:
                raise self.error(
                    "unknown_type",
                    name,
                    rel.offset,
                    f"unknown relationship type {name!r} (types: {', '.join(EDGE_TYPES)})",
                )
        if not rel.types:
            return "", ()
        return "{a}.type IN (" + ", ".join("?" for _ in rel.types) + ")", tuple(rel.types)

    def single(
        self, rel: ast.RelPattern, left: Binding | None, right: Binding | None, edge_aliases: list[str]
    ) -> None:
        st = self.state
        if rel.variable is not None and rel.variable in st.bindings:
            raise self.error(
                "unsupported",
                rel.variable,
                rel.offset,
                f"relationship variable {rel.variable!r} is used twice",
            )
        alias = st.fresh("e")
        binding = Binding(EDGE, alias, rel.offset)
        st.from_items.append(f"edges AS {alias}")
        if rel.variable is not None:
            st.bindings[rel.variable] = binding
        types_sql, types_params = self.rel_types(rel)
        if types_sql:
            st.where.append(Fragment(types_sql.format(a=alias), types_params))
        src, dst = (left, right) if rel.direction != "in" else (right, left)

        def side(column: str, end: Binding | None) -> str | None:
            if end is None:
                return None
            if end is _EXISTS:  # a named end used nowhere else: any node, but a node
                return f"{alias}.{column} IS NOT NULL"
            return f"{alias}.{column} = {end.alias}.id"

        joins = [j for j in (side("src", src), side("dst", dst)) if j]
        back = [j for j in (side("dst", src), side("src", dst)) if j]
        if rel.direction == "both" and all(e is None or e is _EXISTS for e in (src, dst)):
            # neither end is joined: like Cypher, one row per relationship and orientation
            st.from_items.append(f"(SELECT 0 AS o UNION ALL SELECT 1) AS {alias}_o")
            forward = " AND ".join([f"{alias}_o.o = 0", *joins])
            backward = " AND ".join([f"{alias}_o.o = 1", *back])
            st.where.append(Fragment(f"(({forward}) OR ({backward}))", ()))
        elif rel.direction == "both":
            st.where.append(Fragment(f"(({' AND '.join(joins)}) OR ({' AND '.join(back)}))", ()))
        else:
            st.where.extend(Fragment(j, ()) for j in joins)
        if rel.properties:
            name = rel.variable or f"\x00{alias}"
            st.bindings.setdefault(name, binding)
            st.where.extend(_property_conditions(self.exprs, ast.Variable(name, rel.offset), rel.properties))
            if rel.variable is None:
                del st.bindings[name]
        edge_aliases.append(alias)

    def variable_length(self, rel: ast.RelPattern, left: Binding, right: Binding) -> None:
        st = self.state
        if rel.properties:
            raise self.error(
                "unsupported", "{...}", rel.offset, "property maps on variable-length relationships"
            )
        if rel.variable is not None:
            if rel.variable in st.bindings:
                raise self.error(
                    "unsupported",
                    rel.variable,
                    rel.offset,
                    f"relationship variable {rel.variable!r} is used twice",
                )
            st.bindings[rel.variable] = Binding(PATH, "", rel.offset)
        low = rel.min_hops if rel.min_hops is not None else 1
        high = rel.max_hops
        if high is not None and high < low:
            raise self.error("syntax", "*", rel.offset, f"the hop range {low}..{high} is empty")
        if high is None or high > self.max_hops:
            st.capped.append(f"{rel.variable or '*'} at {self.query.text[rel.offset : rel.offset + 30]!r}")
        self.rel_types(rel)  # validate now, at the pattern's position
        cte = st.fresh("vl")
        alias = st.fresh("v")
        st.var_lengths.append(_VarLength(rel, left, right, cte, alias))
        st.from_items.append(f"{cte}_pairs AS {alias}")

    def pattern(self, path: ast.PathPattern, edge_aliases: list[str]) -> None:
        last = len(path.nodes) - 1
        bound: list[Binding | None] = []
        for i, node in enumerate(path.nodes):
            rels = [path.rels[j] for j in (i - 1, i) if 0 <= j < len(path.rels)]
            at_end = i in (0, last) and len(rels) == 1 and not rels[0].variable_length
            if at_end and _is_free(node):
                bound.append(None)
            elif at_end and node.variable in self.single_use and not node.labels and not node.properties:
                bound.append(_EXISTS)
            else:
                bound.append(self.bind_node(node))
        for i, rel in enumerate(path.rels):
            left, right = bound[i], bound[i + 1]
            if rel.variable_length:
                assert left is not None and right is not None
                self.variable_length(rel, left, right)
            else:
                self.single(rel, left, right, edge_aliases)

    # ---- variable-length CTEs
    def seed_conditions(self, target: Binding, conjuncts: list[ast.Expr]) -> list[Fragment]:
        """Conditions on ``target`` alone, rewritten onto the seed alias ``s``."""
        out = [
            Fragment(re.sub(rf"\b{target.alias}\.", "s.", f.sql), f.params)
            for f in self.state.node_conditions.get(target.alias, [])
        ]
        names = [n for n, b in self.state.bindings.items() if b is target]
        for expr in conjuncts:
            used = variables_of(expr)
            if used and all(n in names for n in used):
                seeded = dict(self.state.bindings)
                for n in names:
                    seeded[n] = Binding(NODE, "s", target.offset)
                out.append(ExpressionCompiler(seeded, self.query.text).compile(expr))
        return out

    def cte(self, vl: _VarLength, conjuncts: list[ast.Expr]) -> Fragment:
        rel = vl.rel
        low = rel.min_hops if rel.min_hops is not None else 1
        high = min(rel.max_hops if rel.max_hops is not None else self.max_hops, self.max_hops)
        types_sql, types_params = self.rel_types(rel)
        left_seed = self.seed_conditions(vl.left, conjuncts)
        right_seed = [] if left_seed else self.seed_conditions(vl.right, conjuncts)
        forward = bool(left_seed) or not right_seed
        seed = left_seed if forward else right_seed
        direction = rel.direction
        if not forward:
            direction = {"out": "in", "in": "out", "both": "both"}[direction]
        walk = walk_cte(
            vl.cte, direction, seed, low=low, high=high, types_sql=types_sql, types_params=types_params
        )
        start, end = (vl.left, vl.right) if forward else (vl.right, vl.left)
        self.state.where.append(
            Fragment(f"{vl.alias}.start = {start.alias}.id AND {vl.alias}.node = {end.alias}.id", ())
        )
        return walk

    # ---- projection
    def returns(self) -> tuple[list[str], list[object], list[Column], list[str], list[list[str]], bool]:
        select: list[str] = []
        params: list[object] = []
        columns: list[Column] = []
        group: list[str] = []
        order_keys: list[list[str]] = []  # per column; a node or edge sorts by path, position, id
        any_aggregate = False
        seen: set[str] = set()
        for index, item in enumerate(self.query.items):
            name = item.alias or item.text
            if name in seen:
                raise self.error(
                    "syntax", name, item.offset, f"column {name!r} is returned twice; add AS aliases"
                )
            seen.add(name)
            alias = f"c{index}"
            frag = self.exprs.compile(item.expr, allow_aggregates=True)
            any_aggregate = any_aggregate or frag.aggregate
            if frag.value_kind in (NODE, EDGE) and isinstance(item.expr, ast.Variable):
                found = self.state.bindings[item.expr.name]
                fields = NODE_FIELDS if found.kind == NODE else EDGE_FIELDS
                select.append(f"{found.alias}.id AS {alias}")
                select.extend(f"{found.alias}.{f} AS {alias}_{f}" for f in fields[1:])
                columns.append(Column(name, found.kind, len(fields)))
                group.append(f"{found.alias}.id")
                order_keys.append([f"{alias}_path", f"{alias}_start_byte", alias])
            else:
                select.append(f"{frag.sql} AS {alias}")
                params.extend(frag.params)
                kind = frag.value_kind if frag.value_kind in ("json", "labels") else "value"
                columns.append(Column(name, kind, 1))
                if not frag.aggregate:
                    group.append(alias)
                order_keys.append([alias])
        return select, params, columns, group, order_keys, any_aggregate

    def order(self, columns: list[Column], keys: list[list[str]]) -> tuple[list[str], list[object]]:
        terms: list[str] = []
        params: list[object] = []
        aliases = {c.name: keys[i] for i, c in enumerate(columns)}
        returned = {}
        for i, item in enumerate(self.query.items):
            frag = self.exprs.compile(item.expr, allow_aggregates=True)
            returned[(frag.sql, frag.params)] = keys[i]
        for sort in self.query.order:
            direction = " DESC" if sort.descending else ""
            if (
                isinstance(sort.expr, ast.Variable)
                and sort.expr.name in aliases
                and sort.expr.name not in self.state.bindings
            ):
                terms.extend(k + direction for k in aliases[sort.expr.name])
                continue
            frag = self.exprs.compile(sort.expr, allow_aggregates=True)
            if (frag.sql, frag.params) in returned:
                terms.extend(k + direction for k in returned[(frag.sql, frag.params)])
            elif isinstance(sort.expr, ast.Variable) and not self.query.distinct:
                alias = self.state.bindings[sort.expr.name].alias
                terms.extend(f"{alias}.{k}{direction}" for k in ("path", "start_byte", "id"))
            elif self.query.distinct:
                raise self.error(
                    "unsupported",
                    "ORDER BY",
                    sort.offset,
                    "with DISTINCT, ORDER BY must use returned columns",
                )
            else:
                terms.append(frag.sql + direction)
                params.extend(frag.params)
        return terms, params

    def compile(self) -> CompiledQuery:
        query = self.query
        conjuncts: list[ast.Expr] = []
        for match in query.matches:
            edge_aliases: list[str] = []
            for path in match.patterns:
                self.pattern(path, edge_aliases)
            for i, a in enumerate(edge_aliases):  # a relationship is matched once per MATCH
                for b in edge_aliases[i + 1 :]:
                    self.state.where.append(Fragment(f"{a}.id <> {b}.id", ()))
            conjuncts.extend(split_and(match.where))
        st = self.state
        ctes = [self.cte(vl, conjuncts) for vl in st.var_lengths]  # adds their join conditions
        where = [f for alias_conds in st.node_conditions.values() for f in alias_conds]
        where.extend(st.where)
        where.extend(self.exprs.compile(expr) for expr in conjuncts)
        select, select_params, columns, group, order_keys, aggregate = self.returns()
        order_terms, order_params = self.order(columns, order_keys)
        row_cap = self.max_rows if query.limit is None else min(query.limit, self.max_rows)
        fetch = row_cap + 1 if query.limit is None or query.limit > self.max_rows else row_cap
        sql_parts: list[str] = []
        params: list[object] = []
        if ctes:
            sql_parts.append("WITH RECURSIVE " + ", ".join(c.sql for c in ctes))
            params.extend(p for c in ctes for p in c.params)
        sql_parts.append(("SELECT DISTINCT " if query.distinct else "SELECT ") + ", ".join(select))
        params.extend(select_params)
        sql_parts.append("FROM " + ", ".join(st.from_items))
        if where:
            sql_parts.append("WHERE " + " AND ".join(f.sql for f in where))
            params.extend(p for f in where for p in f.params)
        if aggregate and group:
            sql_parts.append("GROUP BY " + ", ".join(group))
        sql_parts.append("ORDER BY " + ", ".join([*order_terms, *(k for ks in order_keys for k in ks)]))
        params.extend(order_params)
        sql_parts.append("LIMIT ? OFFSET ?")
        params.extend([fetch, query.skip or 0])
        sql = "\n".join(sql_parts)
        return CompiledQuery(
            sql,
            tuple(params),
            tuple(columns),
            row_cap,
            tuple(st.capped),
            SQL_FUNCTION in sql,
            bool(st.var_lengths),
        )


def compile_query(query: ast.Query, *, max_rows: int, max_hops: int) -> CompiledQuery:
    """SQL for ``query``: bounded to ``max_rows`` (+1 probe row) and ``max_hops`` per variable-length path."""
    return _Compiler(query, max_rows, max_hops).compile()

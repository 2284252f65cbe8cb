"""Recursive-descent parser of the read-only Cypher subset -> :class:`~.ast.Query`.

Grammar (keywords case-insensitive)::

    query    := match+ RETURN [DISTINCT] item ("," item)* [ORDER BY sort ("," sort)*]
                [SKIP int] [LIMIT int] [";"]
    match    := MATCH path ("," path)* [WHERE expr]
    path     := node (rel node)*
    node     := "(" [var] (":" label ("|" label)*)* [map] ")"
    rel      := ("-" | "<-") ["[" [var] [":" type ("|" type)*] ["*" [int] [".." [int]]] [map] "]"]
                ("-" | "->")
    expr     := or-chains of AND / NOT / comparisons (= <> < > <= >= =~, STARTS WITH, ENDS WITH,
                CONTAINS, IN, IS [NOT] NULL) over literals, lists, var, var.key, function calls

Anything else (write clauses, OPTIONAL MATCH, WITH, UNWIND, UNION, CALL, parameters, CASE, pattern
predicates) is refused with a :class:`CypherError` that names the construct and its position.
"""

from __future__ import annotations

from lazy_intel.graph.cypher import ast
from lazy_intel.graph.cypher.errors import CypherError
from lazy_intel.graph.cypher.lexer import (
    END,
    FLOAT,
    INTEGER,
    NAME,
    PARAM,
    PUNCT,
    QUOTED,
    STRING,
    Token,
    tokenize,
)

MAX_QUERY_CHARS = 20_000
# Bounds that keep parsing and compiling iterative-safe (a deeper query is refused, never a crash):
# brackets, NOT and unary minus nest at most MAX_NESTING deep; an expression tree (chains of AND, +, …
# included) is at most MAX_EXPRESSION_DEPTH deep. Integers are 64-bit, as in Cypher and SQLite.
MAX_NESTING = 64
MAX_EXPRESSION_DEPTH = 128
MAX_INTEGER = 2**63 - 1

WRITE_CLAUSES = frozenset({"CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "FOREACH", "LOAD"})
UNSUPPORTED_CLAUSES = frozenset(
    {
        "OPTIONAL",
        "WITH",
        "UNWIND",
        "UNION",
        "CALL",
        "USE",
        "USING",
        "YIELD",
        "SHOW",
        "START",
        "EXPLAIN",
        "PROFILE",
    }
)
UNSUPPORTED_EXPRESSIONS = frozenset(
    {"CASE", "EXISTS", "ALL", "ANY", "NONE", "SINGLE", "REDUCE", "XOR", "COUNT{"}
)
RESERVED = frozenset(
    {"MATCH", "WHERE", "RETURN", "ORDER", "BY", "SKIP", "LIMIT", "AS", "DISTINCT", "AND", "OR", "NOT", "IN"}
    | {"STARTS", "ENDS", "CONTAINS", "IS", "NULL", "TRUE", "FALSE", "ASC", "DESC", "ASCENDING", "DESCENDING"}
    | WRITE_CLAUSES
    | UNSUPPORTED_CLAUSES
)
COMPARISONS = ("=", "<>", "!=", "<", ">", "<=", ">=", "=~")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.nesting = 0

    def nest(self, token: Token) -> None:
        """Enter one more level of nesting at ``token`` (leave with ``self.nesting -= 1``)."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise CypherError(
                "unsupported",
                "nesting",
                token.offset,
                self.text,
                f"expressions nested more than {MAX_NESTING} levels deep are not supported",
            )

    def checked_integer(self, token: Token) -> int:
        value = int(token.text)
        if value > MAX_INTEGER:
            raise self.error(f"integer {token.text[:30]} is out of range (at most {MAX_INTEGER})", token)
        return value

    # ---- token helpers
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind != END:
            self.pos += 1
        return token

    def shown(self, token: Token) -> str:
        return "end of query" if token.kind == END else self.text[token.offset : token.end]

    def error(self, detail: str, token: Token | None = None) -> CypherError:
        token = token or self.tok
        return CypherError("syntax", self.shown(token), token.offset, self.text, detail)

    def unsupported(self, construct: str, token: Token, why: str) -> CypherError:
        return CypherError(
            "unsupported", construct, token.offset, self.text, f"{construct} is not supported: {why}"
        )

    def expect_punct(self, mark: str, what: str) -> Token:
        if not self.tok.is_punct(mark):
            raise self.error(f"expected {mark!r} {what}, found {self.shown(self.tok)!r}")
        return self.advance()

    def expect_keyword(self, word: str) -> Token:
        if not self.tok.is_keyword(word):
            raise self.error(f"expected {word}, found {self.shown(self.tok)!r}")
        return self.advance()

    def clause_error(self, token: Token, expected: str) -> CypherError:
        word = token.text.upper() if token.kind == NAME else ""
        if word in WRITE_CLAUSES:
            return self.unsupported(word, token, "the query operation is read-only")
        if word in UNSUPPORTED_CLAUSES:
            return self.unsupported(word, token, "this subset has MATCH ... WHERE ... RETURN only")
        return self.error(f"expected {expected}, found {self.shown(token)!r}", token)

    def name(self, what: str) -> Token:
        token = self.tok
        if token.kind == QUOTED or (token.kind == NAME and token.text.upper() not in RESERVED):
            return self.advance()
        raise self.error(f"expected {what}, found {self.shown(token)!r}")

    def symbol_name(self, what: str) -> Token:
        """A label or relationship type: any name, keywords included (``:CALL`` is a type name)."""
        if self.tok.kind in (NAME, QUOTED):
            return self.advance()
        raise self.error(f"expected {what}, found {self.shown(self.tok)!r}")

    def integer(self, what: str) -> int:
        token = self.tok
        if token.kind == PARAM:
            raise self.unsupported("$" + token.text, token, "parameters; write the value in the query")
        if token.kind != INTEGER:
            raise self.error(f"expected an integer {what}, found {self.shown(token)!r}")
        self.advance()
        return self.checked_integer(token)

    # ---- query
    def query(self) -> ast.Query:
        matches: list[ast.Match] = []
        while self.tok.is_keyword("MATCH"):
            matches.append(self.match())
        if not matches:
            raise self.clause_error(self.tok, "MATCH")
        if not self.tok.is_keyword("RETURN"):
            raise self.clause_error(self.tok, "MATCH, WHERE or RETURN")
        self.advance()
        distinct = False
        if self.tok.is_keyword("DISTINCT"):
            self.advance()
            distinct = True
        if self.tok.is_punct("*"):
            raise self.unsupported("RETURN *", self.tok, "name the variables or properties to return")
        items = [self.return_item()]
        while self.tok.is_punct(","):
            self.advance()
            items.append(self.return_item())
        order: list[ast.SortItem] = []
        if self.tok.is_keyword("ORDER"):
            self.advance()
            self.expect_keyword("BY")
            order.append(self.sort_item())
            while self.tok.is_punct(","):
                self.advance()
                order.append(self.sort_item())
        skip = limit = None
        if self.tok.is_keyword("SKIP", "OFFSET"):
            self.advance()
            skip = self.integer("after SKIP")
        if self.tok.is_keyword("LIMIT"):
            self.advance()
            limit = self.integer("after LIMIT")
        if self.tok.is_punct(";"):
            self.advance()
        if self.tok.kind != END:
            raise self.clause_error(self.tok, "ORDER BY, SKIP, LIMIT or the end of the query")
        return ast.Query(tuple(matches), distinct, tuple(items), tuple(order), skip, limit, self.text)

    def match(self) -> ast.Match:
        start = self.advance()
        patterns = [self.path()]
        while self.tok.is_punct(","):
            self.advance()
            patterns.append(self.path())
        where = None
        if self.tok.is_keyword("WHERE"):
            self.advance()
            where = self.expr()
        return ast.Match(tuple(patterns), where, start.offset)

    # ---- patterns
    def path(self) -> ast.PathPattern:
        start = self.tok
        if self.tok.kind in (NAME, QUOTED) and self.peek().is_punct("="):
            raise self.unsupported("path variable", start, "name the nodes and relationships instead")
        if not self.tok.is_punct("("):
            raise self.error(f"expected '(' to start a node pattern, found {self.shown(self.tok)!r}")
        nodes = [self.node()]
        rels: list[ast.RelPattern] = []
        while self.tok.is_punct("-", "<-"):
            rels.append(self.rel())
            nodes.append(self.node())
        return ast.PathPattern(tuple(nodes), tuple(rels), start.offset)

    def node(self) -> ast.NodePattern:
        start = self.expect_punct("(", "to start a node pattern")
        variable = None
        if self.tok.kind in (NAME, QUOTED) and not self.tok.is_punct(":"):
            variable = self.name("a variable").text
        labels: list[tuple[str, ...]] = []
        while self.tok.is_punct(":"):
            self.advance()
            group = [self.symbol_name("a label").text]
            while self.tok.is_punct("|"):
                self.advance()
                if self.tok.is_punct(":"):
                    self.advance()
                group.append(self.symbol_name("a label").text)
            labels.append(tuple(group))
        props = self.property_map() if self.tok.is_punct("{") else ()
        if self.tok.kind == PARAM:
            raise self.unsupported("$" + self.tok.text, self.tok, "parameters; write the value in the query")
        self.expect_punct(")", "to close the node pattern")
        return ast.NodePattern(variable, tuple(labels), props, start.offset)

    def rel(self) -> ast.RelPattern:
        start = self.advance()
        left_arrow = start.text == "<-"
        variable = None
        types: list[str] = []
        props: tuple[tuple[str, ast.Expr], ...] = ()
        min_hops = max_hops = None
        variable_length = False
        if self.tok.is_punct("["):
            self.advance()
            if self.tok.kind in (NAME, QUOTED):
                variable = self.name("a relationship variable").text
            if self.tok.is_punct(":"):
                self.advance()
                types.append(self.symbol_name("a relationship type").text)
                while self.tok.is_punct("|"):
                    self.advance()
                    if self.tok.is_punct(":"):
                        self.advance()
                    types.append(self.symbol_name("a relationship type").text)
            if self.tok.is_punct("*"):
                self.advance()
                variable_length = True
                if self.tok.kind == INTEGER:
                    min_hops = self.checked_integer(self.advance())
                    if not self.tok.is_punct(".."):
                        max_hops = min_hops
                if self.tok.is_punct(".."):
                    self.advance()
                    if self.tok.kind == INTEGER:
                        max_hops = self.checked_integer(self.advance())
                if min_hops is None:
                    min_hops = 1
            if self.tok.is_punct("{"):
                props = self.property_map()
            self.expect_punct("]", "to close the relationship pattern")
        if self.tok.is_punct("->"):
            if left_arrow:
                raise self.error("a relationship cannot point both ways", self.tok)
            direction = "out"
        elif self.tok.is_punct("-"):
            direction = "in" if left_arrow else "both"
        else:
            raise self.error(f"expected '-' or '->' to end the relationship, found {self.shown(self.tok)!r}")
        self.advance()
        return ast.RelPattern(
            variable, tuple(types), direction, props, start.offset, min_hops, max_hops, variable_length
        )

    def property_map(self) -> tuple[tuple[str, ast.Expr], ...]:
        self.expect_punct("{", "to start a property map")
        entries: list[tuple[str, ast.Expr]] = []
        if not self.tok.is_punct("}"):
            while True:
                key = self.tok
                if key.kind not in (NAME, QUOTED):
                    raise self.error(f"expected a property name, found {self.shown(key)!r}")
                self.advance()
                self.expect_punct(":", "after the property name")
                entries.append((key.text, self.expr()))
                if not self.tok.is_punct(","):
                    break
                self.advance()
        self.expect_punct("}", "to close the property map")
        return tuple(entries)

    # ---- projection
    def return_item(self) -> ast.ReturnItem:
        start = self.tok
        expr = self.expr()
        end = self.tokens[self.pos - 1].end
        alias = None
        if self.tok.is_keyword("AS"):
            self.advance()
            alias = self.name("an alias after AS").text
        return ast.ReturnItem(expr, alias, self.text[start.offset : end], start.offset)

    def sort_item(self) -> ast.SortItem:
        start = self.tok
        expr = self.expr()
        descending = False
        if self.tok.is_keyword("ASC", "ASCENDING"):
            self.advance()
        elif self.tok.is_keyword("DESC", "DESCENDING"):
            self.advance()
            descending = True
        return ast.SortItem(expr, descending, start.offset)

    # ---- expressions
    def expr(self) -> ast.Expr:
        self.nest(self.tok)
        left = self.and_expr()
        while self.tok.is_keyword("OR", "XOR"):
            op = self.advance()
            if op.text.upper() == "XOR":
                raise self.unsupported("XOR", op, "write (a OR b) AND NOT (a AND b)")
            left = ast.Binary("OR", left, self.and_expr(), op.offset)
        self.nesting -= 1
        return left

    def and_expr(self) -> ast.Expr:
        left = self.not_expr()
        while self.tok.is_keyword("AND"):
            op = self.advance()
            left = ast.Binary("AND", left, self.not_expr(), op.offset)
        return left

    def not_expr(self) -> ast.Expr:
        if self.tok.is_keyword("NOT"):
            op = self.advance()
            self.nest(op)
            operand = self.not_expr()
            self.nesting -= 1
            return ast.Unary("NOT", operand, op.offset)
        return self.comparison()

    def comparison(self) -> ast.Expr:
        left = self.additive()
        token = self.tok
        if token.kind == PUNCT and token.text in COMPARISONS:
            self.advance()
            op = "<>" if token.text == "!=" else token.text
            left = ast.Binary(op, left, self.additive(), token.offset)
        elif token.is_keyword("STARTS", "ENDS"):
            self.advance()
            self.expect_keyword("WITH")
            left = ast.Binary(f"{token.text.upper()} WITH", left, self.additive(), token.offset)
        elif token.is_keyword("CONTAINS", "IN"):
            self.advance()
            left = ast.Binary(token.text.upper(), left, self.additive(), token.offset)
        if self.tok.is_keyword("IS"):
            op = self.advance()
            negate = False
            if self.tok.is_keyword("NOT"):
                self.advance()
                negate = True
            self.expect_keyword("NULL")
            left = ast.Unary("IS NOT NULL" if negate else "IS NULL", left, op.offset)
        if self.tok.kind == PUNCT and self.tok.text in COMPARISONS:
            raise self.unsupported("chained comparison", self.tok, "combine comparisons with AND")
        return left

    def additive(self) -> ast.Expr:
        left = self.multiplicative()
        while self.tok.is_punct("+", "-"):
            op = self.advance()
            left = ast.Binary(op.text, left, self.multiplicative(), op.offset)
        return left

    def multiplicative(self) -> ast.Expr:
        left = self.unary()
        while self.tok.is_punct("*", "/", "%"):
            op = self.advance()
            left = ast.Binary(op.text, left, self.unary(), op.offset)
        return left

    def unary(self) -> ast.Expr:
        if self.tok.is_punct("-"):
            op = self.advance()
            self.nest(op)
            operand = self.unary()
            self.nesting -= 1
            return ast.Unary("-", operand, op.offset)
        if self.tok.is_punct("+"):
            self.advance()
        return self.atom()

    def atom(self) -> ast.Expr:
        token = self.tok
        if token.kind == STRING:
            self.advance()
            return ast.Literal(token.text, token.offset)
        if token.kind == INTEGER:
            self.advance()
            return ast.Literal(self.checked_integer(token), token.offset)
        if token.kind == FLOAT:
            self.advance()
            return ast.Literal(float(token.text), token.offset)
        if token.kind == PARAM:
            raise self.unsupported("$" + token.text, token, "parameters; write the value in the query")
        if token.is_punct("["):
            self.advance()
            items: list[ast.Expr] = []
            if not self.tok.is_punct("]"):
                items.append(self.expr())
                while self.tok.is_punct(","):
                    self.advance()
                    items.append(self.expr())
            self.expect_punct("]", "to close the list")
            return ast.ListLiteral(tuple(items), token.offset)
        if token.is_punct("("):
            self.advance()
            if self.tok.is_punct(")") or self.peek().is_punct(":"):
                raise self.unsupported("pattern predicate", token, "patterns belong in MATCH")
            inner = self.expr()
            self.expect_punct(")", "to close the parenthesis")
            if self.tok.is_punct("-", "<-"):
                raise self.unsupported("pattern predicate", token, "patterns belong in MATCH")
            return inner
        if token.kind == NAME:
            word = token.text.upper()
            if word in {"TRUE", "FALSE"}:
                self.advance()
                return ast.Literal(word == "TRUE", token.offset)
            if word == "NULL":
                self.advance()
                return ast.Literal(None, token.offset)
            if word in UNSUPPORTED_EXPRESSIONS:
                raise self.unsupported(word, token, "not in this subset")
            if self.peek().is_punct("("):
                return self.call()
        if token.kind in (NAME, QUOTED):
            var = ast.Variable(self.name("an expression").text, token.offset)
            if self.tok.is_punct("."):
                self.advance()
                key = self.tok
                if key.kind not in (NAME, QUOTED):
                    raise self.error(f"expected a property name after '.', found {self.shown(key)!r}")
                self.advance()
                if self.tok.is_punct("."):
                    raise self.unsupported("nested property", self.tok, "one level of var.property only")
                return ast.Property(var, key.text, token.offset)
            return var
        raise self.error(f"expected an expression, found {self.shown(token)!r}")

    def call(self) -> ast.Call:
        name = self.advance()
        self.expect_punct("(", "after the function name")
        if self.tok.is_punct("*"):
            self.advance()
            self.expect_punct(")", "after count(*")
            return ast.Call(name.text.lower(), (), name.offset, star=True)
        distinct = False
        if self.tok.is_keyword("DISTINCT"):
            self.advance()
            distinct = True
        args: list[ast.Expr] = []
        if not self.tok.is_punct(")"):
            args.append(self.expr())
            while self.tok.is_punct(","):
                self.advance()
                args.append(self.expr())
        self.expect_punct(")", "to close the function call")
        return ast.Call(name.text.lower(), tuple(args), name.offset, distinct=distinct)


def parse_query(text: str) -> ast.Query:
    """Parse ``text``; raise :class:`CypherError` (INVALID_ARGUMENT) with a position when it is not the subset."""
    if len(text) > MAX_QUERY_CHARS:
        raise CypherError(
            "syntax", text[:20], 0, text, f"query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}"
        )
    if not text.strip():
        raise CypherError("syntax", "", 0, text, "empty query")
    query = _Parser(text).query()
    _check_depth(query, text)
    return query


def _check_depth(query: ast.Query, text: str) -> None:
    """Refuse an expression tree deeper than :data:`MAX_EXPRESSION_DEPTH` (long chains of ``AND`` or
    ``+`` nest without brackets); walked without recursion."""
    stack: list[tuple[object, int]] = [(query, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_EXPRESSION_DEPTH:
            offset = getattr(node, "offset", 0)
            raise CypherError(
                "unsupported",
                "expression depth",
                offset if isinstance(offset, int) else 0,
                text,
                f"expressions more than {MAX_EXPRESSION_DEPTH} operators deep are not supported; "
                "split the condition or use IN [list]",
            )
        if isinstance(node, tuple | list):
            stack.extend((child, depth) for child in node)
        elif hasattr(node, "__dataclass_fields__"):
            for name in node.__dataclass_fields__:  # type: ignore[attr-defined]
                child = getattr(node, name)
                if isinstance(child, tuple | list) or hasattr(child, "__dataclass_fields__"):
                    stack.append((child, depth + 1))

"""SQLite SQL -> PostgreSQL SQL: the one place that knows how the two dialects differ (pure).

The rest of the code writes SQLite SQL (the embedded default). :func:`translate` rewrites one
statement for PostgreSQL, token by token, never touching the text of string literals except for
psycopg's ``%`` escape:

- ``?`` placeholders become ``%s``;
- ``INSERT OR IGNORE`` becomes ``ON CONFLICT DO NOTHING``, ``INSERT OR REPLACE`` an upsert on the
  table's primary key; an ``INSERT`` into a table with a row id returns it (``cursor.lastrowid``);
- ``LIKE`` is case-insensitive in SQLite (ASCII) and becomes ``ILIKE``; ``GLOB`` becomes the
  ``lazy_intel.@~@`` operator; ``instr``, ``substr``, ``json_extract``, ``json_group_array`` map to
  functions of the ``lazy_intel`` schema with SQLite's semantics (:mod:`.functions`);
- ``INDEXED BY`` hints are dropped (PostgreSQL's planner takes no hints);
- a subquery in ``FROM`` without an alias gets one (PostgreSQL 15 requires it);
- every ``ORDER BY`` term gets SQLite's NULL placement (first ascending, last descending).

:func:`schema_ddl` turns the SQLite schema (``store/schema.py``) into PostgreSQL DDL, so one
schema text describes both backends; the FTS5 table becomes a table of per-column ``tsvector``
columns (:mod:`.fulltext`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

FUNCTIONS_SCHEMA = "lazy_intel"
GLOB_OPERATOR = f"OPERATOR({FUNCTIONS_SCHEMA}.@~@)"

_TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>--[^\n]*)|(?P<str>'(?:[^']|'')*')|(?P<ident>"(?:[^"]|"")*")"""
    r"""|(?P<param>\?)|(?P<word>[A-Za-z_][A-Za-z0-9_$]*)|(?P<num>[0-9]+(?:\.[0-9]+)?)|(?P<op>.)""",
    re.S,
)

_FUNCTION_MAP = {
    "instr": "strpos",
    "substr": f"{FUNCTIONS_SCHEMA}.substr",
    "json_extract": f"{FUNCTIONS_SCHEMA}.json_extract",
    "json_group_array": f"{FUNCTIONS_SCHEMA}.json_group_array",
    "lazy_regexp": f"{FUNCTIONS_SCHEMA}.lazy_regexp",
}
# column names of our schema that PostgreSQL reserves: always quoted
RESERVED_COLUMNS = frozenset({"window"})
_ORDER_END = frozenset({"LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT", "FOR"})


@dataclass(frozen=True)
class Token:
    kind: str
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else self.text


def tokenize(sql: str) -> list[Token]:
    return [Token(m.lastgroup or "op", m.group()) for m in _TOKEN.finditer(sql)]


@dataclass(frozen=True)
class TableInfo:
    columns: tuple[str, ...]
    primary_key: tuple[str, ...]
    row_id: str | None  # the identity column an INSERT returns (SQLite's INTEGER PRIMARY KEY)


@dataclass(frozen=True)
class Translated:
    sql: str
    returns_row_id: bool = False
    transaction: str | None = None  # BEGIN | COMMIT | ROLLBACK when the statement is one
    pragma: bool = False  # a PRAGMA: PostgreSQL has none; the connection answers it itself


def _significant(tokens: list[Token]) -> list[int]:
    return [i for i, t in enumerate(tokens) if t.kind not in ("ws", "comment")]


def _add_null_order(tokens: list[Token]) -> list[Token]:
    """SQLite sorts NULL first ascending and last descending; PostgreSQL the other way round."""
    out: list[Token] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        out.append(tok)
        if tok.upper == "ORDER":
            j = i + 1
            while j < n and tokens[j].kind == "ws":
                out.append(tokens[j])
                j += 1
            if j < n and tokens[j].upper == "BY":
                out.append(tokens[j])
                i = j + 1
                depth = 0
                term: list[Token] = []
                while i < n:
                    t = tokens[i]
                    if t.text == "(":
                        depth += 1
                    elif t.text == ")":
                        if depth == 0:
                            break
                        depth -= 1
                    elif depth == 0 and (t.upper in _ORDER_END or t.text == ";"):
                        break
                    if depth == 0 and t.text == ",":
                        out.extend(_order_term(term))
                        out.append(t)
                        term = []
                    else:
                        term.append(t)
                    i += 1
                out.extend(_order_term(term))
                continue
            i = j
            continue
        i += 1
    return out


_CLAUSE_WORDS = frozenset(
    {
        "WHERE",
        "GROUP",
        "ORDER",
        "LIMIT",
        "OFFSET",
        "JOIN",
        "LEFT",
        "RIGHT",
        "INNER",
        "CROSS",
        "FULL",
        "ON",
        "UNION",
        "EXCEPT",
        "INTERSECT",
        "HAVING",
        "WINDOW",
        "USING",
        "NATURAL",
    }
)


def _alias_subqueries(tokens: list[Token]) -> list[Token]:
    """SQLite allows ``FROM (SELECT …)`` without an alias; PostgreSQL 15 does not: name each one."""
    out = list(tokens)
    count = 0
    i = 0
    while i < len(out):
        if out[i].upper in ("FROM", "JOIN") or (out[i].text == "," and _in_from_list(out, i)):
            j = _next_significant(out, i)
            if j is not None and out[j].text == "(":
                k = _next_significant(out, j)
                if k is not None and out[k].upper in ("SELECT", "WITH", "VALUES"):
                    close = _matching_paren(out, j)
                    after = _next_significant(out, close) if close is not None else None
                    if close is not None and (
                        after is None
                        or out[after].text in (")", ",", ";")
                        or out[after].upper in _CLAUSE_WORDS
                    ):
                        count += 1
                        out.insert(close + 1, Token("word", f" AS _sub{count}"))
        i += 1
    return out


def _in_from_list(tokens: list[Token], comma: int) -> bool:
    """Whether the comma at ``comma`` separates items of a FROM list (the nearest clause word
    before it at the same depth is FROM)."""
    depth = 0
    for j in range(comma - 1, -1, -1):
        t = tokens[j]
        if t.text == ")":
            depth += 1
        elif t.text == "(":
            if depth == 0:
                return False
            depth -= 1
        elif depth == 0 and t.kind == "word":
            if t.upper == "FROM":
                return True
            if t.upper in ("SELECT", "WHERE", "GROUP", "ORDER", "SET", "VALUES"):
                return False
    return False


def _matching_paren(tokens: list[Token], open_at: int) -> int | None:
    depth = 0
    for j in range(open_at, len(tokens)):
        if tokens[j].text == "(":
            depth += 1
        elif tokens[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def _order_term(term: list[Token]) -> list[Token]:
    words = [t.upper for t in term if t.kind not in ("ws", "comment")]
    if not words or "NULLS" in words:
        return term
    trailing: list[Token] = []
    while term and term[-1].kind == "ws":
        trailing.insert(0, term.pop())
    placement = " NULLS LAST" if words[-1] == "DESC" else " NULLS FIRST"
    return [*term, Token("word", placement), *trailing]


def _upsert_clause(table: TableInfo, columns: list[str]) -> str:
    keys = table.primary_key
    updates = [c for c in columns if c not in keys]
    if not updates:
        return f" ON CONFLICT ({', '.join(keys)}) DO NOTHING"
    sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in updates)
    return f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {sets}"


def _insert_columns(tokens: list[Token], sig: list[int], start: int) -> list[str]:
    """Column names of ``INSERT INTO t(a, b)`` from the significant token at ``start`` (the '(')."""
    cols: list[str] = []
    k = start
    if k >= len(sig) or tokens[sig[k]].text != "(":
        return cols
    k += 1
    while k < len(sig) and tokens[sig[k]].text != ")":
        if tokens[sig[k]].kind == "word":
            cols.append(tokens[sig[k]].text.lower())
        k += 1
    return cols


@functools.lru_cache(maxsize=4096)
def _translate_cached(sql: str, tables_key: int) -> Translated:
    return _translate(sql, _TABLES[tables_key])


_TABLES: dict[int, dict[str, TableInfo]] = {}


def translate(sql: str, tables: dict[str, TableInfo]) -> Translated:
    """``sql`` (SQLite) for PostgreSQL; cached per statement text."""
    key = id(tables)
    _TABLES.setdefault(key, tables)
    return _translate_cached(sql, key)


def _translate(sql: str, tables: dict[str, TableInfo]) -> Translated:
    tokens = tokenize(sql)
    sig = _significant(tokens)
    if not sig:
        return Translated(sql)
    first = tokens[sig[0]].upper
    if first in ("BEGIN", "COMMIT", "ROLLBACK", "END") and len(sig) <= 3:
        if first == "BEGIN":
            return Translated("BEGIN", transaction="BEGIN")
        return Translated("COMMIT" if first in ("COMMIT", "END") else "ROLLBACK", transaction=first)
    if first == "PRAGMA":
        return Translated(sql, pragma=True)
    suffix = ""
    returns_row_id = False
    drop: set[int] = set()
    if first == "INSERT":
        second = tokens[sig[1]].upper if len(sig) > 1 else ""
        conflict = None
        into_at = 1
        if second == "OR" and len(sig) > 3:
            conflict = tokens[sig[2]].upper
            drop.update({sig[1], sig[2]})
            into_at = 3
        table_name = tokens[sig[into_at + 1]].text.lower() if len(sig) > into_at + 1 else ""
        table = tables.get(table_name)
        columns = _insert_columns(tokens, sig, into_at + 2)
        if conflict == "IGNORE":
            suffix = " ON CONFLICT DO NOTHING"
        elif conflict == "REPLACE":
            if table is None or not table.primary_key:
                raise ValueError(f"INSERT OR REPLACE into {table_name!r}: no primary key known")
            suffix = _upsert_clause(table, columns or list(table.columns))
        has_returning = any(tokens[i].upper == "RETURNING" for i in sig)
        if table is not None and table.row_id and not has_returning and not suffix:
            suffix = f" RETURNING {table.row_id}"
            returns_row_id = True
    out: list[Token] = []
    idx = 0
    while idx < len(tokens):
        tok = tokens[idx]
        if idx in drop:
            idx += 1
            continue
        if tok.kind == "param":
            out.append(Token("param", "%s"))
        elif tok.kind in ("str", "ident", "op") and "%" in tok.text:
            out.append(Token(tok.kind, tok.text.replace("%", "%%")))
        elif tok.kind == "word":
            up = tok.upper
            nxt = _next_significant(tokens, idx)
            if up == "LIKE":
                out.append(Token("word", "ILIKE"))
            elif up == "GLOB":
                out.append(Token("word", GLOB_OPERATOR))
            elif up == "INDEXED" and nxt is not None and tokens[nxt].upper == "BY":
                after = _next_significant(tokens, nxt)
                idx = (after if after is not None else nxt) + 1
                continue
            elif tok.text.lower() in RESERVED_COLUMNS:
                out.append(Token("ident", f'"{tok.text.lower()}"'))
            elif tok.text.lower() in _FUNCTION_MAP and nxt is not None and tokens[nxt].text == "(":
                out.append(Token("word", _FUNCTION_MAP[tok.text.lower()]))
            else:
                out.append(tok)
        elif tok.kind == "comment":
            pass
        else:
            out.append(tok)
        idx += 1
    out = _add_null_order(_alias_subqueries(out))
    text = "".join(t.text for t in out).rstrip().rstrip(";")
    return Translated(text + suffix, returns_row_id=returns_row_id)


# an INSERT of bare parameters into listed columns, nothing else (no conflict clause, no RETURNING,
# no expressions): rows of such a statement can go through COPY, which evaluates the table's
# generated columns (the full-text vectors) in one executor for all rows instead of one per row
_PLAIN_INSERT = re.compile(
    r"\s*INSERT\s+INTO\s+(\"?[A-Za-z_][\w.]*\"?)\s*\(([^()]*)\)\s*VALUES\s*\(\s*(%s(?:\s*,\s*%s)*)\s*\)\s*",
    re.IGNORECASE | re.DOTALL,
)


def copy_form(sql: str) -> str | None:
    """The ``COPY … FROM STDIN`` that inserts what the translated ``sql`` inserts, row for row, or
    ``None`` when ``sql`` is not a plain INSERT of parameters (pure)."""
    match = _PLAIN_INSERT.fullmatch(sql)
    if match is None:
        return None
    columns = [c.strip() for c in match.group(2).split(",")]
    if not all(columns) or len(columns) != match.group(3).count("%s"):
        return None
    return f"COPY {match.group(1)} ({', '.join(columns)}) FROM STDIN"


def _next_significant(tokens: list[Token], idx: int) -> int | None:
    for j in range(idx + 1, len(tokens)):
        if tokens[j].kind not in ("ws", "comment"):
            return j
    return None


# ---- schema ------------------------------------------------------------------------------------

_TYPE_MAP = {"INTEGER": "BIGINT", "REAL": "DOUBLE PRECISION", "TEXT": 'TEXT COLLATE "C"', "BLOB": "BYTEA"}


def split_statements(script: str) -> Iterator[str]:
    current: list[str] = []
    depth = 0
    for tok in tokenize(script):
        if tok.kind == "comment":
            continue
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        if tok.text == ";" and depth == 0:
            statement = "".join(current).strip()
            if statement:
                yield statement
            current = []
        else:
            current.append(tok.text)
    tail = "".join(current).strip()
    if tail:
        yield tail


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for tok in tokenize(body):
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        if tok.text == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(tok.text)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


@dataclass(frozen=True)
class PgSchema:
    statements: tuple[str, ...]
    tables: dict[str, TableInfo]
    fts_table: str | None
    fts_columns: tuple[str, ...]


_CREATE_TABLE = re.compile(r"CREATE\s+TABLE\s+(\w+)\s*\((.*)\)\s*(WITHOUT\s+ROWID)?\s*$", re.S | re.I)
_CREATE_FTS = re.compile(r"CREATE\s+VIRTUAL\s+TABLE\s+(\w+)\s+USING\s+fts5\s*\((.*)\)\s*$", re.S | re.I)


def schema_ddl(script: str, fts_ddl: object) -> PgSchema:
    """PostgreSQL DDL for the SQLite ``script``; ``fts_ddl(table, columns) -> [statements]``."""
    statements: list[str] = []
    tables: dict[str, TableInfo] = {}
    fts_table: str | None = None
    fts_columns: tuple[str, ...] = ()
    for statement in split_statements(script):
        fts = _CREATE_FTS.match(statement)
        if fts:
            fts_table = fts.group(1).lower()
            cols = [c.strip() for c in _split_top_level(fts.group(2)) if "=" not in c]
            fts_columns = tuple(c.split()[0].lower() for c in cols)
            statements.extend(fts_ddl(fts_table, fts_columns))  # type: ignore[operator]
            tables[fts_table] = TableInfo(("rowid", *fts_columns), ("rowid",), None)
            continue
        table = _CREATE_TABLE.match(statement)
        if not table:
            statements.append(statement)  # CREATE INDEX …: the same in both dialects
            continue
        name = table.group(1).lower()
        columns: list[str] = []
        primary: tuple[str, ...] = ()
        row_id: str | None = None
        defs: list[str] = []
        for part in _split_top_level(table.group(2)):
            words = part.split()
            if words[0].upper() == "PRIMARY":
                inner = part[part.index("(") + 1 : part.rindex(")")]
                primary = tuple(c.strip().lower() for c in inner.split(","))
                defs.append(part)
                continue
            col = words[0].lower()
            columns.append(col)
            if col in RESERVED_COLUMNS:
                col = f'"{col}"'
            kind = words[1].upper() if len(words) > 1 else "TEXT"
            rest = " ".join(words[2:])
            if kind == "INTEGER" and rest.upper().startswith("PRIMARY KEY"):
                defs.append(f"{col} BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
                primary = (col,)
                row_id = col
                continue
            if "PRIMARY KEY" in rest.upper():
                primary = (col,)
            defs.append(f"{col} {_TYPE_MAP.get(kind, kind)}" + (f" {rest}" if rest else ""))
        statements.append(f"CREATE TABLE {name} (" + ", ".join(defs) + ")")
        tables[name] = TableInfo(tuple(columns), primary, row_id)
    return PgSchema(tuple(statements), tables, fts_table, fts_columns)

"""The SQLite -> PostgreSQL translation: pure rewrites, and the SQLite semantics PostgreSQL is given,
checked against SQLite itself on generated inputs (a real server)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lazy_intel.store.pg.connection import PgConnection
from lazy_intel.store.pg.dialect import copy_form, translate
from lazy_intel.store.pg.store import PgStore, pg_schema
from lazy_intel.store.schema import TARGET_LAST_NAME_SQL, index_statements

TABLES = pg_schema().tables


def sql(text: str) -> str:
    return translate(text, TABLES).sql


def test_placeholders_and_percent_signs() -> None:
    # a ? inside a string literal is text, not a placeholder; every % is escaped for psycopg
    assert (
        sql("SELECT a FROM t WHERE b = ? AND c LIKE '10%?'")
        == "SELECT a FROM t WHERE b = %s AND c ILIKE '10%%?'"
    )


def test_inserts() -> None:
    assert sql("INSERT OR IGNORE INTO contents(sha256, data) VALUES (?, ?)").endswith(
        " ON CONFLICT DO NOTHING"
    )
    upsert = sql("INSERT OR REPLACE INTO nodes(id, name) VALUES (?, ?)")
    assert upsert.endswith("ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name")
    returning = translate("INSERT INTO files(path) VALUES (?)", TABLES)
    assert returning.returns_row_id and returning.sql.endswith(" RETURNING id")
    assert not translate("INSERT INTO meta(key, value) VALUES (?, ?)", TABLES).returns_row_id


def test_order_by_gets_sqlite_null_placement_at_every_level() -> None:
    text = sql("SELECT sum(x ORDER BY o) FROM t ORDER BY a, b DESC, (c - d) LIMIT ?")
    assert "ORDER BY o NULLS FIRST)" in text
    assert "ORDER BY a NULLS FIRST, b DESC NULLS LAST, (c - d) NULLS FIRST LIMIT %s" in text


def test_subqueries_in_from_get_an_alias() -> None:
    assert sql("SELECT count(*) FROM (SELECT 1 FROM nodes WHERE name = ? LIMIT ?)").endswith(") AS _sub1")
    assert sql("SELECT * FROM (SELECT 0 AS o UNION ALL SELECT 1) AS x") == (
        "SELECT * FROM (SELECT 0 AS o UNION ALL SELECT 1) AS x"
    )
    joined = sql("SELECT a FROM t, (SELECT 1) WHERE x IN (SELECT y FROM u)")
    assert "(SELECT 1) AS _sub1 WHERE" in joined and "(SELECT y FROM u)" in joined


def test_hints_functions_reserved_words_and_control() -> None:
    assert "INDEXED" not in sql("SELECT * FROM edges INDEXED BY edges_unresolved WHERE dst IS NULL")
    assert "strpos(labels, %s)" in sql("SELECT instr(labels, ?) FROM nodes")
    assert '"window"' in sql("SELECT c.window FROM chunks c")
    assert "OPERATOR(lazy_intel.@~@)" in sql("SELECT 1 FROM files f WHERE f.path GLOB ?")
    assert translate("BEGIN IMMEDIATE", TABLES).transaction == "BEGIN"
    assert translate("PRAGMA page_count", TABLES).pragma


def many(text: str) -> str:
    """``text`` as the connection's executemany sends it (no RETURNING: it returns no ids)."""
    return sql(text).rsplit(" RETURNING ", 1)[0]


def test_copy_form_only_for_plain_inserts_of_parameters() -> None:
    assert copy_form(many("INSERT INTO refs(file_id, name, line) VALUES (?, ?, ?)")) == (
        "COPY refs (file_id, name, line) FROM STDIN"
    )
    assert copy_form('INSERT INTO t ("window", b) VALUES (%s,%s)') == 'COPY t ("window", b) FROM STDIN'
    for text in (
        "INSERT OR IGNORE INTO refs(file_id, name) VALUES (?, ?)",  # a conflict clause
        "INSERT INTO meta(key, value) VALUES (?, lower(?))",  # an expression
        "INSERT INTO refs(file_id, name) SELECT file_id, name FROM refs",
        "INSERT INTO refs VALUES (?, ?)",  # no column list
        "INSERT INTO refs(file_id, name) VALUES (?)",  # columns and values disagree
        "UPDATE refs SET name = ? WHERE file_id = ?",
    ):
        assert copy_form(many(text)) is None, text
    # as execute sends it, an insert that returns its row id is not one
    assert copy_form(sql("INSERT INTO files(path) VALUES (?)")) is None


VALUES = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
    st.binary(max_size=8),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(0, 10**6), VALUES, VALUES, VALUES), max_size=12))
def test_rows_copied_equal_rows_inserted(pg: Any, rows: list[tuple[object, ...]]) -> None:
    """executemany sends a plain INSERT through COPY: every value (NULL, integers, floats, any text
    with tabs, newlines and backslashes, bytes) arrives as the INSERT of each row stores it."""
    typed = [
        (i, *(v if type(v) is not bytes else None for v in (a, b)), c if type(c) is bytes else None)
        for i, (_, a, b, c) in enumerate(rows)
    ]
    # a column per kind of value: text, text, bytea (numbers arrive in text columns as their text)
    typed = [(i, None if a is None else str(a), None if b is None else str(b), c) for i, a, b, c in typed]
    pg.execute("SET search_path = public")
    conn = PgConnection(pg, "public", {}, owned=False)  # what the writer writes through
    for table in ("copied", "inserted"):
        pg.execute(f"DROP TABLE IF EXISTS {table}")
        pg.execute(f"CREATE TABLE {table} (k INTEGER PRIMARY KEY, a TEXT, b TEXT, c BYTEA)")
    assert copy_form(many("INSERT INTO copied(k, a, b, c) VALUES (?, ?, ?, ?)")) is not None
    conn.executemany("INSERT INTO copied(k, a, b, c) VALUES (?, ?, ?, ?)", typed)
    for row in typed:
        conn.execute("INSERT INTO inserted(k, a, b, c) VALUES (?, ?, ?, ?)", row)
    copied = pg.execute("SELECT k, a, b, c FROM copied ORDER BY k").fetchall()
    assert copied == pg.execute("SELECT k, a, b, c FROM inserted ORDER BY k").fetchall()
    assert [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in copied] == typed


@pytest.fixture(scope="module")
def pg(pg_dsn: str) -> Iterator[Any]:
    store = PgStore(pg_dsn, "dialect-test", "default")
    raw = store.raw_connect()
    try:
        yield raw
    finally:
        raw.close()
        store.close()


def _both(pg: Any, expression: str, args: list[object]) -> tuple[object, object]:
    lite = sqlite3.connect(":memory:")
    try:
        expected = lite.execute(f"SELECT {expression}", args).fetchone()[0]
    finally:
        lite.close()
    got = pg.execute(sql(f"SELECT {expression}"), args).fetchone()[0]
    return expected, got


GLOB_CHARS = st.sampled_from(list("ab.*?[]^-/_%\\"))
TEXT_CHARS = st.sampled_from(list("ab./_-%\\[]^*?"))
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(pattern=st.text(GLOB_CHARS, max_size=6), value=st.text(TEXT_CHARS, max_size=6))
def test_glob_matches_as_sqlite(pg: Any, pattern: str, value: str) -> None:
    expected, got = _both(pg, "? GLOB ?", [value, pattern])
    assert bool(expected) == bool(got), (pattern, value)


@FAST
@given(
    pattern=st.text(st.sampled_from(list("aB_%\\x")), max_size=5),
    value=st.text(st.sampled_from(list("aAbB_%\\x")), max_size=5),
)
def test_like_with_escape_matches_as_sqlite(pg: Any, pattern: str, value: str) -> None:
    # our patterns escape every literal \, % and _ (graph/queries.py, search/hybrid.py): a pattern
    # never ends in a lone escape (PostgreSQL refuses one; SQLite matches nothing)
    assume((len(pattern) - len(pattern.rstrip("\\"))) % 2 == 0)
    expected, got = _both(pg, "? LIKE ? ESCAPE '\\'", [value, pattern])
    assert bool(expected) == bool(got), (pattern, value)


@FAST
@given(value=st.text(st.sampled_from(list("abc")), max_size=6), start=st.integers(-8, 8))
def test_substr_matches_as_sqlite(pg: Any, value: str, start: int) -> None:
    expected, got = _both(pg, "substr(?, ?)", [value, start])
    assert expected == got, (value, start)
    expected, got = _both(pg, "substr(?, ?, ?)", [value, start, 2])
    assert expected == got, (value, start, 2)


@FAST
@given(
    doc=st.dictionaries(
        st.sampled_from(["a", "b"]),
        # no NUL: PostgreSQL text cannot hold one, and a file with a NUL byte is binary (never parsed);
        # no lone surrogates: stored text is decoded from file bytes, which never yields one (and
        # SQLite's json_extract of an escaped one returns bytes Python's sqlite3 cannot decode)
        st.one_of(
            st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)), max_size=3),
            st.integers(-5, 5),
            st.booleans(),
            st.none(),
        ),
        max_size=2,
    ),
    key=st.sampled_from(["a", "b"]),
)
def test_json_extract_matches_as_sqlite_for_scalars(pg: Any, doc: dict[str, object], key: str) -> None:
    import json

    expected, got = _both(pg, "json_extract(?, ?)", [json.dumps(doc), f"$.{key}"])
    assert (None if expected is None else str(expected)) == got


@FAST
@given(value=st.text(st.sampled_from(list("aB._x%\\")), max_size=8))
def test_the_last_name_of_a_target_is_sqlites(pg: Any, value: str) -> None:
    expression = TARGET_LAST_NAME_SQL.replace("target", "?")
    expected, got = _both(pg, expression, [value] * expression.count("?"))
    assert expected == got, value


def test_the_unresolved_name_index_serves_its_query_on_postgresql(pg: Any) -> None:
    """The index statement passes to PostgreSQL as written, and the translated query's expression is
    the index's (the dialect maps none of its functions): the planner can use it."""
    statement = dict(index_statements("edges"))["edges_unresolved_name"]
    pg.execute("CREATE TEMP TABLE edges (target text, dst bigint)")
    try:
        pg.execute(statement)
        pg.execute("SET enable_seqscan = off")
        query = sql(f"SELECT target FROM edges WHERE dst IS NULL AND {TARGET_LAST_NAME_SQL} = lower(?)")
        plan = " ".join(r[0] for r in pg.execute("EXPLAIN " + query, ["Name"]).fetchall())
        assert "edges_unresolved_name" in plan, plan
    finally:
        pg.execute("RESET enable_seqscan")
        pg.execute("DROP TABLE pg_temp.edges")

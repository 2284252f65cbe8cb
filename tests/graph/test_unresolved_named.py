"""``unresolved_named`` by the index of unresolved targets' last names (issue 15): the sites it
returns are exactly those of the scan it replaced (``target = name OR target LIKE '%.name'``, LIKE
ASCII case-insensitive), for random targets and names, and its plan searches that index."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.graph.queries import CALL_TYPES, EDGE_COLUMNS, IMPACT_TYPES, GraphEdge, unresolved_named
from lazy_intel.store.schema import TARGET_LAST_NAME_SQL, connect, create_schema, index_statements

PARTS = ("foo", "Foo", "FOO", "f_o", "fxo", "foo_bar", "f%o", "bar", "é", "É", "", "a\\b")
TYPES = ("CALLS", "REFERENCES", "IMPORTS", "DEFINES")
STRATEGIES = ("unresolved", "lambda", "exact")


def reference(conn: sqlite3.Connection, name: str, types: tuple[str, ...]) -> list[GraphEdge]:
    """The query before the index: every unresolved target scanned."""
    escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    marks = ", ".join("?" * len(types))
    rows = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM edges WHERE dst IS NULL AND (target = ? OR target LIKE ? ESCAPE '\\') "
        f"AND strategy IN ('unresolved', 'lambda') AND type IN ({marks}) ORDER BY path, start_byte LIMIT 10000",
        [name, "%." + escaped, *types],
    )
    return [GraphEdge.from_row(r) for r in rows]


def _store(targets: list[tuple[str | None, bool, int, int]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.isolation_level = None
    create_schema(conn)
    conn.executemany(
        "INSERT INTO edges(file_key, type, src, dst, strategy, confidence, target, path, start_byte, line) "
        "VALUES (1, ?, 1, ?, ?, 0.5, ?, ?, ?, 1)",
        [
            (
                TYPES[kind % len(TYPES)],
                2 if resolved else None,
                STRATEGIES[kind % 3],
                target,
                f"p{i % 7}.py",
                i,
            )
            for i, (target, resolved, kind, _) in enumerate(targets)
        ],
    )
    return conn


targets = st.lists(
    st.tuples(
        st.one_of(st.none(), st.lists(st.sampled_from(PARTS), min_size=1, max_size=4).map(".".join)),
        st.booleans(),
        st.integers(0, 11),
        st.integers(0, 3),
    ),
    max_size=60,
)
names = st.one_of(
    st.sampled_from(PARTS), st.lists(st.sampled_from(PARTS), min_size=2, max_size=3).map(".".join)
)


@settings(max_examples=200, deadline=None)
@given(targets, names)
def test_the_index_finds_what_the_scan_found(
    rows: list[tuple[str | None, bool, int, int]], name: str
) -> None:
    conn = _store(rows)
    for types in (CALL_TYPES, IMPACT_TYPES):
        assert unresolved_named(conn, name, types) == reference(conn, name, types)


def test_a_plain_name_searches_the_index() -> None:
    conn = _store([("a.b.foo", False, 0, 0), ("Foo", False, 0, 0), ("x.bar", False, 0, 0)])
    traced: list[str] = []
    conn.set_trace_callback(traced.append)
    assert [e.target for e in unresolved_named(conn, "foo")] == ["a.b.foo"]  # `=` is case-sensitive
    conn.set_trace_callback(None)
    sql = next(s for s in traced if s.startswith("SELECT"))  # with its values inlined
    plan = " ".join(str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
    assert "edges_unresolved_name" in plan, plan


def test_the_index_expression_is_the_querys() -> None:
    statement = dict(index_statements("edges"))["edges_unresolved_name"]
    assert f"(({TARGET_LAST_NAME_SQL}))" in statement and statement.endswith("WHERE dst IS NULL")


def test_an_old_store_without_the_index_answers_the_same(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    conn = connect(str(path))
    create_schema(conn)
    conn.close()
    conn = sqlite3.connect(str(path))
    conn.execute("DROP INDEX edges_unresolved_name")
    conn.executemany(
        "INSERT INTO edges(file_key, type, src, dst, strategy, confidence, target) VALUES (1, 'CALLS', 1, NULL, "
        "'unresolved', 0.5, ?)",
        [("x.foo",), ("foo",), ("x.Foo",), ("foo.x",)],
    )
    assert [e.target for e in unresolved_named(conn, "foo")] == [
        e.target for e in reference(conn, "foo", CALL_TYPES)
    ]

"""A file's node and edge rows replaced by their difference end as delete-then-insert would leave them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.graph.row_diff import (
    EDGE_FIELDS,
    INSERT_EDGE,
    INSERT_NODE,
    NODE_FIELDS,
    replace_file_edges,
    replace_file_nodes,
)
from lazy_intel.store.schema import create_schema

OTHER_KEY = 7
KEY = 3


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    create_schema(connection)
    yield connection
    connection.close()


def node(node_id: int, key: int = KEY, start: int = 0, name: str = "f") -> tuple[object, ...]:
    return (node_id, key, "Function", " Function ", name, name, "function", "a.py", "python", start, start + 9,
            1, 2, '{"x": 1}')  # fmt: skip


def edge(src: int, dst: int | None, key: int = KEY, line: int = 1) -> tuple[object, ...]:
    return (key, "CALLS", src, dst, "syntax", 0.9, "g", "a.py", line * 10, line * 10 + 3, line, None)


def nodes_of(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return sorted(conn.execute(f"SELECT {NODE_FIELDS} FROM nodes").fetchall(), key=repr)


def edges_of(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return sorted(conn.execute(f"SELECT {EDGE_FIELDS} FROM edges").fetchall(), key=repr)


def test_only_the_rows_that_differ_are_written(conn: sqlite3.Connection) -> None:
    conn.executemany(INSERT_NODE, [node(1), node(2, start=20), node(3, start=40), node(9, key=OTHER_KEY)])
    conn.executemany(INSERT_EDGE, [edge(1, 2), edge(1, 2), edge(2, None, line=3), edge(9, 1, key=OTHER_KEY)])
    # node 2 moved, node 3 gone, node 4 new; one of the two equal edges gone, one edge new
    written = replace_file_nodes(conn, KEY, [node(1), node(2, start=25), node(4, start=60)])
    assert written == 2
    assert nodes_of(conn) == sorted(
        [node(1), node(2, start=25), node(4, start=60), node(9, key=OTHER_KEY)], key=repr
    )
    kept = conn.execute("SELECT id FROM edges WHERE src=2").fetchone()[0]
    assert replace_file_edges(conn, KEY, [edge(1, 2), edge(2, None, line=3), edge(4, 1, line=5)]) == 1
    assert conn.execute("SELECT id FROM edges WHERE src=2").fetchone()[0] == kept  # not rewritten
    assert edges_of(conn) == sorted(
        [edge(1, 2), edge(2, None, line=3), edge(4, 1, line=5), edge(9, 1, key=OTHER_KEY)], key=repr
    )


node_ids = st.integers(min_value=1, max_value=6)
node_rows = st.lists(st.tuples(node_ids, st.integers(0, 2)), max_size=8)
edge_rows = st.lists(st.tuples(node_ids, st.one_of(st.none(), node_ids), st.integers(1, 3)), max_size=10)


@settings(max_examples=150, deadline=None)
@given(before=node_rows, after=node_rows, edges_before=edge_rows, edges_after=edge_rows, other=node_ids)
def test_same_tables_as_delete_then_insert(
    before: list[tuple[int, int]],
    after: list[tuple[int, int]],
    edges_before: list[tuple[int, int | None, int]],
    edges_after: list[tuple[int, int | None, int]],
    other: int,
) -> None:
    """Against the old way (delete the file's rows, insert them all), another file's rows included:
    an id of the new rows that another file held is taken over, a repeated id's last row wins."""
    results = []
    for diffed in (False, True):
        conn = sqlite3.connect(":memory:")
        create_schema(conn)
        conn.executemany(INSERT_NODE, [node(other + 10, key=OTHER_KEY), node(other, key=OTHER_KEY, start=99)])
        conn.executemany(INSERT_NODE, [node(i, start=s * 20) for i, s in before])
        conn.executemany(INSERT_EDGE, [edge(s, d, line=n) for s, d, n in edges_before])
        conn.execute("INSERT INTO edges SELECT NULL, ?, type, src, dst, strategy, confidence, target, path, "
                     "start_byte, end_byte, line, properties FROM edges", (OTHER_KEY,))  # fmt: skip
        new_nodes = [node(i, start=s * 20) for i, s in after]
        new_edges = [edge(s, d, line=n) for s, d, n in edges_after]
        if diffed:
            replace_file_nodes(conn, KEY, new_nodes)
            replace_file_edges(conn, KEY, new_edges)
        else:
            conn.execute("DELETE FROM nodes WHERE file_key=?", (KEY,))
            conn.execute("DELETE FROM edges WHERE file_key=?", (KEY,))
            conn.executemany(INSERT_NODE, new_nodes)
            conn.executemany(INSERT_EDGE, new_edges)
        results.append((nodes_of(conn), edges_of(conn)))
        conn.close()
    assert results[0] == results[1]

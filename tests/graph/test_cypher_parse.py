"""The Cypher subset as pure functions: parse -> AST, compile -> (sql, params), errors with positions.

The compiled SQL is also run against a hand-built graph in an in-memory store (the real schema), so
the semantics (directions, alternatives, variable-length bounds, cycles, unresolved edges) are checked
on rows, not on SQL text.
"""

from __future__ import annotations

import sqlite3

import pytest

from lazy_intel.graph.cypher import CypherError, ast, compile_query, parse_query
from lazy_intel.graph.cypher.execute import run_query
from lazy_intel.graph.rows import labels_text
from lazy_intel.store.schema import create_schema


def err(text: str) -> CypherError:
    with pytest.raises(CypherError) as caught:
        compile_query(parse_query(text), max_rows=100, max_hops=4)
    assert caught.value.code == "INVALID_ARGUMENT"
    return caught.value


# ---- parsing


def test_a_full_query_parses_into_the_expected_tree() -> None:
    q = parse_query(
        "MATCH (a:Function)-[r:CALLS|REFERENCES]->(b {name: 'f'}), (c:Class|Interface)<--(a)\n"
        "WHERE a.name STARTS WITH 'x' AND NOT b.kind IN ['method', 'function'] OR a.start_line >= 3\n"
        "RETURN DISTINCT a.name AS n, count(*), b ORDER BY n DESC, b.name SKIP 2 LIMIT 5;"
    )
    (match,) = q.matches
    first, second = match.patterns
    a, b = first.nodes
    assert (a.variable, a.labels) == ("a", (("Function",),))
    assert b.properties == (("name", ast.Literal("f", b.properties[0][1].offset)),)
    (rel,) = first.rels
    assert (rel.variable, rel.types, rel.direction, rel.variable_length) == (
        "r",
        ("CALLS", "REFERENCES"),
        "out",
        False,
    )
    assert second.nodes[0].labels == (("Class", "Interface"),)
    assert second.rels[0].direction == "in" and second.rels[0].types == ()
    where = match.where
    assert isinstance(where, ast.Binary) and where.op == "OR"  # AND binds tighter than OR
    assert isinstance(where.left, ast.Binary) and where.left.op == "AND"
    assert isinstance(where.left.right, ast.Unary) and where.left.right.op == "NOT"
    assert [(i.alias, i.text) for i in q.items] == [("n", "a.name"), (None, "count(*)"), (None, "b")]
    assert isinstance(q.items[1].expr, ast.Call) and q.items[1].expr.star
    assert q.distinct and [s.descending for s in q.order] == [True, False]
    assert (q.skip, q.limit) == (2, 5)


@pytest.mark.parametrize(
    ("pattern", "direction", "hops"),
    [
        ("(a)-->(b)", "out", (None, None)),
        ("(a)<--(b)", "in", (None, None)),
        ("(a)--(b)", "both", (None, None)),
        ("(a)-[:CALLS*]->(b)", "out", (1, None)),
        ("(a)-[:CALLS*2]->(b)", "out", (2, 2)),
        ("(a)<-[:CALLS*1..3]-(b)", "in", (1, 3)),
        ("(a)-[*..4]-(b)", "both", (1, 4)),
        ("(a)-[*0..2]->(b)", "out", (0, 2)),
        ("(a)-[*2..]->(b)", "out", (2, None)),
    ],
)
def test_relationship_directions_and_hop_ranges(pattern: str, direction: str, hops: tuple) -> None:
    (rel,) = parse_query(f"MATCH {pattern} RETURN a").matches[0].patterns[0].rels
    assert rel.direction == direction
    assert (rel.min_hops, rel.max_hops) == hops
    assert rel.variable_length == (hops != (None, None))


def test_literals_keywords_and_comments() -> None:
    q = parse_query(
        "match (a) // a comment\n where a.x = 'it\\'s' and a.y = 2.5 and a.z = true and a.w is not null "
        "/* block */ return a.name as `the name` limit 1"
    )
    conj = q.matches[0].where
    values = []
    while isinstance(conj, ast.Binary) and conj.op == "AND":
        values.append(conj.right)
        conj = conj.left
    values.append(conj)
    literals = [v.right.value for v in values if isinstance(v, ast.Binary)]
    assert sorted(map(str, literals)) == sorted(["it's", "2.5", "True"])
    assert any(isinstance(v, ast.Unary) and v.op == "IS NOT NULL" for v in values)
    assert q.items[0].alias == "the name"


# ---- errors


@pytest.mark.parametrize(
    ("text", "construct", "column"),
    [
        ("CREATE (a:Function {name: 'x'})", "CREATE", 1),
        ("MATCH (a) SET a.name = 'x' RETURN a", "SET", 11),
        ("MATCH (a) DELETE a", "DELETE", 11),
        ("MATCH (a) DETACH DELETE a", "DETACH", 11),
        ("MERGE (a)", "MERGE", 1),
        ("MATCH (a) REMOVE a.name", "REMOVE", 11),
        ("CALL db.labels()", "CALL", 1),
        ("OPTIONAL MATCH (a) RETURN a", "OPTIONAL", 1),
        ("MATCH (a) WITH a RETURN a", "WITH", 11),
        ("UNWIND [1, 2] AS x RETURN x", "UNWIND", 1),
        ("MATCH (a) RETURN a UNION MATCH (b) RETURN b", "UNION", 20),
        ("MATCH (a) RETURN *", "RETURN *", 18),
        ("MATCH (a) WHERE a.name = $name RETURN a", "$name", 26),
        ("MATCH p = (a)-->(b) RETURN a", "path variable", 7),
        ("MATCH (a) WHERE (a)-->() RETURN a", "pattern predicate", 17),
        ("MATCH (a) RETURN CASE WHEN a.x THEN 1 END", "CASE", 18),
        ("MATCH (a)-[r*1..2]->(b) RETURN r", "r", 32),
        ("MATCH (a) RETURN shortestPath(a)", "shortestpath", 18),
    ],
)
def test_unsupported_constructs_are_named_with_their_position(text: str, construct: str, column: int) -> None:
    error = err(text)
    assert error.reason == "unsupported"
    assert error.construct == construct
    assert (error.line, error.column) == (1, column)
    assert f"column {column}" in error.message


def test_write_clauses_say_the_operation_is_read_only() -> None:
    assert "read-only" in err("MATCH (a)\nDETACH DELETE a").message
    error = err("MATCH (a)\n  MERGE (b)")
    assert (error.line, error.column, error.offset) == (2, 3, 12)


@pytest.mark.parametrize(
    ("text", "reason", "construct"),
    [
        ("MATCH (a:Functoin) RETURN a", "unknown_label", "Functoin"),
        ("MATCH (a)-[:CALL]->(b) RETURN a", "unknown_type", "CALL"),
        ("MATCH (a) RETURN b.name", "unknown_variable", "b"),
        ("MATCH (a) WHERE a.name =~ '(a+)+' RETURN a", "unsafe_regex", "(a+)+"),
        ("MATCH (a) WHERE a.name =~ '(ab|a)*c' RETURN a", "unsafe_regex", "(ab|a)*c"),
        ("MATCH (a) WHERE a.name =~ '(x)\\\\1' RETURN a", "unsafe_regex", "(x)\\1"),
        ("MATCH (a RETURN a", "syntax", "RETURN"),
        ("MATCH (a)<-->(b) RETURN a", "syntax", "->"),
        ("MATCH (a) WHERE a.name = 'open RETURN a", "syntax", "'open RETURN a"[:14]),
        ("MATCH (a) RETURN a.name, a.name", "syntax", "a.name"),
        ("MATCH (a)-[:CALLS*3..1]->(b) RETURN a", "syntax", "*"),
        ("RETURN 1", "syntax", "RETURN"),
        ("", "syntax", ""),
        ("MATCH (a) WHERE count(*) > 1 RETURN a", "unsupported", "count"),
    ],
)
def test_errors_have_stable_reasons(text: str, reason: str, construct: str) -> None:
    error = err(text)
    assert error.reason == reason
    assert error.construct == construct
    assert set(error.details()) == {"reason", "construct", "offset", "line", "column"}


# ---- compilation


def test_user_values_are_bound_never_spliced_into_sql() -> None:
    hostile = "x'); DROP TABLE nodes; --"
    compiled = compile_query(
        parse_query(
            f'MATCH (a:Function {{name: "{hostile}"}}) WHERE a.path CONTAINS "{hostile}" RETURN a.name'
        ),
        max_rows=10,
        max_hops=3,
    )
    assert hostile not in compiled.sql and "DROP" not in compiled.sql
    assert compiled.params.count(hostile) == 2
    assert " Function " in compiled.params


def test_properties_map_to_columns_or_json() -> None:
    compiled = compile_query(
        parse_query("MATCH (a)-[r]->(b) RETURN a.name, a.parent, r.confidence, r.condition_path"),
        max_rows=10,
        max_hops=3,
    )
    assert "json_extract" in compiled.sql
    assert "$.parent" in compiled.params and "$.condition_path" in compiled.params
    assert "$.name" not in compiled.params and "$.confidence" not in compiled.params
    with pytest.raises(CypherError) as caught:
        compile_query(parse_query("MATCH (a) RETURN a.`bad key`"), max_rows=10, max_hops=3)
    assert caught.value.reason == "unsupported"


def test_row_cap_and_probe_row() -> None:
    unbounded = compile_query(parse_query("MATCH (a) RETURN a.name"), max_rows=50, max_hops=3)
    assert unbounded.row_cap == 50 and unbounded.params[-2:] == (51, 0)
    small = compile_query(parse_query("MATCH (a) RETURN a.name SKIP 3 LIMIT 7"), max_rows=50, max_hops=3)
    assert small.row_cap == 7 and small.params[-2:] == (7, 3)
    large = compile_query(parse_query("MATCH (a) RETURN a.name LIMIT 500"), max_rows=50, max_hops=3)
    assert large.row_cap == 50 and large.params[-2:] == (51, 0)


@pytest.mark.parametrize(
    ("rel", "capped"),
    [("*1..2", False), ("*", True), ("*1..", True), ("*1..9", True), ("*4", False)],
)
def test_variable_length_upper_bound_is_capped(rel: str, capped: bool) -> None:
    compiled = compile_query(
        parse_query(f"MATCH (a)-[:CALLS{rel}]->(b) RETURN b.name"), max_rows=10, max_hops=4
    )
    assert compiled.variable_length
    assert bool(compiled.capped_hops) == capped
    assert "WITH RECURSIVE" in compiled.sql


# ---- semantics on a hand-built graph (real schema, in memory)

# a -> b -> c -> a (CALLS cycle), d REFERENCES b, c calls something unresolved, m is a Module
NODES = {
    "a": (1, "Function"),
    "b": (2, "Function"),
    "c": (3, "Method"),
    "d": (4, "Class"),
    "m": (5, "Module"),
}
EDGES = [
    ("CALLS", "a", "b", "import", 0.95),
    ("CALLS", "b", "c", "self", 0.9),
    ("CALLS", "c", "a", "unique-name", 0.5),
    ("REFERENCES", "d", "b", "local", 0.95),
    ("CALLS", "c", None, "unresolved", 0.0),
    ("CONTAINS", "m", "a", "syntax", 1.0),
]


@pytest.fixture
def graph() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    create_schema(conn)
    for name, (node_id, label) in NODES.items():
        conn.execute(
            "INSERT INTO nodes(id, file_key, label, labels, name, qualified_name, kind, path, lang, start_byte, "
            "end_byte, start_line, end_line, properties) VALUES (?, 1, ?, ?, ?, ?, ?, 'x.py', 'python', ?, ?, ?, ?, ?)",
            (
                node_id,
                label,
                labels_text(label),
                name,
                f"mod.{name}",
                label.lower(),
                node_id * 10,
                node_id * 10 + 5,
                node_id,
                node_id,
                '{"parent": "P"}' if name == "c" else None,
            ),
        )
    for i, (kind, src, dst, strategy, confidence) in enumerate(EDGES):
        conn.execute(
            "INSERT INTO edges(id, file_key, type, src, dst, strategy, confidence, target, path, line) "
            "VALUES (?, 1, ?, ?, ?, ?, ?, ?, 'x.py', ?)",
            (
                i + 1,
                kind,
                NODES[src][0],
                NODES[dst][0] if dst else None,
                strategy,
                confidence,
                dst or "ghost",
                i + 1,
            ),
        )
    return conn


def rows(conn: sqlite3.Connection, text: str, *, max_rows: int = 100, max_hops: int = 4) -> list[tuple]:
    compiled = compile_query(parse_query(text), max_rows=max_rows, max_hops=max_hops)
    return list(run_query(conn, compiled, timeout_ms=5_000).rows)


def test_directions_and_alternatives(graph) -> None:
    assert rows(graph, "MATCH (x)-[:CALLS]->(y {name: 'b'}) RETURN x.name") == [("a",)]
    assert rows(graph, "MATCH (x)<-[:CALLS]-(y {name: 'b'}) RETURN x.name") == [("c",)]
    assert rows(graph, "MATCH (x)-[:CALLS]-(y {name: 'b'}) RETURN x.name") == [("a",), ("c",)]
    assert rows(graph, "MATCH (x)-[:CALLS|REFERENCES]->(y {name: 'b'}) RETURN x.name") == [("a",), ("d",)]
    assert rows(graph, "MATCH (x:Class|Method) RETURN x.name") == [("c",), ("d",)]


def test_variable_length_bounds_and_cycles(graph) -> None:
    assert rows(graph, "MATCH (x {name: 'a'})-[:CALLS*1..1]->(y) RETURN y.name") == [("b",)]
    assert rows(graph, "MATCH (x {name: 'a'})-[:CALLS*2]->(y) RETURN y.name") == [("c",)]
    # the cycle a->b->c->a: every node within 3 hops, each pair once
    assert rows(graph, "MATCH (x {name: 'a'})-[:CALLS*1..3]->(y) RETURN y.name") == [("a",), ("b",), ("c",)]
    assert rows(graph, "MATCH (x {name: 'a'})-[:CALLS*0..1]->(y) RETURN y.name") == [("a",), ("b",)]
    # constrained end on the right: walked backwards from it
    assert rows(graph, "MATCH (x)-[:CALLS*1..2]->(y {name: 'c'}) RETURN x.name") == [("a",), ("b",)]
    # unconstrained both ends: the whole closure within bounds
    assert rows(graph, "MATCH (x)-[:CALLS*2..2]->(y) RETURN x.name, y.name") == [
        ("a", "c"),
        ("b", "a"),
        ("c", "b"),
    ]
    # a WHERE conjunct on one end seeds the walk too
    assert rows(graph, "MATCH (x)-[:CALLS*1..2]-(y) WHERE x.name = 'd' RETURN y.name") == []
    assert rows(graph, "MATCH (x)-[*1..2]-(y) WHERE x.name = 'd' RETURN y.name") == [
        ("a",),
        ("b",),
        ("c",),
        ("d",),
    ]
    # the hop cap bounds an open range
    assert rows(graph, "MATCH (x {name: 'a'})-[:CALLS*2..]->(y) RETURN y.name", max_hops=2) == [("c",)]


def test_unresolved_edges_match_only_an_anonymous_end(graph) -> None:
    assert rows(
        graph, "MATCH (x)-[r:CALLS]->() WHERE NOT r.resolved RETURN x.name, r.target, r.strategy"
    ) == [("c", "ghost", "unresolved")]
    assert rows(graph, "MATCH (x {name: 'c'})-[r:CALLS]->(y) RETURN y.name") == [("a",)]
    assert rows(graph, "MATCH (x {name: 'c'})-[r:CALLS]->() RETURN count(*)") == [(2,)]
    # undirected: one row per relationship and orientation, as in Cypher
    assert rows(graph, "MATCH ()-[r:CALLS]-() RETURN count(*)") == [(8,)]
    assert rows(graph, "MATCH ()-[r:CALLS]-() RETURN count(DISTINCT r)") == [(4,)]
    # a named end used nowhere else still needs a node: the unresolved edge does not count
    assert rows(graph, "MATCH (x)-[r:CALLS]->(y) RETURN count(*)") == [(3,)]
    assert rows(graph, "MATCH (x)-[r:CALLS]-(y) RETURN count(*)") == [(6,)]
    assert rows(graph, "MATCH (x)-[r:CALLS]-(y) RETURN x.name, count(*) ORDER BY x.name") == [
        ("a", 2),
        ("b", 2),
        ("c", 2),
    ]
    assert rows(graph, "MATCH (x)-[r:CALLS]-() RETURN count(*)") == [(7,)]
    assert rows(graph, "MATCH (x)-[r]->(y) RETURN type(r), count(r)") == [
        ("CALLS", 3),
        ("CONTAINS", 1),
        ("REFERENCES", 1),
    ]
    assert rows(graph, "MATCH ()<-[r]-(x:Module) RETURN r.type") == [("CONTAINS",)]


def test_where_operators(graph) -> None:
    def names(where: str) -> list[str]:
        return [r[0] for r in rows(graph, f"MATCH (x) WHERE {where} RETURN x.name")]

    assert names("x.qualified_name STARTS WITH 'mod.' AND x.name ENDS WITH 'c'") == ["c"]
    assert names("x.qualified_name CONTAINS '.d'") == ["d"]
    assert names("x.qualified_name STARTS WITH 'MOD.'") == []  # case-sensitive, as in Cypher
    assert names("x.name IN ['a', 'm'] OR x.start_line > 3") == ["a", "d", "m"]
    assert names("NOT x.start_line <> 2") == ["b"]
    assert names("x.start_line >= 2 AND x.start_line <= 3") == ["b", "c"]
    assert names("x.parent IS NOT NULL") == ["c"]
    assert names("x.parent = 'P'") == ["c"]
    assert names("x.name =~ '[a-c]'") == ["a", "b", "c"]
    assert names("x.qualified_name =~ 'd'") == []  # =~ is a full match
    assert names("x.start_line * 2 + 1 = 7") == ["c"]


def test_aggregates_grouping_order_and_distinct(graph) -> None:
    assert rows(graph, "MATCH (x)-[r]->(y) RETURN type(r) AS t, count(*) AS n ORDER BY n DESC, t") == [
        ("CALLS", 3),
        ("CONTAINS", 1),
        ("REFERENCES", 1),
    ]
    assert rows(graph, "MATCH (x)-[:CALLS]->(y) RETURN DISTINCT x.label ORDER BY x.label") == [
        ("Function",),
        ("Method",),
    ]
    assert rows(graph, "MATCH (x) RETURN count(DISTINCT x.label), min(x.start_line), max(x.name)") == [
        (4, 1, "m")
    ]
    assert rows(graph, "MATCH (x:Function) RETURN collect(x.name)") in ([(["a", "b"],)], [(["b", "a"],)])
    assert rows(graph, "MATCH (x) RETURN x.name ORDER BY x.start_line DESC SKIP 1 LIMIT 2") == [
        ("d",),
        ("c",),
    ]


def test_chains_share_variables_and_each_relationship_matches_once(graph) -> None:
    assert rows(graph, "MATCH (x)-[:CALLS]->(y)-[:CALLS]->(z) WHERE x.name = 'a' RETURN z.name") == [("c",)]
    assert rows(graph, "MATCH (x)-[:CALLS]->(y), (y)-[:CALLS]->(z {name: 'a'}) RETURN x.name") == [("b",)]
    # (x)--(y)--(x) would reuse one edge both ways; Cypher matches a relationship once per pattern
    assert rows(graph, "MATCH (x {name: 'd'})-[r1]-(y)-[r2]-(x) RETURN y.name") == []
    # two MATCH clauses may reuse a relationship
    assert rows(graph, "MATCH (x {name: 'd'})-[]-(y) MATCH (y)-[:REFERENCES]-(z) RETURN z.name") == [("d",)]


def test_whole_nodes_and_relationships_are_returned_as_records(graph) -> None:
    ((node, rel),) = rows(graph, "MATCH (x {name: 'c'})-[r:CALLS]->(y) RETURN x, r")
    assert (
        node["qualified_name"] == "mod.c"
        and node["labels"] == ["Method"]
        and node["properties"] == {"parent": "P"}
    )
    assert (rel["type"], rel["strategy"], rel["dst"]) == ("CALLS", "unique-name", 1)
    assert rows(graph, "MATCH (x {name: 'c'}) RETURN labels(x), id(x), toUpper(x.name)") == [
        (["Method"], 3, "C")
    ]


def test_undirected_walks_agree_with_and_without_multiple_recursive_selects(graph, monkeypatch) -> None:
    from lazy_intel.graph.cypher import paths

    query = "MATCH (x {name: 'd'})-[*1..3]-(y) RETURN y.name"
    expected = [("a",), ("b",), ("c",), ("d",), ("m",)]
    for flag in (True, False):
        monkeypatch.setattr(paths, "MULTIPLE_RECURSIVE_SELECTS", flag)
        assert rows(graph, query) == expected
        assert rows(graph, "MATCH (x)-[:CALLS*2..2]-(y) WHERE y.name = 'a' RETURN x.name") == [
            ("a",),
            ("b",),
            ("c",),
        ]

"""Java's names, measured against jdtls on jsoup (`bench/references_accuracy.py --language java`,
session 53): a constructor named after its class shadowed the class inside it, and a field shadowed a
method of the same name (Java keeps them apart: the syntax says which one a use means)."""

from __future__ import annotations

from typing import Any

import pytest

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import connect
from tests.graph.helpers import build_graph, graph_of, indexed_workspace


def _query(ws: Workspace, sql: str) -> list[tuple[Any, ...]]:
    """The rows of one read-only query on the workspace's published store."""
    conn = connect(str(ws.store_path()), readonly=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


FILES = {
    "p/Api.java": (
        "package p;\n\n"
        "public interface Api {\n"
        "    enum Method { GET, POST; boolean hasBody; boolean hasBody() { return hasBody; } }\n"
        "    interface Base<T> { T url(String u); String url(); }\n"
        "    interface Req extends Base<Req> {}\n"
        "}\n"
    ),
    "p/Outer.java": (
        "package p;\n\n"
        "public class Outer implements Api {\n"
        "    public Outer() {}\n"
        "    private Outer.Req req;\n"
        "    private static abstract class Base<T> implements Api.Base<T> {\n"
        "        public T url(String u) { return null; }\n"
        '        public String url() { return ""; }\n'
        "    }\n"
        "    public static class Req extends Outer.Base<Api.Req> implements Api.Req {\n"
        "        String url;\n"
        "        void go() { url(); String s = url; }\n"
        "    }\n"
        "    void run(String url) {\n"
        '        req.url("x");\n'
        "        Method m = Method.GET;\n"
        "        String read = req.url;\n"
        "        url();\n"
        "    }\n"
        "    String url() { return null; }\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return build_graph(tmp_path_factory.mktemp("java_names"), FILES)


def test_inside_a_class_its_name_is_the_class_not_its_constructor(graph) -> None:
    # `Outer.Base<…>` in Outer's nested class: `Outer` had found the constructor `Outer()`, a method,
    # which has no member `Base`, so Req had no base and nothing inherited through it resolved
    inherits = graph.resolved("INHERITS")
    assert inherits.get(("p/Outer.java::Outer.Req", "p/Outer.java::Outer.Base")) == "member"


def test_a_call_sees_methods_past_a_field_of_the_same_name(graph) -> None:
    # Req's field `url` stood in front of Base's methods: `url()` and `req.url("x")` called nothing
    base_url = "p/Outer.java::Outer.Base.url"
    assert {d for d, _ in graph.call_targets("p/Outer.java::Outer.Req.go", "url")} == {base_url}
    assert {d for d, _ in graph.call_targets("p/Outer.java::Outer.run", "req.url")} == {base_url}
    # a parameter `url` does not hide the class's method from a call either
    assert graph.call_targets("p/Outer.java::Outer.run", "url") == [("p/Outer.java::Outer.url", "self")]


def test_a_read_sees_no_method(graph) -> None:
    # `return hasBody;` reads the field, `String s = url;` and `req.url` the field `url`: none is a
    # use of a method of that name
    references = graph.of("REFERENCES")
    methods = {"p/Api.java::Api.Method.hasBody", "p/Outer.java::Outer.Base.url", "p/Api.java::Api.Base.url"}
    assert [e for e in references if e.dst in methods] == []
    # a type read by its name still resolves (an interface's nested type, inherited)
    assert graph.resolved("REFERENCES").get(("p/Outer.java::Outer.run", "p/Api.java::Api.Method")) == "self"


OVERLOADS = {
    "q/A.java": (
        "package q;\n\n"
        "class A {\n"
        "    void f() {}\n"
        "    void f(int a) {}\n"
        "    void f(int a, String... rest) {}\n"
        "    A(int x) {}\n"
        "    A(int x, int y) {}\n"
        '    void g() { f(); f(1); f(1, "a", "b"); new A(3); new A(1, 2); this.f(2); f(1, "a"); }\n'
        "}\n"
    ),
    "q/B.java": ("package q;\n\nclass B {\n    void h(A a) { a.f(); a.f(1, 2, 3); a.f(1, 2, 3, 4); }\n}\n"),
}


@pytest.fixture(scope="module")
def overloads(tmp_path_factory):
    with indexed_workspace(tmp_path_factory.mktemp("java_overloads"), OVERLOADS) as ws:
        yield ws


def _calls_by_site(ws) -> dict[tuple[str, int, int], list[int]]:
    """(file, start byte, end byte) of each call site -> the lines of the definitions it reaches."""
    rows = _query(
        ws,
        "SELECT e.path, e.start_byte, e.end_byte, n.start_line FROM edges e JOIN nodes n ON n.id = e.dst "
        "WHERE e.type = 'CALLS'",
    )
    out: dict[tuple[str, int, int], list[int]] = {}
    for file, start, end, line in rows:
        out.setdefault((file, start, end), []).append(line)
    return {k: sorted(v) for k, v in out.items()}


def test_a_call_runs_the_overload_its_argument_count_fits(overloads) -> None:
    # A.f() is line 4, f(int) 5, f(int, String...) 6; A(int) 7, A(int, int) 8; the calls are in the
    # body of g() (A.java) and h() (B.java)
    sites = _calls_by_site(overloads)

    def at(file: str, text: str) -> list[int]:
        data = OVERLOADS[file].encode()
        body = data.index(b"{", data.index(b"void g()" if file == "q/A.java" else b"void h("))
        start = data.index(text.encode(), body)
        return next(v for (f, s, e), v in sites.items() if f == file and (s, e) == (start, start + len(text)))

    assert at("q/A.java", "f()") == [4]
    assert at("q/A.java", "f(1)") == [5]  # fixed arity before a variadic one that also fits
    assert at("q/A.java", 'f(1, "a", "b")') == [6]  # only the variadic one takes three
    assert at("q/A.java", 'f(1, "a")') == [6]
    assert at("q/A.java", "this.f(2)") == [5]
    assert at("q/A.java", "new A(3)") == [7]
    assert at("q/A.java", "new A(1, 2)") == [8]
    # through a receiver of another file: three and four arguments fit only the variadic one
    assert at("q/B.java", "a.f()") == [4]
    assert at("q/B.java", "a.f(1, 2, 3)") == [6]
    assert at("q/B.java", "a.f(1, 2, 3, 4)") == [6]


def test_references_with_a_line_answer_for_that_overload_alone(overloads) -> None:
    settings = load_settings(env={})

    def sites(**extra: object) -> list[tuple[str, int]]:
        answer = execute(
            {
                "operation": "references",
                "symbol": "A.f",
                "relativePath": "q/A.java",
                "includeDeclaration": False,
                "freshness": "fast",
                **extra,
            },
            lambda _r: overloads,
            settings,
        ).to_dict()
        assert answer["status"] != "error", answer
        return sorted(
            (i["anchor"]["path"], i["anchor"]["start_line"])
            for i in answer["items"]
            if i["kind"] == "reference"
        )

    every = sites()
    assert len(every) == 8  # without a line: the sites of all three overloads
    assert sites(line=3) == [("q/A.java", 9), ("q/B.java", 4)]  # f(): `f()` and `a.f()`
    assert len(sites(line=4)) == 2 and len(sites(line=5)) == 4
    answer = execute(
        {
            "operation": "references",
            "symbol": "A.f",
            "relativePath": "q/A.java",
            "line": 0,
            "freshness": "fast",
        },
        lambda _r: overloads,
        settings,
    ).to_dict()
    assert answer["status"] == "error" and answer["code"] == "NOT_FOUND"


NESTED = {
    "n/Conn.java": (
        "package n;\n\n"
        "public interface Conn {\n"
        "    enum Method { GET, POST }\n"
        "    interface Base<T extends Base<T>> {\n"
        "        Method method();\n"
        "    }\n"
        "    interface Request extends Base<Request> {\n"
        "        Request proxy(String host);\n"
        "    }\n"
        "}\n"
    ),
    "n/Impl.java": (
        "package n;\n\n"
        "public class Impl implements Conn {\n"
        "    public Impl() {}\n"
        "    static class Req implements Conn.Request {\n"
        "        public Method method() { return Method.GET; }\n"
        "        public Conn.Request proxy(String host) { return this; }\n"
        "    }\n"
        "    static Impl make() { return new Impl(); }\n"
        "}\n"
    ),
    "n/Use.java": "package n;\n\nclass Use {\n    Impl.Req req(Impl impl) { return new Impl.Req(); }\n}\n",
    # C++: a nested class sees its enclosing class's types too
    "cc/shape.hpp": (
        "struct Shape {\n  enum Kind { Round, Flat };\n  struct Part {\n    Kind kind;\n  };\n};\n"
        "struct Other {\n  enum Kind { Up };\n};\n"
    ),
}


@pytest.fixture(scope="module")
def nested(tmp_path_factory):
    return build_graph(tmp_path_factory.mktemp("java_nested"), NESTED)


def test_a_nested_type_sees_the_types_of_the_classes_around_it(nested) -> None:
    # `Method` in Conn.Base, `Request` in Conn.Request and in Impl.Req (which implements Conn) were
    # guesses by the unique name, or ambiguous where two types share it
    resolved = nested.resolved("REFERENCES")
    assert resolved[("n/Conn.java::Conn.Base", "n/Conn.java::Conn.Method")] == "self"
    assert resolved[("n/Conn.java::Conn.Request", "n/Conn.java::Conn.Request")] == "self"
    assert resolved[("n/Impl.java::Impl.Req", "n/Conn.java::Conn.Method")] == "self"
    assert resolved[("cc/shape.hpp::Shape.Part", "cc/shape.hpp::Shape.Kind")] == "self"


def test_an_outer_type_written_before_a_nested_one_is_referenced(nested) -> None:
    # `Impl.Req` (a type, an instantiation) and `Conn.Request` name Impl and Conn as well
    receivers = {(e.src, e.dst) for e in nested.of("REFERENCES") if e.props.get("use") == "receiver"}
    assert ("n/Use.java::Use.req", "n/Impl.java::Impl") in receivers
    assert ("n/Impl.java::Impl.Req", "n/Conn.java::Conn") in receivers


def test_new_of_a_class_is_a_reference_of_the_class(tmp_path) -> None:
    # its constructor is named like the class (kind `constructor`), not `__init__`: `new Impl()` called
    # the constructor and was no reference of Impl
    with indexed_workspace(tmp_path, {k: v for k, v in NESTED.items() if k.startswith("n/")}) as ws:
        answer = execute(
            {"operation": "references", "symbol": "Impl", "includeDeclaration": False, "freshness": "fast"},
            lambda _r: ws,
            load_settings(env={}),
        ).to_dict()
    texts = {i["text"] for i in answer["items"] if i["kind"] == "reference"}
    assert {"new Impl()", "new Impl.Req()"} <= texts


FIELD_AND_METHOD = {
    "f/Api.java": "package f;\n\npublic interface Api {\n    Api data(Item item);\n    int data();\n}\n",
    "f/Item.java": "package f;\n\nclass Item {\n    void check() {}\n}\n",
    "f/Impl.java": (
        "package f;\n\n"
        "class Impl implements Api {\n"
        "    private int data;\n"
        "    @Override\n"
        "    public Api data(Item item) { Item kept = item; kept.check(); return this; }\n"
        "    @Override\n"
        "    public int data() { return data; }\n"
        "}\n"
    ),
    "f/Use.java": (
        "package f;\n\nclass Use {\n    void go(Impl impl, Api api) { impl.data(new Item()); impl.data(); }\n"
        "    void via(Api api) { api.data(new Item()); }\n}\n"
    ),
}


@pytest.fixture(scope="module")
def field_and_method(tmp_path_factory):
    with indexed_workspace(tmp_path_factory.mktemp("java_field_method"), FIELD_AND_METHOD) as ws:
        yield ws


def test_a_method_named_like_a_field_is_the_scope_of_its_body(field_and_method) -> None:
    # the field `data` came first under the shared qualified name, so the method's parameters and
    # locals belonged to the class (no local node for `kept`) and its calls came from the field
    graph = graph_of(field_and_method)
    assert graph.call_targets("f/Impl.java::Impl.data", "kept.check") == [
        ("f/Item.java::Item.check", "member")
    ]
    assert {name for name, _ in graph.every_node_props if name.endswith(".kept")} == {
        "f/Impl.java::Impl.data.kept"
    }
    kinds = _query(
        field_and_method,
        "SELECT DISTINCT n.kind FROM edges e JOIN nodes n ON n.id = e.src WHERE e.type = 'CALLS' "
        "AND e.path = 'f/Impl.java'",
    )
    assert kinds == [("method",)]


def test_an_override_is_of_the_overload_with_its_arity_and_its_calls_are_references(field_and_method) -> None:
    overrides = sorted((src, dst) for (_, src, dst) in _overrides(field_and_method))
    # data(Item) (its span starts at @Override) overrides Api.data(Item), data() Api.data(); both had
    # overridden whichever of the two came first
    assert overrides == [(5, 4), (7, 5)]

    # a call through the implementing class reaches the interface's method it overrides (JDT lists it)
    assert _reference_texts(field_and_method, "Api.data", "f/Api.java", 3) == [
        "api.data(new Item())",
        "impl.data(new Item())",
    ]
    assert _reference_texts(field_and_method, "Api.data", "f/Api.java", 4) == ["impl.data()"]
    # and a call through the interface may run the override: listed for it too
    assert _reference_texts(field_and_method, "Impl.data", "f/Impl.java", 5) == [
        "api.data(new Item())",
        "impl.data(new Item())",
    ]


def _reference_texts(ws, symbol: str, path: str, line: int) -> list[str]:
    """The sites `references` lists for the definition of ``symbol`` at (zero-based) ``line``."""
    answer = execute(
        {
            "operation": "references",
            "symbol": symbol,
            "relativePath": path,
            "line": line,
            "includeDeclaration": False,
            "freshness": "fast",
        },
        lambda _r: ws,
        load_settings(env={}),
    ).to_dict()
    return sorted(i["text"] for i in answer["items"] if i["kind"] == "reference")


def _overrides(ws) -> list[tuple[Any, ...]]:
    return _query(
        ws,
        "SELECT e.path, a.start_line, b.start_line FROM edges e JOIN nodes a ON a.id = e.src "
        "JOIN nodes b ON b.id = e.dst WHERE e.type = 'OVERRIDES'",
    )


DOCS = {
    "d/Conn.java": "package d;\n\npublic class Conn {\n    public static final Conn INSTANCE = new Conn();\n    enum Kind { A }\n}\n",
    "d/D.java": (
        "package d;\n\n"
        "/**\n * See {@linkplain #open() open} and {@link Conn}.\n * @see D#open(int)\n */\n"
        "class D {\n"
        "    /** Like {@link #open(int)}. */\n"
        "    void open() {}\n"
        "    void open(int n) {}\n"
        "    Object get() { return Conn.Kind.A == null ? Conn.INSTANCE : null; }\n"
        "    int size = 0;\n"
        "    /** Without a parameter list a link names the field {@link #size}, not the method. */\n"
        "    int size() { return size; }\n"
        "}\n"
    ),
}


def test_doc_links_and_static_reads_reference_what_they_name(tmp_path) -> None:
    with indexed_workspace(tmp_path, DOCS) as ws:
        rows = _query(
            ws,
            "SELECT e.line, n.qualified_name, n.start_line, e.properties FROM edges e "
            "JOIN nodes n ON n.id = e.dst WHERE e.type = 'REFERENCES' AND e.path = 'd/D.java'",
        )
    docs = sorted((line, name, target_line) for line, name, target_line, p in rows if '"doc"' in (p or ""))
    # each link to the overload its parameter list names (open() is line 9, open(int) line 10)
    assert docs == [(4, "D.open", 9), (5, "D.open", 10), (8, "D.open", 10)]
    uses = {(line, name) for line, name, _, _ in rows}
    assert (4, "Conn") in uses  # the type part of a link
    assert (11, "Conn") in uses and (11, "Conn.Kind") in uses  # `Conn.INSTANCE`, `Conn.Kind.A`

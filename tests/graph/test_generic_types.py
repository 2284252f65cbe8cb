"""C#'s and C++'s generic types are read as types (session 47): `Box<int> b` declared a value of
unknown type (`generic_name`, `template_type` were unknown expressions), so `b.Open()` was a guess and
Polly's `AddRetry(this ResiliencePipelineBuilder<TResult> builder)` extended nothing. A generic type
is now its base type subscripted by its arguments (as Java's and TypeScript's `generic_type`), and a
generic call's callee (`Make<T>(x)`, `make<int>(1)`) the function itself."""

from __future__ import annotations

import pytest
import tree_sitter

from lazy_intel.parse.expressions import expression
from lazy_intel.parse.languages import grammar
from tests.graph.helpers import build_graph

GENERIC = {
    "cs/Box.cs": (
        "class Box<T> {\n    public void Open() {}\n}\n\nclass Other {\n    public void Open() {}\n}\n\n"
        "class Builder<T> {}\n\nstatic class Ext {\n"
        "    public static Builder<T> AddRetry<T>(this Builder<T> b) { return b; }\n"
        "    public static Other AddRetry(Other o, int n) { return o; }\n}\n"
    ),
    "cs/Use.cs": (
        "class Use {\n    void Go(Box<int> b, Builder<string> builder) {\n        b.Open();\n"
        "        builder.AddRetry();\n        new Box<string>().Open();\n    }\n}\n"
    ),
    "cpp/box.hpp": (
        "template <class T> class Box {\n public:\n  void open() {}\n};\n\n"
        "class Other {\n public:\n  void open() {}\n};\n"
    ),
    "cpp/use.cpp": '#include "box.hpp"\n\nvoid go(Box<int>* b) {\n  b->open();\n}\n',
}


def test_a_value_declared_with_a_generic_type_has_that_type(tmp_path) -> None:
    graph = build_graph(tmp_path, GENERIC)
    calls = graph.resolved("CALLS")
    go = {dst: s for (src, dst), s in calls.items() if src == "cs/Use.cs::Use.Go"}
    # (and `new Box<string>()` makes a Box: the instantiation's edge and the call on its result)
    assert set(go) == {"cs/Box.cs::Box.Open", "cs/Box.cs::Ext.AddRetry", "cs/Box.cs::Box"}
    assert go["cs/Box.cs::Box.Open"] == go["cs/Box.cs::Ext.AddRetry"] == "member"
    # one edge: the overload whose `this` is the builder, not its namesake taking `Other` (the two
    # share a qualified name; the receiver parameter is read within each one's span)
    add_retry = [e for e in graph.of("CALLS", "cs/Use.cs::Use.Go") if e.target == "builder.AddRetry"]
    assert [(e.dst, e.line) for e in add_retry] == [("cs/Box.cs::Ext.AddRetry", 4)]
    assert {dst: s for (src, dst), s in calls.items() if src == "cpp/use.cpp::go"} == {
        "cpp/box.hpp::Box.open": "member"
    }


@pytest.mark.parametrize(
    ("lang", "source", "expected"),
    [
        ("csharp", "class C { void F(List<Foo> xs) {} }", ["k", ["n", "List"], ["n", "Foo"]]),
        (
            "csharp",
            "class C { void F(Map<A, B> m) {} }",
            ["k", ["n", "Map"], ["t", [["n", "A"], ["n", "B"]]]],
        ),
        ("cpp", "void f(Box<int>* b) {}", ["k", ["n", "Box"], ["x"]]),
    ],
)
def test_a_generic_type_is_its_base_subscripted(lang: str, source: str, expected: list) -> None:
    data = source.encode()
    tree = tree_sitter.Parser(grammar(lang)).parse(data)
    types = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("parameter", "parameter_declaration"):
            types.append(node.child_by_field_name("type"))
        stack.extend(node.children)
    (declared,) = types
    assert expression(data, declared) == expected


@pytest.mark.parametrize(
    ("lang", "source", "callee"),
    [
        ("csharp", "class C { void F() { Make<int>(1); } }", "Make"),
        ("cpp", "void f() { make<int>(1); }", "make"),
    ],
)
def test_a_generic_call_s_callee_is_the_function(lang: str, source: str, callee: str) -> None:
    data = source.encode()
    tree = tree_sitter.Parser(grammar(lang)).parse(data)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("invocation_expression", "call_expression"):
            function = node.child_by_field_name("function")
            assert expression(data, function) == ["n", callee]
            return
        stack.extend(node.children)
    raise AssertionError("no call")

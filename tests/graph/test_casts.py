"""Casts and type assertions keep their operand's value and name its type (session 48).

`((Box) o).open()`, `(o as Box).open()`, `o.(*Box).Open()` were calls on an unknown receiver (a cast
was an unknown expression), so each was a guess among every `open` of the project; and zustand's
`export const createStore = ((f) => …) as CreateStore` made every `createStore(…)` of its tests
unresolved. A cast is now ``["as", operand, type]``: the operand's value and an instance of the type
it names (as a variable declared `x: T = v`), in every grammar that writes one."""

from __future__ import annotations

import pytest
import tree_sitter

from lazy_intel.parse.expressions import CAST_TYPES, expression
from lazy_intel.parse.languages import grammar
from tests.graph.helpers import build_graph

# every language's `open` has a namesake in `Other`: a guess by name would be ambiguous
CASTS = {
    "java/Box.java": "class Box { int open() { return 1; } }\nclass Other { int open() { return 2; } }\n",
    "java/User.java": "class User {\n  void go(Object o) {\n    ((Box) o).open();\n  }\n}\n",
    "cs/Box.cs": "class Box { public int Open() { return 1; } }\nclass Other { public int Open() { return 2; } }\n",
    "cs/User.cs": "class User {\n  void Go(object o) {\n    ((Box) o).Open();\n    (o as Box).Open();\n  }\n}\n",
    # (on several lines: tree-sitter-kotlin 1.1 does not parse `class Box { fun open() = 1 }` on one)
    "kt/Box.kt": "class Box {\n  fun open(): Int = 1\n}\n\nclass Other {\n  fun open(): Int = 2\n}\n",
    "kt/User.kt": "fun go(o: Any) {\n  (o as Box).open()\n  (o as? Box)?.open()\n}\n",
    "swift/Box.swift": (
        "class Box { func open() -> Int { return 1 } }\nclass Other { func open() -> Int { return 2 } }\n"
    ),
    "swift/User.swift": "func go(o: Any) {\n  (o as! Box).open()\n}\n",
    "go/box.go": (
        "package box\n\ntype Box struct{}\n\nfunc (b *Box) Open() int { return 1 }\n\n"
        "type Other struct{}\n\nfunc (b *Other) Open() int { return 2 }\n\n"
        "func Go(o interface{}) {\n\to.(*Box).Open()\n}\n"
    ),
    # a conversion to a predeclared type is builtin; an outside package is bound by its assumed name
    "go/conv.go": (
        'package box\n\nimport (\n\t"go.yaml.in/yaml/v3"\n\t"github.com/pelletier/go-toml/v2"\n)\n\n'
        "func Conv(b []byte, n int) string {\n\tyaml.Marshal(b)\n\ttoml.Marshal(b)\n"
        "\t_ = int64(n)\n\treturn string(b)\n}\n"
    ),
    "cpp/box.cpp": (
        "class Box { public: int open() { return 1; } };\nclass Other { public: int open() { return 2; } };\n"
        "void go(void* o) {\n  ((Box*) o)->open();\n}\n"
    ),
    "ts/box.ts": (
        "export class Box { open(): number { return 1 } }\nexport class Other { open(): number { return 2 } }\n"
        "export type Maker = (n: number) => number\n"
        "const impl = (n: number) => n\n"
        "export const make = ((n: number) => n) as Maker\n"
        "export const made = ((n: number) => n) satisfies Maker\n"
        "export const alias = impl as unknown as Maker\n"
    ),
    "ts/user.ts": (
        "import { Box, make, made, alias } from './box'\n"
        "export function go(o: any) {\n  ;(o as Box).open()\n  ;(<Box>o).open()\n"
        "  make(1)\n  made(2)\n  alias(3)\n}\n"
    ),
}


@pytest.fixture(scope="module")
def casts_graph(tmp_path_factory):
    """The fixture repository, indexed once for the module's tests."""
    return build_graph(tmp_path_factory.mktemp("casts_graph"), CASTS)


def test_a_call_through_a_cast_reaches_the_method_of_the_type_it_names(casts_graph) -> None:
    graph = casts_graph
    calls = graph.resolved("CALLS")
    expected = {
        "java/User.java::User.go": "java/Box.java::Box.open",
        "cs/User.cs::User.Go": "cs/Box.cs::Box.Open",
        "kt/User.kt::go": "kt/Box.kt::Box.open",
        "swift/User.swift::go": "swift/Box.swift::Box.open",
        "go/box.go::Go": "go/box.go::Box.Open",
        "cpp/box.cpp::go": "cpp/box.cpp::Box.open",
        "ts/user.ts::go": "ts/box.ts::Box.open",
    }
    for caller, method in expected.items():
        assert calls.get((caller, method)) == "member", caller
        sites = [e for e in graph.of("CALLS", caller) if e.target and e.target.endswith(("open", "Open"))]
        assert sites and all(e.dst == method for e in sites), (caller, sites)  # no guess beside it
        # and the type the cast names is a reference of the caller, as a type checker lists it
        box = method.rsplit(".", 1)[0]
        assert (caller, box) in graph.pairs("REFERENCES"), caller


def test_go_conversions_are_builtin_and_versioned_imports_bind_their_package_name(casts_graph) -> None:
    sites = {(e.target, e.strategy) for e in casts_graph.of("CALLS", "go/conv.go::Conv")}
    assert ("string", "builtin") in sites and ("int64", "builtin") in sites
    assert {s for t, s in sites if t.endswith("Marshal")} == {"external"}
    assert len(sites) == 4


def test_a_function_value_keeps_its_definition_through_a_type_assertion(casts_graph) -> None:
    graph = casts_graph
    go = {
        e.target: (e.dst, e.strategy)
        for e in graph.of("CALLS", "ts/user.ts::go")
        if e.target in ("make", "made", "alias")
    }
    # `(…) as Maker` and `(…) satisfies Maker` define functions; `impl as unknown as Maker` is impl
    assert go == {
        "make": ("ts/box.ts::make", "import"),
        "made": ("ts/box.ts::made", "import"),
        "alias": ("ts/box.ts::impl", "import"),
    }


def _first(lang: str, source: str, kinds: tuple[str, ...]) -> list:
    data = source.encode()
    tree = tree_sitter.Parser(grammar(lang)).parse(data)
    stack = [tree.root_node]
    while stack:
        node = stack.pop(0)
        if node.type in kinds:
            return expression(data, node)
        stack.extend(node.children)
    raise AssertionError(f"no {kinds} in {source!r}")


@pytest.mark.parametrize(
    ("lang", "source", "expected"),
    [
        ("typescript", "const f = x as Foo", ["as", ["n", "x"], ["n", "Foo"]]),
        ("typescript", "const f = x satisfies Foo", ["as", ["n", "x"], ["n", "Foo"]]),
        ("typescript", "const f = <Foo>x", ["as", ["n", "x"], ["n", "Foo"]]),
        ("typescript", "const f = x as unknown as Foo", ["as", ["as", ["n", "x"], ["x"]], ["n", "Foo"]]),
        ("java", "class A { void m() { Foo f = (Foo) o; } }", ["as", ["n", "o"], ["n", "Foo"]]),
        ("csharp", "class A { void M() { var f = (Foo) o; } }", ["as", ["n", "o"], ["n", "Foo"]]),
        ("csharp", "class A { void M() { var f = o as Foo; } }", ["as", ["n", "o"], ["n", "Foo"]]),
        ("kotlin", "val f = o as? Foo", ["as", ["n", "o"], ["n", "Foo"]]),
        ("swift", "let f = o as! Foo", ["as", ["n", "o"], ["n", "Foo"]]),
        ("go", "package p\nfunc m() { f := o.(*Foo) }", ["as", ["n", "o"], ["n", "Foo"]]),
        ("rust", "fn m() { let f = o as u32; }", ["as", ["n", "o"], ["x"]]),
        ("cpp", "void m() { Foo* f = (Foo*) o; }", ["as", ["n", "o"], ["n", "Foo"]]),
        ("cpp", "void m() { auto f = static_cast<Foo*>(o); }", ["as", ["n", "o"], ["n", "Foo"]]),
        (
            "cpp",
            "void m() { auto f = dynamic_cast<ns::Foo&>(o); }",
            ["as", ["n", "o"], ["a", ["n", "ns"], "Foo"]],
        ),
    ],
)
def test_a_cast_is_its_operand_and_its_type(lang: str, source: str, expected: list) -> None:
    kinds = (*CAST_TYPES, "call_expression")  # (C++'s `static_cast<T>(x)` is a call)
    assert _first(lang, source, kinds) == expected


@pytest.mark.parametrize(
    ("lang", "source", "expected"),
    [
        ("swift", "let f = (o)", ["n", "o"]),  # parentheses: Swift has no one-element tuple
        ("swift", "let f = (a, b)", ["t", [["n", "a"], ["n", "b"]]]),
        ("rust", "fn m() { let t = (x,); }", ["t", [["n", "x"]]]),  # a one-element tuple
    ],
)
def test_parentheses_are_not_a_tuple(lang: str, source: str, expected: list) -> None:
    assert _first(lang, source, ("tuple_expression",)) == expected


def test_a_downcast_narrows_what_the_operand_holds(tmp_path) -> None:
    # gson's `getAsJsonObject() { return (JsonObject) this; }`: `this` is every receiver's class, a
    # JsonArray's too; the cast leaves only the instances that can be a JsonObject
    graph = build_graph(
        tmp_path,
        {
            "j/Element.java": "class Element {\n  Obj asObj() {\n    return (Obj) this;\n  }\n}\n",
            "j/Obj.java": "class Obj extends Element {\n  int get() { return 1; }\n}\n",
            "j/Arr.java": "class Arr extends Element {\n  int get() { return 2; }\n}\n",
            "j/Use.java": "class Use {\n  void go(Arr a) {\n    a.asObj().get();\n  }\n}\n",
        },
    )
    gets = [e for e in graph.of("CALLS", "j/Use.java::Use.go") if e.target and e.target.endswith(".get")]
    assert [(e.dst, e.strategy) for e in gets] == [("j/Obj.java::Obj.get", "member")]


def test_go_comma_ok_assertions_and_type_switches_name_the_type(tmp_path) -> None:
    # `b, ok := x.(*Box)` unpacked the asserted value as a tuple, and `switch v := x.(type)` gave `v`
    # nothing: both calls were guesses among every `Open`
    graph = build_graph(
        tmp_path,
        {
            "go/box.go": (
                "package box\n\ntype Box struct{}\n\nfunc (b *Box) Open() int { return 1 }\n\n"
                "type Other struct{}\n\nfunc (o *Other) Open() int { return 2 }\n\n"
                "func M(x interface{}, m map[string]*Box) {\n\tswitch v := x.(type) {\n\tcase *Box:\n\t\tv.Open()\n"
                "\tcase nil:\n\t}\n\tif b, ok := x.(*Box); ok {\n\t\tb.Open()\n\t}\n"
                '\tif c, ok := m["k"]; ok {\n\t\tc.Open()\n\t}\n}\n'
            )
        },
    )
    opens = [e for e in graph.of("CALLS", "go/box.go::M") if e.target and e.target.endswith(".Open")]
    assert sorted((e.line, e.dst, e.strategy) for e in opens) == [
        (14, "go/box.go::Box.Open", "member"),
        (18, "go/box.go::Box.Open", "member"),
        (21, "go/box.go::Box.Open", "member"),
    ]

"""Value-flow facts and call shapes: assignments, parameters, returns, computed callees, arguments."""

from __future__ import annotations

import json

from lazy_intel.parse.expressions import loads
from lazy_intel.parse.extract import extract_facts

SOURCE = b"""import app_mod

def handler(request, retries=3, *rest, timeout: float = 1.0, **extra):
    client = make_client(request, timeout=timeout)
    if request.ok:
        for item in request.items:
            try:
                result = client.send(item)
            except Error:
                result = None
    a, (b, c) = f1, (f2, f3)
    return client

def gen():
    yield helper

table = {"a": handler, 1: gen}
table["a"]()
gen()()
app_mod.app.route("/users/<id>", methods=["GET"])
pick = handler if table else gen
"""


def _flows(kind: str) -> list[tuple[object, ...]]:
    facts = extract_facts("svc.py", "python", SOURCE)
    assert facts.error is None
    return [
        (f.scope, loads(f.target), loads(f.value), loads(f.annotation), f.index, f.condition_path)
        for f in facts.flows
        if f.kind == kind
    ]


def test_parameters_in_order_with_defaults_and_types() -> None:
    assert _flows("parameter") == [
        ("handler", ["n", "request"], None, None, 0, ()),
        ("handler", ["n", "retries"], ["i", "3"], None, 1, ()),
        ("handler", ["*", ["n", "rest"]], None, ["n", "tuple"], 2, ()),  # `*rest` is a tuple
        ("handler", ["n", "timeout"], ["i", "1.0"], ["n", "float"], 3, ()),
        ("handler", ["*", ["n", "extra"]], None, ["n", "dict"], 4, ()),  # `**extra` a dict
    ]


def test_assignments_keep_their_shape_and_condition_path() -> None:
    flows = _flows("assign")
    assert (
        "handler",
        ["n", "client"],
        ["c", ["n", "make_client"], [["n", "request"], ["kw", "timeout", ["n", "timeout"]]]],
        None,
        -1,
        (),
    ) in flows
    conditional = [f for f in flows if f[1] == ["n", "result"]]
    assert [f[5] for f in conditional] == [
        ("if_statement", "for_statement", "try_statement"),
        ("if_statement", "for_statement", "try_statement", "except_clause"),
    ]
    assert (
        "handler",
        ["t", [["n", "a"], ["t", [["n", "b"], ["n", "c"]]]]],
        ["t", [["n", "f1"], ["t", [["n", "f2"], ["n", "f3"]]]]],
        None,
        -1,
        (),
    ) in flows
    table = next(f for f in flows if f[1] == ["n", "table"])
    assert table[2] == ["d", [[["s", "a"], ["n", "handler"]], [["i", "1"], ["n", "gen"]]]]
    pick = next(f for f in flows if f[1] == ["n", "pick"])
    assert pick[2] == ["u", [["n", "handler"], ["n", "gen"]]]


def test_loops_returns_and_yields() -> None:
    assert _flows("iterate") == [
        ("handler", ["n", "item"], ["a", ["n", "request"], "items"], None, -1, ("if_statement",))
    ]
    assert _flows("return") == [("handler", None, ["n", "client"], None, -1, ())]
    assert _flows("yield") == [("gen", None, ["n", "helper"], None, -1, ())]


def test_calls_record_computed_callees_and_arguments() -> None:
    facts = extract_facts("svc.py", "python", SOURCE)
    calls = {(r.name, r.receiver, r.callee, r.args) for r in facts.references if r.kind == "call"}
    assert ("", None, json.dumps(["k", ["n", "table"], ["s", "a"]], separators=(",", ":")), "[]") in calls
    assert ("", None, json.dumps(["c", ["n", "gen"], []], separators=(",", ":")), "[]") in calls
    assert ("gen", None, None, "[]") in calls  # call syntax with no arguments
    route = next(r for r in facts.references if r.name == "route")
    assert route.receiver == "app_mod.app"
    assert loads(route.callee) == ["a", ["a", ["n", "app_mod"], "app"], "route"]
    assert loads(route.args) == [["s", "/users/<id>"], ["kw", "methods", ["t", [["s", "GET"]]]]]
    send = next(r for r in facts.references if r.name == "send")
    assert send.receiver == "client" and send.callee is None  # receiver.name says it all
    assert loads(send.args) == [["n", "item"]]


def test_a_decorator_name_is_not_call_syntax() -> None:
    source = b"import functools\n\n@functools.cache\n@register\ndef f():\n    pass\n"
    facts = extract_facts("d.py", "python", source)
    decorators = {(r.name, r.callee, r.args) for r in facts.references if r.kind == "call"}
    assert decorators == {
        ("cache", json.dumps(["a", ["n", "functools"], "cache"], separators=(",", ":")), None),
        ("register", None, None),
    }


def _all_flows(path: str, lang: str, source: bytes) -> list[tuple[object, ...]]:
    facts = extract_facts(path, lang, source)
    assert facts.error is None
    return [
        (f.kind, f.scope, loads(f.target), loads(f.value), loads(f.annotation), f.index) for f in facts.flows
    ]


def test_typescript_flows() -> None:
    source = b"class A {\n  svc: Service;\n  run(x: Dog, y = 2) {\n    const c = new Fancy();\n    for (const it of items) {}\n    return c;\n  }\n}\n"
    assert _all_flows("a.ts", "typescript", source) == [
        ("assign", "A.svc", ["n", "svc"], None, ["n", "Service"], -1),
        ("parameter", "A.run", ["n", "x"], None, ["n", "Dog"], 0),
        ("parameter", "A.run", ["n", "y"], ["i", "2"], None, 1),
        ("assign", "A.run", ["n", "c"], ["c", ["n", "Fancy"], []], None, -1),
        ("iterate", "A.run", ["n", "it"], ["n", "items"], None, -1),
        ("return", "A.run", None, ["n", "c"], None, -1),
    ]


def test_java_go_and_rust_flows() -> None:
    java = b"class A { Service svc; void go(Dog d) { Dog x = new Dog(); return x; } }\n"
    assert _all_flows("A.java", "java", java) == [
        ("assign", "A.svc", ["n", "svc"], None, ["n", "Service"], -1),
        ("parameter", "A.go", ["n", "d"], None, ["n", "Dog"], 0),
        ("assign", "A.go", ["n", "x"], ["c", ["n", "Dog"], []], ["n", "Dog"], -1),
        ("return", "A.go", None, ["n", "x"], None, -1),
    ]
    go = b"package p\n\nfunc (s *Store) Get(k Key) *Store { y := New(); return &Store{} }\n"
    assert _all_flows("a.go", "go", go) == [
        ("assign", "Store.Get", ["n", "s"], None, ["n", "Store"], -1),  # the receiver: not positional
        ("parameter", "Store.Get", ["n", "k"], None, ["n", "Key"], 0),
        ("return", "Store.Get", None, None, ["n", "Store"], -1),  # the declared result type
        ("assign", "Store.Get", ["n", "y"], ["c", ["n", "New"], []], None, -1),  # one = one: unwrapped
        ("return", "Store.Get", None, ["o", [["c", ["n", "Store"], []]], "&"], None, -1),
    ]
    several = (
        b"package p\n\nfunc Pair() (a *A, b *B) {\n\tx, err := Make()\n\tp, q = 1, k\n"
        b"\trun(func(c *Ctx) {})\n\treturn\n}\n\nfunc Two() (*A, error) { return &A{}, nil }\n"
    )
    assert _all_flows("b.go", "go", several) == [
        ("return", "Pair", None, ["t", [["n", "a"], ["n", "b"]]], None, -1),  # what a bare return returns
        ("assign", "Pair", ["n", "a"], None, ["n", "A"], -1),  # named results: typed variables
        ("assign", "Pair", ["n", "b"], None, ["n", "B"], -1),
        ("assign", "Pair", ["t", [["n", "x"], ["n", "err"]]], ["c", ["n", "Make"], []], None, -1),  # unpacked
        ("assign", "Pair", ["t", [["n", "p"], ["n", "q"]]], ["t", [["i", "1"], ["n", "k"]]], None, -1),
        ("assign", "Pair", ["n", "c"], None, ["n", "Ctx"], -1),  # a function literal's parameter
        ("return", "Two", None, None, ["t", [["n", "A"], ["n", "error"]]], -1),  # declared result types
        (
            "return",
            "Two",
            None,
            ["t", [["o", [["c", ["n", "A"], []]], "&"], ["x"]]],
            None,
            -1,
        ),  # several values
    ]
    rust = b"impl C {\n    fn new(o: &Other) -> Self { let x: Foo = make(); C { r: 1 } }\n}\n"
    assert _all_flows("a.rs", "rust", rust) == [
        ("parameter", "C.new", ["n", "o"], None, ["n", "Other"], 0),
        ("return", "C.new", None, None, ["n", "Self"], -1),  # the declared return type
        ("return", "C.new", None, ["c", ["n", "C"], []], None, -1),  # the tail expression
        ("assign", "C.new", ["n", "x"], ["c", ["n", "make"], []], ["n", "Foo"], -1),
    ]

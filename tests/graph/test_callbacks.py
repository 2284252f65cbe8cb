"""A callback's parameter is each element of the collection it is called over (session 48).

`boxes.map(x => x.go())` was a guess among every `go` of the project: the arrow function's parameter
had no value. A callback passed to a collection's element-wise method (`map`, `forEach`, `filter`,
Java's streams, C#'s LINQ, Kotlin's `{ it … }`, Swift's `{ $0 … }`, Rust's iterator adapters, Python's `map(lambda …)`
and `sorted(key=…)`) now reads its first parameter as `for x of xs` does: each element. A method
that returns some of a collection's elements (`filter`, `slice`, `stream()`, `iter()`) keeps them,
and `find`, `at`, `shift` give one of them."""

from __future__ import annotations

import pytest

from tests.graph.helpers import build_graph

# each language: a Box with `go`, an Other with `go` (a guess by name would be ambiguous), a
# declared collection of boxes and calls through callbacks over it
CALLBACKS = {
    "ts/use.ts": (
        "export class Box { go(): number { return 1 } }\nexport class Other { go(): number { return 2 } }\n"
        "export function use(xs: Box[]) {\n  xs.map(x => x.go())\n  xs.forEach((x) => { x.go() })\n"
        "  xs.filter(function (x) { return x.go() > 0 }).map((x) => x.go())\n"
        "  const found = xs.find(x => true)\n  found?.go()\n}\n"
    ),
    "js/use.js": (
        "class Box { go() { return 1 } }\nclass Other { go() { return 2 } }\n"
        "export function use() {\n  const xs = [new Box()]\n  xs.map(x => x.go())\n"
        "  xs.forEach((x) => x.go())\n  xs.some(function (x) { return x.go() })\n}\n"
    ),
    "java/Use.java": (
        "import java.util.List;\n\nclass Box { int go() { return 1; } }\nclass Other { int go() { return 2; } }\n"
        "class Use {\n  void use(List<Box> xs) {\n    xs.forEach(x -> x.go());\n"
        "    xs.stream().map((x) -> x.go());\n  }\n}\n"
    ),
    "cs/Use.cs": (
        "using System.Collections.Generic;\n\nclass Box { public int Go() { return 1; } }\n"
        "class Other { public int Go() { return 2; } }\n"
        "class Use {\n  void M(List<Box> xs) {\n    xs.Select(x => x.Go());\n    xs.ForEach((x) => x.Go());\n  }\n}\n"
    ),
    "kt/Use.kt": (
        "class Box {\n  fun go(): Int = 1\n}\n\nclass Other {\n  fun go(): Int = 2\n}\n\n"
        "fun use(xs: List<Box>) {\n  xs.forEach { it.go() }\n  xs.map { x -> x.go() }\n}\n\n"
        # (and Kotlin's `List<Box>` and `Box?` are read as types: they were a bare `List` and unknown)
        "fun Box?.label(): Int = 3\n\nfun maybe(b: Box?) {\n  b?.go()\n  b.label()\n}\n"
    ),
    "swift/Use.swift": (
        "class Box {\n  func go() -> Int { return 1 }\n}\n\nclass Other {\n  func go() -> Int { return 2 }\n}\n\n"
        "func use(xs: [Box]) {\n  xs.forEach { $0.go() }\n  _ = xs.map { x in x.go() }\n}\n\n"
        # (Swift's `[Box]` and `Box?` parameters were not flows: only a plain type was)
        "func maybe(o: Box?) {\n  _ = o?.go()\n}\n"
    ),
    "rs/lib.rs": (
        "struct Box;\nimpl Box {\n    fn go(&self) -> i32 { 1 }\n}\nstruct Other;\nimpl Other {\n"
        "    fn go(&self) -> i32 { 2 }\n}\nfn use_them(xs: Vec<Box>) {\n"
        "    xs.iter().map(|x| x.go());\n    xs.iter().for_each(|x| { x.go(); });\n}\n"
    ),
    "py/use.py": (
        "class Box:\n    def go(self):\n        return 1\n\n\nclass Other:\n    def go(self):\n        return 2\n\n\n"
        "def use(xs: list[Box]):\n    list(map(lambda x: x.go(), xs))\n    sorted(xs, key=lambda y: y.go())\n"
        "    xs.sort(key=lambda z: z.go())\n"
    ),
}

CALLERS = {
    "ts/use.ts::use": "ts/use.ts::Box.go",
    "js/use.js::use": "js/use.js::Box.go",
    "java/Use.java::Use.use": "java/Use.java::Box.go",
    "cs/Use.cs::Use.M": "cs/Use.cs::Box.Go",
    "kt/Use.kt::use": "kt/Use.kt::Box.go",
    "kt/Use.kt::maybe": "kt/Use.kt::Box.go",
    "swift/Use.swift::use": "swift/Use.swift::Box.go",
    "swift/Use.swift::maybe": "swift/Use.swift::Box.go",
    "rs/lib.rs::use_them": "rs/lib.rs::Box.go",
    "py/use.py::use.<lambda>": "py/use.py::Box.go",
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return build_graph(tmp_path_factory.mktemp("callbacks"), CALLBACKS)


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_a_callbacks_parameter_is_each_element(graph, caller: str) -> None:
    calls = [e for e in graph.edges if e.type == "CALLS" and e.src == caller and e.target]
    goes = [e for e in calls if e.target.lower().endswith(".go")]
    assert goes, caller
    assert {(e.dst, e.strategy) for e in goes} == {(CALLERS[caller], "member")}, goes


def test_each_site_is_resolved(graph) -> None:
    # every `x.go()` of the TypeScript file: through map, forEach, filter(…).map and find
    sites = {e.line for e in graph.of("CALLS", "ts/use.ts::use") if e.strategy == "member"}
    assert sites == {4, 5, 6, 8}
    lambdas = {
        e.src for e in graph.edges if e.src.startswith("py/use.py::use.<lambda>") and e.strategy == "member"
    }
    assert lambdas  # each lambda is a definition of its own in Python
    assert len([e for e in graph.edges if e.src.startswith("py/use.py::") and e.strategy == "member"]) == 3
    # Kotlin's `b: Box?` names Box, as `b: Box` does
    assert ("kt/Use.kt::maybe", "kt/Use.kt::Box") in graph.pairs("REFERENCES")
    # and an extension of a nullable receiver (`fun Box?.label()`) is Box's
    assert graph.resolved("CALLS").get(("kt/Use.kt::maybe", "kt/Use.kt::Box.label")) == "member"

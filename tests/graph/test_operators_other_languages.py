"""Operator methods beyond Python's binary operations (session 51): Rust's `impl Add for V { fn add }`,
C++'s member `operator+`, Ruby's `def +(other)` / `def -@`, Kotlin's `operator fun plus`, and the
compound assignments of all five languages (Python's `q |= other` runs `__ior__`, else `__or__`).
Before, `a + b` in those languages named no method: nothing called `add` or `operator+`, and
`(a + b).norm()` lost the operand's type, so its call was a guess by name among the tree's `norm`s;
`c += b` called nothing in any language. One fixture per language, the same shape each: a value
type with operator methods and a `norm`, a decoy type with methods of the same names, and a function
that adds, negates, compares and adds in place."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.graph.helpers import build_graph

RUST = {
    "Cargo.toml": '[package]\nname = "vec"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod vec;\npub mod decoy;\npub mod usage;\n",
    "src/vec.rs": (
        "use std::ops::{Add, AddAssign, Neg};\n\n"
        "#[derive(Clone, Copy)]\npub struct V { pub x: f64 }\n\n"
        "impl Add for V {\n    type Output = V;\n    fn add(self, o: V) -> V { V { x: self.x + o.x } }\n}\n\n"
        "impl Neg for V {\n    type Output = V;\n    fn neg(self) -> V { V { x: -self.x } }\n}\n\n"
        "impl PartialEq for V {\n    fn eq(&self, o: &V) -> bool { self.x == o.x }\n}\n\n"
        "impl AddAssign for V {\n    fn add_assign(&mut self, o: V) { self.x += o.x; }\n}\n\n"
        "impl V {\n    pub fn norm(&self) -> f64 { self.x }\n}\n"
    ),
    "src/decoy.rs": (
        "pub struct Decoy;\n\nimpl Decoy {\n    pub fn add(&self) {}\n    pub fn neg(&self) {}\n"
        "    pub fn eq(&self) {}\n    pub fn norm(&self) {}\n}\n"
    ),
    "src/usage.rs": (
        "use crate::vec::V;\n\n"
        "pub fn arithmetic(a: V, b: V, n: i64) -> bool {\n"
        "    (a + b).norm();\n    (-a).norm();\n    let mut m = n + 1;\n    m += 1;\n"
        "    let mut c = a;\n    c += b;\n    a == b\n}\n"
    ),
}
CPP = {
    "vec.h": (
        "struct V {\n    double x;\n"
        "    V operator+(const V& o) const { return V{x + o.x}; }\n"
        "    V operator-() const { return V{-x}; }\n"
        "    bool operator==(const V& o) const { return x == o.x; }\n"
        "    V& operator+=(const V& o) { x += o.x; return *this; }\n"
        "    double norm() const { return x; }\n};\n"
    ),
    "decoy.h": (
        "struct Decoy {\n    void norm() {}\n    Decoy operator+(const Decoy& o) const { return o; }\n};\n"
    ),
    "usage.cpp": (
        '#include "vec.h"\n#include "decoy.h"\n\n'
        "bool arithmetic(V a, V b, int n) {\n"
        "    (a + b).norm();\n    (-a).norm();\n    int m = n + 1;\n    m += 1;\n"
        "    V c = a;\n    c += b;\n    return a == b;\n}\n"
    ),
}
RUBY = {
    "lib/vec.rb": (
        "class Vec\n  def initialize(x)\n    @x = x\n  end\n\n"
        "  def +(other)\n    Vec.new(1)\n  end\n\n"
        "  def -@\n    Vec.new(2)\n  end\n\n"
        "  def <<(item)\n    self\n  end\n\n"
        "  def norm\n    1\n  end\nend\n"
    ),
    "lib/decoy.rb": "class Decoy\n  def norm\n  end\n\n  def +(other)\n  end\nend\n",
    "lib/usage.rb": (
        "require_relative 'vec'\n\n"
        "class Usage\n  def arithmetic(n)\n    a = Vec.new(1)\n    b = Vec.new(2)\n"
        "    (a + b).norm\n    (-a).norm\n    a << b\n    m = n + 1\n    m += 1\n"
        "    c = a\n    c += b\n  end\nend\n"
    ),
}
KOTLIN = {
    "src/main/kotlin/vec/V.kt": (
        "package vec\n\nclass V(val x: Double) {\n"
        "    operator fun plus(o: V): V = V(x + o.x)\n"
        "    operator fun unaryMinus(): V = V(-x)\n"
        "    fun norm(): Double = x\n}\n"
    ),
    "src/main/kotlin/vec/Decoy.kt": (
        "package vec\n\nclass Decoy {\n    fun norm() {}\n    operator fun plus(o: Decoy): Decoy = o\n}\n"
    ),
    "src/main/kotlin/vec/Usage.kt": (
        "package vec\n\nfun arithmetic(a: V, b: V, n: Int) {\n"
        "    (a + b).norm()\n    (-a).norm()\n    var m = n + 1\n    m += 1\n"
        "    var c = a\n    c += b\n}\n"
    ),
}
PYTHON = {
    "pkg/__init__.py": "",
    "pkg/vec.py": (
        "class V:\n"
        "    def __add__(self, o):\n        return V()\n\n"
        "    def __iadd__(self, o):\n        return self\n\n"
        "    def __neg__(self):\n        return V()\n\n"
        "    def norm(self):\n        return 1\n\n\n"
        "class Q:\n    def __or__(self, o):\n        return Q()\n"
    ),
    "pkg/decoy.py": (
        "class Decoy:\n    def norm(self): ...\n    def __add__(self, o): ...\n    def __iadd__(self, o): ...\n"
        "    def __or__(self, o): ...\n"
    ),
    "pkg/usage.py": (
        "from pkg.vec import Q, V\n\n\n"
        "def arithmetic(a: V, b: V, n: int, q: Q):\n"
        "    (a + b).norm()\n    (-a).norm()\n    m = n + 1\n    m += 1\n"
        "    c = a\n    c += b\n    q |= Q()\n"
    ),
}

CASES = {
    # language: (files, the function, [(operator method run, the definition reached)], the value's norm)
    "python": (
        PYTHON,
        "pkg/usage.py::arithmetic",
        # `q |= Q()`: Q has no `__ior__`, so the `__or__` it falls back to
        [
            ("__add__", "pkg/vec.py::V.__add__"),
            ("__neg__", "pkg/vec.py::V.__neg__"),
            ("__iadd__", "pkg/vec.py::V.__iadd__"),
            ("__ior__", "pkg/vec.py::Q.__or__"),
        ],
        "pkg/vec.py::V.norm",
    ),
    "rust": (
        RUST,
        "src/usage.rs::arithmetic",
        [
            ("add", "src/vec.rs::V.add"),
            ("neg", "src/vec.rs::V.neg"),
            ("eq", "src/vec.rs::V.eq"),
            ("add_assign", "src/vec.rs::V.add_assign"),
        ],
        "src/vec.rs::V.norm",
    ),
    "cpp": (
        CPP,
        "usage.cpp::arithmetic",
        [
            ("operator+", "vec.h::V.operator+"),
            ("operator-", "vec.h::V.operator-"),
            ("operator==", "vec.h::V.operator=="),
            ("operator+=", "vec.h::V.operator+="),
        ],
        "vec.h::V.norm",
    ),
    "ruby": (
        RUBY,
        "lib/usage.rb::Usage.arithmetic",
        # `c += b` is `c = c + b`: `+` twice
        [
            ("+", "lib/vec.rb::Vec.+"),
            ("-@", "lib/vec.rb::Vec.-@"),
            ("<<", "lib/vec.rb::Vec.<<"),
            ("+", "lib/vec.rb::Vec.+"),
        ],
        "lib/vec.rb::Vec.norm",
    ),
    "kotlin": (
        KOTLIN,
        "src/main/kotlin/vec/Usage.kt::arithmetic",
        # `c += b`: no `plusAssign` in the tree, so the `plus` it falls back to
        [
            ("plus", "src/main/kotlin/vec/V.kt::V.plus"),
            ("unaryMinus", "src/main/kotlin/vec/V.kt::V.unaryMinus"),
            ("plusAssign", "src/main/kotlin/vec/V.kt::V.plus"),
        ],
        "src/main/kotlin/vec/V.kt::V.norm",
    ),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    files, function, operators, norm = CASES[request.param]
    return build_graph(tmp_path_factory.mktemp(request.param), files), function, operators, norm


def test_an_operation_calls_the_operator_method_of_its_operands_type(case) -> None:
    graph, function, operators, _ = case
    edges = [e for e in graph.of("CALLS", function) if e.props.get("implicit") == "operator"]
    # `n + 1` and `m += 1` of a number: no edge, no guess
    assert Counter((e.target, e.dst) for e in edges) == Counter(operators)
    assert {e.strategy for e in edges} <= {"member", "inheritance"}


def test_an_operation_is_what_its_operator_method_returns(case) -> None:
    graph, function, _, norm = case
    norms = [e for e in graph.of("CALLS", function) if (e.target or "").endswith("norm")]
    # `(a + b).norm()` and `(-a).norm()`: the value type's method, not a guess among the decoys'
    assert len(norms) == 2
    assert {(e.dst, e.strategy) for e in norms} == {(norm, "member")}

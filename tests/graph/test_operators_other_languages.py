"""Operator methods beyond Python (session 51): Rust's `impl Add for V { fn add }`, C++'s member
`operator+`, Ruby's `def +(other)` / `def -@`, Kotlin's `operator fun plus`. Before, `a + b` in
those languages named no method: nothing called `add` or `operator+`, and `(a + b).norm()` lost
the operand's type, so its call was a guess by name among the tree's `norm`s. One fixture per
language, the same shape each: a value type with an operator method and a `norm`, a decoy type with
methods of the same names, and a function that adds, negates and compares."""

from __future__ import annotations

import pytest

from tests.graph.helpers import build_graph

RUST = {
    "Cargo.toml": '[package]\nname = "vec"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod vec;\npub mod decoy;\npub mod usage;\n",
    "src/vec.rs": (
        "use std::ops::{Add, Neg};\n\n"
        "#[derive(Clone, Copy)]\npub struct V { pub x: f64 }\n\n"
        "impl Add for V {\n    type Output = V;\n    fn add(self, o: V) -> V { V { x: self.x + o.x } }\n}\n\n"
        "impl Neg for V {\n    type Output = V;\n    fn neg(self) -> V { V { x: -self.x } }\n}\n\n"
        "impl PartialEq for V {\n    fn eq(&self, o: &V) -> bool { self.x == o.x }\n}\n\n"
        "impl V {\n    pub fn norm(&self) -> f64 { self.x }\n}\n"
    ),
    "src/decoy.rs": (
        "pub struct Decoy;\n\nimpl Decoy {\n    pub fn add(&self) {}\n    pub fn neg(&self) {}\n"
        "    pub fn eq(&self) {}\n    pub fn norm(&self) {}\n}\n"
    ),
    "src/usage.rs": (
        "use crate::vec::V;\n\n"
        "pub fn arithmetic(a: V, b: V, n: i64) -> bool {\n"
        "    (a + b).norm();\n    (-a).norm();\n    let m = n + 1;\n    a == b\n}\n"
    ),
}
CPP = {
    "vec.h": (
        "struct V {\n    double x;\n"
        "    V operator+(const V& o) const { return V{x + o.x}; }\n"
        "    V operator-() const { return V{-x}; }\n"
        "    bool operator==(const V& o) const { return x == o.x; }\n"
        "    double norm() const { return x; }\n};\n"
    ),
    "decoy.h": (
        "struct Decoy {\n    void norm() {}\n    Decoy operator+(const Decoy& o) const { return o; }\n};\n"
    ),
    "usage.cpp": (
        '#include "vec.h"\n#include "decoy.h"\n\n'
        "bool arithmetic(V a, V b, int n) {\n"
        "    (a + b).norm();\n    (-a).norm();\n    int m = n + 1;\n    return a == b;\n}\n"
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
        "    (a + b).norm\n    (-a).norm\n    a << b\n    m = n + 1\n  end\nend\n"
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
        "    (a + b).norm()\n    (-a).norm()\n    val m = n + 1\n}\n"
    ),
}

CASES = {
    # language: (files, the function, {(operator method target, its definition)}, the value's norm)
    "rust": (
        RUST,
        "src/usage.rs::arithmetic",
        {("add", "src/vec.rs::V.add"), ("neg", "src/vec.rs::V.neg"), ("eq", "src/vec.rs::V.eq")},
        "src/vec.rs::V.norm",
    ),
    "cpp": (
        CPP,
        "usage.cpp::arithmetic",
        {
            ("operator+", "vec.h::V.operator+"),
            ("operator-", "vec.h::V.operator-"),
            ("operator==", "vec.h::V.operator=="),
        },
        "vec.h::V.norm",
    ),
    "ruby": (
        RUBY,
        "lib/usage.rb::Usage.arithmetic",
        {("+", "lib/vec.rb::Vec.+"), ("-@", "lib/vec.rb::Vec.-@"), ("<<", "lib/vec.rb::Vec.<<")},
        "lib/vec.rb::Vec.norm",
    ),
    "kotlin": (
        KOTLIN,
        "src/main/kotlin/vec/Usage.kt::arithmetic",
        {
            ("plus", "src/main/kotlin/vec/V.kt::V.plus"),
            ("unaryMinus", "src/main/kotlin/vec/V.kt::V.unaryMinus"),
        },
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
    assert {(e.target, e.dst) for e in edges} == operators  # `n + 1` of a number: no edge, no guess
    assert {e.strategy for e in edges} <= {"member", "inheritance"}


def test_an_operation_is_what_its_operator_method_returns(case) -> None:
    graph, function, _, norm = case
    norms = [e for e in graph.of("CALLS", function) if (e.target or "").endswith("norm")]
    # `(a + b).norm()` and `(-a).norm()`: the value type's method, not a guess among the decoys'
    assert len(norms) == 2
    assert {(e.dst, e.strategy) for e in norms} == {(norm, "member")}

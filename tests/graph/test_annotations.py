"""Declared types (``graph/annotations.py``): annotation shapes read as the classes a value is an
instance of, and Python calls resolved through them (parameters, variables, fields, return types)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.graph.annotations import declared_parts, parse_annotation
from tests.graph.helpers import build_graph

NAMES = st.sampled_from(["Foo", "pkg.Foo", "a.b.C", "Bar", "None", "int"])


def render(expr: list[Any]) -> str:
    """The text of an annotation expression as written in source (the inverse of parsing)."""
    tag = expr[0]
    if tag == "x":
        return "..."  # `tuple[Foo, ...]`
    if tag == "n":
        return str(expr[1])
    if tag == "a":
        return f"{render(expr[1])}.{expr[2]}"
    if tag == "o":
        return " | ".join(render(p) for p in expr[1])
    if tag == "k":
        key = expr[2]
        inner = ", ".join(render(i) for i in key[1]) if key[0] == "t" else render(key)
        return f"{render(expr[1])}[{inner}]"
    raise AssertionError(expr)


def dotted(name: str) -> list[Any]:
    words = name.split(".")
    expr: list[Any] = ["n", words[0]]
    for word in words[1:]:
        expr = ["a", expr, word]
    return expr


def annotations() -> st.SearchStrategy[list[Any]]:
    base = NAMES.map(dotted)
    wrappers = st.sampled_from(["Optional", "list", "Union", "Iterable", "Repo", "typing.Optional"])

    def extend(inner: st.SearchStrategy[list[Any]]) -> st.SearchStrategy[list[Any]]:
        subscript = st.tuples(wrappers.map(dotted), st.lists(inner, min_size=1, max_size=3)).map(
            lambda t: ["k", t[0], t[1][0] if len(t[1]) == 1 else ["t", t[1]]]
        )
        union = st.lists(st.one_of(base, subscript), min_size=2, max_size=3).map(lambda ps: ["o", ps])
        return st.one_of(subscript, union)

    return st.recursive(base, extend, max_leaves=6)


@given(annotations())
def test_a_quoted_annotation_reads_as_the_same_annotation_unquoted(expr: list[Any]) -> None:
    assert parse_annotation(render(expr)) == expr
    assert declared_parts(["s", render(expr)]) == declared_parts(expr)


@given(st.text(alphabet="ab.[],| ()'\"{}:=+-*", max_size=20))
def test_anything_else_quoted_is_not_a_type(text: str) -> None:
    parsed = parse_annotation(text)
    if parsed is not None:  # whatever parses is a well-formed annotation that renders back
        assert parse_annotation(render(parsed)) == parsed


def test_the_shapes_of_a_declared_type() -> None:
    foo, bar = ["n", "Foo"], ["n", "Bar"]
    assert declared_parts(foo) == ([foo], [])
    assert declared_parts(["k", ["n", "Optional"], foo]) == ([foo], [])
    assert declared_parts(["k", ["a", ["n", "typing"], "Optional"], foo]) == ([foo], [])
    assert declared_parts(["o", [foo, ["x"]]]) == ([foo, ["x"]], [])  # `Foo | None`
    assert declared_parts(["k", ["n", "Union"], ["t", [foo, bar]]]) == ([foo, bar], [])
    assert declared_parts(["k", ["n", "Annotated"], ["t", [foo, ["s", "meta"]]]]) == ([foo], [])
    assert declared_parts(["k", ["n", "list"], foo]) == ([], [foo])  # a collection of Foo
    assert declared_parts(["k", ["n", "Sequence"], ["k", ["n", "Optional"], foo]]) == ([], [foo])
    assert declared_parts(["k", ["n", "QuerySet"], foo]) == ([["n", "QuerySet"]], [])  # a generic class
    assert declared_parts(["s", "Foo | None"]) == ([foo, ["n", "None"]], [])
    assert declared_parts(["s", "not a type"]) == ([], [])
    assert parse_annotation("x" * 300) is None


FILES = {
    "m.py": (
        "from dataclasses import dataclass\n"
        "from typing import Generic, Optional, TypeVar, Union\n\n"
        "T = TypeVar('T')\n\n"
        "class Ctx:\n    def bind(self): pass\n\n"
        "class Other:\n    def bind(self): pass\n\n"
        "REG = {}\n\n"
        "def make() -> Ctx:\n    return REG['x']\n\n"
        "def make_opt() -> Optional[Ctx]:\n    return REG.get('x')\n\n"
        "def make_quoted() -> 'Ctx':\n    return REG['x']\n\n"
        "def make_many() -> list[Ctx]:\n    return REG['xs']\n\n"
        "@dataclass\nclass Holder:\n    ctx: Optional[Ctx] = None\n\n    def go(self):\n        self.ctx.bind()\n\n"
        "def returned():\n    make().bind()\n    make_opt().bind()\n    make_quoted().bind()\n"
        "    for c in make_many():\n        c.bind()\n\n"
        "def optional(c: Optional[Ctx] = None):\n    c.bind()\n\n"
        "def union(c: 'Ctx | None', d: Union[Ctx, None]):\n    c.bind()\n    d.bind()\n\n"
        "def pipe(c: Ctx | None):\n    c.bind()\n\n"
        "class Box(Generic[T]):\n    pass\n\n"
        "def generic_pipe(c: Box[Ctx] | Ctx | None, d: list[Ctx] | None):\n    c.bind()\n    for x in d:\n        x.bind()\n\n"
        "def many(cs: list[Ctx]):\n    for c in cs:\n        c.bind()\n\n"
        "def either(c: Union[Ctx, Other]):\n    c.bind()\n"
    ),
}


def test_python_calls_resolve_through_declared_types(tmp_path) -> None:
    graph = build_graph(tmp_path, FILES)
    calls = graph.resolved("CALLS")
    # `generic_pipe`: a union with a generic in it is a `union_type` node, not a `|` operator (pytest's
    # `excinfo: ExceptionInfo[BaseException] | None` declared nothing)
    for caller in ("returned", "optional", "union", "pipe", "generic_pipe", "many", "Holder.go"):
        assert calls.get((f"m.py::{caller}", "m.py::Ctx.bind")) == "member", (caller, sorted(calls))
        assert (f"m.py::{caller}", "m.py::Other.bind") not in calls, caller
    # a union of two project classes: both methods, each a member of a declared type
    assert calls.get(("m.py::either", "m.py::Ctx.bind")) == "member"
    assert calls.get(("m.py::either", "m.py::Other.bind")) == "member"


OUTSIDE = {
    "m.py": (
        "import os\nfrom pathlib import Path\nfrom typing import Any, TypeVar\n\nT = TypeVar('T')\n\n\n"
        "class Reader:\n    def read_text(self):\n        return 1\n\n    def split(self):\n        return 2\n\n\n"
        "class Other:\n    def read_text(self):\n        return 3\n\n\n"
        "def outside(p: Path, e: os.PathLike, n: 'Path | None'):\n"
        "    p.read_text()\n    e.read_text()\n    n.read_text()\n\n\n"
        "def builtin(s: str):\n    s.split()\n\n\n"
        "def opaque(a: Any, t: T, o: object, c: type):\n"
        "    a.read_text()\n    t.read_text()\n    o.read_text()\n    c.read_text()\n\n\n"
        "def mine(r: Reader, both: 'Reader | Path'):\n    r.read_text()\n    both.read_text()\n"
    ),
}


def test_a_python_value_of_a_type_from_outside_the_project_is_not_guessed_at(tmp_path) -> None:
    """`p.read_text()` on a `p: Path`, `s.split()` on an `s: str`: calls of a type from outside the
    project, not guesses among the project's `read_text`/`split` methods (Go's rule, in Python);
    `Any`, a type variable, `object` and `type` say nothing, so their calls are guessed as before."""
    graph = build_graph(tmp_path, OUTSIDE)
    calls = graph.resolved("CALLS")
    for caller in ("outside", "builtin"):
        assert not [dst for src, dst in calls if src == f"m.py::{caller}"], (caller, sorted(calls))
    outside = {(e.target, e.strategy) for e in graph.unresolved("CALLS", "m.py::outside")}
    assert outside == {("pathlib.Path.read_text", "external"), ("os.PathLike.read_text", "external")}
    assert {(e.target, e.strategy) for e in graph.unresolved("CALLS", "m.py::builtin")} == {
        ("str.split", "builtin")
    }
    opaque = {e.line: e.strategy for e in graph.of("CALLS", "m.py::opaque")}
    assert set(opaque.values()) == {"ambiguous"} and len(opaque) == 4, opaque
    # a project type, alone or beside an outside one, still resolves
    assert calls.get(("m.py::mine", "m.py::Reader.read_text")) == "member"
    assert ("m.py::mine", "m.py::Other.read_text") not in calls


FITTING = {
    "m.py": (
        "from typing import Any, Iterable, Protocol\n\n\n"
        "class Base:\n    def get(self):\n        pass\n\n\n"
        "class Sub(Base):\n    def get(self):\n        pass\n\n\n"
        "class Unrelated:\n    def get(self):\n        pass\n\n\n"
        "class Getter(Protocol):\n    def get(self): ...\n\n\n"
        "def typed(options: dict[str, Any], base: Base, proto: Getter, loose, anything: Any):\n"
        "    options.get('a')\n    base.get()\n    proto.get()\n    loose.get()\n    anything.get()\n\n\n"
        "def structural(items: Iterable[Base]):\n    items.get()\n\n\n"
        "def caller():\n"
        "    typed(Unrelated(), Sub(), Unrelated(), Unrelated(), Unrelated())\n"
        "    typed({}, Unrelated(), Sub(), Sub(), Sub())\n"
        "    structural(Unrelated())\n"
    ),
}


def test_what_a_call_site_passes_is_narrowed_by_the_declared_parameter_type(tmp_path) -> None:
    """A declared parameter type rules out the instances of the project's classes it cannot hold, as a
    type checker reads it (flask's `register(self, app, options: dict[str, t.Any])`, also called
    with a blueprint in its file, sent `options.get(…)` to `Scaffold.get`): a subclass of a declared
    class stays (its override is where the call goes), a protocol, `Any`, a structural outside type (`Iterable[T]`) and no annotation keep all."""
    graph = build_graph(tmp_path, FITTING)
    targets: dict[int, set[str]] = {}
    for e in graph.of("CALLS", src="m.py::typed"):
        targets.setdefault(e.line, set()).add(e.dst or f"<{e.strategy} {e.target}>")
    assert targets[24] == {"<builtin dict.get>"}  # options: the Unrelated passed is ruled out
    assert targets[25] == {"m.py::Base.get", "m.py::Sub.get"}  # base: Sub fits, Unrelated does not
    assert {"m.py::Unrelated.get", "m.py::Sub.get"} <= targets[26]  # a protocol: structural
    assert targets[27] == {"m.py::Unrelated.get", "m.py::Sub.get"}  # no annotation
    assert targets[28] == {"m.py::Unrelated.get", "m.py::Sub.get"}  # Any says nothing
    # `Iterable[Base]` is structural: an iterable class of the project need not inherit anything
    assert {e.dst for e in graph.of("CALLS", src="m.py::structural")} == {"m.py::Unrelated.get"}

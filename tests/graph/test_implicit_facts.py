"""Graph facts for uses that are not written as calls (issue 16 item 5): lambdas, ``with`` targets,
property reads, and decorated classes keeping their identity; incremental still equals clean."""

from __future__ import annotations

import os
from pathlib import Path

from tests.graph.helpers import build_graph, dump_of, index_repo
from tests.graph.test_incremental import _graph_diff, clean_dump

LAMBDAS = {
    "m.py": (
        "def helper(v):\n    return v\n\n\n"
        "def other():\n    return 0\n\n\n"
        "square = lambda x: helper(x) * x\n\n\n"
        "def apply(f):\n    return f(2)\n\n\n"
        "def run():\n"
        "    first = square(3)\n"
        "    second = apply(lambda y: other())\n"
        "    return sorted([first, second], key=lambda v: helper(v))\n"
    ),
}


def test_lambdas_are_definitions_their_calls_and_their_callers(tmp_path: Path) -> None:
    graph = build_graph(tmp_path, LAMBDAS)
    lambdas = sorted(name for name in graph.labels if name.endswith("<lambda>"))
    assert lambdas == ["m.py::run.<lambda>", "m.py::square.<lambda>"]  # two in run share one name
    calls = graph.resolved("CALLS")
    # calls in a lambda's body are the lambda's own
    assert ("m.py::square.<lambda>", "m.py::helper") in calls
    assert ("m.py::run.<lambda>", "m.py::other") in calls
    assert ("m.py::run.<lambda>", "m.py::helper") in calls
    # a call of the lambda, directly or through a parameter, resolves to it
    assert calls[("m.py::run", "m.py::square.<lambda>")] in ("local", "dataflow")
    assert ("m.py::apply", "m.py::run.<lambda>") in calls
    # the scope that creates a lambda references it (impact reaches the creator)
    created = {(e.src, e.dst) for e in graph.of("REFERENCES") if e.props.get("implicit") == "lambda"}
    assert ("m.py::run", "m.py::run.<lambda>") in created
    assert ("m.py", "m.py::square.<lambda>") in created or (
        "m.py::square",
        "m.py::square.<lambda>",
    ) in created


CONTEXTS = {
    "tx.py": (
        "import threading\n\n\n"
        "class Tx:\n"
        "    def __enter__(self):\n        return self\n\n"
        "    def __exit__(self, *exc):\n        return False\n\n\n"
        "class Nested(Tx):\n    pass\n\n\n"
        "def run(path):\n"
        "    with Tx() as t, open(path) as f:\n        pass\n"
        "    with threading.Lock():\n        pass\n"
        "    with Nested():\n        pass\n"
    ),
}


def test_with_targets_call_enter_and_exit(tmp_path: Path) -> None:
    graph = build_graph(tmp_path, CONTEXTS)
    implicit = [e for e in graph.of("CALLS") if e.props.get("implicit") == "with"]
    pairs = sorted({(e.src, e.dst, e.strategy) for e in implicit})
    assert pairs == [
        ("tx.py::run", "tx.py::Tx.__enter__", "inheritance"),
        ("tx.py::run", "tx.py::Tx.__enter__", "member"),
        ("tx.py::run", "tx.py::Tx.__exit__", "inheritance"),
        ("tx.py::run", "tx.py::Tx.__exit__", "member"),
    ]
    # open() and threading.Lock() are outside the repository: no edge, resolved or not
    assert all(e.dst is not None for e in implicit)
    assert {e.line for e in implicit} == {17, 21}


PROPERTIES = {
    "box.py": (
        "import functools\n\n\n"
        "class Box:\n"
        "    def __init__(self):\n        self.items = []\n        self.count = 0\n\n"
        "    @property\n    def size(self):\n        return len(self.items)\n\n"
        "    @size.setter\n    def size(self, value):\n        self.items = [0] * value\n\n"
        "    @functools.cached_property\n    def total(self):\n        return self.size + self.count\n"
    ),
    "use.py": (
        "from box import Box\n\n\n"
        "def measure(b: Box):\n    return b.size, b.count, b.items\n\n\n"
        "def fresh():\n    return Box().total\n"
    ),
}


def test_property_reads_call_the_getter_and_plain_attributes_add_nothing(tmp_path: Path) -> None:
    graph = build_graph(tmp_path, PROPERTIES)
    implicit = sorted(
        (e.src, e.dst, e.line) for e in graph.of("CALLS") if e.props.get("implicit") == "property"
    )
    getter = "box.py::Box.size"
    assert implicit == [
        ("box.py::Box.total", getter, 19),
        ("use.py::fresh", "box.py::Box.total", 9),
        ("use.py::measure", getter, 5),
    ]
    # one edge per read (the getter, not the setter of the same name), none for `b.count` / `b.items`
    assert graph.labels[getter]
    # the name table marks the getters (what the property edges read instead of each interface);
    # the setter shares the getter's qualified name, so one node of the two says so
    flagged = sorted(name for name, values in graph.every_node_props if values.get("getter"))
    assert flagged == ["box.py::Box.size", "box.py::Box.total"]
    assert all(
        e.target in ("size", "total") for e in graph.of("CALLS") if e.props.get("implicit") == "property"
    )


DECORATED = {
    "a.py": (
        "import dataclasses\n\n\n"
        "def register(cls):\n    return cls\n\n\n"
        "@dataclasses.dataclass\nclass Point:\n    x: int = 0\n\n\n"
        "@register\n@dataclasses.dataclass(frozen=True)\nclass Box:\n    pass\n"
    ),
    "b.py": (
        "from a import Box, Point\n\n\n"
        "class Point3(Point):\n    z: int = 0\n\n\n"
        "class Crate(Box):\n    pass\n\n\n"
        "def area(p: Point) -> Box:\n    return Box()\n"
    ),
}


def test_a_decorated_class_keeps_its_identity_for_subclasses_and_annotations(tmp_path: Path) -> None:
    graph = build_graph(tmp_path, DECORATED)
    inherits = graph.resolved("INHERITS")
    assert inherits[("b.py::Point3", "a.py::Point")] == "import"
    assert inherits[("b.py::Crate", "a.py::Box")] == "import"
    refs = graph.resolved("REFERENCES")
    assert ("b.py::area", "a.py::Point") in refs and ("b.py::area", "a.py::Box") in refs
    assert graph.resolved("IMPORTS")[("b.py", "a.py::Point")] == "import"


def test_incremental_equals_clean_when_implicit_facts_change(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    files = {**PROPERTIES, **CONTEXTS, **LAMBDAS, **DECORATED}
    for rel, text in files.items():
        (root / rel).write_text(text)
    ws = index_repo(root, tmp_path / "state")
    clock = 1_800_000_000_000_000_000
    edits = [
        ("box.py", "    @property\n    def size", "    def size"),  # no longer a property
        ("tx.py", "    def __exit__(self, *exc):", "    def close(self, *exc):"),  # __exit__ gone
        ("m.py", "square = lambda x: helper(x) * x", "square = lambda x: other() * x"),
        ("a.py", "@dataclasses.dataclass\nclass Point:", "class Point:"),  # undecorated
        ("box.py", "    def size", "    @property\n    def size"),  # a property again
    ]
    for step, (rel, old, new) in enumerate(edits):
        path = root / rel
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
        clock += 1_000_000_000
        os.utime(path, ns=(clock, clock))
        ws.sync()
        incremental = dump_of(ws)
        clean = clean_dump(root, tmp_path / f"clean-{step}")
        assert incremental == clean, f"step {step} ({rel})\n{_graph_diff(incremental, clean)}"
    ws.close()


GETTER_VALUES = {
    "pkg/__init__.py": "",
    "pkg/functional.py": (
        "class cached_property:\n"
        "    def __init__(self, func):\n        self.func = func\n\n"
        "    def __get__(self, instance, cls=None):\n        return self.func(instance)\n"
    ),
    "pkg/ctx.py": (
        "class Ctx:\n    def bind(self):\n        return 1\n\n\n"
        "class Other:\n    def bind(self):\n        return 2\n"
    ),
    "pkg/holder.py": (
        "import functools\n"
        "from pkg.ctx import Ctx\n"
        "from pkg.functional import cached_property\n\n\n"
        "class Holder:\n"
        "    @property\n    def ctx(self):\n        return Ctx()\n\n"
        "    @ctx.setter\n    def ctx(self, value):\n        pass\n\n"
        "    @property\n    def typed(self) -> Ctx:\n        return self._made\n\n"
        "    @functools.cached_property\n    def cached(self):\n        return Ctx()\n\n"
        "    @cached_property\n    def own(self):\n        return self.ctx\n\n"
        "    def use(self):\n"
        "        self.ctx.bind()\n        self.typed.bind()\n        self.cached.bind()\n"
        "        self.own.bind()\n"
    ),
    "pkg/case.py": (
        "import unittest\n\n\n"
        "class Case(unittest.TestCase):\n"
        "    @property\n    def thing(self):\n        return undefined_factory()\n\n"
        "    def test(self):\n        self.thing.go()\n"
    ),
    "pkg/use.py": (
        "from pkg.holder import Holder\n\n\n"
        "def run(h: Holder):\n    h.ctx.bind()\n\n\n"
        "def fresh():\n    return Holder().own.bind()\n"
    ),
}


def test_a_value_read_through_a_getter_is_what_the_getter_returns(tmp_path: Path) -> None:
    """`obj.ctx.bind()` where `ctx` is a `@property`, a `functools.cached_property` or a project's own
    `cached_property` class (Django's): a call of the class the getter returns — in the same file and
    from another — not of the decorator's result (`property.bind`), and not a guess."""
    graph = build_graph(tmp_path, GETTER_VALUES)
    calls = graph.resolved("CALLS")
    bind = "pkg/ctx.py::Ctx.bind"
    for caller in ("pkg/holder.py::Holder.use", "pkg/use.py::run", "pkg/use.py::fresh"):
        assert (caller, bind) in calls, (caller, sorted(calls))
        assert (caller, "pkg/ctx.py::Other.bind") not in calls
        assert not [(e.target, e.strategy) for e in graph.unresolved("CALLS", caller)], caller
    sites = {e.line for e in graph.of("CALLS", "pkg/holder.py::Holder.use", bind)}
    assert sites == {28, 29, 30, 31}
    # the reads still call their getters (the implicit property edges)
    implicit = {(e.src, e.dst) for e in graph.of("CALLS") if e.props.get("implicit") == "property"}
    assert ("pkg/use.py::run", "pkg/holder.py::Holder.ctx") in implicit
    assert ("pkg/use.py::fresh", "pkg/holder.py::Holder.own") in implicit
    # a getter is a member of its own class even when what it returns is unknown: not inherited from
    # the external base (`unittest.TestCase.thing`)
    assert not [
        e.target for e in graph.of("CALLS", "pkg/case.py::Case.test") if "TestCase" in (e.target or "")
    ]


PROTOCOLS = {
    "bands.py": (
        "class Band:\n    def datatype(self):\n        return 1\n\n\n"
        "class Other:\n    def datatype(self):\n        return 2\n\n\n"
        "class BandList(list):\n"
        "    def __iter__(self):\n        for i in range(3):\n            yield Band()\n\n"
        "    def __getitem__(self, index):\n        return Band()\n\n\n"
        "class Raster:\n"
        "    @property\n    def bands(self):\n        return BandList()\n\n\n"
        "def use(r: Raster):\n"
        "    r.bands[0].datatype()\n"
        "    for band in r.bands:\n        band.datatype()\n"
    ),
}


def test_subscripts_and_loops_of_an_instance_follow_its_protocol_methods(tmp_path: Path) -> None:
    """`r.bands[0].datatype()` where `bands` is a property returning a list subclass with its own
    `__getitem__`, and `for band in r.bands` where its `__iter__` is a generator: `Band.datatype`,
    not `Other.datatype` and not unresolved (Django's `GDALRaster.bands`)."""
    graph = build_graph(tmp_path, PROTOCOLS)
    targets = {e.line: e.dst for e in graph.of("CALLS", "bands.py::use") if e.target.endswith("datatype")}
    assert targets == {27: "bands.py::Band.datatype", 29: "bands.py::Band.datatype"}, targets


TRANSPARENT = {
    "m.py": (
        "import functools\nfrom dataclasses import dataclass\nfrom typing import final\n\n\n"
        "@final\nclass Gen:\n    def __getattr__(self, name):\n        return 1\n\n\n"
        "@dataclass\nclass Point:\n    x: int = 0\n\n\n"
        "class Maker:\n    @classmethod\n    def make(cls):\n        return cls()\n\n\n"
        "def deco(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n\n    return inner\n\n\n"
        "@functools.lru_cache\ndef cached():\n    return 1\n\n\n"
        "def use():\n    Gen().parametrize()\n    Point().missing()\n    Maker.make().missing()\n"
        "    deco(cached)().missing()\n    cached.cache_clear()\n"
    ),
}


def test_a_decorator_that_returns_what_it_decorates_adds_no_outside_value(tmp_path: Path) -> None:
    """`@final`, `@dataclass`, `@classmethod`, `@functools.wraps(f)` return what they decorate: a call
    through such a name is not a call of `typing.final.parametrize` or `classmethod.missing` (pytest's
    `mark.parametrize` was 362 of those). `functools.lru_cache`'s wrapper keeps its own members."""
    graph = build_graph(tmp_path, TRANSPARENT)
    targets = {e.target for e in graph.of("CALLS", "m.py::use") if e.dst is None}
    noise = {
        t for t in targets if t.startswith(("typing.", "dataclasses.", "classmethod", "functools.wraps"))
    }
    assert not noise, sorted(targets)
    assert "functools.lru_cache.cache_clear" in targets

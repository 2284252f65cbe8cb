"""Python operations, typing-module types and the members around them (session 49).

Found on encode/starlette and tiangolo/typer, which nobody had tuned on:

- `config_file = Path(tmpdir) / "config.txt"; config_file.unlink()` was a call on an unknown receiver
  (an operation was an unknown expression), so a guess among the tree's `unlink`s; `v = a + b` of a
  class with `__add__` lost `v`'s class, and nothing called `__add__`.
- `scope: Scope` with `Scope = MutableMapping[str, Any]`, and `m: Dict[str, Box]`: the typing
  module's names said nothing of a value, so `scope.get(…)` was a guess among every `get` of the tree.
- `with send_stream:` of an unknown value guessed among the tree's `__enter__` methods.
- `expected = [b""]; expected.pop(0)` and `g.__anext__()` of a generator were `member-not-found`, as
  if a list had no `pop`; `self.app(…)` of `self.app = app` (an untyped parameter) too, as if the
  class had no `app`.
"""

from __future__ import annotations

import pytest

from tests.graph.helpers import build_graph

OPERATORS = {
    "pkg/__init__.py": "",
    # every method the sites below call has a namesake in `Decoy`: a guess by name would reach it
    "pkg/decoy.py": (
        "class Decoy:\n"
        "    def unlink(self): ...\n"
        "    def get(self, k): ...\n"
        "    def pop(self): ...\n"
        "    def norm(self): ...\n"
        "    def strip(self): ...\n"
        "    def __enter__(self): ...\n"
        "    def __exit__(self, *exc): ...\n"
    ),
    "pkg/vec.py": (
        "class Vec:\n"
        "    def __add__(self, other):\n        return Vec()\n"
        "    def __mul__(self, k):\n        return self\n"
        "    def __rmul__(self, k):\n        return Vec()\n"
        "    def __neg__(self):\n        return Vec()\n"
        "    def norm(self):\n        return 1\n"
    ),
    "pkg/types.py": (
        "from collections.abc import MutableMapping as Abstract\n"
        "from typing import Any, MutableMapping\n\nScope = MutableMapping[str, Any]\n"
        "Message = Abstract[str, Any]\nJSON = dict[str, Any]\n"
    ),
    "pkg/use.py": (
        "from pathlib import Path\n"
        "from typing import Dict, List\n\n"
        "from pkg.types import JSON, Message, Scope\n"
        "from pkg.vec import Vec\n\n\n"
        "def arithmetic(a: Vec, b: Vec, tmp):\n"
        "    (a + b).norm()\n"
        "    scaled = a * 2\n    scaled.norm()\n"
        "    flipped = 3 * a\n    flipped.norm()\n"
        "    (-a).norm()\n"
        "    path = Path(tmp) / 'x'\n    path.unlink()\n"
        "    text = '<' + tmp\n    text.strip()\n"
        "    other = tmp + '>'\n    other.strip()\n"
        "    both = [a] + [b]\n    both[0].norm()\n\n\n"
        "def typed(scope: Scope, m: Dict[str, Vec], xs: List[Vec]):\n"
        "    scope.get('type')\n"
        "    m.get('k')\n    m['k'].norm()\n"
        "    xs.pop()\n    xs[0].norm()\n\n\n"
        "def aliased(message: Message, data: JSON, d: dict, k):\n"
        "    message.get('body')\n    data.get('key')\n    d[k].get('x')\n\n\n"
        "def entered(make):\n"
        "    stream = make()\n"
        "    with stream:\n        pass\n\n\n"
        "class Middleware:\n"
        "    def __init__(self, app):\n        self.app = app\n\n"
        "    def __call__(self):\n        self.app()\n\n\n"
        "def literals():\n"
        "    expected = [b'']\n    expected.pop()\n\n\n"
        "async def numbers():\n    yield 1\n\n\n"
        "async def consume():\n    stream = numbers()\n    await stream.__anext__()\n"
    ),
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    """The fixture repository, indexed once for the module's tests."""
    return build_graph(tmp_path_factory.mktemp("operators"), OPERATORS)


def _sites(graph, caller: str) -> dict[str, set[tuple[str | None, str]]]:
    out: dict[str, set[tuple[str | None, str]]] = {}
    for e in graph.of("CALLS", f"pkg/use.py::{caller}"):
        out.setdefault(e.target or "", set()).add((e.dst or e.props.get("reason"), e.strategy))
    return out


def test_an_operation_is_what_its_operands_method_returns(graph) -> None:
    sites = _sites(graph, "arithmetic")
    norm = {(dst, s) for t, found in sites.items() if t.endswith("norm") for dst, s in found}
    # `(a + b)`, `a * 2` (returns self), `3 * a` (`__rmul__`), `-a`, `[a] + [b]`: all the method
    assert norm == {("pkg/vec.py::Vec.norm", "member")}
    assert len([e for e in graph.of("CALLS", "pkg/use.py::arithmetic") if e.target.endswith("norm")]) == 5
    # an outside value's operation is a value of its type; a string plus anything is a string
    assert sites["pathlib.Path.unlink"] == {(None, "external")}
    assert sites["str.strip"] == {(None, "builtin")}
    # but `tmp + '>'` of an unknown `tmp` may be a `Vec.__add__` (the tree has one): unknown
    assert sites["other.strip"] == {("unknown-receiver", "unresolved")}


def test_an_operation_calls_the_method_it_runs(graph) -> None:
    edges = [e for e in graph.of("CALLS", "pkg/use.py::arithmetic") if e.props.get("implicit") == "operator"]
    assert {(e.target, e.dst) for e in edges} == {
        ("__add__", "pkg/vec.py::Vec.__add__"),
        ("__mul__", "pkg/vec.py::Vec.__mul__"),
        ("__mul__", "pkg/vec.py::Vec.__rmul__"),  # `3 * a`: int has no method of the tree
        ("__neg__", "pkg/vec.py::Vec.__neg__"),
    }
    # so the callers of an operator method are the operations that run it
    assert ("pkg/use.py::arithmetic", "pkg/vec.py::Vec.__add__") in graph.pairs("CALLS")


def test_typing_names_declare_what_they_name(graph) -> None:
    sites = _sites(graph, "typed")
    assert sites["collections.abc.MutableMapping.get"] == {(None, "external")}  # `scope.get` (an alias)
    assert sites["dict.get"] == {(None, "builtin")}  # `m.get`
    assert sites["list.pop"] == {(None, "builtin")}  # `xs.pop`
    # the values a mapping or a list declares are still its elements
    assert sites["m[…].norm"] == {("pkg/vec.py::Vec.norm", "member")}
    assert sites["xs[…].norm"] == {("pkg/vec.py::Vec.norm", "member")}
    assert len(graph.of("CALLS", "pkg/use.py::typed")) == 5


def test_a_type_alias_of_a_generic_types_what_it_annotates(graph) -> None:
    sites = {(e.target, e.dst, e.strategy) for e in graph.of("CALLS", "pkg/use.py::aliased")}
    assert ("collections.abc.MutableMapping.get", None, "external") in sites
    assert ("dict.get", None, "builtin") in sites
    # `d[k]` of a dict is one of its values, not the dict type: unknown here, so a guess by name
    assert ("d[…].get", "pkg/decoy.py::Decoy.get", "unique-name") in sites
    assert len(sites) == 3


def test_no_guess_for_an_unknown_context_manager(graph) -> None:
    assert all(e.dst is None for e in graph.of("CALLS", "pkg/use.py::entered"))


def test_members_that_exist_are_not_reported_missing(graph) -> None:
    (call,) = [e for e in graph.of("CALLS", "pkg/use.py::Middleware.__call__") if e.target == "self.app"]
    assert (call.dst, call.strategy, call.props.get("reason")) == (None, "unresolved", "member")
    assert _sites(graph, "literals")["expected.pop"] == {(None, "builtin")}
    assert _sites(graph, "consume")["stream.__anext__"] == {(None, "builtin")}


def _chain(prefix: str, length: int, files: int) -> dict[str, str]:
    """``{prefix}{i}()`` returns ``{prefix}{i + 1}() + 0`` across ``files`` modules; the last a Box."""
    bodies: dict[str, list[str]] = {}
    for i in range(length):
        module = f"chain/{prefix}{i % files}.py"
        if i + 1 < length:
            call = f"{prefix}{i + 1}"
            line = f"def {prefix}{i}():\n    from chain.{prefix}{(i + 1) % files} import {call}\n    return {call}() + 0\n"
        else:
            line = f"def {prefix}{i}():\n    from chain.box import Box\n    return Box()\n"
        bodies.setdefault(module, []).append(line)
    return {path: "\n\n".join(parts) for path, parts in bodies.items()}


def test_a_long_chain_of_results_is_followed_and_a_deeper_one_does_not_stop_the_index(tmp_path) -> None:
    """Ray's fixture: 90 modules whose functions return the next one's result plus a number made a
    RecursionError that failed the whole index once operations were followed. A chain is followed
    up to MAX_DEMAND_DEPTH nested results; past it the value is unknown."""
    files = {
        "chain/__init__.py": "",
        "chain/box.py": "class Box:\n    def open(self):\n        return 1\n",
        **_chain("short", 120, 12),
        **_chain("long", 500, 25),
        "chain/use.py": (
            "from chain.short0 import short0\nfrom chain.long0 import long0\n\n\n"
            "def go():\n    short0().open()\n    long0().open()\n"
        ),
    }
    graph = build_graph(tmp_path, files)
    opened = {e.target: e.dst for e in graph.of("CALLS", "chain/use.py::go") if e.target.endswith("open")}
    assert opened["short0().open"] == "chain/box.py::Box.open"
    assert "long0().open" in opened  # indexed; its value is past the depth the resolver follows

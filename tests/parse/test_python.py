from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from tests.parse.helpers import assert_symbol, reference_names

SESSION_REQUEST = '''def request(self, method, url) -> Response:
        """Send it."""
        def inner():
            return helper(1)
        return self.send(Req(method, url))'''

SOURCE = f'''"""Module doc."""
import os, sys as system
from .models import Request as Req, Response
from ..compat import *
RETRIES = 3

class Session(Base, mixins.Other):
    """A session."""
    timeout = 10

    # leading comment
    {SESSION_REQUEST}

def helper(x: int) -> int:
    # not a doc: inside the body
    return x
'''.encode()


def test_python_definitions_have_qualified_names_and_exact_spans() -> None:
    facts = extract_facts("pkg/sessions.py", "python", SOURCE)
    assert facts.error is None
    assert_symbol(SOURCE, facts, "RETRIES", "variable", "RETRIES = 3")
    session = assert_symbol(
        SOURCE,
        facts,
        "Session",
        "class",
        SOURCE.decode()[SOURCE.decode().index("class Session") : SOURCE.decode().index("\n\ndef helper")],
    )
    assert session.doc == "A session."
    assert session.signature == "class Session(Base, mixins.Other):"
    assert_symbol(SOURCE, facts, "Session.timeout", "field", "timeout = 10")
    request = assert_symbol(SOURCE, facts, "Session.request", "method", SESSION_REQUEST)
    assert request.parent == "Session"
    assert request.doc == "Send it."
    assert request.signature == "def request(self, method, url) -> Response:"
    inner = assert_symbol(
        SOURCE, facts, "Session.request.inner", "function", "def inner():\n            return helper(1)"
    )
    assert inner.parent == "Session.request"
    helper = assert_symbol(
        SOURCE,
        facts,
        "helper",
        "function",
        "def helper(x: int) -> int:\n    # not a doc: inside the body\n    return x",
    )
    assert helper.signature == "def helper(x: int) -> int:"
    assert helper.doc is None


def test_python_references_and_imports() -> None:
    facts = extract_facts("pkg/sessions.py", "python", SOURCE)
    calls = reference_names(facts, "call")
    assert ("helper", "Session.request.inner") in calls
    assert ("send", "Session.request") in calls
    assert ("Req", "Session.request") in calls
    send = next(r for r in facts.references if r.name == "send")
    assert send.receiver == "self"
    assert SOURCE[send.name_start_byte : send.name_end_byte] == b"send"
    assert SOURCE[send.start_byte : send.end_byte] == b"self.send(Req(method, url))"
    assert reference_names(facts, "inherit") == {("Base", "Session"), ("Other", "Session")}
    imports = {(i.module, i.name, i.alias, i.wildcard) for i in facts.imports}
    assert imports == {
        ("os", None, None, False),
        ("sys", None, "system", False),
        (".models", "Request", "Req", False),
        (".models", "Response", None, False),
        ("..compat", None, None, True),
    }


def test_python_syntax_error_still_extracts() -> None:
    source = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n"
    facts = extract_facts("bad.py", "python", source)
    assert facts.error is None
    assert facts.syntax_errors == 1
    assert "ok" in {s.qualified_name for s in facts.symbols}


def test_decorated_definition_spans_its_decorators() -> None:
    source = b'class A:\n    @property\n    def x(self):\n        """X."""\n        return 1\n\n@dataclass\nclass B:\n    y: int = 0\n'
    facts = extract_facts("d.py", "python", source)
    x = assert_symbol(
        source, facts, "A.x", "method", '@property\n    def x(self):\n        """X."""\n        return 1'
    )
    assert x.signature == "def x(self):"
    assert x.doc == "X."
    b = assert_symbol(source, facts, "B", "class", "@dataclass\nclass B:\n    y: int = 0")
    assert b.signature == "class B:"


ANNOTATED = b"""import typing as t

def f(a: Box | None, b: One | Two | Three | None, c: list[Item], d: t.Callable[..., Made],
      e: Callable[[Param], Result], g: t.Dict[str, t.List[Deep]], h: t.Optional[U1 | U2],
      i: "Fwd", j: "pkg.Dotted", k: dict[str, "Inner"], m: Literal["no1"], n: t.Literal["no2"],
      o: Annotated[int, "no3"], p: "list[NoComplex]" = None, q: t.Callable[..., Maybe] | None = None,
      ) -> t.Optional[Ret]:
    x: dict[str, Local] = {}
    try:
        pass
    except Caught as err:
        pass
    except (First, mod.Dotted):
        pass
    except Bare:
        pass
    except (Both1, Both2) as err:
        pass


class Stack(t.List[Element]):
    pass
"""


def test_python_annotation_types_inside_unions_subscripts_and_strings_are_references() -> None:
    """Every class an annotation names is a `type` reference, wherever it sits in the annotation
    (flask: `-> SessionMixin | None`, `t.Callable[..., Flask]`, `"BlueprintSetupState"`; pytest:
    `ExceptionInfo[BaseException] | None`, `_pytest._code.ExceptionInfo[E]` were missed), a dotted
    one with its receiver; strings of `Literal[…]`/`Annotated[…]` are values, and a string holding
    more than a name is not read."""
    facts = extract_facts("pkg/f.py", "python", ANNOTATED)
    assert facts.error is None
    types = {(r.name, r.receiver) for r in facts.references if r.kind == "type"}
    wanted = {
        "Box", "One", "Two", "Three", "Item", "Made", "Param", "Result", "Deep", "U1", "U2", "Fwd",
        "Inner", "Ret", "Local", "str", "int", "Maybe", "Element",
    }  # fmt: skip
    generics = {("Optional", "t"), ("Callable", "t"), ("Dict", "t"), ("List", "t"), ("Literal", "t")}
    generics |= {("Callable", None), ("list", None), ("dict", None), ("Literal", None), ("Annotated", None)}
    handlers = {
        ("Caught", None),
        ("First", None),
        ("Dotted", "mod"),
        ("Bare", None),
        ("Both1", None),
        ("Both2", None),
    }
    assert types == {(name, None) for name in wanted} | generics | handlers | {("Dotted", "pkg")}
    assert not {"no1", "no2", "no3", "NoComplex"} & {name for name, _ in types}
    fwd = next(r for r in facts.references if r.name == "Fwd")
    assert ANNOTATED[fwd.name_start_byte : fwd.name_end_byte] == b"Fwd"


def test_python_except_clauses_name_the_classes_they_catch() -> None:
    facts = extract_facts("pkg/f.py", "python", ANNOTATED)
    try_line = ANNOTATED[: ANNOTATED.index(b"try:")].count(b"\n") + 1
    caught = {
        (r.name, r.receiver)
        for r in facts.references
        if r.kind == "type" and r.scope == "f" and r.line > try_line
    }
    assert caught == {
        ("Caught", None),
        ("First", None),
        ("Dotted", "mod"),
        ("Bare", None),
        ("Both1", None),
    } | {("Both2", None)}
    assert "err" not in {r.name for r in facts.references}


def test_a_method_chain_keeps_its_receivers_to_the_end() -> None:
    """A fluent chain's callee is read whole (a call and the attribute it calls cost one level), so the
    fifth call still knows what it is called on: seaborn's `Plot().pair().scale().share().plot()` was
    cut at the depth limit and `.plot` left unresolved (59 sites newly resolved there)."""
    source = b"def t():\n    Plot().pair(x=[1]).scale(x1='log').share(x=True).plot()\n"
    facts = extract_facts("t.py", "python", source)
    plot = next(r for r in facts.references if r.name == "plot")
    assert '["n","Plot"]' in (plot.callee or "") and '"x"]' not in (plot.callee or "").split("pair")[0]

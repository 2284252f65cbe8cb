"""Edges for uses that are not written as calls but run code, or create a definition:

- ``obj.size`` where ``size`` is a ``@property``: a CALLS edge to the getter (``implicit: "property"``).
- ``with x as y:`` runs ``x.__enter__()`` and ``x.__exit__()``: one CALLS edge to each, resolved as a
  member of ``x`` (``implicit: "with"``); a context manager from outside the repository (``open``,
  a lock) adds nothing — only resolved methods become edges, and not a guess by name among the
  tree's ``__enter__`` methods for a value of unknown type.
- an anonymous function (a Python ``lambda``) is a definition of its own (``<lambda>``): the scope
  that creates it REFERENCES it (``implicit: "lambda"``), so what its body calls reaches the creator
  in ``impact`` even when the lambda is called from outside the repository (``sorted(key=…)``).
- ``a + b`` (Python) runs ``a.__add__(b)``, else ``b.__radd__(a)``: a CALLS edge to the method of
  the tree it reaches (``implicit: "operator"``), resolved as a member of the operand's value
  (graph/protocols.py ``operation``); an operand from outside the repository adds nothing.
- a pytest test's (or fixture's) parameter named like a fixture: pytest calls that fixture and passes
  its value (graph/protocols.py), a CALLS edge at the parameter (``implicit: "fixture"``), so a
  fixture's callers and ``impact`` list the tests that use it.
"""

from __future__ import annotations

from typing import Any

from lazy_intel.graph.analysis import Analysis
from lazy_intel.graph.calls import call_targets, classify
from lazy_intel.graph.model import FileModel, Ref
from lazy_intel.graph.rows import CONFIDENCE, EdgeRow, props
from lazy_intel.parse.operators import operand_methods

CONTEXT_METHODS = ("__enter__", "__exit__")


NAME_GUESSES = frozenset({"unique-name", "ambiguous"})
READ_STRATEGIES = frozenset({"local", "import", "self", "member", "inheritance", "dataflow"})


def implicit_edges(an: Analysis, model: FileModel, scope_node: Any) -> list[EdgeRow]:
    return [
        *_with_edges(an, model, scope_node),
        *_lambda_edges(model, scope_node),
        *_property_edges(an, model, scope_node),
        *_fixture_edges(an, model, scope_node),
        *_operator_edges(an, model, scope_node),
    ]


def _is_property(an: Analysis, path: str, qualified: str, getter: bool) -> bool:
    """Whether the method ``qualified`` of ``path`` is a getter, from the name table (the node's
    ``getter`` flag) rather than by loading that file's interface. Another file's flag is covered by
    the ``g:<name>`` dependency the lookup recorded (a getter's definition line carries the flag, so
    a decorator added or removed moves it); no facet of that file is read."""
    if path == an.p.focus.path:
        an.p.deps.add("f:" + path)  # dropped from the focus's own deps by the build
        an.p.on_focus_read()
    return getter


def _property_edges(an: Analysis, model: FileModel, scope_node: Any) -> list[EdgeRow]:
    """``obj.size`` where ``size`` is a ``@property`` (or ``cached_property``) of the class of ``obj``:
    a CALLS edge to the getter (``implicit: "property"``). Only reads whose name some
    method of the repository has are looked at, and only resolutions through scopes, members and
    data flow count (no name-only guesses)."""
    out = []
    properties: dict[str, set[int]] = {}
    for ref in model.refs:
        if ref.kind != "read":
            continue
        if ref.name not in properties:
            # a getter and its `@x.setter` share one qualified name: the first one is the getter
            # the getter's node carries the flag; the edge goes to the first of the ids, as before
            first: dict[tuple[str, str], int] = {}
            getter: dict[tuple[str, str], bool] = {}
            # only the getters count: a plain method of this name added anywhere changes nothing
            for d in an.p.named(ref.name, token="g:"):
                if d.kind == "method":
                    first.setdefault((d.path, d.qualified), d.node_id)
                    getter[(d.path, d.qualified)] = getter.get((d.path, d.qualified), False) or d.getter
            properties[ref.name] = {
                node_id for site, node_id in first.items() if _is_property(an, *site, getter[site])
            }
        wanted = properties[ref.name]
        if not wanted:
            continue
        scope = model.scope_of(ref.scope, ref.start_byte)
        site = f"{model.path}:{ref.start_byte}"
        found, _ = classify(an, model, scope, ref.callee(), site, getters=True)
        best: dict[int, str] = {}
        for value, strategy in found:
            if value[0] not in ("def", "bm") or value[1] not in wanted or strategy not in READ_STRATEGIES:
                continue
            if value[1] not in best or CONFIDENCE.get(strategy, 0) > CONFIDENCE.get(best[value[1]], 0):
                best[value[1]] = strategy
        out.extend(_site_calls(model, ref, scope_node(model, scope), best, "property"))
    return out


def _site_calls(model: FileModel, ref: Ref, src: int, found: dict[int, str], implicit: str) -> list[EdgeRow]:
    """CALLS edges from the site of ``ref`` to each ``dst -> strategy`` of ``found``, in ``dst`` order,
    named by the reference and marked ``implicit``."""
    return [
        EdgeRow(
            model.key,
            "CALLS",
            src,
            dst,
            strategy,
            CONFIDENCE.get(strategy, 0.5),
            ref.name,
            model.path,
            ref.start_byte,
            ref.end_byte,
            ref.line,
            props({"implicit": implicit}),
        )
        for dst, strategy in sorted(found.items())
    ]


def _with_edges(an: Analysis, model: FileModel, scope_node: Any) -> list[EdgeRow]:
    out = []
    for ref in model.refs:
        if ref.kind != "with":
            continue
        scope = model.scope_of(ref.scope, ref.start_byte)
        src = scope_node(model, scope)
        value = ref.callee()
        for method in CONTEXT_METHODS:
            site = f"{model.path}:{ref.start_byte}:{method}"
            for r in call_targets(an, model, scope, ["a", value, method], site, kind="call"):
                if r.dst is None or r.strategy in NAME_GUESSES:
                    continue  # a context manager of unknown type: a guess by name is nearly always wrong
                extra = {**(r.extra or {}), "implicit": "with"}
                out.append(
                    EdgeRow(
                        model.key,
                        "CALLS",
                        src,
                        r.dst,
                        r.strategy,
                        r.confidence,
                        method,
                        model.path,
                        ref.start_byte,
                        ref.end_byte,
                        ref.line,
                        props(extra),
                    )
                )
    return out


def _operator_edges(an: Analysis, model: FileModel, scope_node: Any) -> list[EdgeRow]:
    out = []
    defined: dict[str, bool] = {}  # whether some definition of the tree has the method's name
    for ref in model.refs:
        if ref.kind != "operator":
            continue
        expr = ref.callee()
        if not expr or expr[0] != "o" or not expr[1]:
            continue
        scope = model.scope_of(ref.scope, ref.start_byte)
        site = f"{model.path}:{ref.start_byte}"
        found: dict[int, str] = {}
        for index, method in operand_methods(model.lang, ref.name, len(expr[1])):
            if method not in defined:
                defined[method] = any(d.kind == "method" for d in an.p.named(method))
            if not defined[method] or found:
                continue
            values, _ = classify(an, model, scope, ["a", expr[1][index], method], f"{site}/{index}")
            for value, strategy in values:
                if value[0] in ("def", "bm") and strategy in READ_STRATEGIES:
                    found.setdefault(value[1], strategy)
        out.extend(_site_calls(model, ref, scope_node(model, scope), found, "operator"))
    return out


def _fixture_edges(an: Analysis, model: FileModel, scope_node: Any) -> list[EdgeRow]:
    out = []
    if model.lang != "python":
        return out
    for flow in model.flows:
        if flow.kind != "parameter" or flow.value is not None or flow.target is None or flow.target[0] != "n":
            continue
        scope = model.flow_scope(flow)
        for fixture in an.fixtures(model, scope, flow.target[1]):
            entry = an.p.symbol(fixture[1])
            strategy = "local" if entry is not None and entry[0].path == model.path else "import"
            out.append(
                EdgeRow(
                    model.key,
                    "CALLS",
                    scope_node(model, scope),
                    fixture[1],
                    strategy,
                    CONFIDENCE[strategy],
                    flow.target[1],
                    model.path,
                    flow.start_byte,
                    flow.end_byte,
                    flow.line,
                    props({"implicit": "fixture"}),
                )
            )
    return out


def _lambda_edges(model: FileModel, scope_node: Any) -> list[EdgeRow]:
    out = []
    for symbol in model.symbols:
        if symbol.kind != "lambda":
            continue
        out.append(
            EdgeRow(
                model.key,
                "REFERENCES",
                scope_node(model, symbol.parent or ""),
                symbol.node_id,
                "local",
                CONFIDENCE["local"],
                symbol.name,
                model.path,
                symbol.start_byte,
                symbol.end_byte,
                symbol.start_line,
                props({"implicit": "lambda"}),
            )
        )
    return out

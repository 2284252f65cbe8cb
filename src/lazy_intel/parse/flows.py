"""``@flow.*`` captures -> :class:`FlowFact` (assignments, loop variables, parameters, returns).

Captures (see :mod:`lazy_intel.parse.extract`): ``@flow.<kind>`` on the statement (kind one of
``assign``, ``iterate``, ``enter``, ``parameter``, ``return``, ``yield``), with ``@flow.target``,
``@flow.value`` and ``@flow.type`` on its parts. A parameter's index is its position among the
named children of its parameter list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import tree_sitter

from lazy_intel.parse.expressions import UNKNOWN, Expr, ExpressionMemo, condition_path, dumps, expression
from lazy_intel.parse.facts import FLOW_KINDS, FlowFact

RawFlow = tuple[str, tree_sitter.Node, dict[str, list[tree_sitter.Node]]]


def flow_kind(capture: str) -> str | None:
    """``flow.assign`` -> ``assign``; ``None`` for a part capture (``flow.target``) or another name."""
    if not capture.startswith("flow."):
        return None
    kind = capture[5:]
    return kind if kind in FLOW_KINDS else None


def _first(caps: dict[str, list[tree_sitter.Node]], key: str) -> tree_sitter.Node | None:
    nodes = caps.get(key)
    return nodes[0] if nodes else None


def _index_in_parent(node: tree_sitter.Node) -> int:
    parent = node.parent
    if parent is None:
        return -1
    position = 0
    for child in parent.named_children:
        if "comment" in child.type:
            continue
        if child.start_byte == node.start_byte and child.end_byte == node.end_byte:
            return position
        position += 1
    return -1


# Python's `*args` / `**kwargs` parameters: a tuple and a dict whatever they are called (a declared
# type is the type of each element: `*handlers: Handler` is a tuple of handlers)
SPLAT_PARAMETER_TYPES = frozenset({"list_splat_pattern", "dictionary_splat_pattern"})
# Java's `String... rest`: its declared type is written ``["*", element type]`` (how many arguments a
# call may pass: the graph's overload choice, `Analysis.arity`)
VARIADIC_PARAMETER_TYPES = frozenset({"spread_parameter"})


def splat_parameter_type(node_type: str, declared: Expr | None) -> Expr:
    """The declared type of a ``*args`` (``list_splat_pattern``) or ``**kwargs`` parameter."""
    if node_type == "dictionary_splat_pattern":
        return ["n", "dict"]
    if declared is None:
        return ["n", "tuple"]
    return ["o", [["n", "tuple"], ["k", ["n", "tuple"], declared]]]


def _lambda_parameter(node: tree_sitter.Node) -> tree_sitter.Node | str:
    """The first parameter of a Kotlin or Swift lambda literal (its name node), else the name of its
    implicit one: Kotlin's `it`, Swift's `$0`."""
    kotlin = next((c for c in node.named_children if c.type == "lambda_parameters"), None)
    if kotlin is not None:
        first = next((c for c in kotlin.named_children if c.type == "variable_declaration"), None)
        name = next((c for c in first.named_children if c.type == "identifier"), None) if first else None
        if name is not None:
            return name
    swift = node.child_by_field_name("type")  # `{ x in … }`: a lambda_function_type
    if swift is not None:
        parameters = next(
            (c for c in swift.named_children if c.type == "lambda_function_type_parameters"), None
        )
        first = next(iter(parameters.named_children), None) if parameters is not None else None
        name = first.child_by_field_name("name") if first is not None else None
        if name is not None:
            return name
    return "$0" if node.text is not None and b"$0" in node.text else "it"


def collect_flows(
    source: bytes,
    raw: Sequence[RawFlow],
    scopes_of: Callable[[list[int]], list[str | None]],
    definition_spans: set[tuple[int, int]],
    memo: ExpressionMemo | None = None,
) -> tuple[FlowFact, ...]:
    """Build the flow facts of one file, in source order, one per (kind, node); ``memo``: the
    expressions of the file's tree read so far."""
    unique: dict[tuple[str, int, int], RawFlow] = {}
    for kind, node, caps in raw:
        key = (kind, node.start_byte, node.end_byte)
        previous = unique.get(key)
        if previous is None or len(caps) > len(previous[2]):  # the fuller match wins
            unique[key] = (kind, node, caps)
    ordered = sorted(unique.values(), key=lambda r: (r[1].start_byte, r[1].end_byte, r[0]))
    scopes = scopes_of([node.start_byte for _, node, _ in ordered])
    facts = []
    for (kind, node, caps), scope in zip(ordered, scopes, strict=True):
        target = _first(caps, "flow.target")
        if target is not None and target.type == "lambda_literal":  # Kotlin's `{ x -> … }`, Swift's `{ $0 }`
            target = _lambda_parameter(target)
        value = _first(caps, "flow.value")
        annotation = _first(caps, "flow.type")
        declared = expression(source, annotation, 0, memo) if annotation is not None else None
        if kind == "parameter" and target is not None and target.type in SPLAT_PARAMETER_TYPES:
            declared = splat_parameter_type(target.type, declared)
        elif kind == "parameter" and node.type in VARIADIC_PARAMETER_TYPES:
            declared = ["*", declared if declared is not None else UNKNOWN]  # any number of arguments
        facts.append(
            FlowFact(
                kind=kind,
                scope=scope,
                target=(
                    dumps(expression(source, target, 0, memo))
                    if isinstance(target, tree_sitter.Node)
                    else dumps(["n", target])
                    if target is not None
                    else None
                ),
                value=dumps(expression(source, value, 0, memo)) if value is not None else None,
                annotation=dumps(declared) if declared is not None else None,
                index=_index_in_parent(node) if kind == "parameter" else -1,
                start_byte=node.start_byte,
                end_byte=node.end_byte,
                line=node.start_point[0] + 1,
                condition_path=condition_path(node, definition_spans),
            )
        )
    return tuple(facts)

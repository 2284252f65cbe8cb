"""Functions JavaScript code assigns to members, and functions used as constructors.

``res.send = function send() {…}`` makes ``send`` a member of ``res``; a function with methods of
its own (``Router.prototype.handle = …``) is what ``new Router()`` makes an instance of. Both are
read off one file's facts (``FileModel``), memoised per model; the evaluator (:mod:`.evaluate`) asks.
"""

from __future__ import annotations

from typing import Any

from lazy_intel.graph.model import FileModel, Symbol
from lazy_intel.graph.traits import traits_of


def member_assignments(model: FileModel) -> dict[Any, Any]:
    """Functions assigned to a member (``res.send = function send() {…}``), once per model: by the
    function's qualified name -> the object expression (``res``), and by (object name, member) ->
    the functions (``("res", "send")`` -> ``send``)."""
    memo = model._memo.get("member_assignments")
    if memo is None:
        memo = {}
        for flow in model.flows:
            target, value = flow.target, flow.value
            if flow.kind != "assign" or not target or target[0] != "a" or not value or value[0] != "l":
                continue
            defined = _assigned_function(model, flow.scope, value)
            if defined is None:
                continue
            memo.setdefault(defined.qualified, target[1])
            if target[1][0] == "n":
                memo.setdefault((target[1][1], target[2]), []).append(defined)
        model._memo["member_assignments"] = memo
    return memo


def _assigned_function(model: FileModel, scope: str | None, value: Any) -> Symbol | None:
    """The function definition a function expression ``value`` is: a Python lambda by position, a
    JavaScript function expression as the function the assignment statement defines (its symbol
    spans the statement, so the flow's scope is that function)."""
    if len(value) < 4:
        return None
    defined = model.lambda_at(value[3])
    if defined is None and scope:
        symbol = model.by_qualified.get(scope)
        if (
            symbol is not None
            and symbol.kind == "function"
            and symbol.start_byte <= value[3] < symbol.end_byte
        ):
            defined = symbol
    return defined


def is_constructor_function(model: FileModel, symbol: Symbol) -> bool:
    """A JavaScript function with methods of its own (``Router.prototype.handle = …``): what ``new``
    of it gives is an instance whose members are those methods."""
    return (
        symbol.kind == "function"
        and traits_of(model.lang).module_system == "ecma"
        and any(c.kind == "method" for c in model.children.get(symbol.qualified, ()))
    )

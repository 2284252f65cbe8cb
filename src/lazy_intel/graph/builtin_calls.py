"""Builtins whose calls the evaluator reads for what they do, not as outside calls (pure tables and
helpers; :mod:`lazy_intel.graph.evaluate` applies them to a call's arguments).

Each table is keyed by language and holds the outside values (``("ext", name)``) of the builtins,
as a bare name resolves to them (``traits.builtins``). ``CLASS_OF`` and ``MEMBER_BY_NAME`` apply
only to a call through the builtin's own name (``type(x)``; not a class that a three-argument
``type(…)`` made, which is the same outside value for the analysis).
"""

from __future__ import annotations

from typing import Any

from lazy_intel.graph.values import Value

# the method a call of an instance runs (``skip(…)`` of ``skip = _Skip()``): calls.call_targets links
# the site to it, evaluate.call_result reads what it returns
CALL_METHOD = "__call__"
# builtins whose result is a value of the type their first argument names
ALLOCATORS: dict[str, frozenset[Value]] = {"go": frozenset({("ext", "new"), ("ext", "make")})}
# builtins whose result is a value like their first argument
SAME_AS_FIRST: dict[str, frozenset[Value]] = {
    "go": frozenset({("ext", "append")}),
    # `captureclass = staticmethod(StdCapture)` in a class body: the function itself, as the decorator
    # form is (traits.TRANSPARENT_DECORATORS), called with the same arguments. Not `classmethod(f)`
    # (its calls bind `cls` first) nor `functools.partial(f, …)` (measured: at a hub that wraps every
    # caller's function in a partial, xarray's `apply_ufunc`, the context-insensitive analysis merges
    # all their result types; docs/design.md, "The class of an instance is its class").
    "python": frozenset({("ext", "staticmethod")}),
}
# builtins that read a member by name: `getattr(obj, "name")` is `obj.name` when the name is a
# literal identifier (with a name built at run time, `"visit_" + kind`, the call stays what it was:
# an outside call of `getattr` whose result keeps that name)
MEMBER_BY_NAME: dict[str, frozenset[Value]] = {"python": frozenset({("ext", "getattr")})}
# builtins whose one-argument call is the class of the argument (Python's `type(x)`; `x.__class__` is
# graph/classes.py's): an instance's class; a class's or function's is the metaclass, `type`
CLASS_OF: dict[str, frozenset[Value]] = {"python": frozenset({("ext", "type")})}


def literal_name(expr: Any) -> str | None:
    """The identifier a string literal expression spells (``"visit_name"``), else None."""
    if expr and expr[0] == "s" and isinstance(expr[1], str) and expr[1].isidentifier():
        return expr[1]
    return None


def class_of(values: set[Value]) -> set[Value]:
    """The classes of ``values``: an instance's class (``("inst", c)`` -> ``("def", c)``), an outside
    value's own name, ``type`` for a class or function; nothing for the rest (a container literal)."""
    out: set[Value] = set()
    for value in values:
        if value[0] == "inst":
            out.add(("def", value[1]))
        elif value[0] == "ext":
            out.add(value)
        elif value[0] == "def":
            out.add(("ext", "type"))
    return out

"""Abstract values and small helpers shared by the evaluator's parts.

A value is a tuple: ``("def", id)`` a definition, ``("bm", id)`` a method bound to an instance,
``("inst", class_id)`` an instance, ``("mod", path)`` a module file, ``("pkg", dir)`` a package
directory, ``("ext", dotted)`` something outside the repository, ``("super", class_id)``,
``("lam", path, scope, expr)`` a lambda, and ``("cont", site)`` a container literal of the file
being resolved (its elements are the variable ``("elt", site)``, which stores can grow) or
``("cont", site, elements)`` one of another file (its literal elements, frozen).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lazy_intel.graph.modules import Target

Value = tuple[Any, ...]
MAX_VALUES = 12
MAX_EXT_PARTS = 8  # the longest outside name a chain of members builds (``ext_member``)


def vkey(value: Any) -> Any:
    """A sort key for values that does not depend on hash order (frozensets are sorted inside)."""
    if isinstance(value, frozenset):
        return tuple(sorted((vkey(v) for v in value), key=repr))
    if isinstance(value, tuple):
        return tuple(vkey(v) for v in value)
    return (type(value).__name__, value)


def _order_key(value: Value) -> Any:
    # values are tuples of str/int, except a frozen container's elements: sort those inside
    if len(value) > 2 and value[0] == "cont":
        return (value[0], value[1], vkey(value[2]))
    return value


def ordered(values: Iterable[Value]) -> list[Value]:
    """``values`` in an order that does not depend on hashing (the same in every process)."""
    return sorted(values, key=_order_key)


def bounded(values: set[Value] | frozenset[Value]) -> set[Value]:
    """At most :data:`MAX_VALUES` values, the same ones whatever the order they were found in; the
    project's own first (a value that also holds many outside names, ``e = e.__cause__`` in a loop,
    keeps the project class it holds)."""
    if len(values) <= MAX_VALUES:
        return set(values)
    return set(sorted(values, key=_bounded_key)[:MAX_VALUES])


def _bounded_key(value: Value) -> Any:
    return (value[0] == "ext", _order_key(value))


def ext_member(dotted: str, name: str) -> Value:
    """``x.name`` of an outside value ``x`` named ``dotted``: ``dotted.name``, at most
    :data:`MAX_EXT_PARTS` parts (a loop such as ``e = e.__cause__`` would grow the name forever; the
    deeper members keep the name they reached)."""
    if dotted.count(".") + 1 >= MAX_EXT_PARTS:
        return ("ext", dotted)
    return ("ext", f"{dotted}.{name}")


def last_name(expr: Any) -> str | None:
    """The name an expression ends in: ``x`` of ``["n", "x"]``, ``m`` of ``a.b.m`` (else None)."""
    if expr and expr[0] == "n":
        return str(expr[1])
    if expr and expr[0] == "a":
        return str(expr[2])
    return None


def iterated_target(lang: str, target: Any) -> Any:
    """What receives the elements of an iteration's value: the whole target, except Go's ``for i, e
    := range xs``, whose first name is the index (or a map's key) and whose second the element."""
    if lang == "go" and target and target[0] == "t" and len(target[1]) == 2:
        return target[1][1]
    return target


def pattern_names(target: Any) -> list[str]:
    """The plain names an assignment target binds (``a, (b, *c)`` -> a, b, c; an object pattern's
    targets, ``{ a, b: c }`` -> a, c)."""
    if not target:
        return []
    tag = target[0]
    if tag == "n":
        return [target[1]]
    if tag == "t":
        return [n for item in target[1] for n in pattern_names(item)]
    if tag == "*":
        return pattern_names(target[1])
    if tag == "d":  # an object pattern: `{ a, b: c, ...rest }` -> a, c, rest
        return [n for _, item in target[1] for n in pattern_names(item)]
    return []


def module_value(target: Target) -> Value:
    return ("pkg", target.path) if target.is_dir else ("mod", target.path)


def c3_merge(sequences: list[list[int]]) -> list[int] | None:
    """C3 linearization of the parents' lineages; ``None`` when they cannot be merged."""
    pending = [list(s) for s in sequences if s]
    out: list[int] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            return None
        out.append(head)
        pending = [[c for c in s if c != head] for s in pending]
        pending = [s for s in pending if s]
    return out

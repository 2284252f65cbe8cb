"""The names a Python type expression refers to, at any depth (the ``@reference.annotation`` capture).

A tree-sitter query matches a fixed shape, so the rules that read names out of an annotation were
written one nesting level at a time and stopped at three (``t.Optional[t.Dict[str, t.List[Box]]]``
was read, ``A | B | Sequence[Box]`` and ``Callable[[Info[E] | None], R]`` were not: 1.8% of the
names in the annotations of pytest, xarray, sphinx and Django, many of them the projects' own
classes). A query captures where an annotation *is* (``queries/python.scm``); this walk reads what it
names, whatever its depth. Decided: the walk knows the Python grammar's node types and typing's two
value-taking generics, which no query file can say at unbounded depth.

Read as types: names and dotted names (``mod.Box`` is one name with its receiver), the generic
subscripted (``Optional``, ``t.Dict``) and its parameters, union members, a ``Callable``'s parameter
list, and a string holding a (dotted) name (a forward reference, ``"Box"``). Not read: what
``Literal[…]`` holds and ``Annotated[…]``'s metadata after its first parameter (values, not types), a
string holding more than a name (``"list[Box] | None"``), calls, numbers, ``None`` and ``...``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

VALUE_GENERICS = frozenset({"Literal"})  # every parameter is a value
METADATA_GENERICS = frozenset({"Annotated"})  # the first parameter is the type, the rest values
FORWARD_REFERENCE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# containers whose named children are type expressions themselves
TRANSPARENT = frozenset(
    {"type", "union_type", "binary_operator", "list", "tuple", "parenthesized_expression", "type_parameter"}
)


def type_names(source: bytes, node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """The name nodes (``identifier``, a whole ``attribute``, a forward reference's
    ``string_content``) of every type the annotation ``node`` refers to, in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("identifier", "attribute"):
            yield current
        elif kind in TRANSPARENT:
            stack.extend(reversed(current.named_children))
        elif kind in ("generic_type", "subscript"):
            stack.extend(reversed(_generic_parts(source, current)))
        elif kind == "string":
            content = [c for c in current.named_children if c.type == "string_content"]
            if len(content) == 1 and len(current.named_children) == 3:  # no interpolation
                text = source[content[0].start_byte : content[0].end_byte].decode("utf-8", "replace")
                if FORWARD_REFERENCE.fullmatch(text):
                    yield content[0]


def _generic_parts(source: bytes, node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """``G[P, …]`` as ``[G, P, …]``, without the parameters typing reads as values."""
    if node.type == "subscript":
        head = node.child_by_field_name("value")
        parameters = node.children_by_field_name("subscript")
    else:  # generic_type: `list[Box]` written with a bare name
        children = node.named_children
        head = children[0] if children else None
        rest = children[1:]
        parameters = rest[0].named_children if rest and rest[0].type == "type_parameter" else rest
    if head is None:
        return []
    last = source[head.start_byte : head.end_byte].decode("utf-8", "replace").rsplit(".", 1)[-1]
    if last in VALUE_GENERICS:
        return [head]
    if last in METADATA_GENERICS:
        return [head, *parameters[:1]]
    return [head, *parameters]

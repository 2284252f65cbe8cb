"""The scope each reference is attributed to (parse/extract.py ``_sweep_scopes``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.parse.extract import _Def, _sweep_scopes, extract_facts


def _tree(draw: Any, start: int, end: int, depth: int, prefix: str) -> list[_Def]:
    """Definitions nested or disjoint inside [start, end), as tree-sitter nodes are."""
    out: list[_Def] = []
    cursor = start
    for index in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        if cursor >= end - 2:
            break
        lo = draw(st.integers(cursor, end - 2))
        hi = draw(st.integers(lo + 1, end))
        name = f"{prefix}{index}"
        node = SimpleNamespace(start_byte=lo, end_byte=hi)
        out.append(_Def("function", node, name, node, None, qualified=name))  # type: ignore[arg-type]
        out += _tree(draw, lo + 1, hi, depth + 1, name + ".") if hi - lo > 2 else []
        cursor = hi
    return out


@st.composite
def definitions_and_positions(draw: Any) -> tuple[list[_Def], list[int]]:
    defs = _tree(draw, 0, 200, 0, "d")
    positions = draw(st.lists(st.integers(0, 210), max_size=30))
    return defs, positions


@given(definitions_and_positions())
def test_each_position_gets_its_innermost_definition_in_any_order(case: tuple[list[_Def], list[int]]) -> None:
    defs, positions = case
    ordered = sorted(defs, key=lambda d: (d.node.start_byte, -d.node.end_byte))
    expected = []
    for pos in positions:
        holders = [d for d in defs if d.node.start_byte <= pos < d.node.end_byte]
        expected.append(
            min(holders, key=lambda d: d.node.end_byte - d.node.start_byte).qualified if holders else None
        )
    assert _sweep_scopes(ordered, positions) == expected


def test_a_call_named_after_a_body_leaves_the_body_s_references_in_their_method() -> None:
    """`new Adapter() { int read(Reader in) { return in.peek(); } }.nullSafe()`: the call `nullSafe`
    starts before the anonymous class and is named after it; `peek` is in `read` (gson's
    `JavaTimeTypeAdapters`: every reference of such a method fell to the enclosing method, and its
    typed parameters with it)."""
    source = (
        b"class Use {\n  Adapter make() {\n    return new Adapter() {\n"
        b"      public int read(Reader in) { return in.peek(); }\n    }.nullSafe();\n  }\n}\n"
    )
    facts = extract_facts("Use.java", "java", source)
    scopes = {r.name: r.scope for r in facts.references}
    assert scopes["peek"] == "Use.make.read" and scopes["nullSafe"] == "Use.make"

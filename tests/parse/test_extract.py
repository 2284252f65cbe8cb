"""The scope each reference is attributed to (parse/extract.py ``_sweep_scopes``)."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.parse.extract import _Def, _sweep_scopes, extract_facts, extract_symbols
from lazy_intel.parse.languages import language_for_path


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


# every language's extraction fixture (its module's SOURCE) and this package's own source
FIXTURE_MODULES = {
    "c": "test_c",
    "cpp": "test_cpp",
    "csharp": "test_csharp",
    "go": "test_go",
    "java": "test_java",
    "javascript": "test_javascript",
    "kotlin": "test_kotlin",
    "php": "test_php",
    "ruby": "test_ruby",
    "rust": "test_rust",
    "scala": "test_scala",
    "swift": "test_swift",
    "tsx": "test_tsx",
    "typescript": "test_typescript",
}


@pytest.mark.parametrize("lang", sorted(FIXTURE_MODULES))
def test_a_symbols_only_pass_gives_the_full_passs_symbols(lang: str) -> None:
    """The history's symbol diff reads old versions with :func:`extract_symbols`; it must list what
    the index lists (same names, kinds, spans, docs, parents)."""
    source = importlib.import_module(f"tests.parse.{FIXTURE_MODULES[lang]}").SOURCE
    full, alone = extract_facts(f"x.{lang}", lang, source), extract_symbols(f"x.{lang}", lang, source)
    assert full.symbols and alone.symbols == full.symbols
    assert (alone.references, alone.imports, alone.flows) == ((), (), ())


def test_a_symbols_only_pass_over_real_python() -> None:
    root = Path(__file__).resolve().parents[2] / "src" / "lazy_intel" / "graph"
    for path in sorted(root.glob("*.py")):
        data = path.read_bytes()
        lang = language_for_path(path.name)
        assert lang == "python"
        assert (
            extract_symbols(path.name, lang, data).symbols == extract_facts(path.name, lang, data).symbols
        ), path

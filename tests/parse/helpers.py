"""Assertions for extraction tests: exact qualified names, kinds and byte spans."""

from __future__ import annotations

from lazy_intel.parse.facts import FileFacts, SymbolFact


def by_qualified(facts: FileFacts) -> dict[str, SymbolFact]:
    out: dict[str, SymbolFact] = {}
    for symbol in facts.symbols:
        assert symbol.qualified_name not in out, f"duplicate symbol {symbol.qualified_name}"
        out[symbol.qualified_name] = symbol
    return out


def assert_symbol(source: bytes, facts: FileFacts, qualified: str, kind: str, snippet: str) -> SymbolFact:
    """The symbol exists with this kind and its span is exactly the (unique) ``snippet`` in ``source``."""
    symbols = by_qualified(facts)
    assert qualified in symbols, f"{qualified} not in {sorted(symbols)}"
    symbol = symbols[qualified]
    assert symbol.kind == kind, f"{qualified}: kind {symbol.kind} != {kind}"
    raw = snippet.encode()
    assert source.count(raw) == 1, f"snippet for {qualified} is not unique in the fixture"
    start = source.index(raw)
    assert (symbol.start_byte, symbol.end_byte) == (start, start + len(raw)), (
        f"{qualified}: span {symbol.start_byte}..{symbol.end_byte} != {start}..{start + len(raw)}: "
        f"{source[symbol.start_byte : symbol.end_byte]!r}"
    )
    assert symbol.start_line == source[:start].count(b"\n") + 1
    assert symbol.end_line == source[: start + len(raw)].rstrip(b"\n").count(b"\n") + 1
    assert source[symbol.name_start_byte : symbol.name_end_byte].decode() == symbol.name
    return symbol


def reference_names(facts: FileFacts, kind: str) -> set[tuple[str, str | None]]:
    return {(r.name, r.scope) for r in facts.references if r.kind == kind}


def references(facts: FileFacts) -> set[tuple[str, str, str | None, str | None]]:
    """Every reference as ``(name, kind, scope, receiver)``."""
    return {(r.name, r.kind, r.scope, r.receiver) for r in facts.references}


def imports(facts: FileFacts) -> set[tuple[str, str | None, str | None, bool]]:
    """Every import as ``(module, name, alias, wildcard)``."""
    return {(i.module, i.name, i.alias, i.wildcard) for i in facts.imports}


def snippet_between(source: bytes, start: str, end: str) -> str:
    """The text of ``source`` from the first ``start`` up to and including the first ``end`` after it."""
    text = source.decode()
    begin = text.index(start)
    return text[begin : text.index(end, begin) + len(end)]

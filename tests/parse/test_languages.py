"""Every language in the table: its grammar loads, its query compiles with known captures, and a file
with a syntax error still yields the definitions around the error."""

from __future__ import annotations

import re

import pytest

from lazy_intel.parse.extract import KIND_PRIORITY, extract_facts
from lazy_intel.parse.facts import FLOW_KINDS, REFERENCE_KINDS
from lazy_intel.parse.languages import LANGUAGES, grammar, query_source, tag_query

PLAIN_CAPTURES = {
    "name",
    "parent",
    "receiver",
    "scope",
    "doc",
    "doc.owner",
    "doc.comment",  # a `/** … */` comment: the names it uses (parse/javadoc.py, parse/jsdoc.py)
    "import",
    "import.module",
    "import.name",
    "import.alias",
    "import.wildcard",
    "import.path",
    "import.tree",  # a Rust use tree read whole
    "callee",
    "flow.target",
    "flow.value",
    "flow.type",
    "reference.annotation",  # a type expression whose names become `type` references
    "reference.none",  # a node that is no reference
    "binding.name",  # a name a declaration binds within ...
    "binding.scope",  # ... this node
}

# A definition before and after a syntax error, per language: (source, a symbol that must survive).
BROKEN: dict[str, tuple[bytes, str]] = {
    "python": (b"def ok():\n    return 1\n\ndef broken(:\n    pass\n", "ok"),
    "javascript": (b"function ok() { return 1; }\nfunction broken( { return 2;\n", "ok"),
    "typescript": (b"function ok(): number { return 1; }\nclass Broken { m( { }\n", "ok"),
    "tsx": (b"function ok() { return <div/>; }\nconst broken = (<div>;\n", "ok"),
    "go": (b"package p\n\nfunc ok() int { return 1 }\n\nfunc broken( {\n", "ok"),
    "rust": (b"fn ok() -> i32 { 1 }\nfn broken( {\n", "ok"),
    "java": (b"class A {\n  void ok() {}\n  void broken( {\n}\n", "A.ok"),
    "c": (b"int ok(void) { return 1; }\nint broken( { return 2;\n", "ok"),
    "cpp": (b"namespace n { int ok() { return 1; } }\nclass Broken { void m( };\n", "n.ok"),
    "csharp": (b"class A {\n  void Ok() {}\n  void Broken( {\n}\n", "A.Ok"),
    "ruby": (b"def ok\n  1\nend\n\ndef broken(\n", "ok"),
    "php": (b"<?php\nfunction ok() { return 1; }\nfunction broken( { return 2;\n", "ok"),
    "kotlin": (b"fun ok(): Int = 1\n\nfun broken( {\n", "ok"),
    "swift": (b"func ok() -> Int { return 1 }\nfunc broken( {\n", "ok"),
    "scala": (b"object A {\n  def ok(): Int = 1\n  def broken( = 2\n}\n", "A.ok"),
}


def test_every_language_has_a_broken_fixture() -> None:
    assert set(BROKEN) == {spec.name for spec in LANGUAGES}


@pytest.mark.parametrize("lang", [spec.name for spec in LANGUAGES])
def test_grammar_loads_and_query_uses_known_captures(lang: str) -> None:
    assert grammar(lang).abi_version >= 14
    query = tag_query(lang)
    assert query.pattern_count > 0
    for index in range(query.capture_count):
        capture = query.capture_name(index)
        if capture.startswith("_") or capture in PLAIN_CAPTURES:
            continue
        family, _, kind = capture.partition(".")
        if family == "definition":
            assert kind in KIND_PRIORITY, f"{lang}: unknown definition kind @{capture}"
        elif family == "reference":
            assert kind in REFERENCE_KINDS, f"{lang}: unknown reference kind @{capture}"
        elif family == "flow":
            assert kind in FLOW_KINDS, f"{lang}: unknown flow kind @{capture}"
        else:
            pytest.fail(f"{lang}: capture @{capture} means nothing to the extractor")


@pytest.mark.parametrize("lang", [spec.name for spec in LANGUAGES])
def test_query_has_no_predicate_the_bindings_ignore(lang: str) -> None:
    # py-tree-sitter silently skips `#not-any-of?`, so such a filter would never apply
    patterns = "\n".join(line.split(";", 1)[0] for line in query_source(lang).splitlines())
    assert not re.search(r"#not-any-of\?", patterns)


@pytest.mark.parametrize("lang", [spec.name for spec in LANGUAGES])
def test_syntax_error_still_extracts(lang: str) -> None:
    source, survivor = BROKEN[lang]
    facts = extract_facts(f"broken.{lang}", lang, source)
    assert facts.error is None
    assert facts.syntax_errors == 1
    assert survivor in {s.qualified_name for s in facts.symbols}

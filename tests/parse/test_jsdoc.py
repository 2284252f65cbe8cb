"""JSDoc comments use names: the types in their braces and the names they link to (session 54)."""

from __future__ import annotations

import pytest

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.jsdoc import doc_type_references

COMMENT = b"""/**
 * Compose.
 * @param {Context} c - the context
 * @param {(context: Context, next?: Next) => Promise<Context>} fn
 * @returns {Promise<ns.Box[]>} done, see {@link helper} and {@link Context.req}
 * @type {import('./types').Options | 'a' | "b"}
 * @typedef {{name: Label, size?: number}} Shape
 * @see compose
 * {Plain} text in braces without a tag names nothing
 */
"""


def _found(source: bytes) -> list[tuple[str, str, str | None, int, bytes]]:
    refs = doc_type_references(source, [(0, len(source), 0)], lambda positions: [None] * len(positions))
    return [(r.kind, r.name, r.receiver, r.line, source[r.start_byte : r.end_byte]) for r in refs]


def test_a_doc_comment_s_types_and_links_are_references() -> None:
    assert _found(COMMENT) == [
        ("type", "Context", None, 3, b"Context"),
        ("type", "Context", None, 4, b"Context"),  # not `context`, the parameter it declares
        ("type", "Next", None, 4, b"Next"),
        ("type", "Promise", None, 4, b"Promise"),
        ("type", "Context", None, 4, b"Context"),
        ("type", "Promise", None, 5, b"Promise"),
        ("type", "Box", "ns", 5, b"ns.Box"),
        ("type", "Options", None, 6, b"Options"),  # not the path, not the literal types
        ("type", "Label", None, 7, b"Label"),
        ("type", "number", None, 7, b"number"),
        ("doc", "helper", None, 5, b"helper"),
        ("doc", "req", "Context", 5, b"Context.req"),
        ("doc", "compose", None, 8, b"compose"),
    ]


def test_a_comment_that_is_no_doc_comment_names_nothing() -> None:
    assert _found(b"/* @param {Context} c */") == []
    assert _found(b"// @param {Context} c") == []


@pytest.mark.parametrize(("lang", "path"), [("javascript", "a.js"), ("typescript", "a.ts"), ("tsx", "a.tsx")])
def test_the_extractor_reads_the_doc_comment_before_a_definition(lang: str, path: str) -> None:
    source = b"/** @param {Context} c */\nfunction run(c) { return c }\n"
    refs = [(r.kind, r.name) for r in extract_facts(path, lang, source).references]
    assert ("type", "Context") in refs


def test_a_doc_comment_s_type_is_a_reference_of_the_class_it_names(tmp_path) -> None:
    from tests.graph.helpers import build_graph

    graph = build_graph(
        tmp_path,
        {
            "ctx.ts": "export class Context { req = 1 }\n",
            "use.js": "import { Context } from './ctx'\n/** @param {Context} c */\nexport function run(c) { return c }\n",
        },
    )
    # the comment's line: the import (line 1) is an IMPORTS edge, not this one
    assert [e.line for e in graph.of("REFERENCES", dst="ctx.ts::Context")] == [2]

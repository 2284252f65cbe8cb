"""Java doc comments link to names (parse/javadoc.py): measured against jdtls on gson, the links were
59% of the sites outside tests the index missed."""

from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.javadoc import _parameter_count, link_references

SOURCE = b"""package p;

/**
 * Uses {@link Conn.Request} and {@link Conn#make(String, Map<K, V>)}; see {@linkplain #open() open}.
 * @see p.D#open(int)
 * @throws java.io.IOException when it fails
 */
class D {
    /* not a doc comment: {@link Ignored} */
    /** The {@link #open()} one, {@value Conn.Method#GET}, {@link #size}. */
    void open() {}
    void open(int n) {}
}
"""


def _refs(source: bytes) -> list[tuple[str, str, str | None, str | None, str | None, str]]:
    facts = extract_facts("p/D.java", "java", source)
    return [
        (r.kind, r.name, r.receiver, r.scope, r.args, source[r.name_start_byte : r.name_end_byte].decode())
        for r in facts.references
        if r.line in (4, 5, 6, 9, 10)
    ]


def test_links_are_type_and_member_references_read_in_the_documented_definition() -> None:
    refs = _refs(SOURCE)
    assert ("type", "Request", "Conn", "D", None, "Request") in refs
    assert ("type", "Conn", None, "D", None, "Conn") in refs
    # a parameter list names one overload: as many unknown arguments (generic commas are one)
    assert ("doc", "make", "Conn", "D", '[["x"],["x"]]', "make") in refs
    assert ("doc", "open", None, "D", "[]", "open") in refs
    assert ("doc", "open", "p.D", "D", '[["x"]]', "open") in refs
    assert ("type", "IOException", "java.io", "D", None, "IOException") in refs
    # in a method's comment: that method's scope; without a parameter list, no arguments
    assert ("doc", "open", None, "D.open", "[]", "open") in refs
    assert ("doc", "GET", "Conn.Method", "D.open", None, "GET") in refs
    assert ("doc", "size", None, "D.open", None, "size") in refs
    # a plain block comment links nothing
    assert not [r for r in refs if r[1] == "Ignored"]


def test_parameter_counts_and_bounded_links() -> None:
    assert [_parameter_count(p) for p in (b"()", b"(int)", b"(String, Map<K, V>)", b"( )")] == [0, 1, 2, 0]
    many = b"/** " + b" ".join(b"{@link A%d}" % i for i in range(600)) + b" */\nclass X {}\n"
    found = link_references(many, [(0, many.index(b"*/") + 2, 0)], lambda ps: [None] * len(ps))
    assert len(found) == 512  # MAX_LINKS per comment

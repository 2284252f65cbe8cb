"""The names a JSDoc comment uses: the types in its ``{…}`` (``@param {Context} c``, ``@returns
{Promise<Context>}``, ``@type {Foo[]}``) and the names it links to (``{@link Name}``, ``{@link
Name.member}``, ``@see Name``).

The TypeScript compiler lists them among a definition's references (a rename rewrites them); on hono
(measured against tsserver) 22 of the sites of `Context` outside tests were in doc comments. A type
expression's names are ``type`` references (a dotted ``ns.Foo``: its last name, the rest the
receiver), except the names of parameters and properties it declares (``(context: Context) =>``,
``{a: Foo}``: ``context`` and ``a``) and its keywords; a link is a ``doc`` reference, resolved as a
use of the name would be. Pure: bytes in, facts out, as :mod:`lazy_intel.parse.javadoc`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from itertools import islice

from lazy_intel.parse.facts import ReferenceFact
from lazy_intel.parse.javadoc import is_javadoc

# a tag's type in braces (one level of nested braces: a record type `{{a: Foo}}`)
TYPE = re.compile(
    rb"@(?:param|arg|argument|returns?|type|typedef|property|prop|throws|exception|enum|this|"
    rb"extends|augments|implements|satisfies|yields)\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
LINK = re.compile(rb"(?:\{@(?:link|linkcode|linkplain)|@see)\s+([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)")
# a (dotted) name in a type expression, and whether a declaration's `:` / `?:` follows it
NAME = re.compile(rb"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?=(\s*\??\s*:)?)")
STRING = re.compile(rb"'[^']*'|\"[^\"]*\"|`[^`]*`")
KEYWORDS = frozenset(
    b"typeof keyof import readonly infer is asserts extends new in function true false null undefined void unique".split()
)
MAX_NAMES = 512  # per comment


def doc_type_references(
    source: bytes,
    comments: Iterable[tuple[int, int, int]],
    scope_of: Callable[[list[int]], list[str | None]],
) -> list[ReferenceFact]:
    """The references of the JSDoc comments of ``source`` at ``comments`` (start byte, end byte,
    zero-based start line); a comment's scope is that of the code after it (the definition it
    documents), as a Javadoc comment's is."""
    found: list[tuple[int, ReferenceFact]] = []
    for start, end, row in comments:
        text = source[start:end]
        if not is_javadoc(text):
            continue
        after = _documented(source, end)
        found.extend((after, ref) for ref in islice(_names(text, start, row), MAX_NAMES))
    scopes = scope_of([after for after, _ in found]) if found else []
    return [replace(ref, scope=scope) for (_, ref), scope in zip(found, scopes, strict=True)]


def _documented(source: bytes, end: int) -> int:
    """Where the code a comment ending at ``end`` documents begins: past white space and an
    ``export`` / ``export default`` (an exported function's definition begins after them)."""
    at = end
    for word in (b"", b"export", b"default"):
        rest = source[at : at + 4096]
        if word and not (rest.startswith(word) and rest[len(word) : len(word) + 1].isspace()):
            break
        rest = rest[len(word) :]
        at += len(word) + len(rest) - len(rest.lstrip())
    return at


def _names(text: bytes, start: int, row: int) -> Iterator[ReferenceFact]:
    for match in TYPE.finditer(text):
        offset = match.start(1)
        # a string's text (`import('./x')`'s path, a literal type `'a' | 'b'`) names nothing
        expression = STRING.sub(lambda m: b" " * len(m.group(0)), match.group(1))
        for name in NAME.finditer(expression):
            if name.group(1) is not None or name.group(0) in KEYWORDS:
                continue  # a parameter's or property's own name, or a keyword
            yield _reference("type", text, name.group(0), start=start, at=offset + name.start(), row=row)
    for match in LINK.finditer(text):
        yield _reference("doc", text, match.group(1), start=start, at=match.start(1), row=row)


def _reference(kind: str, text: bytes, written: bytes, *, start: int, at: int, row: int) -> ReferenceFact:
    """A reference to the last name of ``written`` (at ``at`` in the comment), the rest its receiver."""
    *receiver, name = written.split(b".")
    name_start = start + at + len(written) - len(name)
    return ReferenceFact(
        name=name.decode(errors="replace"),
        kind=kind,
        start_byte=start + at,
        end_byte=start + at + len(written),
        line=row + 1 + text.count(b"\n", 0, at),
        name_start_byte=name_start,
        name_end_byte=name_start + len(name),
        scope=None,
        receiver=b".".join(receiver).decode(errors="replace") or None,
    )

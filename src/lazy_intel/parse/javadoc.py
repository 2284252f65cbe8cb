"""The names a Javadoc comment links to: ``{@link Type#member(Args)}``, ``{@linkplain …}``,
``{@value …}``, ``@see …``, ``@throws Type`` / ``@exception Type``.

Eclipse's JDT lists them among a definition's references (a rename rewrites them, javadoc fails on a
stale one); measured against it on gson, they were 59% of the sites outside tests the index missed.
A link's target is ``[package.]Type[.Nested][#member[(ParamType, …)]]`` or ``#member[(…)]`` (a member
of the class the comment is in). Each becomes a reference fact: the type part a ``type`` reference
(its last name, the rest its receiver), the member part a ``doc`` reference whose receiver is the
type part and whose arguments, when the link writes a parameter list, are as many unknowns as it
has parameters (the overload it names: ``graph/resolve.py`` resolves it). Pure: bytes in, facts out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from itertools import islice

from lazy_intel.parse.expressions import UNKNOWN, dumps
from lazy_intel.parse.facts import ReferenceFact

# the tag and the target after it (a target ends at white space, `}` or a label)
LINK = re.compile(
    rb"(?:\{@(?:link|linkplain|value)|@see|@throws|@exception)\s+([\w.$]*(?:#\w+(?:\([^)]*\))?)?)"
)
MAX_LINKS = 512  # per comment: a generated comment of thousands of links is not read whole


def is_javadoc(text: bytes) -> bool:
    return text.startswith(b"/**")


def _parameter_count(params: bytes) -> int:
    """``(String, Map<K, V>)`` -> 2: commas outside angle brackets."""
    inner = params[1:-1].strip()
    if not inner:
        return 0
    depth, count = 0, 1
    for byte in inner:
        if byte == ord("<"):
            depth += 1
        elif byte == ord(">"):
            depth -= 1
        elif byte == ord(",") and depth == 0:
            count += 1
    return count


def link_references(
    source: bytes,
    comments: Iterable[tuple[int, int, int]],
    scope_of: Callable[[list[int]], list[str | None]],
) -> list[ReferenceFact]:
    """The references of the Javadoc comments of ``source`` at ``comments`` (start byte, end byte,
    zero-based start line); ``scope_of`` gives the enclosing definition of each position (as the
    extractor's sweep does): a link's scope is that of the code after its comment, the definition it
    documents (``#open()`` above ``class D`` is D's)."""
    found: list[tuple[int, ReferenceFact]] = []  # (where the documented definition begins, reference)
    for start, end, row in comments:
        text = source[start:end]
        if not is_javadoc(text):
            continue
        rest = source[end : end + 4096]
        after = end + len(rest) - len(rest.lstrip())
        found.extend((after, ref) for ref in _links(text, start, row))
    scopes = scope_of([after for after, _ in found]) if found else []
    return [replace(ref, scope=scope) for (_, ref), scope in zip(found, scopes, strict=True)]


def _links(text: bytes, start: int, row: int) -> Iterator[ReferenceFact]:
    """The references of one comment ``text`` at byte ``start`` and line ``row`` (no scope yet)."""
    for match in islice(LINK.finditer(text), MAX_LINKS):
        target = match.group(1)
        at = start + match.start(1)
        type_part, _, member_part = target.partition(b"#")
        names = [n for n in type_part.split(b".") if n]
        line = row + 1 + text.count(b"\n", 0, match.start(1))
        if names:
            receiver = ".".join(n.decode(errors="replace") for n in names[:-1]) or None
            type_end = at + len(type_part)
            yield _reference(
                "type", names[-1], (at, type_end), type_end - len(names[-1]), line, receiver=receiver
            )
        member, paren, params = member_part.partition(b"(")
        if member:
            args = dumps([UNKNOWN] * _parameter_count(b"(" + params)) if paren else None
            receiver = ".".join(n.decode(errors="replace") for n in names) or None
            site = (at, at + len(target))
            yield _reference("doc", member, site, at + len(type_part) + 1, line, receiver=receiver, args=args)


def _reference(
    kind: str,
    name: bytes,
    site: tuple[int, int],
    name_start: int,
    line: int,
    *,
    receiver: str | None,
    args: str | None = None,
) -> ReferenceFact:
    return ReferenceFact(
        name=name.decode(errors="replace"),
        kind=kind,
        start_byte=site[0],
        end_byte=site[1],
        line=line,
        name_start_byte=name_start,
        name_end_byte=name_start + len(name),
        scope=None,
        receiver=receiver,
        args=args,
    )

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
from bisect import bisect_right
from collections.abc import Callable, Iterable

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
    source: bytes, comments: Iterable[tuple[int, int]], scope_of: Callable[[list[int]], list[str | None]]
) -> list[ReferenceFact]:
    """The references of the Javadoc comments spanning ``comments`` (start, end byte) of ``source``;
    ``scope_of`` gives the enclosing definition of each position (as the extractor's sweep does); a
    link's scope is that of the code after its comment, the definition it documents."""
    sites: list[tuple[str, int, int, int, int, str | None, str | None]] = []
    documented: list[int] = []  # per site: where the definition its comment documents begins
    for start, end in comments:
        text = source[start:end]
        if not is_javadoc(text):
            continue
        rest = source[end : end + 4096]
        after = end + len(rest) - len(rest.lstrip())
        for match in list(LINK.finditer(text))[:MAX_LINKS]:
            target = match.group(1)
            if not target or target == b"#":
                continue
            at = start + match.start(1)
            type_part, _, member_part = target.partition(b"#")
            names = [n for n in type_part.split(b".") if n]
            if names:
                receiver = ".".join(n.decode(errors="replace") for n in names[:-1]) or None
                name_start = at + len(type_part) - len(names[-1])
                sites.append(
                    ("type", at, at + len(type_part), name_start, at + len(type_part), receiver, None)
                )
                documented.append(after)
            if member_part:
                member, paren, params = member_part.partition(b"(")
                if not member:
                    continue
                member_start = at + len(type_part) + 1
                args = dumps([UNKNOWN] * _parameter_count(b"(" + params)) if paren else None
                receiver = ".".join(n.decode(errors="replace") for n in names) or None
                sites.append(
                    (
                        "doc:" + member.decode(errors="replace"),
                        at,
                        at + len(target),
                        member_start,
                        member_start + len(member),
                        receiver,
                        args,
                    )
                )
                documented.append(after)
    if not sites:
        return []
    # a link is read in the definition its comment documents (`#open()` above `class D` is D's)
    scopes = scope_of(documented)
    newlines = [i for i, byte in enumerate(source) if byte == 10]
    out = []
    for (kind, site_start, site_end, name_start, name_end, receiver, args), scope in zip(
        sites, scopes, strict=True
    ):
        name = kind[4:] if kind.startswith("doc:") else source[name_start:name_end].decode(errors="replace")
        out.append(
            ReferenceFact(
                name=name,
                kind="doc" if kind.startswith("doc:") else "type",
                start_byte=site_start,
                end_byte=site_end,
                line=bisect_right(newlines, name_start - 1) + 1,
                name_start_byte=name_start,
                name_end_byte=name_end,
                scope=scope,
                receiver=receiver,
                args=args,
            )
        )
    return out

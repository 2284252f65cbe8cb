"""REFERENCES for the members a Javadoc comment links to (``doc`` references, parse/javadoc.py).

``{@link #newRequest()}`` names a method of the class the comment is in, ``{@link Connection#url(URL)}``
one of ``Connection``'s: resolved as a call of that name would be (Java keeps methods apart from
fields), and of several overloads the one with as many parameters as the link writes. A link without
a parameter list (``#timeout``) is a field when the class has one, else the method. The edge says
``use: "doc"``; the type part of a link is an ordinary ``type`` reference.
"""

from __future__ import annotations

from typing import Any

from lazy_intel.graph.analysis import Analysis
from lazy_intel.graph.calls import classify, defined_at, render
from lazy_intel.graph.model import CALLABLE_LABELS, TYPE_LABELS, FileModel
from lazy_intel.graph.rows import CONFIDENCE, DIRECT_STRATEGIES, EdgeRow, props


def doc_link_edges(an: Analysis, model: FileModel, scope_node: Any) -> list[EdgeRow]:
    out: list[EdgeRow] = []
    for ref in model.refs:
        if ref.kind != "doc":
            continue
        scope = model.scope_of(ref.scope)  # the definition the comment documents (before its span)
        site = f"{model.path}:{ref.start_byte}"
        expr = ref.callee()
        written = ref.args_json is not None  # `#m(int)`: a parameter list names one overload
        found, _ = classify(an, model, scope, expr, site, called=written)
        if not written and not any(v[0] in ("def", "bm") for v, _ in found):  # no field of the name
            found, _ = classify(an, model, scope, expr, site, called=True)
        targets = _definitions(an, found)
        if written and len(targets) > 1:
            kept = set(an.overloads(sorted(targets), len(ref.args())))
            targets = {dst: s for dst, s in targets.items() if dst in kept}
        for dst, strategy in sorted(targets.items()):
            entry = an.p.symbol(dst)
            assert entry is not None
            out.append(
                EdgeRow(
                    model.key,
                    "REFERENCES",
                    scope_node(model, scope),
                    defined_at(an, model, entry),
                    strategy,
                    CONFIDENCE[strategy],
                    render(expr),
                    model.path,
                    ref.start_byte,
                    ref.end_byte,
                    ref.line,
                    props({"use": "doc"}),
                )
            )
    return out


def _definitions(an: Analysis, found: list[tuple[Any, str]]) -> dict[int, str]:
    """The callables and types among ``found`` reached by a direct strategy, by node id."""
    out: dict[int, str] = {}
    for value, strategy in found:
        if value[0] not in ("def", "bm") or strategy not in DIRECT_STRATEGIES:
            continue
        entry = an.p.symbol(value[1])
        if entry is not None and entry[1].label in CALLABLE_LABELS | TYPE_LABELS:
            out.setdefault(value[1], strategy)
    return out

"""The nodes a file owns (its File node, definitions, local variables, routes) and its DEFINES edges.

Nodes depend only on the file's own facts, so they are rewritten only when the file changes.
"""

from __future__ import annotations

import posixpath
import re

from lazy_intel.graph.model import FileModel, file_node_id, stable_id
from lazy_intel.graph.routes import RouteSite, route_sites
from lazy_intel.graph.rows import CONFIDENCE, EdgeRow, NodeRow, labels_text, props
from lazy_intel.graph.values import pattern_names
from lazy_intel.text.paths import is_test_path

TEST_NAME = re.compile(r"^(test|Test)")
CALLABLE_SCOPE_KINDS = frozenset({"function", "method", "constructor", "lambda"})
# decorators that make a method a getter (``@x.setter`` runs on writes): such a method's node says
# ``"getter": true``, which the implicit property-read edges read from the name table
GETTER_DECORATORS = frozenset({"property", "cached_property", "getter"})


def is_test_symbol(test_file: bool, name: str, kind: str) -> bool:
    return test_file and kind in ("function", "method") and TEST_NAME.match(name) is not None


def local_node_id(path: str, scope: str, name: str) -> int:
    return stable_id("local", path, scope, name)


def route_node_id(path: str, site: RouteSite, occurrence: int) -> int:
    return stable_id("route", path, site.method, site.pattern, str(occurrence))


def numbered_routes(model: FileModel) -> list[tuple[RouteSite, int]]:
    """The file's routes with their node ids (a repeated method and path gets an occurrence number)."""
    occurrences: dict[tuple[str, str], int] = {}
    out = []
    for site in route_sites(model):
        occurrence = occurrences.get((site.method, site.pattern), 0)
        occurrences[(site.method, site.pattern)] = occurrence + 1
        out.append((site, route_node_id(model.path, site, occurrence)))
    return out


def is_getter(model: FileModel, qualified: str) -> bool:
    """Whether the (first) definition named ``qualified`` has a getter decorator; only that
    occurrence's node carries the flag."""
    return any(r.name in GETTER_DECORATORS for r in model.header_refs.get(qualified, ()))


GETTER_MARK = "getter"  # the last field of a getter's definition line (definition_lines)


def getter_flags(model: FileModel) -> list[bool]:
    """Per symbol of ``model``: whether its node carries the getter flag — the first method of its
    qualified name (a getter and its ``@x.setter`` share one) with a getter decorator."""
    seen: set[str] = set()
    out = []
    for s in model.symbols:
        out.append(s.qualified not in seen and s.kind == "method" and is_getter(model, s.qualified))
        seen.add(s.qualified)
    return out


def definition_lines(model: FileModel) -> list[str]:
    """``name\\tqualified\\tkind\\tparent`` per definition — what a global name lookup can return
    (``graph_files.definitions``) — with a fifth field ``getter`` on a method node that carries the
    getter flag (:func:`getter_flags`): what the implicit property reads look at."""
    return [
        f"{s.name}\t{s.qualified}\t{s.kind}\t{s.parent or ''}" + (f"\t{GETTER_MARK}" if getter else "")
        for s, getter in zip(model.symbols, getter_flags(model), strict=True)
    ]


def file_nodes(model: FileModel, size: int, line_count: int) -> list[NodeRow]:
    path, key, lang = model.path, model.key, model.lang
    test_file = is_test_path(path)
    nodes = [
        NodeRow(
            file_node_id(path),
            key,
            "File",
            labels_text("File", *(["Test"] if test_file else [])),
            posixpath.basename(path),
            path,
            "file",
            path,
            lang,
            0,
            size,
            1,
            max(1, line_count),
            props({"test": True} if test_file else None),
        )
    ]
    for symbol, getter in zip(model.symbols, getter_flags(model), strict=True):
        label = symbol.label
        test = is_test_symbol(test_file, symbol.name, symbol.kind)
        extra: dict[str, object] = {}
        if symbol.parent:
            extra["parent"] = symbol.parent
        if test:
            extra["test"] = True
        if getter:
            extra["getter"] = True
        nodes.append(
            NodeRow(
                symbol.node_id,
                key,
                label,
                labels_text(label, *(["Test"] if test else [])),
                symbol.name,
                symbol.qualified,
                symbol.kind,
                path,
                lang,
                symbol.start_byte,
                symbol.end_byte,
                symbol.start_line,
                symbol.end_line,
                props(extra),
            )
        )
    nodes.extend(_local_nodes(model))
    for site, route_id in numbered_routes(model):
        nodes.append(
            NodeRow(
                route_id,
                key,
                "Route",
                labels_text("Route"),
                f"{site.method} {site.pattern}",
                f"{site.method} {site.pattern}",
                "route",
                path,
                lang,
                site.start_byte,
                site.end_byte,
                site.line,
                site.end_line,
                props({"method": site.method, "path": site.pattern, "framework": site.framework}),
            )
        )
    return nodes


def _local_nodes(model: FileModel) -> list[NodeRow]:
    """A Variable node per local variable and parameter of each function (ASSIGNED_FROM endpoints)."""
    seen: set[tuple[str, str]] = set()
    out: list[NodeRow] = []
    for flow in model.flows:
        if flow.kind not in ("assign", "iterate", "enter", "parameter"):
            continue
        scope = model.flow_scope(flow)
        symbol = model.scope_symbol(scope)
        if symbol is None or symbol.kind not in CALLABLE_SCOPE_KINDS:
            continue
        for name in pattern_names(flow.target):
            if (scope, name) in seen:
                continue
            seen.add((scope, name))
            kind = "parameter" if flow.kind == "parameter" else "local"
            out.append(
                NodeRow(
                    local_node_id(model.path, scope, name),
                    model.key,
                    "Variable",
                    labels_text("Variable"),
                    name,
                    f"{scope}.{name}",
                    kind,
                    model.path,
                    model.lang,
                    flow.start_byte,
                    flow.end_byte,
                    flow.line,
                    flow.line,
                    props({"parent": scope}),
                )
            )
    return out


def defines_edges(model: FileModel) -> list[EdgeRow]:
    """File -DEFINES-> top-level definitions; a definition -DEFINES-> its members."""
    out = []
    file_id = file_node_id(model.path)
    first_of: dict[str, int] = {}
    for symbol in model.symbols:
        first_of.setdefault(symbol.qualified, symbol.node_id)
    for symbol in model.symbols:
        src = first_of.get(symbol.parent, file_id) if symbol.parent else file_id
        out.append(
            EdgeRow(
                model.key,
                "DEFINES",
                src,
                symbol.node_id,
                "syntax",
                CONFIDENCE["syntax"],
                symbol.name,
                model.path,
                symbol.start_byte,
                symbol.end_byte,
                symbol.start_line,
                None,
            )
        )
    return out

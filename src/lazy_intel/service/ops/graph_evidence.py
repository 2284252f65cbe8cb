"""Evidence from the graph: items anchored at edge sites and definitions, target lookup, coverage.

Site items (a call, a reference) are ``source`` items: the verbatim bytes of the site. Node items
(a dependent, a route, a central symbol) are ``description`` items: a graph label anchored at the
definition's span, which ``verify`` checks by its anchor (DESIGN §6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lazy_intel.errors import NotFound, Unsupported
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, TEXT_SOURCE, Anchor, Answer, Item, SymbolInfo
from lazy_intel.graph.modules import IMPORT_AWARE
from lazy_intel.graph.queries import (
    GraphEdge,
    GraphNode,
    Traversal,
    definition_node,
    edges_into,
    file_hashes,
    has_graph,
    nodes_by_ids,
    traverse,
    unresolved_named,
)
from lazy_intel.graph.rows import CONFIDENCE, props
from lazy_intel.parse.languages import ECMA_LANGUAGES
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.cursor import decode_cursor, encode_cursor
from lazy_intel.service.ops.items import slice_text
from lazy_intel.service.ops.requests import require
from lazy_intel.service.ops.symbol_lookup import resolve_symbol, symbol_not_found
from lazy_intel.store.reader import ReadView
from lazy_intel.workspace.root import contained_relative_path

MAX_TARGETS = 5
UNRESOLVED_EXAMPLES = 3
GRAPH_COVERAGE = (
    "graph: indexed edges resolved from syntax and imports (not type-checked); bounded, not exhaustive"
)


class GraphReader:
    """One answer's access to the graph: nodes and file hashes cached for the read view."""

    def __init__(self, view: ReadView) -> None:
        self.view = view
        self.conn = view.conn
        self._nodes: dict[int, GraphNode] = {}
        self._hashes: dict[str, str] = {}

    def nodes(self, ids: Iterable[int]) -> dict[int, GraphNode]:
        wanted = [i for i in dict.fromkeys(ids) if i not in self._nodes]
        if wanted:
            self._nodes.update(nodes_by_ids(self.conn, wanted))
        return self._nodes

    def node(self, node_id: int | None) -> GraphNode | None:
        if node_id is None:
            return None
        return self.nodes([node_id]).get(node_id)

    def prefetch_paths(self, paths: Iterable[str | None]) -> None:
        wanted = [p for p in dict.fromkeys(paths) if p and p not in self._hashes]
        if wanted:
            self._hashes.update(file_hashes(self.conn, wanted))

    def sha(self, path: str | None) -> str | None:
        if not path:
            return None
        if path not in self._hashes:
            self.prefetch_paths([path])
        return self._hashes.get(path)

    def node_anchor(self, node: GraphNode) -> Anchor | None:
        sha = self.sha(node.path)
        if sha is None or node.path is None or node.start_byte is None or node.end_byte is None:
            return None
        return Anchor(
            node.path,
            sha,
            node.start_byte,
            node.end_byte,
            node.start_line or 1,
            node.end_line or node.start_line or 1,
            self.view.generation,
        )

    def site(self, edge: GraphEdge) -> tuple[Anchor, str | None, bool] | None:
        """The anchor and verbatim text of an edge's site (``None`` when it has no site)."""
        sha = self.sha(edge.path)
        if sha is None or edge.path is None or edge.start_byte is None or edge.end_byte is None:
            return None
        text, lossy = slice_text(self.view, sha, edge.start_byte, edge.end_byte)
        line = edge.line or 1
        end_line = line + (text.count("\n") if text else 0)
        return (
            Anchor(edge.path, sha, edge.start_byte, edge.end_byte, line, end_line, self.view.generation),
            text,
            lossy,
        )


def node_ref(node: GraphNode | None) -> dict[str, Any] | None:
    if node is None:
        return None
    out: dict[str, Any] = {"name": node.qualified_name, "label": node.label}
    if node.path:
        out["path"] = node.path
    if node.start_line:
        out["line"] = node.start_line
    return out


def symbol_info(node: GraphNode) -> SymbolInfo:
    return SymbolInfo(
        name=node.name,
        qualified_name=node.qualified_name,
        kind=node.kind or node.label.lower(),
        language=node.lang,
        parent=node.properties.get("parent"),
    )


def edge_info(edge: GraphEdge) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": edge.type,
        "strategy": edge.strategy,
        "confidence": round(edge.confidence, 4),
    }
    if edge.target:
        out["written"] = edge.target
    properties = edge.properties
    for key in (
        "implicit",
        "instantiates",
        "via",
        "reason",
        "evidence",
        "condition_path",
        "confirmed_by",
        "resolved_by",
    ):
        if key in properties:
            out[key] = properties[key]
    return out


def site_item(
    reader: GraphReader,
    edge: GraphEdge,
    *,
    kind: str,
    confidence: float,
    extra: dict[str, Any],
) -> Item | None:
    located = reader.site(edge)
    if located is None:
        return None
    anchor, text, lossy = located
    merged = {"edge": edge_info(edge), **extra}
    if lossy:
        merged["text_lossy"] = True
    return Item(
        kind=kind,
        text_kind=TEXT_SOURCE,
        text=text,
        anchor=anchor,
        confidence=confidence,
        extra=merged,
    )


def node_item(
    reader: GraphReader,
    node: GraphNode,
    *,
    kind: str,
    text: str,
    confidence: float | None = None,
    score: float | None = None,
    extra: dict[str, Any] | None = None,
) -> Item | None:
    anchor = reader.node_anchor(node)
    if anchor is None:
        return None
    return Item(
        kind=kind,
        text_kind=TEXT_DESCRIPTION,
        text=text,
        anchor=anchor,
        symbol=symbol_info(node) if node.label not in ("File", "Route", "Module") else None,
        confidence=confidence,
        score=score,
        extra=extra,
    )


def describe(node: GraphNode) -> str:
    where = f"{node.path}:{node.start_line}" if node.path and node.start_line else node.path or ""
    return f"{node.label.lower()} {node.qualified_name} ({where})"


# ---- input -------------------------------------------------------------------------------------


def need_graph(ctx: OperationContext) -> ReadView:
    view = ctx.need_view()
    if not has_graph(view.conn):
        raise Unsupported(
            f"the index of generation {view.generation} has no graph (no parsed source files)",
            next_step="check status; the graph covers files in the parsed languages",
        )
    return view


def request_path(ctx: OperationContext) -> str | None:
    request = ctx.request
    if not request.relative_path:
        return None
    path = contained_relative_path(ctx.workspace.root, request.relative_path)
    view = ctx.need_view()
    if view.file(path) is None:
        raise NotFound(
            f"file {path} is not in the index (generation {view.generation})",
            next_step="check the path, or run sync if it is new",
        )
    return path


def target_nodes(ctx: OperationContext, symbol: str, path: str | None) -> tuple[list[GraphNode], list[str]]:
    """The graph nodes for ``symbol`` (in ``path`` when given), and warnings about the choice."""
    view = ctx.need_view()
    rows = resolve_symbol(view, symbol, path)
    if not rows:
        raise symbol_not_found(view, symbol, path)
    name = symbol.strip().replace("::", ".").replace("#", ".")
    exact = [r for r in rows if r.qualified_name == name]
    chosen = exact or rows
    line = ctx.request.line
    if line is not None:
        # one of several definitions of the name in a file (Java's overloads, a getter and its setter):
        # the one whose lines hold the (zero-based) line
        chosen = [r for r in chosen if r.start_line - 1 <= line <= r.end_line - 1]
        if not chosen:
            spans = ", ".join(f"{r.path}:{r.start_line - 1}-{r.end_line - 1}" for r in (exact or rows)[:5])
            raise NotFound(
                f"no definition of {symbol!r} spans line {line} (zero-based); its definitions: {spans}",
                next_step="pass a line inside one of those definitions, or leave line out for all of them",
            )
        rows = chosen
    warnings: list[str] = []
    if len(rows) > 1:
        shown = ", ".join(f"{r.qualified_name} ({r.path}:{r.start_line})" for r in chosen[:MAX_TARGETS])
        more = f" and {len(chosen) - MAX_TARGETS} more" if len(chosen) > MAX_TARGETS else ""
        warnings.append(
            f"{len(rows)} definitions match {symbol!r}; answered for {shown}{more}; "
            "pass relativePath or a qualified name to pick one"
        )
    nodes: list[GraphNode] = []
    for row in chosen[:MAX_TARGETS]:
        node = definition_node(view.conn, row.path, row.qualified_name, row.start_byte)
        if node is not None:
            nodes.append(node)
    if not nodes:
        raise NotFound(
            f"symbol {symbol!r} is indexed but has no graph node (its language is not in the graph)",
            next_step="use operation=search or a live language server",
        )
    return nodes, warnings


CONSTRUCTOR_NAMES = frozenset({"__init__", "__new__", "constructor"})
TYPE_NODE_LABELS = frozenset({"Class", "Interface", "Type"})


def is_constructor(node: GraphNode) -> bool:
    """Python's ``__init__``/``__new__``, JavaScript's ``constructor``, or a definition of kind
    ``constructor`` (Java's, C#'s, C++'s, named after their class)."""
    return node.kind == "constructor" or node.name in CONSTRUCTOR_NAMES


# Implicit calls whose site names something else, left out of `references` (what a type checker
# lists: where the name is written) and kept in `callers` and `impact`: applying `@app.route("/")`
# calls the closure `route` returns (flask: 20 such sites listed as references of `route.decorator`),
# `for x in box` calls `Box.__iter__`, `with lock:` calls `Lock.__enter__`, `a + b` calls
# `Vec.__add__`. A property read
# (`implicit: "property"`) writes the property's name, so it stays a reference.
UNWRITTEN_CALLS = frozenset({"decorator", "iteration", "with", "operator"})


# languages whose method references include the calls of its overriders (JDT's answer for Java)
OVERRIDE_CALL_LANGS = frozenset({"java"})
# languages whose method references are those of its whole override family: the methods it overrides
# up to their roots and every overrider of those roots, siblings included, each family member's
# declaration and its calls (the TypeScript compiler's answer: `ZodString._parse` is referenced by the
# abstract `ZodType._parse`, by `this._parse(input)` in the base and by `ZodNumber._parse`)
OVERRIDE_FAMILY_LANGS = ECMA_LANGUAGES
MAX_ANCESTRY = 12  # INHERITS steps walked up from a class to find the constructor it inherits


def _with_ancestors(conn: Any, ids: list[int]) -> list[int]:
    """``ids`` and their classes' project ancestors (resolved INHERITS edges, bounded)."""
    walk = traverse(conn, ids, types=("INHERITS",), incoming=False, depth=MAX_ANCESTRY, hops=False)
    return [*ids, *(r.node for r in walk.reached)]


def _override_family_edges(conn: Any, targets: Sequence[GraphNode]) -> list[GraphEdge]:
    """For the methods among ``targets`` in :data:`OVERRIDE_FAMILY_LANGS`: the calls of the other
    members of their override families and those members' declarations (an ``OVERRIDES`` site whose
    ``use`` is ``override``, from the member to the method asked about)."""
    methods = [t.id for t in targets if t.label == "Method" and t.lang in OVERRIDE_FAMILY_LANGS]
    if not methods:
        return []
    up = traverse(conn, methods, types=("OVERRIDES",), incoming=False, depth=MAX_ANCESTRY, hops=False)
    roots = [*methods, *(r.node for r in up.reached)]
    down = traverse(conn, roots, types=("OVERRIDES",), incoming=True, depth=MAX_ANCESTRY, hops=False)
    asked = {t.id for t in targets}
    related = [n for n in dict.fromkeys([*roots, *(r.node for r in down.reached)]) if n not in asked]
    if not related:
        return []
    out = _written_calls(conn, related)
    declared = props({"use": "override"})
    confidence = CONFIDENCE["inheritance"]
    for node in nodes_by_ids(conn, related).values():
        if node.path is None or node.start_byte is None:
            continue
        site = (node.path, node.start_byte, node.end_byte, node.start_line)
        out.append(
            GraphEdge("OVERRIDES", node.id, methods[0], "inheritance", confidence, node.name, *site, declared)
        )
    return out


def _written_calls(conn: Any, ids: list[int]) -> list[GraphEdge]:
    """The resolved calls into ``ids`` whose site names the callee (not :data:`UNWRITTEN_CALLS`)."""
    return [
        e for e in edges_into(conn, ids, ("CALLS",)) if e.properties.get("implicit") not in UNWRITTEN_CALLS
    ]


def reference_edges(conn: Any, targets: Sequence[GraphNode]) -> list[GraphEdge]:
    """The reference sites of ``targets``, best edge per site, in file order: resolved CALLS,
    REFERENCES, IMPORTS, INHERITS and IMPLEMENTS edges into them, and for a class also the calls that
    instantiate it — which resolve to its constructor (``Session()`` runs ``Session.__init__``) but
    are uses of the class (the edge says ``instantiates``); ``super().__init__()`` and calls of an
    inherited constructor for a subclass are not. Calls the runtime makes where the source names
    something else (:data:`UNWRITTEN_CALLS`) are callers, not references."""
    from lazy_intel.graph.queries import REFERENCE_TYPES, members

    edges = [
        e
        for e in edges_into(conn, [t.id for t in targets], REFERENCE_TYPES)
        if e.properties.get("implicit") not in UNWRITTEN_CALLS
    ]
    methods = [t.id for t in targets if t.label == "Method" and t.lang in OVERRIDE_CALL_LANGS]
    if methods:
        # a call of a method it overrides or that overrides it (`req.data()` of a class implementing
        # `Request.data`; `adapter.write()` of a `TypeAdapter` that may run this override): what
        # Eclipse's JDT lists among a Java method's references
        related = [
            r.node
            for incoming in (True, False)
            for r in traverse(
                conn, methods, types=("OVERRIDES",), incoming=incoming, depth=MAX_ANCESTRY, hops=False
            ).reached
        ]
        edges.extend(_written_calls(conn, related))
    edges.extend(_override_family_edges(conn, targets))
    types_ = [t for t in targets if t.label in TYPE_NODE_LABELS]
    if types_:
        qualified = {t.qualified_name for t in types_}
        # the constructor may be inherited (`Color()` runs `Property.__init__`, saying `instantiates: Color`)
        inner = nodes_by_ids(conn, members(conn, _with_ancestors(conn, [t.id for t in types_])))
        constructors = [n.id for n in inner.values() if is_constructor(n)]
        edges.extend(
            e
            for e in edges_into(conn, constructors, ("CALLS",))
            if e.properties.get("instantiates") in qualified
        )
    best: dict[tuple[Any, ...], GraphEdge] = {}
    for edge in edges:
        kept = best.get(edge.site)
        if kept is None or edge.confidence > kept.confidence:
            best[edge.site] = edge
    return sorted(best.values(), key=lambda e: (e.path or "", e.start_byte or 0))


# ---- coverage ----------------------------------------------------------------------------------


def language_coverage(langs: Iterable[str | None]) -> list[str]:
    present = sorted({lang for lang in langs if lang})
    plain = [lang for lang in present if lang not in IMPORT_AWARE]
    if not plain:
        return []
    return [
        f"no import resolution for {', '.join(plain)}: edges there are resolved by unique name only "
        "(lower confidence; uses through imports or members may be missing)"
    ]


def depth_coverage(traversal: Traversal, what: str) -> list[str]:
    out: list[str] = []
    if traversal.depth_limited:
        out.append(
            f"depth limit {traversal.depth} reached: {traversal.beyond} more {what} one step further were "
            "not followed (raise depth)"
        )
    else:
        out.append(f"complete to depth {traversal.depth}: no further {what} past the last one found")
    if traversal.node_limited:
        out.append(f"stopped after {len(traversal.reached)} nodes (node budget); the walk is incomplete")
    return out


def unresolved_coverage(count: int, name: str, shown: Sequence[str] = ()) -> list[str]:
    if count == 0:
        return [f"no unresolved sites are written as {name!r} or *.{name}"]
    where = f" (e.g. {', '.join(shown)})" if shown else ""
    return [
        f"{count} unresolved site(s) written as {name!r} or *.{name} were skipped: they may be uses the "
        f"index could not resolve{where}"
    ]


# ---- shared steps of the graph operations ----------------------------------------------------------


def request_targets(ctx: OperationContext) -> tuple[list[GraphNode], list[str]]:
    request = ctx.request
    require(request, "symbol")
    assert request.symbol is not None
    return target_nodes(ctx, request.symbol, request_path(ctx))


def target_items(reader: GraphReader, targets: Sequence[GraphNode]) -> list[Item]:
    items = []
    for node in targets:
        item = node_item(reader, node, kind="target", text=f"asked about {describe(node)}")
        if item is not None:
            items.append(item)
    return items


def unresolved_lines(reader: GraphReader, targets: Sequence[GraphNode], types: Sequence[str]) -> list[str]:
    sites: dict[tuple[Any, ...], GraphEdge] = {}
    names = sorted({t.name for t in targets})
    for name in names:
        for edge in unresolved_named(reader.conn, name, types):
            sites.setdefault(edge.site, edge)
    shown = [f"{e.path}:{e.line}" for e in list(sites.values())[:UNRESOLVED_EXAMPLES]]
    return unresolved_coverage(len(sites), "/".join(names), shown)


def finish_answer(
    ctx: OperationContext,
    operation: str,
    items: list[Item],
    *,
    coverage: list[str],
    warnings: list[str],
    data: dict[str, Any],
    cursor_for: Any = None,
    message: str | None = None,
) -> Answer:
    return fit_answer(
        operation,
        items,
        max_chars=ctx.request.max_chars,
        view=ctx.view_info,
        coverage=coverage,
        warnings=[*ctx.warnings, *warnings],
        data=data,
        cursor_for=cursor_for,
        message=message,
    )


# ---- paging ------------------------------------------------------------------------------------


def paging(ctx: OperationContext, total: int, head: int = 0) -> tuple[int, Callable[[int], str | None]]:
    """The offset the request's cursor resumes at, and the ``cursor_for`` of this page.

    ``head`` items (the targets or declarations every page starts with) are not results: the
    answer's count of chosen items includes them, the cursor's offset does not.
    """
    request = ctx.request
    view = ctx.need_view()
    offset = decode_cursor(request.cursor, view.generation, request.fingerprint()) if request.cursor else 0

    def cursor_for(consumed: int) -> str | None:
        results = max(0, consumed - head)
        if offset + results >= total:
            return None
        return encode_cursor(view.generation, offset + results, request.fingerprint())

    return offset, cursor_for

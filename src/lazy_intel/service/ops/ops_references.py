"""``references`` and ``implementations``: the index graph and, when a trusted language server can
answer, the server too, fused into one list (:mod:`lazy_intel.service.ops.ops_fused`); without a server —
or when it fails — the index graph alone, and the answer says why.

Live items keep their ``SemanticObservation`` and are never relabelled as indexed evidence; index
items are labelled ``evidence: index`` with each edge's confidence (DESIGN §5, §6). Name-only edges
(``ambiguous``, ``unique-name``) are candidates, listed only with ``includeCandidates``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from lazy_intel.errors import IndexBuilding, InvalidArgument, LazyIntelError
from lazy_intel.evidence.budget import serialize
from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.queries import (
    REFERENCE_TYPES,
    GraphEdge,
    GraphNode,
    has_graph,
    nodes_by_ids,
    traverse,
)
from lazy_intel.service.ops.confirmations import CONFIRMED_STRATEGY, Confirmations, edge_key, upgraded
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.fused_list import NAME_ONLY_STRATEGIES
from lazy_intel.service.ops.graph_evidence import (
    GRAPH_COVERAGE,
    GraphReader,
    depth_coverage,
    describe,
    edge_info,
    finish_answer,
    language_coverage,
    need_graph,
    node_item,
    node_ref,
    paging,
    reference_edges,
    request_targets,
    site_item,
    target_items,
    unresolved_lines,
)
from lazy_intel.service.ops.ops_fused import fused_implementations, fused_references
from lazy_intel.service.ops.ops_semantic import live_answer
from lazy_intel.service.ops.symbol_lookup import resolve_symbol
from lazy_intel.workspace.capture import read_regular_file
from lazy_intel.workspace.root import contained_relative_path

# characters kept free in the live answer's budget for the line naming its source
SOURCE_NOTE_RESERVE = 240
LIVE_LIMIT = 500  # live results fetched to fuse with the index (the semantic layer's page limit)
LIVE_MAX_CHARS = 5_000_000
MAX_PRIMED_FILES = 20
MAX_LIVE_RESULTS = 2_000  # the live answer is an intermediate: the fused answer fits the budget
DEFAULT_HIERARCHY_DEPTH = 3
TYPE_LABELS = frozenset({"Class", "Interface", "Type"})


VARIABLE_LABEL = "Variable"
# what the index holds of a variable or constant: where it is imported (and called, when it holds a
# function), not each read or write of its name (no edge): said, so "no references" is not "unused"
VARIABLE_READS_COVERAGE = (
    "variable: its imports (and calls, when it holds a function) are indexed edges; reads and writes "
    "of its name inside a file are not: search for the name, or configure a language server, for those"
)


def op_references(ctx: OperationContext) -> Answer:
    return _answer(ctx)


def op_implementations(ctx: OperationContext) -> Answer:
    return _answer(ctx)


def _subject_path(ctx: OperationContext) -> str | None:
    """The file whose language picks the server: relativePath, else where the index defines symbol."""
    request = ctx.request
    if request.relative_path:
        return contained_relative_path(ctx.workspace.root, request.relative_path)
    if request.symbol and ctx.view is not None:
        rows = resolve_symbol(ctx.view, request.symbol, None)
        if rows:
            return rows[0].path
    return None


def why_not_live(ctx: OperationContext, operation: str | None = None) -> str | None:
    """``None`` when a live server would answer ``operation`` (default: the request's) for this
    request, else the reason it would not."""
    layer = ctx.semantic
    operation = operation or ctx.request.operation
    if layer is None or not layer.configured:
        return "no trusted language server is configured"
    path = _subject_path(ctx)
    if path is None:
        return "the symbol is not in the index, so no file (and no server) could be chosen"
    root = ctx.workspace.root
    server = layer.server_for_path(root, path)
    if server is None:
        return f"no configured language server handles {path}"
    session = layer.session(root, server)
    try:
        session.ensure_started()
    except LazyIntelError as exc:
        return f"language server {server.id} is unavailable: {exc.message}"
    if operation not in session.operations():
        return f"language server {server.id} did not negotiate {operation}"
    return None


def _labelled(answer: Answer, note: str, max_chars: int) -> Answer:
    data = dict(answer.data or {})
    data["source"] = "lsp"
    current = replace(answer, coverage=(note, *answer.coverage), data=data, max_chars=max_chars)
    for _ in range(6):
        length = len(serialize(current))
        if length == current.used_chars:
            break
        current = replace(current, used_chars=length)
    return current


def live_in_full(ctx: OperationContext, operation: str | None = None, direction: str | None = None) -> Answer:
    """The live answer with every result (pages of the layer's limit, up to :data:`MAX_LIVE_RESULTS`),
    to fuse with the index. More than that: the answer keeps the first ones and says so."""
    request = replace(
        ctx.request,
        operation=operation or ctx.request.operation,
        direction=direction if direction is not None else ctx.request.direction,
        limit=LIVE_LIMIT,
        cursor=None,
        max_chars=LIVE_MAX_CHARS,
    )
    first = live_answer(replace(ctx, request=request))
    items = list(first.items)
    answer = first
    while answer.status != "error" and answer.next_cursor and len(items) < MAX_LIVE_RESULTS:
        answer = live_answer(replace(ctx, request=replace(request, cursor=answer.next_cursor)))
        if answer.status == "error":
            break
        items.extend(answer.items)
    if answer is first:
        return first
    warnings = list(first.warnings)
    if answer.next_cursor or answer.status == "error":
        warnings.append(
            f"the live server reported more than {len(items)} results; the first {len(items)} are fused"
        )
    return replace(first, items=tuple(items), warnings=tuple(warnings), next_cursor=None)


def prime_server(ctx: OperationContext, paths: Sequence[str | None]) -> int:
    """Open (``didOpen``) up to :data:`MAX_PRIMED_FILES` files where the index found sites, so a
    server that only searches the documents it has open (clangd without a background index, a
    server still loading the project) can confirm them. Returns how many were opened."""
    layer = ctx.semantic
    subject = _subject_path(ctx)
    if layer is None or subject is None:
        return 0
    root = ctx.workspace.root
    server = layer.server_for_path(root, subject)
    if server is None:
        return 0
    session = layer.session(root, server)
    opened = 0
    with session.in_use():
        for path in dict.fromkeys(p for p in paths if p and p != subject):
            if opened >= MAX_PRIMED_FILES:
                break
            if layer.server_for_path(root, path) is not server:
                continue
            try:
                data = read_regular_file(root / path)
                if len(data) > layer.max_file_bytes:
                    continue
                session.sync_document(path, data, server.language_for(path) or "plaintext")
            except (OSError, UnicodeDecodeError, LazyIntelError):
                continue
            opened += 1
    return opened


def live_targets(ctx: OperationContext, targets: list[GraphNode]) -> tuple[list[GraphNode], list[str]]:
    """The target the live server is asked about (the index's first definition of the symbol), with the
    other definitions of the same name in its file (a property's setter, overloads)."""
    view = ctx.need_view()
    request = ctx.request
    assert request.symbol is not None
    path = (
        contained_relative_path(ctx.workspace.root, request.relative_path) if request.relative_path else None
    )
    rows = resolve_symbol(view, request.symbol, path)
    chosen = [t for t in targets if rows and t.path == rows[0].path and t.start_byte == rows[0].start_byte]
    first = chosen[0] if chosen else targets[0]
    # one symbol written as several definitions of one name in one file (a property's getter and
    # setter, overloads): the server answers for the symbol, so the index's sites of each are fused
    same = [t for t in targets if t.path == first.path and t.qualified_name == first.qualified_name]
    if not chosen or len(same) == len(targets):
        return same, []
    return same, [
        f"the live server was asked about {first.qualified_name} ({first.path}:{first.start_line}) "
        "only; the answer fuses that definition"
    ]


def _answer(ctx: OperationContext) -> Answer:
    request = ctx.request
    reason = why_not_live(ctx)
    fusable = bool(request.symbol) and ctx.view is not None and has_graph(ctx.view.conn)
    if reason is None:
        try:
            if fusable:
                targets, _ = request_targets(ctx)
                prime_server(ctx, _site_paths(ctx, targets))
                live = live_in_full(ctx)
            else:
                budget = max(200, request.max_chars - SOURCE_NOTE_RESERVE)
                live = live_answer(replace(ctx, request=replace(request, max_chars=budget)))
        except LazyIntelError as exc:
            reason = f"the live server failed ({exc.code}: {exc.message})"
        else:
            if live.status != "error":
                if fusable:
                    return _fused(ctx, live)
                server = _server_id(live)
                note = f"source: live language server {server} (the index was not consulted: position input)"
                return _labelled(live, note, request.max_chars)
            reason = f"the live server answered {live.code}: {live.message}"
    if ctx.view is None:
        raise IndexBuilding(
            f"{request.operation} has no live server ({reason}) and no index yet",
            next_step="retry in a few seconds (status shows progress)",
        )
    if not request.symbol:
        raise InvalidArgument(
            f"{request.operation} from the index needs symbol (+ relativePath); {reason}",
            next_step="pass symbol, or configure a language server for position input",
        )
    note = f"source: index graph, because {reason}"
    if request.operation == "references":
        return graph_references(ctx, note)
    return graph_implementations(ctx, note)


def _site_paths(ctx: OperationContext, targets: list[GraphNode]) -> list[str | None]:
    """Files where the index has sites of the request: what to show the server before asking."""
    conn = ctx.need_view().conn
    if ctx.request.operation == "references":
        return [e.path for e in reference_edges(conn, targets)]
    found, _, _ = implementation_walk(ctx, targets)
    return [n.path for n in nodes_by_ids(conn, [f[0] for f in found]).values()]


def _fused(ctx: OperationContext, live: Answer) -> Answer:
    targets, warnings = request_targets(ctx)
    targets, note = live_targets(ctx, targets)
    if ctx.request.operation == "references":
        return fused_references(ctx, live, targets, [*warnings, *note])
    found, coverage, _ = implementation_walk(ctx, targets)
    return fused_implementations(
        ctx, live, targets, found=found, warnings=[*warnings, *note], coverage=coverage
    )


def _server_id(answer: Answer) -> str:
    for item in answer.items:
        if item.observation is not None:
            return item.observation.server_id
    semantic = (answer.data or {}).get("semantic")
    if isinstance(semantic, dict):
        server = semantic.get("server")
        if isinstance(server, dict) and server.get("id"):
            return str(server["id"])
    return json.dumps(semantic)[:40] if semantic else "?"


# ---- references / implementations from the index ------------------------------------------------


def confirmed_edges(ctx: OperationContext, reader: GraphReader, edges: list[GraphEdge]) -> list[GraphEdge]:
    """``edges`` with those a live server confirmed earlier (both files unchanged) upgraded."""
    dst = reader.nodes([e.dst for e in edges if e.dst is not None])
    paths = {e.path for e in edges if e.path} | {n.path for n in dst.values() if n.path}
    reader.prefetch_paths(paths)
    hashes = {p: sha for p in paths if (sha := reader.sha(p))}
    found = Confirmations(ctx.workspace.state).lookup(
        edges, hashes, {i: n.path for i, n in dst.items() if n.path}
    )
    if not found:
        return edges
    out = []
    for edge in edges:
        key = edge_key(edge)
        out.append(upgraded(edge, found[key]) if key is not None and key in found else edge)
    return out


def graph_references(ctx: OperationContext, source_note: str) -> Answer:
    view = need_graph(ctx)
    targets, warnings = request_targets(ctx)
    reader = GraphReader(view)
    edges = reference_edges(view.conn, targets)
    reader.nodes([e.src for e in edges] + [e.dst for e in edges if e.dst is not None])
    edges = confirmed_edges(ctx, reader, edges)
    candidates = [e for e in edges if e.strategy in NAME_ONLY_STRATEGIES]
    references = [e for e in edges if e.strategy not in NAME_ONLY_STRATEGIES]
    listed = [(e, "reference") for e in references]
    if ctx.request.include_candidates:
        listed.extend((e, "candidate") for e in candidates)
    reader.prefetch_paths(e.path for e, _ in listed)
    items: list[Item] = []
    if ctx.request.include_declaration:
        for node in targets:
            item = node_item(reader, node, kind="declaration", text=f"declaration of {describe(node)}")
            if item is not None:
                items.append(item)
    offset, cursor_for = paging(ctx, len(listed), head=len(items))
    for edge, kind in listed[offset : offset + ctx.request.limit]:
        extra = {
            "evidence": "index",
            "from": node_ref(reader.node(edge.src)),
            "to": node_ref(reader.node(edge.dst)),
        }
        item = site_item(reader, edge, kind=kind, confidence=edge.confidence, extra=extra)
        if item is not None:
            items.append(item)
    coverage = [source_note, GRAPH_COVERAGE]
    if candidates:
        coverage.append(
            f"{len(candidates)} candidate site(s) resolved by name only (strategy ambiguous or unique-name: "
            "the only or one of several definitions of that name, rarely the right one) "
            + (
                "listed last as kind candidate"
                if ctx.request.include_candidates
                else "left out; pass includeCandidates=true to list them"
            )
        )
    confirmed = sum(1 for e in references if e.strategy == CONFIRMED_STRATEGY)
    if confirmed:
        coverage.append(f"{confirmed} site(s) confirmed by a live language server earlier (lsp-confirmed)")
    coverage.extend(unresolved_lines(reader, targets, REFERENCE_TYPES))
    if any(t.label == VARIABLE_LABEL for t in targets):
        coverage.append(VARIABLE_READS_COVERAGE)
    coverage.extend(
        language_coverage([t.lang for t in targets] + [n.lang for n in reader.nodes([]).values()])
    )
    data = {
        "source": "index",
        "targets": [node_ref(t) for t in targets],
        "total": len(listed),
        "candidates": len(candidates),
    }
    message = (
        None
        if references
        else f"no references to {', '.join(t.qualified_name for t in targets)} in the index"
        + (f" ({len(candidates)} name-only candidate site(s))" if candidates else "")
    )
    return finish_answer(
        ctx,
        "references",
        items,
        coverage=coverage,
        warnings=warnings,
        data=data,
        cursor_for=cursor_for,
        message=message,
    )


def implementation_walk(
    ctx: OperationContext, targets: list[GraphNode]
) -> tuple[list[tuple[int, int, float, GraphEdge]], list[str], int]:
    """(subtypes/overriders reached: node, distance, confidence, edge), coverage lines, depth."""
    view = ctx.need_view()
    depth = ctx.request.depth or DEFAULT_HIERARCHY_DEPTH
    types_ = [t for t in targets if t.label in TYPE_LABELS]
    methods = [t for t in targets if t.label == "Method"]
    others = [t for t in targets if t not in types_ and t not in methods]
    if others and not types_ and not methods:
        raise InvalidArgument(
            f"implementations needs a class, interface or method; {others[0].qualified_name} is a "
            f"{others[0].label.lower()}",
            next_step="use callers or references for functions and variables",
        )
    coverage: list[str] = []
    found: list[tuple[int, int, float, GraphEdge]] = []
    for group, edge_types, what in (
        (types_, ("INHERITS", "IMPLEMENTS"), "subtypes"),
        (methods, ("OVERRIDES",), "overriding methods"),
    ):
        if not group:
            continue
        walk = traverse(
            view.conn, [t.id for t in group], types=edge_types, incoming=True, depth=depth, hops=False
        )
        found.extend((r.node, r.distance, r.confidence, r.via) for r in walk.reached)
        coverage.extend(depth_coverage(walk, what))
    found.sort(key=lambda f: (f[1], -f[2]))
    return found, coverage, depth


def graph_implementations(ctx: OperationContext, source_note: str) -> Answer:
    view = need_graph(ctx)
    targets, warnings = request_targets(ctx)
    found, walked, depth = implementation_walk(ctx, targets)
    reader = GraphReader(view)
    coverage = [source_note, GRAPH_COVERAGE, *walked]
    nodes = reader.nodes([f[0] for f in found])
    reader.prefetch_paths(n.path for n in nodes.values())
    items: list[Item] = target_items(reader, targets)
    offset, cursor_for = paging(ctx, len(found), head=len(items))
    for node_id, distance, confidence, via in found[offset : offset + ctx.request.limit]:
        node = nodes.get(node_id)
        if node is None:
            continue
        relation = {"INHERITS": "inherits", "IMPLEMENTS": "implements", "OVERRIDES": "overrides"}[via.type]
        parent = reader.node(via.dst)
        text = f"{describe(node)} {relation} {parent.qualified_name if parent else via.target}"
        extra = {"evidence": "index", "distance": distance, "edge": edge_info(via)}
        item = node_item(reader, node, kind="implementation", text=text, confidence=confidence, extra=extra)
        if item is not None:
            items.append(item)
    coverage.extend(unresolved_lines(reader, targets, ("INHERITS", "IMPLEMENTS")))
    coverage.extend(language_coverage([t.lang for t in targets] + [n.lang for n in nodes.values()]))
    data = {"source": "index", "targets": [node_ref(t) for t in targets], "depth": depth, "total": len(found)}
    message = (
        None
        if found
        else f"no implementations of {', '.join(t.qualified_name for t in targets)} in the index"
    )
    return finish_answer(
        ctx,
        "implementations",
        items,
        coverage=coverage,
        warnings=warnings,
        data=data,
        cursor_for=cursor_for,
        message=message,
    )

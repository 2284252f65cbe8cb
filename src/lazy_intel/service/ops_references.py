"""``references`` and ``implementations``: the live language server when one can answer, else the
index graph — and the answer says which source answered and, for the graph, why not the server.

The live answer keeps its ``SemanticObservation`` and is never relabelled as indexed evidence; the
graph answer labels its items ``evidence: index`` with each edge's confidence (DESIGN §5, §6).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lazy_intel.errors import IndexBuilding, InvalidArgument, LazyIntelError
from lazy_intel.evidence.budget import serialize
from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.queries import REFERENCE_TYPES, GraphEdge, edges_into, traverse
from lazy_intel.service.context import OperationContext
from lazy_intel.service.graph_evidence import (
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
    request_targets,
    site_item,
    target_items,
    unresolved_lines,
)
from lazy_intel.service.ops_retrieval import resolve_symbol
from lazy_intel.service.ops_semantic import live_answer
from lazy_intel.workspace.root import contained_relative_path

# characters kept free in the live answer's budget for the line naming its source
SOURCE_NOTE_RESERVE = 240
DEFAULT_HIERARCHY_DEPTH = 3
TYPE_LABELS = frozenset({"Class", "Interface", "Type"})


def op_references(ctx: OperationContext) -> Answer:
    return _prefer_live(ctx, graph_references)


def op_implementations(ctx: OperationContext) -> Answer:
    return _prefer_live(ctx, graph_implementations)


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


def why_not_live(ctx: OperationContext) -> str | None:
    """``None`` when a live server would answer this request, else the reason it would not."""
    layer = ctx.semantic
    operation = ctx.request.operation
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


def _prefer_live(ctx: OperationContext, from_index: Callable[[OperationContext, str], Answer]) -> Answer:
    request = ctx.request
    reason = why_not_live(ctx)
    if reason is None:
        budget = max(200, request.max_chars - SOURCE_NOTE_RESERVE)
        try:
            live = live_answer(replace(ctx, request=replace(request, max_chars=budget)))
        except LazyIntelError as exc:
            reason = f"the live server failed ({exc.code}: {exc.message})"
        else:
            if live.status != "error":
                server = _server_id(live)
                note = f"source: live language server {server} (preferred over the index graph)"
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
    return from_index(ctx, f"source: index graph, because {reason}")


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


def graph_references(ctx: OperationContext, source_note: str) -> Answer:
    view = need_graph(ctx)
    targets, warnings = request_targets(ctx)
    reader = GraphReader(view)
    best: dict[tuple[Any, ...], GraphEdge] = {}
    for edge in edges_into(view.conn, [t.id for t in targets], REFERENCE_TYPES):
        kept = best.get(edge.site)
        if kept is None or edge.confidence > kept.confidence:
            best[edge.site] = edge
    edges = sorted(best.values(), key=lambda e: (e.path or "", e.start_byte or 0))
    reader.nodes([e.src for e in edges] + [e.dst for e in edges if e.dst is not None])
    reader.prefetch_paths(e.path for e in edges)
    items: list[Item] = []
    if ctx.request.include_declaration:
        for node in targets:
            item = node_item(reader, node, kind="declaration", text=f"declaration of {describe(node)}")
            if item is not None:
                items.append(item)
    offset, cursor_for = paging(ctx, len(edges), head=len(items))
    for edge in edges[offset : offset + ctx.request.limit]:
        extra = {
            "evidence": "index",
            "from": node_ref(reader.node(edge.src)),
            "to": node_ref(reader.node(edge.dst)),
        }
        item = site_item(reader, edge, kind="reference", confidence=edge.confidence, extra=extra)
        if item is not None:
            items.append(item)
    coverage = [source_note, GRAPH_COVERAGE]
    coverage.extend(unresolved_lines(reader, targets, REFERENCE_TYPES))
    coverage.extend(
        language_coverage([t.lang for t in targets] + [n.lang for n in reader.nodes([]).values()])
    )
    data = {"source": "index", "targets": [node_ref(t) for t in targets], "total": len(edges)}
    message = (
        None if edges else f"no references to {', '.join(t.qualified_name for t in targets)} in the index"
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


def graph_implementations(ctx: OperationContext, source_note: str) -> Answer:
    view = need_graph(ctx)
    targets, warnings = request_targets(ctx)
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
    reader = GraphReader(view)
    coverage = [source_note, GRAPH_COVERAGE]
    found: list[tuple[int, int, float, GraphEdge]] = []
    for group, edge_types, what in (
        (types_, ("INHERITS", "IMPLEMENTS"), "subtypes"),
        (methods, ("OVERRIDES",), "overriding methods"),
    ):
        if not group:
            continue
        walk = traverse(view.conn, [t.id for t in group], types=edge_types, incoming=True, depth=depth)
        found.extend((r.node, r.distance, r.confidence, r.via) for r in walk.reached)
        coverage.extend(depth_coverage(walk, what))
    found.sort(key=lambda f: (f[1], -f[2]))
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

"""``references`` and ``implementations``: the live language server when one can answer, else the
index graph — and the answer says which source answered and, for the graph, why not the server.

The live answer keeps its ``SemanticObservation`` and is never relabelled as indexed evidence; the
graph answer labels its items ``evidence: index`` with each edge's confidence (DESIGN §5, §6).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

from lazy_intel.errors import IndexBuilding, InvalidArgument, LazyIntelError
from lazy_intel.evidence.budget import serialize
from lazy_intel.evidence.model import Answer
from lazy_intel.service.context import OperationContext
from lazy_intel.service.ops_graph import graph_implementations, graph_references
from lazy_intel.service.ops_retrieval import resolve_symbol
from lazy_intel.service.ops_semantic import live_answer
from lazy_intel.workspace.root import contained_relative_path

# characters kept free in the live answer's budget for the line naming its source
SOURCE_NOTE_RESERVE = 240


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

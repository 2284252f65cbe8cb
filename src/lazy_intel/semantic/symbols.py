"""``workspace_symbols``: one query to every configured server of the workspace that offers it.

Each item keeps its own server's observation. A server that fails while others answer makes the
answer ``partial`` with a warning; when every server fails the first failure is the answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lazy_intel.errors import InvalidArgument, LazyIntelError, Unsupported
from lazy_intel.evidence.model import Answer, View
from lazy_intel.semantic import binding as bind
from lazy_intel.semantic.handlers import Outcome
from lazy_intel.semantic.pagination import query_fingerprint
from lazy_intel.semantic.results import Anchoring, structure, symbol_items
from lazy_intel.semantic.session import ServerSession

if TYPE_CHECKING:
    from lazy_intel.semantic.layer import SemanticLayer
    from lazy_intel.semantic.operations import SemanticRequest

MAX_QUERY_CHARS = 256


def _sessions(layer: SemanticLayer, root: Path, request: SemanticRequest) -> list[ServerSession]:
    if request.server_id:
        assert layer.config is not None
        servers = [layer.config.server(request.server_id)]
    elif request.relative_path:
        found = layer.server_for_path(root, request.relative_path)
        servers = [found] if found is not None else []
    else:
        servers = list(layer.servers_for(root))
    if not servers:
        raise Unsupported(
            "no trusted language server is configured for this workspace",
            next_step="name one in the language-server configuration (LAZY_INTEL_LSP_CONFIG)",
        )
    return [layer.session(root, server) for server in servers]


def workspace_symbols(
    layer: SemanticLayer, root: Path, request: SemanticRequest, *, view: View, generation: int
) -> Answer:
    from lazy_intel.semantic.operations import finish, require_operation, server_facts

    query = request.query if request.query is not None else request.symbol
    if not query or len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(f"workspace_symbols needs a query of 1..{MAX_QUERY_CHARS} characters")
    explicit = bool(request.server_id or request.relative_path)
    before = bind.capture_binding(root)
    outcome = Outcome()
    dropped: list[str] = []
    facts: list[dict[str, Any]] = []
    failures: list[LazyIntelError] = []
    answered: list[tuple[ServerSession, int]] = []
    for session in _sessions(layer, root, request):
        try:
            negotiated = session.ensure_started()
            if explicit:
                require_operation(session, "workspace_symbols")
            elif "workspace_symbols" not in session.operations():
                continue
            anchoring = Anchoring(session, negotiated.encoding, layer.max_file_bytes, generation)
            reply = session.request("workspace/symbol", {"query": query})
            raw = outcome.absorb(reply, session.label)
            result = structure(
                raw, types.WorkspaceSymbolResponse, server=session.label, method="workspace/symbol"
            )
            outcome.items.extend(symbol_items(anchoring, "symbol", result, None))
            dropped.extend(anchoring.dropped)
            facts.append(server_facts(session))
            answered.append((session, negotiated.epoch))
        except LazyIntelError as exc:
            failures.append(exc)
            outcome.warnings.append(f"language server {session.label}: {exc.code}: {exc.message}")
            outcome.partial = True
    if not facts:
        if failures:
            raise failures[0]
        raise Unsupported(
            "no configured language server of this workspace negotiated workspace_symbols",
            next_step="use the indexed symbol operation instead",
        )
    if not outcome.items and not dropped:
        outcome.message = f"the servers found no symbol matching {query!r}"
    after = bind.capture_binding(root)
    state = bind.binding_state(before, after)
    if any(session.epoch != epoch or not session.running for session, epoch in answered):
        state = bind.STATE_STALE
    fingerprint = query_fingerprint(
        {
            "op": "workspace_symbols",
            "query": query,
            "servers": [(f["id"], f["capability_fingerprint"]) for f in facts],
        }
    )
    semantic: dict[str, Any] = {"servers": facts, "binding": after.to_dict(), "query": query}
    return finish(
        request, outcome, dropped=dropped, state=state, fingerprint=fingerprint, semantic=semantic, view=view
    )

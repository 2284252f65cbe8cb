"""One function per semantic operation: the LSP request(s) and the items they yield.

Each handler gets the started session, the opened document, the server-encoded position and the
request, and returns a :class:`Outcome`. Handlers never decide the answer's status; they report
what happened (items, warnings, forced partiality, diagnostics completion) and
:mod:`~lazy_intel.semantic.operations` turns that into an Answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lazy_intel.errors import InvalidArgument, LazyIntelError
from lazy_intel.evidence.model import Item
from lazy_intel.semantic import capabilities as caps
from lazy_intel.semantic.connection import Reply
from lazy_intel.semantic.results import (
    Anchoring,
    diagnostic_items,
    hierarchy_item,
    hover_text,
    location_items,
    signature_text,
    structure,
    symbol_items,
)
from lazy_intel.semantic.session import OpenDocument, ServerSession

if TYPE_CHECKING:
    from lazy_intel.semantic.operations import SemanticRequest

MAX_HIERARCHY_ROOTS = 8
COMPLETED = "completed"
NOT_REPORTED = "not_reported"
PARTIAL = "partial"


@dataclass
class Outcome:
    items: list[Item] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    partial: bool = False
    message: str | None = None
    diagnostics: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    keep_order: bool = False

    def absorb(self, reply: Reply, server: str) -> Any:
        if reply.lossy:
            self.partial = True
            self.warnings.append(
                f"language server {server} sent bytes that are not UTF-8; they were replaced"
            )
        return reply.result


@dataclass(frozen=True)
class Context:
    session: ServerSession
    anchoring: Anchoring
    document: OpenDocument
    position: tuple[int, int] | None
    request: SemanticRequest
    diagnostics_wait_ms: int

    def text_position(self) -> dict[str, Any]:
        assert self.position is not None
        return {
            "textDocument": {"uri": self.document.uri},
            "position": {"line": self.position[0], "character": self.position[1]},
        }

    def position_range(self) -> types.Range:
        assert self.position is not None
        point = types.Position(self.position[0], self.position[1])
        return types.Range(point, point)

    def call(self, outcome: Outcome, method: str, params: Any, response_type: type) -> Any:
        return self.call_raw(outcome, method, params, response_type)[1]

    def call_raw(self, outcome: Outcome, method: str, params: Any, response_type: type) -> tuple[Any, Any]:
        """The result as sent (to hand back verbatim, e.g. hierarchy items) and as typed."""
        raw = outcome.absorb(self.session.request(method, params), self.session.label)
        return raw, structure(raw, response_type, server=self.session.label, method=method)


def _locations(kind: str, method: str, response_type: type) -> Handler:
    def run(ctx: Context) -> Outcome:
        outcome = Outcome()
        params = ctx.text_position()
        if method == "textDocument/references":
            params["context"] = {"includeDeclaration": ctx.request.include_declaration}
        result = ctx.call(outcome, method, params, response_type)
        outcome.items = location_items(ctx.anchoring, kind, result)
        if method == "textDocument/references" and not ctx.request.include_declaration:
            _drop_declarations(ctx, outcome)
        if not outcome.items and not ctx.anchoring.dropped:
            outcome.message = f"the server found no {kind} at this position"
        return outcome

    return run


def _drop_declarations(ctx: Context, outcome: Outcome) -> None:
    """Some servers ignore ``includeDeclaration: false``; remove the declaration they returned."""
    if "definition" not in ctx.session.operations():
        return
    result = ctx.call(outcome, "textDocument/definition", ctx.text_position(), types.DefinitionResponse)
    declared = {
        (item.anchor.path, (item.extra or {})["match"]["start_byte"])
        for item in location_items(ctx.anchoring, "definition", result)
    }
    kept = [
        i for i in outcome.items if (i.anchor.path, (i.extra or {})["match"]["start_byte"]) not in declared
    ]
    if len(kept) < len(outcome.items):
        outcome.warnings.append("the server ignored includeDeclaration=false; its declaration was removed")
        outcome.items = kept


def hover(ctx: Context) -> Outcome:
    outcome = Outcome(keep_order=True)
    result = ctx.call(outcome, "textDocument/hover", ctx.text_position(), types.HoverResponse)
    text = hover_text(result) if result is not None else ""
    if not text:
        outcome.message = "the server has no hover information at this position"
        return outcome
    rng = result.range if result.range is not None else ctx.position_range()
    item = ctx.anchoring.description_item("hover", ctx.document.uri, rng, text)
    if item is not None:
        outcome.items.append(item)
    return outcome


def signature_help(ctx: Context) -> Outcome:
    outcome = Outcome(keep_order=True)
    result = ctx.call(outcome, "textDocument/signatureHelp", ctx.text_position(), types.SignatureHelpResponse)
    if result is None or not result.signatures:
        outcome.message = (
            "the server has no signature help at this position (is it inside a call's parentheses?)"
        )
        return outcome
    text, extra = signature_text(result)
    item = ctx.anchoring.description_item("signature", ctx.document.uri, ctx.position_range(), text, **extra)
    if item is not None:
        outcome.items.append(item)
    return outcome


def document_symbols(ctx: Context) -> Outcome:
    outcome = Outcome()
    params = {"textDocument": {"uri": ctx.document.uri}}
    result = ctx.call(outcome, "textDocument/documentSymbol", params, types.DocumentSymbolResponse)
    outcome.items = symbol_items(ctx.anchoring, "symbol", result, ctx.document.uri)
    if not outcome.items and not ctx.anchoring.dropped:
        outcome.message = "the server reported no symbols in this file"
    return outcome


def diagnostics(ctx: Context) -> Outcome:
    outcome = Outcome()
    session = ctx.session
    negotiated = session.negotiated
    assert negotiated is not None
    if caps.pull_diagnostics(negotiated.capabilities):
        params = {"textDocument": {"uri": ctx.document.uri}}
        try:
            result = ctx.call(outcome, "textDocument/diagnostic", params, types.DocumentDiagnosticResponse)
        except LazyIntelError as exc:
            outcome.warnings.append(f"pull diagnostics failed ({exc.code}); waited for published diagnostics")
            outcome.partial = True
        else:
            outcome.extra["mode"] = "pull"
            if isinstance(
                result, types.FullDocumentDiagnosticReport | types.RelatedFullDocumentDiagnosticReport
            ):
                outcome.diagnostics = COMPLETED
                outcome.items = diagnostic_items(ctx.anchoring, ctx.document.uri, result.items, COMPLETED)
                return _diagnostics_message(outcome, ctx)
            outcome.warnings.append("the server answered the pull without a full report")
            outcome.partial = True
    outcome.extra["mode"] = "publish"
    outcome.warnings.append("the server does not offer pull diagnostics; these are its published diagnostics")
    published = session.wait_for_published(ctx.document, ctx.diagnostics_wait_ms)
    if published is None:
        outcome.diagnostics = NOT_REPORTED
        outcome.partial = True
        outcome.message = (
            f"the server published no diagnostics for version {ctx.document.version} within "
            f"{ctx.diagnostics_wait_ms} ms; silence is not an empty result"
        )
        return outcome
    if published.lossy:
        outcome.partial = True
        outcome.warnings.append("the published diagnostics contained bytes that are not UTF-8")
    outcome.diagnostics = PARTIAL if outcome.partial else COMPLETED
    outcome.items = diagnostic_items(
        ctx.anchoring, ctx.document.uri, published.diagnostics, outcome.diagnostics
    )
    return _diagnostics_message(outcome, ctx)


def _diagnostics_message(outcome: Outcome, ctx: Context) -> Outcome:
    if not outcome.items and outcome.diagnostics == COMPLETED:
        outcome.message = (
            f"no diagnostics: the server reported an empty set for version {ctx.document.version}"
        )
    return outcome


def call_hierarchy(ctx: Context) -> Outcome:
    direction = ctx.request.direction or "incoming"
    if direction not in ("incoming", "outgoing"):
        raise InvalidArgument(f"direction {direction!r} is not incoming or outgoing")
    outcome = Outcome()
    raw_items, prepared = ctx.call_raw(
        outcome, "textDocument/prepareCallHierarchy", ctx.text_position(), types.CallHierarchyPrepareResponse
    )
    if not prepared:
        outcome.message = "the server found no callable at this position"
        return outcome
    for item, raw in list(zip(prepared, raw_items, strict=False))[:MAX_HIERARCHY_ROOTS]:
        if direction == "incoming":
            calls = ctx.call(
                outcome,
                "callHierarchy/incomingCalls",
                {"item": raw},
                types.CallHierarchyIncomingCallsResponse,
            )
            for call in calls or ():
                built = hierarchy_item(
                    ctx.anchoring,
                    "caller",
                    call.from_,
                    call.from_ranges,
                    call.from_.uri,
                    of=item.name,
                    direction=direction,
                )
                if built is not None:
                    outcome.items.append(built)
        else:
            calls = ctx.call(
                outcome,
                "callHierarchy/outgoingCalls",
                {"item": raw},
                types.CallHierarchyOutgoingCallsResponse,
            )
            for call in calls or ():
                built = hierarchy_item(
                    ctx.anchoring,
                    "callee",
                    call.to,
                    call.from_ranges,
                    item.uri,
                    of=item.name,
                    direction=direction,
                )
                if built is not None:
                    outcome.items.append(built)
    if not outcome.items and not ctx.anchoring.dropped:
        outcome.message = f"the server found no {direction} calls"
    return outcome


def type_hierarchy(ctx: Context) -> Outcome:
    direction = ctx.request.direction or "supertypes"
    if direction not in ("supertypes", "subtypes"):
        raise InvalidArgument(f"direction {direction!r} is not supertypes or subtypes")
    outcome = Outcome()
    raw_items, prepared = ctx.call_raw(
        outcome, "textDocument/prepareTypeHierarchy", ctx.text_position(), types.TypeHierarchyPrepareResponse
    )
    if not prepared:
        outcome.message = "the server found no type at this position"
        return outcome
    method = f"typeHierarchy/{direction}"
    response_type = (
        types.TypeHierarchySupertypesResponse
        if direction == "supertypes"
        else types.TypeHierarchySubtypesResponse
    )
    kind = direction[:-1]
    for item, raw in list(zip(prepared, raw_items, strict=False))[:MAX_HIERARCHY_ROOTS]:
        related = ctx.call(outcome, method, {"item": raw}, response_type)
        for entry in related or ():
            built = hierarchy_item(
                ctx.anchoring, kind, entry, (), entry.uri, of=item.name, direction=direction
            )
            if built is not None:
                outcome.items.append(built)
    if not outcome.items and not ctx.anchoring.dropped:
        outcome.message = f"the server found no {direction}"
    return outcome


Handler = Callable[[Context], Outcome]

HANDLERS: dict[str, Handler] = {
    "definition": _locations("definition", "textDocument/definition", types.DefinitionResponse),
    "references": _locations("reference", "textDocument/references", types.ReferencesResponse),
    "implementations": _locations(
        "implementation", "textDocument/implementation", types.ImplementationResponse
    ),
    "hover": hover,
    "signature_help": signature_help,
    "document_symbols": document_symbols,
    "diagnostics": diagnostics,
    "call_hierarchy": call_hierarchy,
    "type_hierarchy": type_hierarchy,
}

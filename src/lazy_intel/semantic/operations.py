"""The ten semantic operations as one entry point that always returns an Answer.

``semantic_answer(layer, root, SemanticRequest(...))``: resolves the target (file + zero-based
position, or ``symbol`` + ``relativePath`` through the caller's resolver), picks the configured
server for the file, refuses an operation the server did not negotiate (``UNSUPPORTED``), opens
the captured bytes, asks, anchors, sorts, paginates with a stable cursor and binds the evidence
(``current`` / ``stale`` / ``partial`` / ``unavailable``, seed 001).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lazy_intel.errors import InvalidArgument, LazyIntelError, Unsupported
from lazy_intel.evidence.budget import error_answer, fit_answer
from lazy_intel.evidence.model import NO_VIEW, Answer, Item, SemanticObservation, View
from lazy_intel.semantic import binding as bind
from lazy_intel.semantic.capabilities import OPERATIONS
from lazy_intel.semantic.codec import ENCODINGS, UTF16, PositionError, TextCodec
from lazy_intel.semantic.handlers import HANDLERS, Context, Outcome
from lazy_intel.semantic.layer import SemanticLayer
from lazy_intel.semantic.pagination import decode_cursor, encode_cursor, query_fingerprint
from lazy_intel.semantic.results import Anchoring
from lazy_intel.semantic.session import Negotiated, OpenDocument, ServerSession
from lazy_intel.semantic.symbols import workspace_symbols
from lazy_intel.workspace.capture import read_regular_file, sha256_bytes
from lazy_intel.workspace.root import contained_relative_path

POSITION_OPERATIONS = frozenset(
    {
        "definition",
        "references",
        "implementations",
        "hover",
        "signature_help",
        "call_hierarchy",
        "type_hierarchy",
    }
)
FILE_OPERATIONS = frozenset({"document_symbols", "diagnostics"})
# operations whose answer comes from files other than the one asked about: on a fresh server they
# wait for the server to hold the workspace (ServerSession.settle_workspace)
CROSS_FILE_OPERATIONS = frozenset({"references", "implementations", "call_hierarchy", "type_hierarchy"})
# A server indexes what it was just sent after it answers: clangd indexes a file's headers in a task
# of its own once the file is built, and until it has, outgoing calls lack every callee declared in a
# header (an empty answer it gives as complete). So an *empty* cross-file answer about a document the
# server received less than YOUNG_DOCUMENT_S ago is asked again after each of these pauses (1.5 s in
# all, paid only by empty answers on fresh documents); still empty, it is ``partial`` with a warning.
YOUNG_DOCUMENT_S = 10.0
EMPTY_RETRY_PAUSES_S = (0.1, 0.2, 0.4, 0.8)
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_DROPPED_SHOWN = 10

Resolver = Callable[[str, str | None], tuple[str, int]]
"""``(symbol, relative_path or None) -> (relative_path, byte_offset)``: the index's answer to where
a symbol is defined; plugged in by the service."""


@dataclass(frozen=True)
class SemanticRequest:
    operation: str
    relative_path: str | None = None
    line: int | None = None
    character: int | None = None
    encoding: str = UTF16
    byte_offset: int | None = None
    symbol: str | None = None
    query: str | None = None
    include_declaration: bool = True
    direction: str | None = None
    server_id: str | None = None
    limit: int = DEFAULT_LIMIT
    cursor: str | None = None
    max_chars: int = 20_000


def semantic_answer(
    layer: SemanticLayer,
    root: Path,
    request: SemanticRequest,
    *,
    resolver: Resolver | None = None,
    view: View = NO_VIEW,
    generation: int = 0,
) -> Answer:
    """Run one semantic operation; every failure becomes an error Answer with a stable code."""
    try:
        _validate(request)
        if request.operation == "workspace_symbols":
            return workspace_symbols(layer, root, request, view=view, generation=generation)
        return _document_operation(layer, root, request, resolver=resolver, view=view, generation=generation)
    except LazyIntelError as exc:
        state = bind.STATE_UNAVAILABLE if exc.code in ("UNAVAILABLE", "TIMEOUT") else None
        return error_answer(
            request.operation,
            exc.code,
            exc.message,
            view=view,
            next_step=exc.next_step,
            max_chars=request.max_chars,
            data={"semantic": {"evidence_state": state}} if state else None,
        )


def _validate(request: SemanticRequest) -> None:
    if request.operation not in OPERATIONS:
        raise InvalidArgument(
            f"unknown semantic operation {request.operation!r} (one of {', '.join(OPERATIONS)})"
        )
    if not 1 <= request.limit <= MAX_LIMIT:
        raise InvalidArgument(f"limit {request.limit} is outside 1..{MAX_LIMIT}")
    if request.encoding not in ENCODINGS:
        raise InvalidArgument(f"encoding {request.encoding!r} is not one of {', '.join(ENCODINGS)}")


def _target(root: Path, request: SemanticRequest, resolver: Resolver | None) -> tuple[str, int | None]:
    if request.symbol:
        if resolver is None:
            raise InvalidArgument(
                f"symbol {request.symbol!r} needs the index to find its position",
                next_step="pass relativePath with line and character instead",
            )
        relative, offset = resolver(request.symbol, request.relative_path)
        return contained_relative_path(root, relative), offset
    if not request.relative_path:
        raise InvalidArgument(f"{request.operation} needs relativePath (or symbol)")
    relative = contained_relative_path(root, request.relative_path)
    if request.operation in POSITION_OPERATIONS and request.byte_offset is None:
        if request.line is None or request.character is None:
            raise InvalidArgument(f"{request.operation} needs a zero-based line and character (or a symbol)")
        if request.line < 0 or request.character < 0:
            raise InvalidArgument("line and character are zero-based and cannot be negative")
    return relative, request.byte_offset


def read_document(root: Path, relative: str, max_bytes: int) -> bytes:
    try:
        data = read_regular_file(root / relative)
    except FileNotFoundError:
        raise LazyIntelError(f"file {relative} does not exist in {root}", code="NOT_FOUND") from None
    except OSError as exc:
        raise InvalidArgument(f"file {relative} cannot be read: {exc}") from None
    if len(data) > max_bytes:
        raise Unsupported(f"file {relative} is larger than {max_bytes} bytes (LAZY_INTEL_MAX_FILE_BYTES)")
    return data


def _input_offset(codec: TextCodec, request: SemanticRequest, offset: int | None, relative: str) -> int:
    if offset is not None:
        try:
            codec.to_position(offset, UTF16)
        except PositionError as exc:
            raise InvalidArgument(
                f"byte offset {offset} in {relative} is not a character boundary: {exc}"
            ) from None
        return offset
    assert request.line is not None and request.character is not None
    try:
        offset = codec.to_offset(request.line, request.character, request.encoding)
    except PositionError as exc:
        raise InvalidArgument(f"position {request.line}:{request.character} in {relative}: {exc}") from None
    if codec.to_position(offset, request.encoding) != (request.line, request.character):
        length = codec.to_position(codec.line_bounds(request.line)[1], request.encoding)[1]
        raise InvalidArgument(
            f"character {request.character} is past the end of line {request.line} of {relative} "
            f"(length {length} in {request.encoding})"
        )
    return offset


def require_operation(session: ServerSession, operation: str) -> None:
    if operation not in session.operations():
        raise Unsupported(
            f"language server {session.label} did not negotiate {operation}",
            next_step="use an indexed operation, or configure a server that offers it "
            "(see `lazy-intel lsp qualify`)",
        )


def _document_operation(
    layer: SemanticLayer,
    root: Path,
    request: SemanticRequest,
    *,
    resolver: Resolver | None,
    view: View,
    generation: int,
) -> Answer:
    relative, offset = _target(root, request, resolver)
    server = layer.server_for_path(root, relative)
    if server is None:
        raise Unsupported(
            f"no trusted language server is configured for {relative}",
            next_step="name one in the language-server configuration (LAZY_INTEL_LSP_CONFIG)",
        )
    session = layer.session(root, server)
    with session.in_use():
        negotiated = session.ensure_started()
        require_operation(session, request.operation)
        before = bind.capture_binding(root)
        data = read_document(root, relative, layer.max_file_bytes)
        try:
            document = session.sync_document(relative, data, server.language_for(relative) or "plaintext")
        except UnicodeDecodeError:
            raise Unsupported(f"file {relative} is not UTF-8 text; semantic positions need UTF-8") from None
        position = None
        if request.operation in POSITION_OPERATIONS:
            byte = _input_offset(document.codec, request, offset, relative)
            position = document.codec.to_position(byte, negotiated.encoding)
        if request.operation in CROSS_FILE_OPERATIONS and position is not None:
            session.settle_workspace(document.uri, position)
        anchoring, outcome = _ask(
            layer,
            session,
            negotiated,
            document=document,
            position=position,
            request=request,
            generation=generation,
        )
        fingerprint = query_fingerprint(
            {
                "op": request.operation,
                "server": server.id,
                "capabilities": negotiated.fingerprint,
                "path": relative,
                "sha256": document.sha256,
                "position": position,
                "include_declaration": request.include_declaration,
                "direction": request.direction,
            }
        )
        after = bind.capture_binding(root)
        state = bind.binding_state(before, after)
        try:
            moved = sha256_bytes(read_document(root, relative, layer.max_file_bytes)) != document.sha256
        except LazyIntelError:
            moved = True
    if moved or session.negotiated is not negotiated or not session.running:
        state = bind.STATE_STALE
    semantic = {
        "server": server_facts(session),
        "document": {"path": relative, "version": document.version, "sha256": document.sha256},
        "binding": after.to_dict(),
        "observation": SemanticObservation(
            server_id=server.id,
            session_epoch=negotiated.epoch,
            document_version=document.version,
            observed_sha256=document.sha256,
            position_encoding=negotiated.encoding,
            diagnostics=outcome.diagnostics or "not_reported",
        ).to_dict(),
    }
    if position is not None:
        semantic["position"] = {
            "line": position[0],
            "character": position[1],
            "encoding": negotiated.encoding,
        }
    return finish(
        request,
        outcome,
        dropped=anchoring.dropped,
        state=state,
        fingerprint=fingerprint,
        semantic=semantic,
        view=view,
    )


def _ask(
    layer: SemanticLayer,
    session: ServerSession,
    negotiated: Negotiated,
    *,
    document: OpenDocument,
    position: tuple[int, int] | None,
    request: SemanticRequest,
    generation: int,
) -> tuple[Anchoring, Outcome]:
    """Run the operation's handler; an empty cross-file answer about a young document is asked
    again (``EMPTY_RETRY_PAUSES_S``) while the server keeps its epoch."""
    pauses = iter(EMPTY_RETRY_PAUSES_S if request.operation in CROSS_FILE_OPERATIONS else ())
    while True:
        anchoring = Anchoring(session, negotiated.encoding, layer.max_file_bytes, generation)
        ctx = Context(session, anchoring, document, position, request, layer.diagnostics_wait_ms)
        outcome = HANDLERS[request.operation](ctx)
        age = time.monotonic() - document.synced_at
        if outcome.items or anchoring.dropped or age >= YOUNG_DOCUMENT_S:
            return anchoring, outcome
        pause = next(pauses, None)
        if pause is None or not session.running or session.negotiated is not negotiated:
            if request.operation in CROSS_FILE_OPERATIONS:
                outcome.partial = True
                outcome.warnings.append(
                    f"the server received {document.relative_path} {age:.1f} s ago and may still be "
                    "indexing: repeat the request for a complete answer"
                )
            return anchoring, outcome
        time.sleep(pause)


def server_facts(session: ServerSession) -> dict[str, Any]:
    negotiated = session.negotiated
    return {
        "id": session.server.id,
        "name": negotiated.server_name if negotiated and negotiated.server_name else session.server.name,
        "version": negotiated.server_version if negotiated else None,
        "epoch": negotiated.epoch if negotiated else session.epoch,
        "position_encoding": negotiated.encoding if negotiated else None,
        "capability_fingerprint": negotiated.fingerprint if negotiated else None,
        "descriptor_fingerprint": session.server.descriptor_fingerprint,
    }


def _servers_of(semantic: dict[str, Any]) -> list[dict[str, Any]]:
    return [semantic["server"]] if "server" in semantic else list(semantic.get("servers", ()))


def _sort_key(item: Item) -> tuple[Any, ...]:
    match = (item.extra or {}).get("match", {})
    return (
        item.anchor.path,
        match.get("start_byte", item.anchor.start_byte),
        match.get("end_byte", 0),
        item.kind,
        item.text or "",
    )


def finish(
    request: SemanticRequest,
    outcome: Outcome,
    *,
    dropped: list[str],
    state: str,
    fingerprint: str,
    semantic: dict[str, Any],
    view: View,
) -> Answer:
    """Sort, de-duplicate, paginate and bind; shared by every semantic operation."""
    items = outcome.items if outcome.keep_order else sorted(outcome.items, key=_sort_key)
    unique: list[Item] = []
    seen: set[tuple[Any, ...]] = set()
    for item in items:
        key = (*_sort_key(item), str(item.extra))
        if key not in seen:
            seen.add(key)
            unique.append(item)
    offset = decode_cursor(request.cursor, fingerprint)
    page = unique[offset : offset + request.limit]
    warnings = list(outcome.warnings)
    partial = outcome.partial
    if dropped:
        partial = True
        shown = "; ".join(dropped[:MAX_DROPPED_SHOWN])
        warnings.append(f"{len(dropped)} result(s) dropped: {shown}")
    more = offset + request.limit < len(unique)
    if state == bind.STATE_STALE:
        warnings.append(
            "the source or the server changed while answering; repeat the request for current evidence"
        )
    elif state == bind.STATE_CURRENT and (partial or more or outcome.extra.get("mode") == "publish"):
        state = bind.STATE_PARTIAL
    semantic.update(outcome.extra)
    semantic.update(
        {
            "evidence_state": state,
            "query_fingerprint": fingerprint,
            "total": len(unique),
            "offset": offset,
            "dropped": len(dropped),
        }
    )
    if outcome.diagnostics is not None:
        semantic["diagnostics"] = outcome.diagnostics

    def cursor_for(count: int) -> str | None:
        return encode_cursor(fingerprint, offset + count) if offset + count < len(unique) else None

    return fit_answer(
        request.operation,
        page,
        max_chars=request.max_chars,
        view=view,
        coverage=tuple(f"live language server {facts['id']}" for facts in _servers_of(semantic)),
        warnings=warnings,
        data={"semantic": semantic},
        cursor_for=cursor_for,
        force_partial=partial,
        message=outcome.message,
    )

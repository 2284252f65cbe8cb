"""What we offer a server at ``initialize``, and which of our operations its answer allows.

Only what the server negotiated is used: an operation whose provider capability is absent or
``false`` is unavailable (``UNSUPPORTED``), never answered with an empty success. ``diagnostics``
works with every server: pull (``textDocument/diagnostic``) when the server offers it, otherwise a
bounded wait for ``textDocument/publishDiagnostics``, which is a client capability.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from lazy_intel import __version__
from lazy_intel.semantic.codec import UTF8, UTF16, UTF32

OPERATIONS: tuple[str, ...] = (
    "definition",
    "references",
    "implementations",
    "hover",
    "signature_help",
    "document_symbols",
    "workspace_symbols",
    "diagnostics",
    "call_hierarchy",
    "type_hierarchy",
)

PROVIDER_OF: dict[str, str] = {
    "definition": "definitionProvider",
    "references": "referencesProvider",
    "implementations": "implementationProvider",
    "hover": "hoverProvider",
    "signature_help": "signatureHelpProvider",
    "document_symbols": "documentSymbolProvider",
    "workspace_symbols": "workspaceSymbolProvider",
    "call_hierarchy": "callHierarchyProvider",
    "type_hierarchy": "typeHierarchyProvider",
}

# dynamic registrations that count as negotiation of an operation
REGISTERED_METHOD_OF: dict[str, str] = {
    "textDocument/definition": "definition",
    "textDocument/references": "references",
    "textDocument/implementation": "implementations",
    "textDocument/hover": "hover",
    "textDocument/signatureHelp": "signature_help",
    "textDocument/documentSymbol": "document_symbols",
    "workspace/symbol": "workspace_symbols",
    "textDocument/prepareCallHierarchy": "call_hierarchy",
    "textDocument/prepareTypeHierarchy": "type_hierarchy",
}

_converter = get_converter()


def client_capabilities() -> dict[str, Any]:
    """The capabilities lazy-intel offers (read-only: no edits, no completion, no code actions)."""
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(dynamic_registration=False),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]
            ),
            signature_help=types.SignatureHelpClientCapabilities(
                signature_information=types.ClientSignatureInformationOptions(
                    documentation_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText],
                    parameter_information=types.ClientSignatureParameterInformationOptions(
                        label_offset_support=True
                    ),
                )
            ),
            definition=types.DefinitionClientCapabilities(link_support=True),
            implementation=types.ImplementationClientCapabilities(link_support=True),
            references=types.ReferenceClientCapabilities(),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            diagnostic=types.DiagnosticClientCapabilities(dynamic_registration=False),
            call_hierarchy=types.CallHierarchyClientCapabilities(),
            type_hierarchy=types.TypeHierarchyClientCapabilities(),
        ),
        workspace=types.WorkspaceClientCapabilities(
            symbol=types.WorkspaceSymbolClientCapabilities(),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
            workspace_folders=True,
            configuration=True,
        ),
        window=types.WindowClientCapabilities(work_done_progress=False),
    )
    return _converter.unstructure(caps)


def initialize_params(root_uri: str, root_name: str, initialization_options: Any, pid: int) -> dict[str, Any]:
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        process_id=pid,
        client_info=types.ClientInfo(name="lazy-intel", version=__version__),
        locale="en",
        root_uri=root_uri,
        workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=root_name)],
        trace=types.TraceValue.Off,
    )
    out = _converter.unstructure(params)
    out["rootPath"] = root_uri.removeprefix("file://")
    out["capabilities"] = client_capabilities()
    if initialization_options is not None:
        out["initializationOptions"] = initialization_options
    return json.loads(json.dumps(out))


def negotiated_encoding(capabilities: Mapping[str, Any]) -> str | None:
    """The server's position encoding (UTF-16 when it names none); ``None`` when it is unusable."""
    value = capabilities.get("positionEncoding", UTF16)
    return value if value in (UTF8, UTF16, UTF32) else None


def negotiated_operations(
    capabilities: Mapping[str, Any], registered: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """Our operations the server allows, in the canonical order."""
    allowed: set[str] = {"diagnostics"}
    for operation, provider in PROVIDER_OF.items():
        value = capabilities.get(provider)
        if value is not None and value is not False:
            allowed.add(operation)
    for method in registered:
        if method in REGISTERED_METHOD_OF:
            allowed.add(REGISTERED_METHOD_OF[method])
    return tuple(op for op in OPERATIONS if op in allowed)


def pull_diagnostics(capabilities: Mapping[str, Any]) -> bool:
    value = capabilities.get("diagnosticProvider")
    return value is not None and value is not False


def text_sync_kind(capabilities: Mapping[str, Any]) -> int:
    """0 none, 1 full, 2 incremental (a bare number or ``TextDocumentSyncOptions.change``)."""
    sync = capabilities.get("textDocumentSync")
    if isinstance(sync, int):
        return sync
    if isinstance(sync, dict):
        change = sync.get("change", 0)
        return change if isinstance(change, int) else 0
    return 0


def capability_fingerprint(
    capabilities: Mapping[str, Any], encoding: str, operations: tuple[str, ...]
) -> str:
    payload = {"capabilities": capabilities, "encoding": encoding, "operations": list(operations)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()

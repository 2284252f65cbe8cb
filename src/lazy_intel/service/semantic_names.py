"""The names of the live language-server operations, importable without the language-server types."""

from __future__ import annotations

# the ten operations of the trusted LSP layer, with the summary the tool description shows
SEMANTIC_OPERATIONS: dict[str, str] = {
    "definition": "live LSP: where the symbol at a position (or a named symbol) is defined",
    "references": "live LSP when a server negotiated it: reference sites of a symbol",
    "implementations": "live LSP when a server negotiated it: implementations of an interface/method",
    "hover": "live LSP: type and documentation at a position",
    "signature_help": "live LSP: the signature of the call at a position",
    "document_symbols": "live LSP: the outline of one file",
    "workspace_symbols": "live LSP: symbols matching a query across the workspace",
    "diagnostics": "live LSP: errors and warnings of one file, with completion state",
    "call_hierarchy": "live LSP: incoming or outgoing calls of the function at a position",
    "type_hierarchy": "live LSP: supertypes or subtypes of the type at a position",
}

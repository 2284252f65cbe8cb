"""The live language-server operations of ``code_intel``, served by the trusted semantic layer.

The layer (``lazy_intel.semantic.SemanticLayer``) is process-wide: the CLI and the MCP server build
one from the settings and pass it to :func:`lazy_intel.service.ops.operations.execute`. Input is a file +
zero-based position (``line``, ``character`` in ``positionEncoding``, UTF-16 by default) or a
``symbol`` (+ ``relativePath``) that the index resolves to the position of its name. Results keep
their ``SemanticObservation``; they are never relabelled as indexed evidence.
"""

from __future__ import annotations

from lazy_intel.errors import NotFound, Unsupported
from lazy_intel.evidence.model import Answer
from lazy_intel.semantic import SemanticRequest, semantic_answer
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.semantic_names import SEMANTIC_OPERATIONS
from lazy_intel.service.ops.symbol_lookup import resolve_symbol
from lazy_intel.workspace.root import contained_relative_path


def _resolver(ctx: OperationContext):  # type: ignore[no-untyped-def]
    """symbol (+ relativePath) -> (path, byte offset of the definition's name), through the index."""

    def resolve(symbol: str, relative_path: str | None) -> tuple[str, int]:
        view = ctx.view
        if view is None:
            raise NotFound(
                f"symbol {symbol!r} cannot be located: no index for {ctx.workspace.root} yet",
                next_step="pass relativePath with line and character, or index the workspace",
            )
        path = contained_relative_path(ctx.workspace.root, relative_path) if relative_path else None
        found = resolve_symbol(view, symbol, path)
        if not found:
            raise NotFound(f"symbol {symbol!r} is not defined in the index (generation {view.generation})")
        return found[0].path, found[0].name_start_byte

    return resolve


def live_answer(ctx: OperationContext) -> Answer:
    """Run one semantic operation through the layer; ``UNSUPPORTED`` when no server is configured."""
    request = ctx.request
    layer = ctx.semantic
    if layer is None or not layer.configured:
        raise Unsupported(
            f"{request.operation} needs a trusted language server and none is configured",
            next_step="configure one with LAZY_INTEL_LSP_CONFIG or LAZY_INTEL_LSP (see docs/reference.md)",
        )
    semantic_request = SemanticRequest(
        operation=request.operation,
        relative_path=request.relative_path,
        line=request.line,
        character=request.character,
        encoding=request.position_encoding,
        symbol=request.symbol,
        query=request.query,
        include_declaration=request.include_declaration,
        direction=request.direction,
        limit=request.limit,
        cursor=request.cursor,
        max_chars=request.max_chars,
    )
    answer = semantic_answer(
        layer,
        ctx.workspace.root,
        semantic_request,
        resolver=_resolver(ctx),
        view=ctx.view_info,
        generation=ctx.view.generation if ctx.view is not None else 0,
    )
    return answer


__all__ = ["SEMANTIC_OPERATIONS", "live_answer"]

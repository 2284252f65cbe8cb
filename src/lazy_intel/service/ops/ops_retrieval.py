"""``search`` and ``symbol``: ranked retrieval and exact definitions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from lazy_intel.errors import InvalidArgument, LazyIntelError, NotFound, Unsupported
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item
from lazy_intel.search.embedders import Embedder
from lazy_intel.search.fusion import GRAPH_BACKEND_WEIGHT, FusionWeights
from lazy_intel.search.hybrid import (
    PRESETS,
    RERANKED_PRESETS,
    Filters,
    RankedFile,
    SearchConfig,
    hybrid_search,
)
from lazy_intel.search.vectors import META_PROFILE
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.cursor import decode_cursor, encode_cursor
from lazy_intel.service.ops.filters import check_filters
from lazy_intel.service.ops.items import chunk_item, symbol_item
from lazy_intel.service.ops.requests import require
from lazy_intel.store.reader import ChunkRow, ReadView
from lazy_intel.text.tokens import IDENTIFIER
from lazy_intel.workspace.root import contained_relative_path


def _paging(ctx: OperationContext) -> tuple[int, Callable[[int, int], Callable[[int], str | None]]]:
    request = ctx.request
    view = ctx.need_view()
    offset = decode_cursor(request.cursor, view.generation, request.fingerprint()) if request.cursor else 0

    def cursor_factory(page_len: int, total: int) -> Callable[[int], str | None]:
        def cursor_for(consumed: int) -> str | None:
            if offset + consumed >= total:
                return None
            return encode_cursor(view.generation, offset + consumed, request.fingerprint())

        return cursor_for

    return offset, cursor_factory


def _embedder_for(ctx: OperationContext, config: SearchConfig) -> tuple[Embedder | None, list[str]]:
    """The embedder, loaded only when this view has vectors and the request may use them."""
    view = ctx.need_view()
    if not config.dense or view.meta(META_PROFILE) is None:
        return None, []
    try:
        return ctx.workspace.embedder(), []
    except LazyIntelError as exc:
        return None, [f"dense search skipped: {exc.message}"]


def op_search(ctx: OperationContext) -> Answer:
    request = ctx.request
    require(request, "query")
    assert request.query is not None
    view = ctx.need_view()
    if request.backend not in PRESETS:
        raise Unsupported(
            f"backend={request.backend} does not rank search results", next_step="use all, lexical or dense"
        )
    config = PRESETS[request.backend]
    if request.backend in RERANKED_PRESETS:  # LAZY_INTEL_RERANK switches the second stage
        config = replace(config, rerank=ctx.settings.rerank)
    if not IDENTIFIER.search(request.query):
        raise InvalidArgument(
            f"query {request.query[:80]!r} has no searchable terms (letters, digits, identifiers)"
        )
    checked = check_filters(
        view,
        ctx.workspace.root,
        lang=request.lang,
        path_glob=request.path_glob,
        kind=request.kind,
        layer=request.layer,
    )
    offset, cursor_factory = _paging(ctx)
    embedder, warnings = _embedder_for(ctx, config)
    result = hybrid_search(
        view,
        request.query,
        config=config,
        embedder=embedder,
        filters=Filters(lang=checked.lang, path_glob=checked.path_glob, kind=checked.kind),
        weights=_weights(ctx, request.backend),
    )
    warnings = [*ctx.warnings, *checked.warnings, *warnings, *result.warnings]
    items: list[Item]
    if request.granularity == "file":
        total = len(result.files)
        page_files = result.files[offset : offset + request.limit]
        best = view.chunks_by_ids([f.best_chunk_id for f in page_files if f.best_chunk_id is not None])
        items = [_file_item(view, f, best.get(f.best_chunk_id or -1)) for f in page_files]
    else:
        ranked = result.chunks
        if request.granularity == "symbol":
            seen: set[int] = set()
            grouped = []
            for chunk in ranked:
                if chunk.symbol_id is None or chunk.symbol_id in seen:
                    continue
                seen.add(chunk.symbol_id)
                grouped.append(chunk)
            ranked = grouped
        total = len(ranked)
        page = ranked[offset : offset + request.limit]
        rows = view.chunks_by_ids([c.chunk_id for c in page])
        items = []
        for chunk in page:
            row = rows.get(chunk.chunk_id)
            if row is None:
                continue
            if request.granularity == "symbol" and row.symbol_id is not None:
                symbol_rows = view.symbols_by_ids([row.symbol_id])
                if symbol_rows:
                    items.append(
                        symbol_item(
                            view,
                            symbol_rows[0],
                            score=chunk.score,
                            extra={"signals": _rounded(chunk.signals)},
                        )
                    )
                    continue
            items.append(chunk_item(view, row, score=chunk.score, signals=chunk.signals))
    if not items:
        warnings.append(f"nothing matched any of: {', '.join(result.terms[:12])}")
    return fit_answer(
        "search",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=result.coverage,
        warnings=warnings,
        cursor_for=cursor_factory(len(items), total),
    )


def _weights(ctx: OperationContext, backend: str) -> FusionWeights:
    """The fusion weights of a request: the setting's method; ``backend=graph`` weighs the priors."""
    weights = FusionWeights(method=ctx.settings.fusion)
    if backend == "graph" and weights.graph <= 0:
        weights = replace(weights, graph=GRAPH_BACKEND_WEIGHT)
    return weights


def _rounded(signals: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 6) for k, v in signals.items()}


def _file_item(view: ReadView, ranked: RankedFile, best: ChunkRow | None) -> Item:
    file = view.file(ranked.path)
    size = file.size if file else 0
    lines = file.line_count if file else 1
    sha = file.sha256 if file else (best.file_sha256 if best else "")
    extra: dict[str, object] = {}
    if best is not None:
        extra["best_chunk"] = {
            "start_line": best.start_line,
            "end_line": best.end_line,
            "symbol": best.qualified_name,
        }
    return Item(
        kind="file",
        text_kind=TEXT_DESCRIPTION,
        anchor=Anchor(ranked.path, sha, 0, size, 1, max(1, lines), view.generation),
        score=ranked.score,
        signals=ranked.signals,
        extra=extra or None,
    )


def op_symbol(ctx: OperationContext) -> Answer:
    request = ctx.request
    require(request, "symbol")
    assert request.symbol is not None
    view = ctx.need_view()
    path = (
        contained_relative_path(ctx.workspace.root, request.relative_path) if request.relative_path else None
    )
    if path is not None and view.file(path) is None:
        raise NotFound(
            f"file {path} is not in the index (generation {view.generation})",
            next_step="check the path, or run sync if it is new",
        )
    from lazy_intel.service.ops.symbol_lookup import resolve_symbol, symbol_not_found  # not on search's path

    found = resolve_symbol(view, request.symbol, path)
    if not found:
        raise symbol_not_found(view, request.symbol, path)
    offset, cursor_factory = _paging(ctx)
    page = found[offset : offset + request.limit]
    items = [symbol_item(view, row) for row in page]
    warnings = list(ctx.warnings)
    if len(found) > 1:
        warnings.append(f"{len(found)} definitions match {request.symbol!r}; pass relativePath to pick one")
    return fit_answer(
        "symbol",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=["index: tree-sitter definitions (syntactic; not type-resolved)"],
        warnings=warnings,
        cursor_for=cursor_factory(len(page), len(found)),
    )

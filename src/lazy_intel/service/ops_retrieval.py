"""``search`` and ``symbol``: ranked retrieval and exact definitions."""

from __future__ import annotations

from collections.abc import Callable

from lazy_intel.errors import InvalidArgument, NotFound
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item
from lazy_intel.search.lexical import build_lexical_query
from lazy_intel.service.context import OperationContext
from lazy_intel.service.cursor import decode_cursor, encode_cursor
from lazy_intel.service.items import chunk_item, symbol_item
from lazy_intel.service.requests import require
from lazy_intel.store.reader import ChunkRow, ReadView, SymbolRow
from lazy_intel.workspace.root import contained_relative_path

# Candidates fetched per requested result, so grouping by symbol or file still fills a page.
GROUPING_FANOUT = 8
MAX_CANDIDATES = 2_000
# Symbol kinds listed first when a name matches several definitions.
DEFINITION_KIND_ORDER = {
    "class": 0,
    "struct": 0,
    "interface": 0,
    "trait": 0,
    "enum": 0,
    "protocol": 0,
    "record": 0,
    "object": 0,
    "function": 1,
    "method": 1,
    "constructor": 1,
    "module": 2,
    "type": 2,
    "macro": 2,
}


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


def _group(
    rows: list[tuple[ChunkRow, float]], key: Callable[[ChunkRow], object]
) -> list[tuple[ChunkRow, float]]:
    best: dict[object, tuple[ChunkRow, float]] = {}
    for row, score in rows:
        k = key(row)
        if k not in best:
            best[k] = (row, score)
    return list(best.values())


def op_search(ctx: OperationContext) -> Answer:
    request = ctx.request
    require(request, "query")
    assert request.query is not None
    view = ctx.need_view()
    offset, cursor_factory = _paging(ctx)
    wanted = offset + request.limit + 1
    fanout = 1 if request.granularity == "chunk" else GROUPING_FANOUT
    query = build_lexical_query(
        request.query,
        limit=min(MAX_CANDIDATES, wanted * fanout),
        lang=request.lang,
        path_glob=request.path_glob,
        kind=request.kind,
    )
    if query is None:
        raise InvalidArgument(
            f"query {request.query[:80]!r} has no searchable terms (letters, digits, identifiers)"
        )
    hits = view.fts(query.sql, query.args)
    rows_by_id = view.chunks_by_ids([cid for cid, _ in hits])
    ranked = [(rows_by_id[cid], score) for cid, score in hits if cid in rows_by_id]
    if request.granularity == "symbol":
        ranked = _group([(r, s) for r, s in ranked if r.symbol_id is not None], lambda r: r.symbol_id)
    elif request.granularity == "file":
        ranked = _group(ranked, lambda r: r.file_id)
    total = len(ranked)
    page = ranked[offset : offset + request.limit]
    items: list[Item] = []
    for row, score in page:
        signals = {"bm25": score}
        if request.granularity == "symbol" and row.symbol_id is not None:
            symbol_rows = [
                s
                for s in view.symbols_by_qualified(row.qualified_name or "", row.path)
                if s.id == row.symbol_id
            ]
            if symbol_rows:
                items.append(symbol_item(view, symbol_rows[0], score=score, extra={"signals": signals}))
                continue
        if request.granularity == "file":
            items.append(_file_item(view, row, score))
            continue
        items.append(chunk_item(view, row, score=score, signals=signals))
    warnings = list(ctx.warnings)
    if not items:
        warnings.append(f"nothing matched any of: {', '.join(query.tokens[:12])}")
    coverage = [
        "lexical: BM25 over symbol-level chunks; ranked, not exhaustive",
        "dense: not configured",
    ]
    return fit_answer(
        "search",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=coverage,
        warnings=warnings,
        cursor_for=cursor_factory(len(page), total),
    )


def _file_item(view: ReadView, row: ChunkRow, score: float) -> Item:
    file = view.file(row.path)
    size = file.size if file else row.end_byte
    lines = file.line_count if file else row.end_line
    return Item(
        kind="file",
        text_kind=TEXT_DESCRIPTION,
        anchor=Anchor(row.path, row.file_sha256, 0, size, 1, max(1, lines), view.generation),
        score=score,
        signals={"bm25": score},
        extra={
            "best_chunk": {
                "start_line": row.start_line,
                "end_line": row.end_line,
                "symbol": row.qualified_name,
            }
        },
    )


def _module_of(path: str) -> str:
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    if stem.endswith("/__init__") or stem.endswith("/index") or stem.endswith("/mod"):
        stem = stem.rsplit("/", 1)[0]
    return stem.replace("/", ".")


def resolve_symbol(view: ReadView, name: str, path: str | None) -> list[SymbolRow]:
    """Definitions for ``name``, best first.

    A dotted name is a qualified name (``Session.request``), else a module-qualified one
    (``pkg.sessions.Session.request``), else a suffix of one. A bare name returns the definitions with
    exactly that qualified name first, then every other definition with that short name (methods too).
    """
    name = name.strip().replace("::", ".").replace("#", ".")
    if not name:
        raise InvalidArgument("symbol is empty")
    exact = view.symbols_by_qualified(name, path)
    if "." not in name:
        seen = {s.id for s in exact}
        others = [s for s in view.symbols_by_name(name, path) if s.id not in seen]
        others.sort(key=lambda s: (DEFINITION_KIND_ORDER.get(s.kind, 3), s.path, s.start_byte))
        return exact + others
    found = exact
    if not found:
        parts = name.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module, rest = ".".join(parts[:split]), ".".join(parts[split:])
            candidates = [
                s
                for s in view.symbols_by_qualified(rest, path)
                if _module_of(s.path) == module or _module_of(s.path).endswith("." + module)
            ]
            if candidates:
                found = candidates
                break
    if not found:
        found = view.symbols_with_suffix(name)
        if path is not None:
            found = [s for s in found if s.path == path]
    found.sort(key=lambda s: (DEFINITION_KIND_ORDER.get(s.kind, 3), s.path, s.start_byte))
    return found


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
    found = resolve_symbol(view, request.symbol, path)
    if not found:
        where = f" in {path}" if path else ""
        raise NotFound(
            f"symbol {request.symbol!r} is not defined{where} in generation {view.generation}",
            next_step="try operation=search with the name, or check the spelling",
        )
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

"""``query``: a read-only Cypher subset over the property graph, answered as anchored rows.

A row that holds a node (or an edge site) becomes an item anchored at the first such value (path,
sha256, byte and line span); rows of scalars only (``count(*)``, names) are returned in
``data.rows``. Rows are paged in result order; a page is the query's LIMIT when it has one, else the
request's ``limit``, trimmed to fit ``maxChars``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lazy_intel.errors import InvalidArgument
from lazy_intel.evidence.budget import error_answer, fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item, SymbolInfo
from lazy_intel.graph.cypher import CypherError, compile_query, parse_query
from lazy_intel.graph.cypher.execute import run_query
from lazy_intel.service.context import OperationContext
from lazy_intel.service.cursor import decode_cursor, encode_cursor
from lazy_intel.service.requests import require
from lazy_intel.store.reader import ReadView

COVERAGE = (
    "graph: indexed structure (tree-sitter facts + resolution), not live semantics; every edge has "
    "strategy and confidence",
    "unresolved sites are edges with dst NULL (r.resolved = false); a pattern that names or constrains "
    "the node at that end cannot match them — use an anonymous () end to see them",
)
BUDGET_WARNING = "some rows did not fit maxChars: raise maxChars or follow next_cursor"


class _Anchors:
    """File hashes by path, looked up once per answer."""

    def __init__(self, view: ReadView) -> None:
        self.view = view
        self.sha: dict[str, str | None] = {}

    def file_sha(self, path: str) -> str | None:
        if path not in self.sha:
            row = self.view.file(path)
            self.sha[path] = row.sha256 if row is not None else None
        return self.sha[path]

    def of_node(self, node: dict[str, Any]) -> Anchor | None:
        path = node.get("path")
        if not path or node.get("start_byte") is None or node.get("end_byte") is None:
            return None
        sha = self.file_sha(path)
        if sha is None:
            return None
        start_line = int(node.get("start_line") or 1)
        return Anchor(
            path,
            sha,
            int(node["start_byte"]),
            int(node["end_byte"]),
            start_line,
            int(node.get("end_line") or start_line),
            self.view.generation,
        )

    def of_edge(self, edge: dict[str, Any]) -> Anchor | None:
        path = edge.get("path")
        if not path or edge.get("start_byte") is None or edge.get("end_byte") is None:
            return None
        sha = self.file_sha(path)
        if sha is None:
            return None
        line = int(edge.get("line") or 1)
        return Anchor(
            path, sha, int(edge["start_byte"]), int(edge["end_byte"]), line, line, self.view.generation
        )


def _is_node(value: Any) -> bool:
    return isinstance(value, dict) and "qualified_name" in value and "label" in value


def _is_edge(value: Any) -> bool:
    return isinstance(value, dict) and "type" in value and "src" in value


def _row_item(anchors: _Anchors, columns: tuple[str, ...], row: tuple[Any, ...]) -> Item | None:
    """The row as an item anchored at its first node (else edge site) that has bytes; None if none has."""
    values = dict(zip(columns, row, strict=True))
    anchor: Anchor | None = None
    symbol: SymbolInfo | None = None
    for value in row:
        if _is_node(value):
            anchor = anchors.of_node(value)
            if anchor is not None:
                symbol = SymbolInfo(
                    name=value["name"],
                    qualified_name=value["qualified_name"],
                    kind=value.get("kind") or value["label"].lower(),
                    language=value.get("lang"),
                )
                break
    if anchor is None:
        for value in row:
            if _is_edge(value):
                anchor = anchors.of_edge(value)
                if anchor is not None:
                    break
    if anchor is None:
        return None
    confidences = [v["confidence"] for v in row if _is_edge(v) and v.get("confidence") is not None]
    return Item(
        kind="row",
        text_kind=TEXT_DESCRIPTION,
        anchor=anchor,
        symbol=symbol,
        confidence=min(confidences) if confidences else None,
        extra={"row": values},
    )


def _fit_page(build: Callable[[int], Answer | None], page_len: int) -> tuple[Answer | None, int]:
    """The answer for the longest prefix of the page that fits whole (binary search on its length)."""
    whole = build(page_len)
    if whole is not None:
        return whole, page_len
    low, high = 0, page_len - 1
    best = build(0)
    while low < high:
        mid = (low + high + 1) // 2
        answer = build(mid)
        if answer is not None:
            low, best = mid, answer
        else:
            high = mid - 1
    return best, low


def op_query(ctx: OperationContext) -> Answer:
    request = ctx.request
    require(request, "query")
    assert request.query is not None
    settings = ctx.workspace.settings
    view = ctx.need_view()
    try:
        parsed = parse_query(request.query)
        compiled = compile_query(parsed, max_rows=settings.query_max_rows, max_hops=settings.query_max_hops)
    except CypherError as exc:
        return error_answer(
            "query",
            exc.code,
            exc.message,
            view=ctx.view_info,
            next_step=exc.next_step,
            data=exc.details(),
            max_chars=ctx.request.max_chars,
        )
    result = run_query(view.conn, compiled, timeout_ms=settings.query_timeout_ms)
    offset = decode_cursor(request.cursor, view.generation, request.fingerprint()) if request.cursor else 0
    page_size = min(parsed.limit if parsed.limit is not None else request.limit, compiled.row_cap) or 1
    page_rows = result.rows[offset : offset + page_size]
    anchors = _Anchors(view)
    prepared = [(_row_item(anchors, result.columns, row), row) for row in page_rows]
    total = len(result.rows)

    warnings = list(ctx.warnings)
    coverage = list(COVERAGE)
    partial = False
    if result.truncated:
        partial = True
        warnings.append(
            f"more than {compiled.row_cap} rows matched; only the first {compiled.row_cap} in ORDER BY order are "
            "returned: narrow the pattern or add LIMIT (bound: LAZY_INTEL_QUERY_MAX_ROWS)"
        )
    if compiled.capped_hops:
        partial = True
        coverage.append(
            f"variable-length paths stop at {settings.query_max_hops} hops (LAZY_INTEL_QUERY_MAX_HOPS): "
            + "; ".join(compiled.capped_hops)
        )
    coverage.append(
        "variable-length relationships give each reachable (start, end) pair once, not every path"
    )

    def build(count: int) -> Answer | None:
        chosen = prepared[:count]
        items = [item for item, _ in chosen if item is not None]
        plain = [dict(zip(result.columns, row, strict=True)) for item, row in chosen if item is None]
        consumed = offset + count
        data: dict[str, Any] = {
            "columns": list(result.columns),
            "row_count": total,
            "rows": plain,
            "elapsed_ms": round(result.elapsed_ms, 1),
        }
        page_warnings = warnings + ([BUDGET_WARNING] if count < len(prepared) else [])

        def cursor_for(_n: int) -> str | None:
            return (
                encode_cursor(view.generation, consumed, request.fingerprint()) if consumed < total else None
            )

        try:
            answer = fit_answer(
                "query",
                items,
                max_chars=request.max_chars,
                view=ctx.view_info,
                coverage=coverage,
                warnings=page_warnings,
                data=data,
                cursor_for=cursor_for,
                force_partial=partial or count < len(prepared),
                ok_without_items=True,
            )
        except InvalidArgument:
            if count == 0:
                raise
            return None
        if answer.omitted or len(answer.items) < len(items):
            return None if count else answer
        return answer

    answer, _count = _fit_page(build, len(prepared))
    assert answer is not None
    return answer

"""The fused list of index and live-server sites: rows, labels, paging and the answer built from them.

:mod:`lazy_intel.service.ops.ops_fused` decides which sites are the same use and fills the rows; this module
sorts, labels, pages and explains them (counts per evidence, graph misses, name-only candidates), and
records the server's confirmations of indexed edges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.queries import GraphEdge, GraphNode
from lazy_intel.service.ops.confirmations import Confirmations
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.cursor import decode_cursor, encode_cursor
from lazy_intel.service.ops.graph_evidence import GRAPH_COVERAGE, GraphReader

NAME_ONLY_STRATEGIES = frozenset({"ambiguous", "unique-name"})
MAX_MISSES_SHOWN = 5
MAX_MISSES_IN_DATA = 20
BOTH, INDEX, LSP = "both", "index", "lsp"
# a site the server lists that the index resolved to another definition: the two disagree, so it is
# neither a confirmed use nor a graph miss; listed with the candidates, saying where the index points
CONFLICT = "conflict"


@dataclass
class Entry:
    """One row of a fused list: where it sorts, and how to build its item."""

    path: str
    start: int
    evidence: str
    build: Callable[[], Item | None]
    candidate: bool = False


def server_of(live: Answer) -> str:
    for item in live.items:
        if item.observation is not None:
            return item.observation.server_id
    semantic = (live.data or {}).get("semantic", {})
    server = semantic.get("server") if isinstance(semantic, dict) else None
    return str(server.get("id")) if isinstance(server, dict) else "?"


def live_site_items(live: Answer) -> list[tuple[Item, dict[str, int]]]:
    out = []
    for item in live.items:
        match = (item.extra or {}).get("match")
        if isinstance(match, dict) and "start_byte" in match:
            out.append((item, match))
    return out


def labelled(item: Item | None, evidence: str, **extra: Any) -> Item | None:
    if item is None:
        return None
    return replace(item, extra={**(item.extra or {}), "evidence": evidence, **extra})


def fused_paging(
    ctx: OperationContext, total: int, head: int, live: Answer
) -> tuple[int, Callable[[int], str | None]]:
    view = ctx.need_view()
    semantic = (live.data or {}).get("semantic", {})
    fingerprint = "\x1f".join(
        [
            ctx.request.fingerprint(),
            "fused",
            str(semantic.get("query_fingerprint") if isinstance(semantic, dict) else ""),
        ]
    )
    offset = decode_cursor(ctx.request.cursor, view.generation, fingerprint) if ctx.request.cursor else 0

    def cursor_for(consumed: int) -> str | None:
        results = max(0, consumed - head)
        if offset + results >= total:
            return None
        return encode_cursor(view.generation, offset + results, fingerprint)

    return offset, cursor_for


def misses(entries: Sequence[Entry]) -> list[str]:
    return [f"{e.path}:{e.start}" for e in entries if e.evidence == LSP]


def finish_fused(
    ctx: OperationContext,
    operation: str,
    live: Answer,
    *,
    head: list[Item],
    entries: list[Entry],
    candidates: list[Entry],
    coverage: list[str],
    warnings: list[str],
    data: dict[str, Any],
    miss_lines: list[str],
    conflicts: Sequence[Entry] = (),
    conflict_lines: Sequence[str] = (),
) -> Answer:
    server = server_of(live)
    rows = sorted(entries, key=lambda e: (e.path, e.start, e.evidence))
    counts = {BOTH: 0, INDEX: 0, LSP: 0}
    for entry in rows:
        counts[entry.evidence] += 1
    listed = rows + (
        sorted([*candidates, *conflicts], key=lambda e: (e.path, e.start))
        if ctx.request.include_candidates
        else []
    )
    offset, cursor_for = fused_paging(ctx, len(listed), len(head), live)
    items = list(head)
    for entry in listed[offset : offset + ctx.request.limit]:
        item = entry.build()
        if item is not None:
            items.append(item)
    lines = [
        f"source: index graph and live language server {server}, fused: {counts[BOTH]} site(s) both, "
        f"{counts[INDEX]} index only, {counts[LSP]} live only",
        GRAPH_COVERAGE,
    ]
    if counts[LSP]:
        lines.append(
            f"graph misses: {counts[LSP]} site(s) only the server found (e.g. {', '.join(miss_lines[:MAX_MISSES_SHOWN])}): "
            "uses the index did not resolve to this definition"
        )
    else:
        lines.append("graph misses: none (every site the server reported is an indexed edge)")
    if candidates:
        lines.append(
            f"{len(candidates)} name-only candidate site(s) (strategy ambiguous or unique-name) the server did not "
            + (
                "confirm: listed last with evidence index"
                if ctx.request.include_candidates
                else "confirm: left out; pass includeCandidates=true to list them"
            )
        )
    if conflicts:
        lines.append(
            f"conflicts: {len(conflicts)} site(s) the server lists that the index resolved to another "
            f"definition (e.g. {', '.join(conflict_lines[:MAX_MISSES_SHOWN])}): "
            + (
                "listed last with evidence conflict and the index's resolution"
                if ctx.request.include_candidates
                else "left out; pass includeCandidates=true to list them"
            )
        )
    lines.extend(line for line in coverage if line != GRAPH_COVERAGE)
    lines.extend(live.coverage)
    semantic = (live.data or {}).get("semantic")
    payload = {
        "source": "fused",
        **data,
        "total": len(listed),
        "counts": {**counts, "candidates": len(candidates), "conflicts": len(conflicts)},
        "graph_misses": miss_lines[:MAX_MISSES_IN_DATA],
        "conflicts": list(conflict_lines[:MAX_MISSES_IN_DATA]),
        "semantic": semantic,
    }
    return fit_answer(
        operation,
        items,
        max_chars=ctx.request.max_chars,
        view=ctx.view_info,
        coverage=lines,
        warnings=[*ctx.warnings, *warnings, *live.warnings],
        data=payload,
        cursor_for=cursor_for,
        force_partial=live.status == "partial" and bool(live.items),
    )


def confirm_edges(
    ctx: OperationContext, reader: GraphReader, edges: Sequence[GraphEdge], server: str
) -> None:
    if not edges:
        return
    dst = reader.nodes([e.dst for e in edges if e.dst is not None])
    paths = {e.path for e in edges if e.path} | {n.path for n in dst.values() if n.path}
    reader.prefetch_paths(paths)
    hashes = {p: reader.sha(p) for p in paths}
    Confirmations(ctx.workspace.state).record(
        edges,
        {p: s for p, s in hashes.items() if s},
        {i: n.path for i, n in dst.items() if n.path},
        server,
    )


def name_span(ctx: OperationContext, node: GraphNode) -> tuple[int, int] | None:
    view = ctx.need_view()
    for row in view.symbols_by_qualified(node.qualified_name, node.path):
        if row.start_byte == node.start_byte:
            return row.name_start_byte, row.name_start_byte + len(row.name.encode("utf-8"))
    return None

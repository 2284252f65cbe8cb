"""Fused semantic evidence: ``references``, ``implementations``, ``callers`` and ``callees`` asked of
both the index graph and a live language server, answered as one list.

Every site is labelled ``evidence``: ``both`` (an indexed edge the server reported too: the graph's
source item, its edge upgraded to ``lsp-confirmed`` with raised confidence, carrying the server's
``observation`` and its precise range as ``lsp_match``), ``index`` (only the graph has it) or ``lsp``
(only the server has it: its own live item, unchanged, observation included). Sites only the server
found are the graph's misses and coverage says so. Confirmations are kept beside the store
(:mod:`lazy_intel.service.confirmations`) so later index-only answers show them while both files are
unchanged. Name-only index edges (``ambiguous``, ``unique-name``) that the server did not confirm are
candidates, listed only when ``includeCandidates`` asks (see ``graph_references``).

Which sites are the same use is :func:`lazy_intel.service.site_match.match_sites`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.queries import CALL_TYPES, REFERENCE_TYPES, GraphEdge, GraphNode
from lazy_intel.service.confirmations import Confirmations, upgraded
from lazy_intel.service.context import OperationContext
from lazy_intel.service.cursor import decode_cursor, encode_cursor
from lazy_intel.service.graph_evidence import (
    GRAPH_COVERAGE,
    GraphReader,
    describe,
    edge_info,
    language_coverage,
    node_item,
    node_ref,
    reference_edges,
    site_item,
    unresolved_lines,
)
from lazy_intel.service.site_match import Site, match_sites

NAME_ONLY_STRATEGIES = frozenset({"ambiguous", "unique-name"})
MAX_MISSES_SHOWN = 5
MAX_MISSES_IN_DATA = 20
BOTH, INDEX, LSP = "both", "index", "lsp"


@dataclass
class Entry:
    """One row of a fused list: where it sorts, and how to build its item."""

    path: str
    start: int
    evidence: str
    build: Callable[[], Item | None]
    candidate: bool = False


def _server(live: Answer) -> str:
    for item in live.items:
        if item.observation is not None:
            return item.observation.server_id
    semantic = (live.data or {}).get("semantic", {})
    server = semantic.get("server") if isinstance(semantic, dict) else None
    return str(server.get("id")) if isinstance(server, dict) else "?"


def _live_sites(live: Answer) -> list[tuple[Item, dict[str, int]]]:
    out = []
    for item in live.items:
        match = (item.extra or {}).get("match")
        if isinstance(match, dict) and "start_byte" in match:
            out.append((item, match))
    return out


def _labelled(item: Item | None, evidence: str, **extra: Any) -> Item | None:
    if item is None:
        return None
    return replace(item, extra={**(item.extra or {}), "evidence": evidence, **extra})


def _paging(
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


def _misses(entries: Sequence[Entry]) -> list[str]:
    return [f"{e.path}:{e.start}" for e in entries if e.evidence == LSP]


def _finish(
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
) -> Answer:
    server = _server(live)
    rows = sorted(entries, key=lambda e: (e.path, e.start, e.evidence))
    counts = {BOTH: 0, INDEX: 0, LSP: 0}
    for entry in rows:
        counts[entry.evidence] += 1
    listed = rows + (
        sorted(candidates, key=lambda e: (e.path, e.start)) if ctx.request.include_candidates else []
    )
    offset, cursor_for = _paging(ctx, len(listed), len(head), live)
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
    lines.extend(line for line in coverage if line != GRAPH_COVERAGE)
    lines.extend(live.coverage)
    semantic = (live.data or {}).get("semantic")
    payload = {
        "source": "fused",
        **data,
        "total": len(listed),
        "counts": {**counts, "candidates": len(candidates)},
        "graph_misses": miss_lines[:MAX_MISSES_IN_DATA],
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


def _confirm(ctx: OperationContext, reader: GraphReader, edges: Sequence[GraphEdge], server: str) -> None:
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


def _name_span(ctx: OperationContext, node: GraphNode) -> tuple[int, int] | None:
    view = ctx.need_view()
    for row in view.symbols_by_qualified(node.qualified_name, node.path):
        if row.start_byte == node.start_byte:
            return row.name_start_byte, row.name_start_byte + len(row.name.encode("utf-8"))
    return None


# ---- references ----------------------------------------------------------------------------------


def fused_references(
    ctx: OperationContext, live: Answer, targets: list[GraphNode], warnings: list[str]
) -> Answer:
    view = ctx.need_view()
    reader = GraphReader(view)
    server = _server(live)
    edges = reference_edges(view.conn, targets)
    reader.nodes([e.src for e in edges] + [e.dst for e in edges if e.dst is not None])
    reader.prefetch_paths([e.path for e in edges] + [t.path for t in targets])
    index_sites = [
        Site(("edge", n), e.path or "", e.start_byte or 0, e.end_byte or 0) for n, e in enumerate(edges)
    ]
    for t in targets:
        span = _name_span(ctx, t)
        if span is not None and t.path:
            index_sites.append(Site(("decl", t.id), t.path, *span))
    live_sites = _live_sites(live)
    matching = match_sites(
        index_sites,
        [
            Site(("live", n), i.anchor.path, m["start_byte"], m["end_byte"])
            for n, (i, m) in enumerate(live_sites)
        ],
    )
    confirmed_by: dict[Any, list[int]] = {}
    for index_key, live_key in matching.pairs:
        confirmed_by.setdefault(index_key, []).append(live_key[1])  # type: ignore[index]
    head: list[Item] = []
    if ctx.request.include_declaration:
        for t in targets:
            matched = confirmed_by.get(("decl", t.id))
            item = node_item(reader, t, kind="declaration", text=f"declaration of {describe(t)}")
            if matched:
                observation = live_sites[matched[0]][0].observation
                head.append(
                    replace(
                        _labelled(item, BOTH, lsp_match=live_sites[matched[0]][1]), observation=observation
                    )
                )  # type: ignore[arg-type]
            elif item is not None:
                head.append(_labelled(item, INDEX))  # type: ignore[arg-type]
    entries: list[Entry] = []
    candidates: list[Entry] = []
    confirmed_edges: list[GraphEdge] = []
    for n, edge in enumerate(edges):
        matched = confirmed_by.get(("edge", n))
        extra = {"from": node_ref(reader.node(edge.src)), "to": node_ref(reader.node(edge.dst))}
        if matched:
            shown = upgraded(edge, server)
            confirmed_edges.append(edge)
            live_item, match = live_sites[matched[0]]

            def both(
                shown: GraphEdge = shown,
                extra: dict[str, Any] = extra,
                live_item: Item = live_item,
                match: dict[str, int] = match,
            ) -> Item | None:
                item = site_item(
                    reader,
                    shown,
                    kind="reference",
                    confidence=shown.confidence,
                    extra={"evidence": BOTH, **extra, "lsp_match": match},
                )
                return None if item is None else replace(item, observation=live_item.observation)

            entries.append(Entry(edge.path or "", edge.start_byte or 0, BOTH, both))
            continue

        def index_only(
            edge: GraphEdge = edge, extra: dict[str, Any] = extra, kind: str = "reference"
        ) -> Item | None:
            return site_item(
                reader, edge, kind=kind, confidence=edge.confidence, extra={"evidence": INDEX, **extra}
            )

        entry = Entry(edge.path or "", edge.start_byte or 0, INDEX, index_only)
        if edge.strategy in NAME_ONLY_STRATEGIES:
            candidates.append(
                replace(
                    entry,
                    candidate=True,
                    build=lambda edge=edge, extra=extra: index_only(edge, extra, "candidate"),
                )
            )
        else:
            entries.append(entry)
    declarations = {(s.path, s.start, s.end) for s in index_sites if s.key[0] == "decl"}  # type: ignore[index]
    miss_lines: list[str] = []
    for live_key in matching.live_only:
        live_item, match = live_sites[live_key[1]]  # type: ignore[index]
        span = (live_item.anchor.path, match["start_byte"], match["end_byte"])
        if not ctx.request.include_declaration and span in declarations:
            continue  # the declaration, reported although we were asked to leave it out: not a miss
        miss_lines.append(f"{live_item.anchor.path}:{match.get('start_line', '?')}")
        entries.append(
            Entry(
                live_item.anchor.path,
                match["start_byte"],
                LSP,
                lambda live_item=live_item: _labelled(live_item, LSP),
            )
        )
    _confirm(ctx, reader, confirmed_edges, server)
    coverage = unresolved_lines(reader, targets, REFERENCE_TYPES)
    coverage.extend(language_coverage([t.lang for t in targets]))
    data = {"targets": [node_ref(t) for t in targets]}
    return _finish(
        ctx,
        "references",
        live,
        head=head,
        entries=entries,
        candidates=candidates,
        coverage=coverage,
        warnings=warnings,
        data=data,
        miss_lines=miss_lines,
    )


# ---- implementations -----------------------------------------------------------------------------


def fused_implementations(
    ctx: OperationContext,
    live: Answer,
    targets: list[GraphNode],
    *,
    found: list[tuple[int, int, float, GraphEdge]],
    warnings: list[str],
    coverage: list[str],
) -> Answer:
    view = ctx.need_view()
    reader = GraphReader(view)
    server = _server(live)
    nodes = reader.nodes([f[0] for f in found] + [f[3].dst for f in found if f[3].dst is not None])
    reader.prefetch_paths([n.path for n in nodes.values()])
    index_sites = [
        Site(("node", n), nodes[f[0]].path or "", nodes[f[0]].start_byte or 0, nodes[f[0]].end_byte or 0)
        for n, f in enumerate(found)
        if f[0] in nodes
    ]
    # some servers list the asked-about type itself among its implementations: that is no miss
    index_sites.extend(
        Site(("target", t.id), t.path or "", t.start_byte or 0, t.end_byte or 0) for t in targets
    )
    live_sites = _live_sites(live)
    matching = match_sites(
        index_sites,
        [
            Site(("live", n), i.anchor.path, m["start_byte"], m["end_byte"])
            for n, (i, m) in enumerate(live_sites)
        ],
    )
    confirmed_by: dict[Any, int] = {}
    for index_key, live_key in matching.pairs:
        confirmed_by.setdefault(index_key, live_key[1])  # type: ignore[index]
    relation = {"INHERITS": "inherits", "IMPLEMENTS": "implements", "OVERRIDES": "overrides"}
    entries: list[Entry] = []
    confirmed_edges: list[GraphEdge] = []
    for n, (node_id, distance, confidence, via) in enumerate(found):
        node = nodes.get(node_id)
        if node is None:
            continue
        parent = reader.node(via.dst)
        text = f"{describe(node)} {relation.get(via.type, via.type.lower())} {parent.qualified_name if parent else via.target}"
        matched = confirmed_by.get(("node", n))
        edge = upgraded(via, server) if matched is not None and distance == 1 else via
        if matched is not None and distance == 1:
            confirmed_edges.append(via)
        extra: dict[str, Any] = {"distance": distance, "edge": edge_info(edge)}
        conf = max(confidence, edge.confidence) if matched is not None else confidence

        def build(
            node: GraphNode = node,
            text: str = text,
            extra: dict[str, Any] = extra,
            matched: int | None = matched,
            conf: float = conf,
        ) -> Item | None:
            evidence = BOTH if matched is not None else INDEX
            item = node_item(
                reader,
                node,
                kind="implementation",
                text=text,
                confidence=conf,
                extra={"evidence": evidence, **extra},
            )
            if item is not None and matched is not None:
                live_item, match = live_sites[matched]
                item = replace(
                    item, observation=live_item.observation, extra={**(item.extra or {}), "lsp_match": match}
                )
            return item

        entries.append(
            Entry(node.path or "", node.start_byte or 0, BOTH if matched is not None else INDEX, build)
        )
    miss_lines = []
    for live_key in matching.live_only:
        live_item, match = live_sites[live_key[1]]  # type: ignore[index]
        miss_lines.append(f"{live_item.anchor.path}:{match.get('start_line', '?')}")
        entries.append(
            Entry(
                live_item.anchor.path,
                match["start_byte"],
                LSP,
                lambda live_item=live_item: _labelled(live_item, LSP),
            )
        )
    _confirm(ctx, reader, confirmed_edges, server)
    head = [
        i
        for i in (node_item(reader, t, kind="target", text=f"asked about {describe(t)}") for t in targets)
        if i is not None
    ]
    data = {"targets": [node_ref(t) for t in targets]}
    return _finish(
        ctx,
        "implementations",
        live,
        head=head,
        entries=entries,
        candidates=[],
        coverage=[*coverage, *language_coverage([t.lang for t in targets])],
        warnings=warnings,
        data=data,
        miss_lines=miss_lines,
    )


# ---- callers / callees ----------------------------------------------------------------------------


def fused_calls(
    ctx: OperationContext,
    live: Answer,
    targets: list[GraphNode],
    *,
    incoming: bool,
    hops: list[tuple[GraphEdge, int, float]],
    coverage: list[str],
    warnings: list[str],
    data: dict[str, Any],
) -> Answer:
    """Direct calls (distance 1) fused with the server's call hierarchy; deeper hops are the index's."""
    view = ctx.need_view()
    reader = GraphReader(view)
    server = _server(live)
    operation = "callers" if incoming else "callees"
    reader.nodes([e.src for e, _, _ in hops] + [e.dst for e, _, _ in hops if e.dst is not None])
    reader.prefetch_paths(e.path for e, _, _ in hops)
    direct = [(n, e) for n, (e, d, _) in enumerate(hops) if d == 1 and e.dst is not None]
    index_sites = [Site(("hop", n), e.path or "", e.start_byte or 0, e.end_byte or 0) for n, e in direct]
    # each live caller/callee item lists its call sites; each site is one live use
    live_sites: list[tuple[Item, dict[str, Any]]] = []
    for item in live.items:
        for site in (item.extra or {}).get("sites", ()):
            if isinstance(site, dict) and "start_byte" in site:
                live_sites.append((item, site))
    matching = match_sites(
        index_sites,
        [Site(("live", n), s["path"], s["start_byte"], s["end_byte"]) for n, (_, s) in enumerate(live_sites)],
    )
    confirmed_by: dict[Any, int] = {}
    for index_key, live_key in matching.pairs:
        confirmed_by.setdefault(index_key, live_key[1])  # type: ignore[index]
    entries: list[Entry] = []
    confirmed_edges: list[GraphEdge] = []
    for n, (edge, distance, confidence) in enumerate(hops):
        matched = confirmed_by.get(("hop", n))
        shown = upgraded(edge, server) if matched is not None else edge
        if matched is not None:
            confirmed_edges.append(edge)
        callee = node_ref(reader.node(shown.dst)) or {"name": shown.target, "resolved": False}
        extra: dict[str, Any] = {
            "distance": distance,
            "caller": node_ref(reader.node(shown.src)),
            "callee": callee,
        }
        conf = max(confidence, shown.confidence) if matched is not None else confidence

        def build(
            shown: GraphEdge = shown,
            extra: dict[str, Any] = extra,
            matched: int | None = matched,
            conf: float = conf,
        ) -> Item | None:
            evidence = BOTH if matched is not None else INDEX
            item = site_item(
                reader, shown, kind="call", confidence=conf, extra={"evidence": evidence, **extra}
            )
            if item is not None and matched is not None:
                live_item, site = live_sites[matched]
                item = replace(
                    item, observation=live_item.observation, extra={**(item.extra or {}), "lsp_match": site}
                )
            return item

        entries.append(
            Entry(edge.path or "", edge.start_byte or 0, BOTH if matched is not None else INDEX, build)
        )
    unmatched: dict[int, list[dict[str, Any]]] = {}
    for live_key in matching.live_only:
        item, site = live_sites[live_key[1]]  # type: ignore[index]
        unmatched.setdefault(id(item), []).append(site)
    miss_lines: list[str] = []
    for item in live.items:
        sites = unmatched.get(id(item))
        if not sites:
            continue
        miss_lines.extend(f"{s['path']}:{s.get('start_line', '?')}" for s in sites)
        first = sites[0]
        entries.append(
            Entry(
                first["path"],
                first["start_byte"],
                LSP,
                lambda item=item, sites=sites: _labelled(item, LSP, unmatched_sites=sites),
            )
        )
    _confirm(ctx, reader, confirmed_edges, server)
    head = [
        i
        for i in (node_item(reader, t, kind="target", text=f"asked about {describe(t)}") for t in targets)
        if i is not None
    ]
    extra_coverage = [
        "the server was asked for direct calls (call hierarchy, one level); calls past distance 1 are the index's"
    ]
    if incoming:
        extra_coverage.extend(unresolved_lines(reader, targets, CALL_TYPES))
    return _finish(
        ctx,
        operation,
        live,
        head=head,
        entries=entries,
        candidates=[],
        coverage=[*coverage, *extra_coverage],
        warnings=warnings,
        data=data,
        miss_lines=miss_lines,
    )

"""Fused semantic evidence: ``references``, ``implementations``, ``callers`` and ``callees`` asked of
both the index graph and a live language server, answered as one list.

Every site is labelled ``evidence``: ``both`` (an indexed edge the server reported too: the graph's
source item, its edge upgraded to ``lsp-confirmed`` with raised confidence, carrying the server's
``observation`` and its precise range as ``lsp_match``), ``index`` (only the graph has it) or ``lsp``
(only the server has it: its own live item, unchanged, observation included). Sites only the server
found are the graph's misses and coverage says so — unless the index puts such a site at another
definition (``references``: :func:`_conflicts`), which is a ``conflict``, listed with the candidates. Confirmations are kept beside the store
(:mod:`lazy_intel.service.ops.confirmations`) so later index-only answers show them while both files are
unchanged. Name-only index edges (``ambiguous``, ``unique-name``) that the server did not confirm are
candidates, listed only when ``includeCandidates`` asks (see ``graph_references``).

Which sites are the same use is :func:`lazy_intel.service.ops.site_match.match_sites`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Any

from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.queries import (
    CALL_TYPES,
    REFERENCE_TYPES,
    GraphEdge,
    GraphNode,
    edge_ends,
    resolved_edges_in_files,
)
from lazy_intel.service.ops.confirmations import upgraded
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.fused_list import (
    BOTH,
    CONFLICT,
    INDEX,
    LSP,
    NAME_ONLY_STRATEGIES,
    Entry,
    confirm_edges,
    finish_fused,
    labelled,
    live_site_items,
    name_span,
    server_of,
)
from lazy_intel.service.ops.graph_evidence import (
    UNWRITTEN_CALLS,
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
from lazy_intel.service.ops.site_match import Site, match_sites

# ---- references ----------------------------------------------------------------------------------

_LAST_NAME = re.compile(r"[\w$]+")


def _last_name(written: str | None) -> str | None:
    names = _LAST_NAME.findall(written or "")
    return names[-1] if names else None


OVERRIDE_FAMILY_LIMIT = 256  # methods joined to a target by OVERRIDES edges, either way, every level


def _override_family(reader: GraphReader, ids: set[int]) -> set[int]:
    """``ids`` and the methods joined to them by OVERRIDES edges followed either way, transitively
    (bounded): what they override, what overrides them, and so siblings overriding the same method."""
    family = set(ids)
    frontier = set(ids)
    while frontier and len(family) < OVERRIDE_FAMILY_LIMIT:
        near = edge_ends(reader.conn, frontier, ("OVERRIDES",), incoming=True)
        near |= edge_ends(reader.conn, frontier, ("OVERRIDES",), incoming=False)
        frontier = near - family
        family |= frontier
    return family


def _conflicts(
    reader: GraphReader, targets: Sequence[GraphNode], live_only: Sequence[Site]
) -> dict[Hashable, tuple[dict[str, Any] | None, dict[str, Any]]]:
    """The live-only sites the index puts at another definition: live key -> (that definition,
    how the index knows).

    A site the server lists among the references of a target conflicts with the index when

    - the index has a resolved edge there (its span holds the server's range; the smallest such)
      that writes the target's name and goes somewhere else by a strategy that is not a name guess
      (the edge's ``target``, what was written, ends with the name), or
    - the server's range is the name of another definition of that name (a server that lists every
      ``def max`` of the project among the references of one of them).

    Not a conflict: an edge into a target or into a member of one (``Box()`` resolves to
    ``Box.__init__``), into a method of a target's override family (:func:`_override_family`: flask's
    ``self.json: JSONProvider`` holds a ``DefaultJSONProvider``: the index names the override a call
    runs, a type checker the declared base's method, and both are that call's definition), a
    definition with a target's qualified name (a property's setter), a name-only edge, a call the
    runtime makes where the source names something else.
    """
    if not live_only:
        return {}
    names = {t.name for t in targets}
    qualified = {t.qualified_name for t in targets if t.qualified_name}
    inside = tuple(q + "." for q in qualified)
    target_ids = {t.id for t in targets}

    def elsewhere(name: str) -> bool:
        return name not in qualified and not name.startswith(inside)

    out: dict[Hashable, tuple[dict[str, Any] | None, dict[str, Any]]] = {}
    spans = {(s.path, s.start, s.end): s.key for s in live_only}
    paths = {s.path for s in live_only}
    for name in sorted(names):
        for row in reader.view.symbols_by_name(name, limit=100_000):
            key = spans.get((row.path, row.name_start_byte, row.name_start_byte + len(name.encode("utf-8"))))
            if key is not None and elsewhere(row.qualified_name):  # a span key: in one of the files
                out[key] = (
                    {"name": row.qualified_name, "kind": row.kind, "path": row.path, "line": row.start_line},
                    {"strategy": "definition", "confidence": 1.0},
                )
    named = [
        e
        for e in resolved_edges_in_files(reader.conn, paths, REFERENCE_TYPES, ending=names)
        if e.dst not in target_ids
        and e.strategy not in NAME_ONLY_STRATEGIES
        and e.properties.get("implicit") not in UNWRITTEN_CALLS
        and _last_name(e.target) in names
    ]
    nodes = reader.nodes(e.dst for e in named if e.dst is not None)
    family = _override_family(reader, target_ids)
    others = [
        e for e in named if e.dst in nodes and e.dst not in family and elsewhere(nodes[e.dst].qualified_name)
    ]
    matching = match_sites(
        [Site(n, e.path or "", e.start_byte or 0, e.end_byte or 0) for n, e in enumerate(others)],
        [s for s in live_only if s.key not in out],
    )
    for index_key, live_key in matching.pairs:
        edge = others[index_key]  # type: ignore[index]
        out[live_key] = (
            node_ref(reader.node(edge.dst)),
            {"strategy": edge.strategy, "confidence": edge.confidence},
        )
    return out


def fused_references(
    ctx: OperationContext, live: Answer, targets: list[GraphNode], warnings: list[str]
) -> Answer:
    view = ctx.need_view()
    reader = GraphReader(view)
    server = server_of(live)
    edges = reference_edges(view.conn, targets)
    reader.nodes([e.src for e in edges] + [e.dst for e in edges if e.dst is not None])
    reader.prefetch_paths([e.path for e in edges] + [t.path for t in targets])
    index_sites = [
        Site(("edge", n), e.path or "", e.start_byte or 0, e.end_byte or 0) for n, e in enumerate(edges)
    ]
    for t in targets:
        span = name_span(ctx, t)
        if span is not None and t.path:
            index_sites.append(Site(("decl", t.id), t.path, *span))
    live_sites = live_site_items(live)
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
                        labelled(item, BOTH, lsp_match=live_sites[matched[0]][1]), observation=observation
                    )
                )  # type: ignore[arg-type]
            elif item is not None:
                head.append(labelled(item, INDEX))  # type: ignore[arg-type]
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
    live_only: list[Site] = []
    for live_key in matching.live_only:
        live_item, match = live_sites[live_key[1]]  # type: ignore[index]
        span = (live_item.anchor.path, match["start_byte"], match["end_byte"])
        if not ctx.request.include_declaration and span in declarations:
            continue  # the declaration, reported although we were asked to leave it out: not a miss
        live_only.append(Site(live_key, *span))
    conflicting = _conflicts(reader, targets, live_only)
    miss_lines: list[str] = []
    conflicts: list[Entry] = []
    conflict_lines: list[str] = []
    for site in live_only:
        live_item, match = live_sites[site.key[1]]  # type: ignore[index]
        conflict = conflicting.get(site.key)
        if conflict is not None:
            resolved, how = conflict
            conflict_lines.append(
                f"{site.path}:{match.get('start_line', '?')} -> {(resolved or {}).get('name', '?')}"
            )
            conflicts.append(
                Entry(
                    site.path,
                    site.start,
                    CONFLICT,
                    lambda live_item=live_item, resolved=resolved, how=how: labelled(
                        replace(live_item, kind="candidate"),
                        CONFLICT,
                        index_resolves_to=resolved,
                        index_edge=how,
                    ),
                    candidate=True,
                )
            )
            continue
        miss_lines.append(f"{live_item.anchor.path}:{match.get('start_line', '?')}")
        entries.append(
            Entry(
                live_item.anchor.path,
                match["start_byte"],
                LSP,
                lambda live_item=live_item: labelled(live_item, LSP),
            )
        )
    confirm_edges(ctx, reader, confirmed_edges, server)
    coverage = unresolved_lines(reader, targets, REFERENCE_TYPES)
    coverage.extend(language_coverage([t.lang for t in targets]))
    data = {"targets": [node_ref(t) for t in targets]}
    return finish_fused(
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
        conflicts=conflicts,
        conflict_lines=conflict_lines,
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
    server = server_of(live)
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
    live_sites = live_site_items(live)
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
                lambda live_item=live_item: labelled(live_item, LSP),
            )
        )
    confirm_edges(ctx, reader, confirmed_edges, server)
    head = [
        i
        for i in (node_item(reader, t, kind="target", text=f"asked about {describe(t)}") for t in targets)
        if i is not None
    ]
    data = {"targets": [node_ref(t) for t in targets]}
    return finish_fused(
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
    server = server_of(live)
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
                lambda item=item, sites=sites: labelled(item, LSP, unmatched_sites=sites),
            )
        )
    confirm_edges(ctx, reader, confirmed_edges, server)
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
    return finish_fused(
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

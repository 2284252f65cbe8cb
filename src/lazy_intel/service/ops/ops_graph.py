"""Graph operations: ``callers``, ``callees``, ``impact``, ``routes`` and the index side of
``references`` / ``implementations``.

Every answer carries coverage statements (DESIGN §5, issue 3 item 5): whether the depth limit cut
the walk short, how many unresolved sites could have been the asked-for uses, and which languages
have no import resolution — so "no callers" is told apart from "could not tell".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lazy_intel.errors import InvalidArgument, LazyIntelError
from lazy_intel.evidence.model import Answer, Item
from lazy_intel.graph.queries import (
    CALL_TYPES,
    IMPACT_TYPES,
    GraphEdge,
    GraphNode,
    Hop,
    Reached,
    edges_out_of,
    file_node,
    members,
    node_paths,
    nodes_by_ids,
    nodes_in_file,
    nodes_with_label,
    tests_edges_into,
    traverse,
)
from lazy_intel.service.ops.cochange import (
    co_change_coverage,
    co_changed_files,
    co_changed_items,
    last_changes,
)
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.filters import check_path
from lazy_intel.service.ops.graph_evidence import (
    GRAPH_COVERAGE,
    GraphReader,
    depth_coverage,
    describe,
    edge_info,
    finish_answer,
    is_constructor,
    language_coverage,
    need_graph,
    node_item,
    node_ref,
    paging,
    request_path,
    request_targets,
    site_item,
    target_items,
    unresolved_lines,
)
from lazy_intel.service.ops.history import open_signals
from lazy_intel.service.ops.ops_fused import fused_calls
from lazy_intel.service.ops.ops_references import live_in_full, live_targets, prime_server, why_not_live

DEFAULT_CALL_DEPTH = 1
DEFAULT_IMPACT_DEPTH = 3
MAX_IMPACT_NODES = 5_000
MAX_TESTS_IN_DATA = 20
TYPE_LABELS = frozenset({"Class", "Interface", "Type"})
LOCAL_KINDS = frozenset({"local", "parameter"})


def _constructors(view: Any, types_: Sequence[GraphNode]) -> list[int]:
    if not types_:
        return []
    inner = nodes_by_ids(view.conn, members(view.conn, [t.id for t in types_]))
    return [n.id for n in inner.values() if is_constructor(n)]


# ---- callers / callees -------------------------------------------------------------------------


def one_per_site(
    entries: list[tuple[GraphEdge, int, float]],
) -> tuple[list[tuple[GraphEdge, int, float]], int]:
    """``entries`` (best first) with each call site once, and how many sites were listed more than
    once: a site's edges to several targets (Kotlin's five `Buffer.write` overloads, a C# method's
    overloads) are one call, and okio's `callers Buffer.write` listed every site five times."""
    seen: set[tuple[int, str | None, int | None, int | None]] = set()
    repeated: set[tuple[int, str | None, int | None, int | None]] = set()
    out: list[tuple[GraphEdge, int, float]] = []
    for entry in entries:
        edge = entry[0]
        site = (edge.src, edge.path, edge.start_byte, edge.end_byte)
        if site in seen:
            repeated.add(site)
            continue
        seen.add(site)
        out.append(entry)
    return out, len(repeated)


def op_callers(ctx: OperationContext) -> Answer:
    return _calls(ctx, incoming=True)


def op_callees(ctx: OperationContext) -> Answer:
    return _calls(ctx, incoming=False)


def _calls(ctx: OperationContext, *, incoming: bool) -> Answer:
    operation = "callers" if incoming else "callees"
    view = need_graph(ctx)
    targets, warnings = request_targets(ctx)
    depth = ctx.request.depth or DEFAULT_CALL_DEPTH
    start = [t.id for t in targets]
    if incoming:  # instantiating a class calls its constructor: count those sites as calls of the class
        start.extend(_constructors(view, [t for t in targets if t.label in TYPE_LABELS]))
    walk = traverse(view.conn, start, types=CALL_TYPES, incoming=incoming, depth=depth)
    reader = GraphReader(view)
    hops: list[Hop] = sorted(
        walk.hops, key=lambda h: (h.distance, -h.confidence, h.edge.path or "", h.edge.start_byte or 0)
    )
    coverage = [GRAPH_COVERAGE, *depth_coverage(walk, operation)]
    open_calls: list[GraphEdge] = []
    if incoming:
        coverage.extend(unresolved_lines(reader, targets, CALL_TYPES))
    else:
        open_calls = [
            e for e in edges_out_of(view.conn, [t.id for t in targets], CALL_TYPES) if e.dst is None
        ]
        if open_calls:
            kinds: dict[str, int] = {}
            for edge in open_calls:
                kinds[edge.strategy] = kinds.get(edge.strategy, 0) + 1
            summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
            coverage.append(
                f"{len(open_calls)} call site(s) of the target itself did not resolve to a workspace "
                f"definition ({summary}); listed after the resolved ones with confidence 0"
            )
    entries: list[tuple[GraphEdge, int, float]] = [(h.edge, h.distance, h.confidence) for h in hops]
    entries.extend((e, 1, 0.0) for e in open_calls)
    if incoming:
        entries, repeated = one_per_site(entries)
        if repeated:
            coverage.append(
                f"{repeated} call site(s) reach several of the targets (overloads, or one name's several "
                "definitions): each is listed once, with the edge of highest confidence"
            )
    reader.nodes([e.src for e, _, _ in entries] + [e.dst for e, _, _ in entries if e.dst is not None])
    reader.prefetch_paths(e.path for e, _, _ in entries)
    items = target_items(reader, targets)
    offset, cursor_for = paging(ctx, len(entries), head=len(items))
    page = entries[offset : offset + ctx.request.limit]
    for edge, distance, confidence in page:
        callee = node_ref(reader.node(edge.dst)) or {"name": edge.target, "resolved": False}
        extra = {"distance": distance, "caller": node_ref(reader.node(edge.src)), "callee": callee}
        item = site_item(reader, edge, kind="call", confidence=confidence, extra=extra)
        if item is not None:
            items.append(item)
    langs = [t.lang for t in targets] + [n.lang for n in reader.nodes([]).values()]
    coverage.extend(language_coverage(langs))
    names = ", ".join(t.qualified_name for t in targets)
    message = None if entries else f"no {operation} of {names} in the index"
    data = {
        "source": "index",
        "targets": [node_ref(t) for t in targets],
        "depth": depth,
        "total": len(entries),
    }
    reason = why_not_live(ctx, "call_hierarchy")
    if reason is None:
        try:
            prime_server(ctx, [e.path for e, distance, _ in entries if distance == 1])
            live = live_in_full(ctx, "call_hierarchy", "incoming" if incoming else "outgoing")
        except LazyIntelError as exc:
            reason = f"the live server failed ({exc.code}: {exc.message})"
        else:
            if live.status != "error":
                chosen, note = live_targets(ctx, targets)
                kept = {t.id for t in chosen}
                fused = [
                    (edge, distance, confidence)
                    for edge, distance, confidence in entries
                    if distance > 1 or (edge.dst if incoming else edge.src) in kept or edge.dst is None
                ]
                return fused_calls(
                    ctx,
                    live,
                    chosen,
                    incoming=incoming,
                    hops=fused,
                    coverage=coverage,
                    warnings=[*warnings, *note],
                    data={"targets": [node_ref(t) for t in chosen], "depth": depth},
                )
            reason = f"the live server answered {live.code}: {live.message}"
    coverage.append(f"source: index graph, because {reason}")
    return finish_answer(
        ctx,
        operation,
        items,
        coverage=coverage,
        warnings=warnings,
        data=data,
        cursor_for=cursor_for,
        message=message,
    )


# ---- impact ------------------------------------------------------------------------------------


def _impact_start(ctx: OperationContext) -> tuple[list[GraphNode], list[GraphNode], list[str]]:
    """(what the answer names as its targets, where the walk starts, warnings)."""
    request = ctx.request
    if request.symbol:
        targets, warnings = request_targets(ctx)
        return targets, targets, warnings
    path = request_path(ctx)
    if path is None:
        raise InvalidArgument("impact needs symbol or relativePath")
    view = ctx.need_view()
    file = file_node(view.conn, path)
    if file is None:
        raise InvalidArgument(f"{path} has no graph node (its language is not in the graph)")
    defs = [n for n in nodes_in_file(view.conn, path) if n.label != "File" and n.kind not in LOCAL_KINDS]
    return [file], [file, *defs], []


def _dependent_item(reader: GraphReader, nodes: dict[int, GraphNode], reached: Reached) -> Item | None:
    node = nodes[reached.node]
    via = reached.via
    parent = nodes.get(reached.parent)
    text = (
        f"{describe(node)}: distance {reached.distance}, {via.type} {via.target or ''} -> "
        f"{parent.qualified_name if parent else '?'}"
    )
    extra: dict[str, Any] = {
        "distance": reached.distance,
        "via": {**edge_info(via), "path": via.path, "line": via.line},
        "depends_on": node_ref(parent),
    }
    if node.is_test:
        extra["test"] = True
    return node_item(reader, node, kind="dependent", text=text, confidence=reached.confidence, extra=extra)


def op_impact(ctx: OperationContext) -> Answer:
    view = need_graph(ctx)
    targets, start_nodes, warnings = _impact_start(ctx)
    depth = ctx.request.depth or DEFAULT_IMPACT_DEPTH
    start = [t.id for t in start_nodes]
    inner = members(view.conn, start)
    start.extend(inner + members(view.conn, inner))  # a class's methods, and their nested definitions
    walk = traverse(
        view.conn,
        start,
        types=IMPACT_TYPES,
        incoming=True,
        depth=depth,
        max_nodes=MAX_IMPACT_NODES,
        hops=False,
    )
    reader = GraphReader(view)
    nodes = reader.nodes([r.node for r in walk.reached] + [r.parent for r in walk.reached] + start)
    reached = [r for r in walk.reached if r.node in nodes and nodes[r.node].kind not in LOCAL_KINDS]
    reached.sort(
        key=lambda r: (r.distance, -r.confidence, nodes[r.node].path or "", nodes[r.node].start_byte or 0)
    )
    impacted = set(start) | {r.node for r in reached}
    # why each test is affected: a text, or the TESTS edge (dst, target, strategy) it is made of
    tests: dict[int, tuple[float, str | tuple[int, str | None, str]]] = {}
    for r in reached:
        if nodes[r.node].is_test:
            tests[r.node] = (r.confidence, f"reaches the target at distance {r.distance}")
    for src, dst, strategy, confidence, target in tests_edges_into(view.conn, impacted):
        if src not in tests or tests[src][0] < confidence:
            tests[src] = (confidence, (dst, target, strategy))
    # thousands of affected tests at 100k files: their paths order them, whole rows only for a page
    test_paths = node_paths(view.conn, tests)
    test_list = sorted(
        tests.items(),
        key=lambda kv: (-kv[1][0], test_paths[kv[0]] or "") if kv[0] in test_paths else (0, ""),
    )

    def why_tested(why: str | tuple[int, str | None, str]) -> str:
        if isinstance(why, str):
            return why
        dst, target, strategy = why
        subject = reader.node(dst)
        return f"tests {subject.qualified_name if subject else target} ({strategy})"

    # every result is counted; items are built for the requested page only
    entries: list[Reached | tuple[int, float, str | tuple[int, str | None, str]]] = [*reached]
    entries.extend((n, conf, why) for n, (conf, why) in test_list if n in test_paths)
    head = target_items(reader, targets)
    with open_signals(ctx) as history:
        pairs = co_changed_files(history, view, [t.path for t in targets if t.path])
        changed = last_changes(
            history, [(t.path, t.qualified_name) for t in targets if t.path and t.label != "File"]
        )
        history_note = co_change_coverage(history)
    if not ctx.request.cursor:  # the first page names the co-changed files after the targets
        head.extend(co_changed_items(view, pairs))
    offset, cursor_for = paging(ctx, len(entries), head=len(head))
    page = entries[offset : offset + ctx.request.limit]
    shown_tests = [n for n, _ in test_list[:MAX_TESTS_IN_DATA] if n in test_paths]
    test_nodes = reader.nodes([e[0] for e in page if not isinstance(e, Reached)] + shown_tests)
    reader.prefetch_paths(
        [nodes[e.node].path if isinstance(e, Reached) else test_paths[e[0]] for e in page]
        + [t.path for t in targets]
    )
    items = list(head)
    for entry in page:
        item = (
            _dependent_item(reader, nodes, entry)
            if isinstance(entry, Reached)
            else node_item(
                reader,
                test_nodes[entry[0]],
                kind="affected_test",
                text=f"{describe(test_nodes[entry[0]])}: {why_tested(entry[2])}",
                confidence=entry[1],
            )
        )
        if item is not None:
            items.append(item)
    coverage = [
        GRAPH_COVERAGE,
        "edges followed backwards: " + ", ".join(IMPACT_TYPES),
        *depth_coverage(walk, "dependents"),
    ]
    if ctx.request.symbol:
        coverage.extend(unresolved_lines(reader, targets, IMPACT_TYPES))
    else:
        coverage.append("unresolved sites are not counted for a whole file; ask per symbol to see them")
    coverage.append(
        "affected tests: tests that reach the target through the graph, plus TESTS edges (naming and imports)"
    )
    coverage.extend(language_coverage(nodes[r.node].lang for r in reached))
    coverage.append(history_note)
    by_distance: dict[str, int] = {}
    for r in reached:
        by_distance[str(r.distance)] = by_distance.get(str(r.distance), 0) + 1
    data = {
        "source": "index",
        "targets": [node_ref(t) for t in targets],
        "depth": depth,
        "dependents": len(reached),
        "by_distance": by_distance,
        "files": len({nodes[r.node].path for r in reached}),
        "affected_tests": [node_ref(test_nodes[n]) for n in shown_tests],
        "affected_test_count": len(tests),
        "co_changed": [p.to_dict() for p in pairs],
        "last_changes": changed,
    }
    return finish_answer(
        ctx, "impact", items, coverage=coverage, warnings=warnings, data=data, cursor_for=cursor_for
    )


# ---- routes ------------------------------------------------------------------------------------


def op_routes(ctx: OperationContext) -> Answer:
    view = need_graph(ctx)
    request = ctx.request
    routes = nodes_with_label(view.conn, "Route")
    if request.path_glob is not None:  # refused when it matches no indexed file (service/ops/filters.py)
        glob = check_path(request.path_glob, view, ctx.workspace.root)
        routes = [  # the same GLOB semantics as the check (and as search)
            r for r in routes if r.path and view.conn.execute("SELECT ? GLOB ?", (r.path, glob)).fetchone()[0]
        ]
    if request.query:
        needle = request.query.lower()
        routes = [r for r in routes if needle in r.name.lower()]
    handles: dict[int, GraphEdge] = {}
    for edge in edges_out_of(view.conn, [r.id for r in routes], ("HANDLES",)):
        kept = handles.get(edge.src)
        if kept is None or (kept.dst is None and edge.dst is not None) or edge.confidence > kept.confidence:
            handles[edge.src] = edge
    reader = GraphReader(view)
    reader.nodes(e.dst for e in handles.values() if e.dst is not None)
    reader.prefetch_paths(r.path for r in routes)
    offset, cursor_for = paging(ctx, len(routes))
    items: list[Item] = []
    for route in routes[offset : offset + request.limit]:
        edge = handles.get(route.id)
        handler = reader.node(edge.dst) if edge is not None else None
        props = route.properties
        handler_name = handler.qualified_name if handler else (edge.target if edge and edge.target else "?")
        text = f"{props.get('method', '')} {props.get('path', '')} -> {handler_name} ({props.get('framework', '?')})"
        extra: dict[str, Any] = {
            "method": props.get("method"),
            "pattern": props.get("path"),
            "framework": props.get("framework"),
            "handler": node_ref(handler) or {"name": handler_name, "resolved": False},
        }
        if edge is not None:
            extra["edge"] = edge_info(edge)
        item = node_item(
            reader, route, kind="route", text=text, confidence=edge.confidence if edge else None, extra=extra
        )
        if item is not None:
            items.append(item)
    unresolved = sum(1 for r in routes if r.id not in handles or handles[r.id].dst is None)
    coverage = [
        "routes: Flask, FastAPI, Starlette (Route, WebSocketRoute), Django (path/re_path/url), Express, "
        "Next.js (pages/, app/) and Go (gin, echo, chi, fiber, gorilla/mux, net/http) are recognised "
        "from syntax; other frameworks, "
        "group and mount prefixes and dynamically built routes are not",
        f"{unresolved} route(s) without a resolved handler"
        if unresolved
        else "every route has a resolved handler",
    ]
    frameworks = sorted({str(r.properties.get("framework")) for r in routes})
    data = {"source": "index", "total": len(routes), "frameworks": frameworks}
    message = None if routes else "no HTTP routes recognised in the index"
    return finish_answer(
        ctx,
        "routes",
        items,
        coverage=coverage,
        warnings=[],
        data=data,
        cursor_for=cursor_for,
        message=message,
    )

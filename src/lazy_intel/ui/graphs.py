"""A symbol's neighbourhood as a graph for the page, built from the ``callers``/``callees`` and
``impact`` answers (their JSON form) — nodes keyed by (name, path, line) so that the graphs of two
symbols merge when the page expands a node.

Node ``anchor``: the definition's anchor where the answer gives it (targets, impact dependents);
otherwise the page asks the ``symbol`` operation for it when the node is opened. Edge ``anchor``:
the call site or the use (``via``) the answer names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Json = Mapping[str, Any]


def node_key(name: str, path: str | None, line: int | None) -> str:
    return f"{name}|{path or ''}|{line or 0}"


def _ref_node(ref: Json, role: str, distance: int) -> dict[str, Any]:
    resolved = ref.get("resolved", True) is not False and bool(ref.get("path"))
    name = str(ref.get("name") or "?")
    return {
        "id": node_key(name, ref.get("path"), ref.get("line")) if resolved else f"external|{name}",
        "name": name,
        "kind": str(ref.get("label") or "").lower() or None,
        "path": ref.get("path"),
        "line": ref.get("line"),
        "role": role if resolved else "external",
        "distance": distance,
        "resolved": resolved,
    }


def _item_node(item: Json, role: str, distance: int) -> dict[str, Any]:
    anchor = item["anchor"]
    symbol = item.get("symbol") or {}
    name = str(symbol.get("qualified_name") or anchor["path"])
    return {
        "id": node_key(name, anchor["path"], anchor.get("start_line")),
        "name": name,
        "kind": symbol.get("kind") or "file",
        "path": anchor["path"],
        "line": anchor.get("start_line"),
        "role": role,
        "distance": distance,
        "resolved": True,
        "anchor": dict(anchor),
    }


def _targets(answers: list[Json]) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for answer in answers:
        for item in answer.get("items") or ():
            if item.get("kind") == "target" and item.get("anchor"):
                node = _item_node(item, "target", 0)
                out.setdefault(node["id"], node)
    return list(out.values())


class _Builder:
    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: dict[str, dict[str, Any]] = {}

    def node(self, node: dict[str, Any]) -> str:
        kept = self.nodes.get(node["id"])
        if kept is None:
            self.nodes[node["id"]] = node
        else:  # the closer role wins; an anchor is kept once known
            if node["distance"] < kept["distance"]:
                kept.update(role=node["role"], distance=node["distance"])
            if "anchor" in node and "anchor" not in kept:
                kept["anchor"] = node["anchor"]
        return str(node["id"])

    def edge(self, src: str, dst: str, item: Json, edge: Json, kind: str) -> None:
        key = f"{src}->{dst}:{edge.get('type', kind)}"
        anchor = item.get("anchor") if kind == "call" else None
        found = self.edges.get(key)
        if found is not None:
            found["sites"] += 1
            return
        self.edges[key] = {
            "id": key,
            "from": src,
            "to": dst,
            "type": edge.get("type") or kind,
            "strategy": edge.get("strategy"),
            "confidence": edge.get("confidence"),
            "written": edge.get("written"),
            "anchor": dict(anchor) if isinstance(anchor, Mapping) else None,
            "site": {"path": edge.get("path"), "line": edge.get("line")} if kind != "call" else None,
            "sites": 1,
        }

    def result(self, mode: str, answers: list[Json]) -> dict[str, Any]:
        return {
            "mode": mode,
            "nodes": sorted(self.nodes.values(), key=lambda n: (n["distance"], n["role"], n["id"])),
            "edges": sorted(self.edges.values(), key=lambda e: e["id"]),
            "coverage": sorted({c for a in answers for c in a.get("coverage") or ()}),
            "warnings": sorted({w for a in answers for w in a.get("warnings") or ()}),
            "totals": {str(a.get("operation")): (a.get("data") or {}).get("total") for a in answers},
            "more": any(a.get("next_cursor") for a in answers),
        }


def call_graph(callers: Json, callees: Json) -> dict[str, Any]:
    """Target(s), their callers (role ``caller``) and callees (``callee``; ``external`` when the
    call did not resolve), with one edge per (caller, callee) and the number of call sites."""
    build = _Builder()
    for node in _targets([callers, callees]):
        build.node(node)
    for answer, role in ((callers, "caller"), (callees, "callee")):
        for item in answer.get("items") or ():
            if item.get("kind") != "call":
                continue
            distance = int(item.get("distance") or 1)
            caller, callee = item.get("caller") or {}, item.get("callee") or {}
            near = role if distance > 1 else "target"  # the other end is one step closer
            if role == "caller":
                src = build.node(_ref_node(caller, "caller", distance))
                dst = build.node(_ref_node(callee, near, distance - 1))
            else:
                src = build.node(_ref_node(caller, near, distance - 1))
                dst = build.node(_ref_node(callee, "callee", distance))
            build.edge(src, dst, item, item.get("edge") or {}, "call")
    return build.result("calls", [callers, callees])


def impact_graph(impact: Json) -> dict[str, Any]:
    """Target(s) and their dependents: an edge from each dependent to what it depends on (the
    ``via`` edge's type), tests marked; tests found only by TESTS edges hang off the first target."""
    build = _Builder()
    targets = _targets([impact])
    for node in targets:
        build.node(node)
    for item in impact.get("items") or ():
        if item.get("kind") != "dependent" or not item.get("anchor"):
            continue
        distance = int(item.get("distance") or 1)
        node = _item_node(item, "test" if item.get("test") else "dependent", distance)
        src = build.node(node)
        on = item.get("depends_on") or {}
        dst = build.node(_ref_node(on, "dependent" if distance > 1 else "target", distance - 1))
        via = dict(item.get("via") or {})
        build.edge(src, dst, item, via, "use")
    for item in impact.get("items") or ():
        if item.get("kind") != "affected_test" or not item.get("anchor"):
            continue
        node = _item_node(item, "test", 99)
        if node["id"] in build.nodes:
            build.nodes[node["id"]]["role"] = "test"
            continue
        src = build.node(node)
        if targets:
            build.edge(src, targets[0]["id"], item, {"type": "TESTS", "written": item.get("text")}, "use")
    for node in build.nodes.values():
        if node["distance"] == 99:
            node["distance"] = 1
    return build.result("impact", [impact])

"""The package picture: an ``architecture`` answer turned into positioned boxes and arrows.

Pure functions, no I/O. The same :class:`Picture` feeds the static writers (SVG, HTML, DOT, Mermaid)
and the live page, so the browser and a file show one drawing.

Layout (a small Sugiyama-style layering of our own): the rows are the answer's layers — layer 0
(depends on no other package) at the bottom, each package one row above the highest it depends on,
so every dependency arrow points down or, inside a cycle, sideways. Within a row, packages are ordered
by a few barycenter sweeps (each moves towards the mean position of its neighbours) to uncross
arrows; a row of more than :data:`MAX_PER_ROW` packages, or wider than :data:`MAX_ROW_WIDTH`,
wraps onto extra rows.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

NODE_HEIGHT = 40
ROW_GAP = 70  # vertical space between rows (room for the arrows)
NODE_GAP = 28
CHAR_WIDTH = 7.6  # estimated width of one label character at 12px bold sans-serif
DETAIL_CHAR_WIDTH = 6.0  # at 10px
MIN_NODE_WIDTH = 90
MAX_LABEL_CHARS = 44
MAX_PER_ROW = 8
MAX_ROW_WIDTH = 1100  # a wider row wraps (the page and the file stay readable at 100%)
SWEEPS = 6
MARGIN = 24


@dataclass(frozen=True)
class PackageNode:
    package: str
    files: int
    languages: Mapping[str, int]
    layer: int
    routes: int = 0
    cycle: int | None = None  # index into Picture.package_cycles
    x: float = 0.0  # centre
    y: float = 0.0  # centre
    width: float = MIN_NODE_WIDTH
    height: float = NODE_HEIGHT

    @property
    def label(self) -> str:
        return short_label(self.package)

    @property
    def detail(self) -> str:
        langs = ", ".join(sorted(self.languages, key=lambda k: (-self.languages[k], k))[:2])
        text = f"{self.files} file{'s' if self.files != 1 else ''}"
        if langs:
            text += f" · {langs}"
        if self.routes:
            text += f" · {self.routes} route{'s' if self.routes != 1 else ''}"
        return text


@dataclass(frozen=True)
class PackageEdge:
    source: str  # depends on ...
    target: str  # ... this package
    counts: Mapping[str, int]
    in_cycle: bool = False
    guessed: bool = False  # only unresolved guesses (when the answer lists them apart)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def summary(self) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        return f"{self.source} → {self.target}: {kinds}"


@dataclass(frozen=True)
class Symbol:
    """An anchored item of the answer: a central symbol or an entry point."""

    kind: str  # central_symbol | entry_point | hotspot
    text: str
    qualified_name: str | None
    symbol_kind: str | None
    path: str
    start_line: int
    end_line: int
    sha256: str
    score: float | None = None


@dataclass(frozen=True)
class Picture:
    name: str  # what the picture is of: the root's name, then the scope when it is not the root
    scope: str
    generation: int
    published_at: str | None
    files: int
    package_count: int
    dependency_count: int
    nodes: tuple[PackageNode, ...]
    edges: tuple[PackageEdge, ...]
    package_cycles: tuple[tuple[str, ...], ...]
    import_cycles: tuple[tuple[str, ...], ...]
    central: tuple[Symbol, ...]
    entry_points: tuple[Symbol, ...]
    coverage: tuple[str, ...]
    width: float
    height: float
    rows: tuple[int, ...] = field(default=())  # layer of each drawn row, top to bottom
    hotspots: tuple[Symbol, ...] = field(default=())  # files/definitions that change often (git)

    @property
    def trimmed(self) -> bool:
        return len(self.nodes) < self.package_count


def short_label(package: str) -> str:
    if len(package) <= MAX_LABEL_CHARS:
        return package
    return "…" + package[-(MAX_LABEL_CHARS - 1) :]


def node_width(package: str, detail: str = "") -> float:
    return max(
        MIN_NODE_WIDTH, len(short_label(package)) * CHAR_WIDTH + 24, len(detail) * DETAIL_CHAR_WIDTH + 20
    )


def _symbols(items: Sequence[Mapping[str, Any]], kind: str) -> tuple[Symbol, ...]:
    out: list[Symbol] = []
    for item in items:
        if item.get("kind") != kind or not isinstance(item.get("anchor"), Mapping):
            continue
        anchor = item["anchor"]
        symbol = item.get("symbol") if isinstance(item.get("symbol"), Mapping) else {}
        out.append(
            Symbol(
                kind=kind,
                text=str(item.get("text") or ""),
                qualified_name=symbol.get("qualified_name"),
                symbol_kind=symbol.get("kind"),
                path=str(anchor["path"]),
                start_line=int(anchor.get("start_line") or 1),
                end_line=int(anchor.get("end_line") or anchor.get("start_line") or 1),
                sha256=str(anchor.get("sha256") or ""),
                score=item.get("score"),
            )
        )
    return tuple(out)


def _dependency_entries(data: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], bool]]:
    """Resolved dependencies, then (when the answer lists them apart) the guessed ones."""
    out: list[tuple[Mapping[str, Any], bool]] = [(d, False) for d in data.get("dependencies") or ()]
    out.extend((d, True) for d in data.get("guessed_dependencies") or ())
    return out


def picture_from_answer(answer: Mapping[str, Any], root_name: str | None = None) -> Picture:
    """The picture of one ``architecture`` answer (its JSON form); positions are computed here.
    ``root_name`` names the repository in titles (the answer names only the scope)."""
    data = answer.get("data") or {}
    view = answer.get("view") or {}
    cycles = tuple(tuple(str(p) for p in c) for c in data.get("package_cycles") or ())
    cycle_of = {p: i for i, c in enumerate(cycles) for p in c}
    packages = [p for p in data.get("packages") or () if isinstance(p, Mapping)]
    shown = {str(p["package"]) for p in packages}
    edges: dict[tuple[str, str], PackageEdge] = {}
    for dep, guessed in _dependency_entries(data):
        a, b = str(dep.get("from")), str(dep.get("to"))
        if a not in shown or b not in shown or a == b:
            continue
        counts = {str(k): int(v) for k, v in (dep.get("edges") or {}).items()}
        if (a, b) in edges:  # a pair both resolved and guessed: one arrow, resolved wins
            if not guessed:
                edges[(a, b)] = PackageEdge(a, b, counts, edges[(a, b)].in_cycle, False)
            continue
        in_cycle = a in cycle_of and cycle_of.get(a) == cycle_of.get(b)
        edges[(a, b)] = PackageEdge(a, b, counts, in_cycle, guessed)
    nodes = []
    for p in packages:
        node = PackageNode(
            package=str(p["package"]),
            files=int(p.get("files") or 0),
            languages={str(k): int(v) for k, v in (p.get("languages") or {}).items()},
            layer=int(p.get("layer") or 0),
            routes=int(p.get("routes") or 0),
            cycle=cycle_of.get(str(p["package"])),
        )
        nodes.append(replace(node, width=node_width(node.package, node.detail)))
    placed, width, height, rows = layered_layout(nodes, [(e.source, e.target) for e in edges.values()])
    items = [i for i in answer.get("items") or () if isinstance(i, Mapping)]
    scope = str(data.get("scope") or ".")
    name = scope if not root_name else root_name if scope == "." else f"{root_name}/{scope}"
    return Picture(
        name=name,
        scope=scope,
        generation=int(view.get("generation") or 0),
        published_at=view.get("published_at"),
        files=int(data.get("files") or 0),
        package_count=int(data.get("package_count") or len(nodes)),
        dependency_count=int(data.get("dependency_count") or len(edges)),
        nodes=tuple(placed),
        edges=tuple(sorted(edges.values(), key=lambda e: (e.source, e.target))),
        package_cycles=cycles,
        import_cycles=tuple(tuple(str(p) for p in c) for c in data.get("import_cycles") or ()),
        central=_symbols(items, "central_symbol"),
        entry_points=_symbols(items, "entry_point"),
        coverage=tuple(str(c) for c in answer.get("coverage") or ()),
        width=width,
        height=height,
        rows=rows,
        hotspots=_symbols(items, "hotspot"),
    )


def _order_layers(by_layer: dict[int, list[str]], neighbours: Mapping[str, set[str]]) -> dict[int, list[str]]:
    """Barycenter sweeps: each package moves towards the mean relative position of its neighbours."""
    order = {layer: list(members) for layer, members in by_layer.items()}
    levels = sorted(order)

    def positions() -> dict[str, float]:
        out: dict[str, float] = {}
        for members in order.values():
            span = max(1, len(members) - 1)
            out.update({p: i / span for i, p in enumerate(members)})
        return out

    for sweep in range(SWEEPS):
        sequence = levels if sweep % 2 == 0 else list(reversed(levels))
        for layer in sequence:
            where = positions()
            members = order[layer]
            current = {p: i for i, p in enumerate(members)}

            def key(p: str, where: dict[str, float] = where, current: dict[str, int] = current) -> tuple:
                near = [where[n] for n in neighbours.get(p, ()) if n in where and n not in current]
                span = max(1, len(current) - 1)
                centre = sum(near) / len(near) if near else current[p] / span
                return (round(centre, 9), current[p])

            order[layer] = sorted(members, key=key)
    return order


def layered_layout(
    nodes: Sequence[PackageNode], edges: Sequence[tuple[str, str]]
) -> tuple[list[PackageNode], float, float, tuple[int, ...]]:
    """Nodes with positions (centres), the drawing's width and height, and each row's layer."""
    if not nodes:
        return [], 2 * MARGIN, 2 * MARGIN, ()
    known = {n.package: n for n in nodes}
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        if a in known and b in known:
            neighbours[a].add(b)
            neighbours[b].add(a)
    by_layer: dict[int, list[str]] = defaultdict(list)
    for n in sorted(nodes, key=lambda n: (-n.files, n.package)):
        by_layer[n.layer].append(n.package)
    order = _order_layers(by_layer, neighbours)
    rows: list[tuple[int, list[str]]] = []
    for layer in sorted(order, reverse=True):  # highest layer at the top
        members = order[layer]
        total = sum(known[p].width for p in members) + NODE_GAP * (len(members) - 1)
        count = max(math.ceil(len(members) / MAX_PER_ROW), math.ceil(total / MAX_ROW_WIDTH))
        per_row = math.ceil(len(members) / count)
        for start in range(0, len(members), per_row):
            rows.append((layer, members[start : start + per_row]))
    row_widths = [sum(known[p].width for p in members) + NODE_GAP * (len(members) - 1) for _, members in rows]
    width = max(row_widths) + 2 * MARGIN
    placed: list[PackageNode] = []
    for index, ((_layer, members), row_width) in enumerate(zip(rows, row_widths, strict=True)):
        y = MARGIN + NODE_HEIGHT / 2 + index * (NODE_HEIGHT + ROW_GAP)
        x = (width - row_width) / 2
        for p in members:
            n = known[p]
            placed.append(_moved(n, x + n.width / 2, y))
            x += n.width + NODE_GAP
    height = 2 * MARGIN + len(rows) * NODE_HEIGHT + (len(rows) - 1) * ROW_GAP
    return placed, width, height, tuple(layer for layer, _ in rows)


def _moved(node: PackageNode, x: float, y: float) -> PackageNode:
    return PackageNode(
        node.package,
        node.files,
        node.languages,
        node.layer,
        node.routes,
        node.cycle,
        round(x, 1),
        round(y, 1),
        node.width,
        node.height,
    )


def picture_to_dict(picture: Picture) -> dict[str, Any]:
    """The JSON form the live page draws (the same positions as the static SVG)."""
    return {
        "name": picture.name,
        "scope": picture.scope,
        "generation": picture.generation,
        "published_at": picture.published_at,
        "files": picture.files,
        "package_count": picture.package_count,
        "dependency_count": picture.dependency_count,
        "width": picture.width,
        "height": picture.height,
        "nodes": [
            {
                "id": n.package,
                "label": n.label,
                "detail": n.detail,
                "files": n.files,
                "languages": dict(n.languages),
                "layer": n.layer,
                "routes": n.routes,
                "cycle": n.cycle,
                "x": n.x,
                "y": n.y,
                "width": n.width,
            }
            for n in picture.nodes
        ],
        "edges": [
            {
                "from": e.source,
                "to": e.target,
                "counts": dict(e.counts),
                "total": e.total,
                "in_cycle": e.in_cycle,
                "guessed": e.guessed,
                "summary": e.summary,
            }
            for e in picture.edges
        ],
        "package_cycles": [list(c) for c in picture.package_cycles],
        "import_cycles": [list(c) for c in picture.import_cycles],
        "central": [_symbol_dict(s) for s in picture.central],
        "entry_points": [_symbol_dict(s) for s in picture.entry_points],
        "hotspots": [_symbol_dict(s) for s in picture.hotspots],
        "coverage": list(picture.coverage),
        "trimmed": picture.trimmed,
    }


def _symbol_dict(s: Symbol) -> dict[str, Any]:
    return {
        "kind": s.kind,
        "text": s.text,
        "qualified_name": s.qualified_name,
        "symbol_kind": s.symbol_kind,
        "path": s.path,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "sha256": s.sha256,
        "score": s.score,
    }

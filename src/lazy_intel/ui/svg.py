"""Our own SVG writer for the package picture (no Graphviz needed): boxes by layer, arrows for
dependencies (red inside a cycle, dashed for guesses), the central symbols and entry points beside.

Every piece of text from the repository (package names, symbol names, paths) goes through
:func:`xml_text`, which escapes markup and replaces characters XML 1.0 cannot carry, so any file
name yields a well-formed document.
"""

from __future__ import annotations

import math
import re

from lazy_intel.ui.picture import MARGIN, NODE_HEIGHT, ROW_GAP, PackageEdge, PackageNode, Picture, Symbol

HEADER = 64
GUTTER = 72  # left column: the layer labels
SIDE = 380  # right column: central symbols, entry points, cycles
LINE = 17
FOOTER_LINE = 15
MAX_SIDE_SYMBOLS = 15
MAX_SIDE_CYCLES = 6
MAX_SIDE_HOTSPOTS = 6
MAX_FOOTER_LINES = 4
SIDE_CHARS = 52

CYCLE_COLOUR = "#c0392b"
EDGE_COLOUR = "#5b6b7f"
GUESS_COLOUR = "#a0a8b3"
NODE_FILL = "#eef3fb"
NODE_STROKE = "#4a6fa5"

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: object) -> str:
    """``value`` as XML character data or attribute text (quotes and line breaks escaped too)."""
    text = _NOT_XML.sub("\ufffd", str(value))
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
        .replace("\t", "&#9;")  # as references, so XML's whitespace normalisation leaves them be
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _edge_path(edge: PackageEdge, nodes: dict[str, PackageNode]) -> str:
    a, b = nodes[edge.source], nodes[edge.target]
    half = NODE_HEIGHT / 2
    if abs(a.y - b.y) < 1:  # same row (a cycle): an arc above the boxes
        sy = ty = a.y - half
        lift = 28 + min(60, abs(a.x - b.x) / 6)
        return f"M{a.x:.1f},{sy:.1f} C{a.x:.1f},{sy - lift:.1f} {b.x:.1f},{ty - lift:.1f} {b.x:.1f},{ty:.1f}"
    if b.y > a.y:  # the usual case: the dependency sits below
        sy, ty = a.y + half, b.y - half
    else:
        sy, ty = a.y - half, b.y + half
    mid = (sy + ty) / 2
    return f"M{a.x:.1f},{sy:.1f} C{a.x:.1f},{mid:.1f} {b.x:.1f},{mid:.1f} {b.x:.1f},{ty:.1f}"


def _stroke(edge: PackageEdge) -> float:
    return round(min(5.0, 1.0 + 0.6 * math.log2(max(1, edge.total))), 2)


def _symbol_line(s: Symbol, rank: int | None) -> str:
    name = s.qualified_name or s.text
    head = f"#{rank} " if rank is not None else ""
    kind = f" ({s.symbol_kind})" if s.symbol_kind else ""
    return _clip(f"{head}{name}{kind}", SIDE_CHARS)


def _side(picture: Picture, x: float, y: float) -> tuple[list[str], float]:
    out: list[str] = []

    def heading(text: str) -> None:
        nonlocal y
        y += 8
        out.append(f'<text class="h2" x="{x:.1f}" y="{y:.1f}">{xml_text(text)}</text>')
        y += LINE + 2

    def line(text: str, sub: str | None = None, cls: str = "t") -> None:
        nonlocal y
        out.append(f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}">{xml_text(text)}</text>')
        y += LINE
        if sub:
            out.append(f'<text class="sub" x="{x + 14:.1f}" y="{y - 3:.1f}">{xml_text(sub)}</text>')
            y += LINE - 4

    heading("Central symbols (PageRank)")
    if not picture.central:
        line("none in this scope", cls="sub")
    for rank, s in enumerate(picture.central[:MAX_SIDE_SYMBOLS], 1):
        line(_symbol_line(s, rank), _clip(f"{s.path}:{s.start_line}", SIDE_CHARS + 4))
    if picture.entry_points:
        heading("Entry points")
        for s in picture.entry_points[:MAX_SIDE_SYMBOLS]:
            line(_clip(s.text, SIDE_CHARS), _clip(f"{s.path}:{s.start_line}", SIDE_CHARS + 4))
    if picture.hotspots:
        heading("Hotspots (commits x size)")
        for s in picture.hotspots[:MAX_SIDE_HOTSPOTS]:
            line(_clip(s.qualified_name or s.path, SIDE_CHARS), _clip(s.text, SIDE_CHARS + 4))
    heading("Package cycles")
    if not picture.package_cycles:
        line("none", cls="sub")
    for cycle in picture.package_cycles[:MAX_SIDE_CYCLES]:
        line(_clip(" ⇄ ".join(cycle), SIDE_CHARS), cls="cyc")
    if len(picture.package_cycles) > MAX_SIDE_CYCLES:
        line(f"… {len(picture.package_cycles) - MAX_SIDE_CYCLES} more", cls="sub")
    if picture.import_cycles:
        heading("File import cycles")
        for cycle in picture.import_cycles[:MAX_SIDE_CYCLES]:
            line(_clip(" ⇄ ".join(cycle), SIDE_CHARS), cls="cyc")
    return out, y


def _node(n: PackageNode, ox: float, oy: float) -> str:
    x, y = ox + n.x - n.width / 2, oy + n.y - n.height / 2
    cls = "node cycle" if n.cycle is not None else "node"
    title = f"{n.package}\n{n.detail}\nlayer {n.layer}" + (
        f"\nin package cycle {n.cycle + 1}" if n.cycle is not None else ""
    )
    return (
        f'<g class="{cls}" data-package="{xml_text(n.package)}"><title>{xml_text(title)}</title>'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{n.width:.1f}" height="{n.height:.1f}" rx="6"/>'
        f'<text class="label" x="{ox + n.x:.1f}" y="{oy + n.y - 3:.1f}">{xml_text(n.label)}</text>'
        f'<text class="detail" x="{ox + n.x:.1f}" y="{oy + n.y + 12:.1f}">{xml_text(n.detail)}</text></g>'
    )


def _edge(e: PackageEdge, nodes: dict[str, PackageNode], ox: float, oy: float) -> str:
    cls = "edge cycle" if e.in_cycle else ("edge guess" if e.guessed else "edge")
    marker = "arrow-cycle" if e.in_cycle else ("arrow-guess" if e.guessed else "arrow")
    return (
        f'<g class="{cls}" data-from="{xml_text(e.source)}" data-to="{xml_text(e.target)}">'
        f"<title>{xml_text(e.summary)}</title>"
        f'<path d="{_edge_path(e, nodes)}" transform="translate({ox:.1f},{oy:.1f})" '
        f'stroke-width="{_stroke(e)}" marker-end="url(#{marker})"/></g>'
    )


STYLE = f"""
text {{ font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; fill: #1d2733; }}
.h1 {{ font-size: 18px; font-weight: bold; }}
.h2 {{ font-size: 13px; font-weight: bold; }}
.t {{ font-size: 12px; }}
.sub {{ font-size: 10.5px; fill: #5f6b7a; }}
.cyc {{ font-size: 12px; fill: {CYCLE_COLOUR}; }}
.layer {{ font-size: 11px; fill: #8591a0; }}
.node rect {{ fill: {NODE_FILL}; stroke: {NODE_STROKE}; stroke-width: 1.2; }}
.node.cycle rect {{ stroke: {CYCLE_COLOUR}; stroke-width: 2.2; fill: #fdf0ee; }}
.node .label {{ font-size: 12px; font-weight: bold; text-anchor: middle; }}
.node .detail {{ font-size: 10px; fill: #5f6b7a; text-anchor: middle; }}
.edge path {{ fill: none; stroke: {EDGE_COLOUR}; opacity: 0.75; }}
.edge.cycle path {{ stroke: {CYCLE_COLOUR}; opacity: 0.95; }}
.edge.guess path {{ stroke: {GUESS_COLOUR}; stroke-dasharray: 5 4; }}
.rowband {{ fill: #f6f8fb; }}
"""


def _marker(name: str, colour: str) -> str:
    return (
        f'<marker id="{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
        'markerUnits="userSpaceOnUse" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
    )


def render_svg(picture: Picture, *, title: str | None = None) -> str:
    """A standalone SVG document of ``picture``."""
    nodes = {n.package: n for n in picture.nodes}
    ox, oy = GUTTER, HEADER
    side_x = GUTTER + picture.width + 24
    side, side_bottom = _side(picture, side_x, HEADER)
    footer = _footer_lines(picture)
    body_h = max(picture.height, side_bottom - HEADER + 12)
    width = side_x + SIDE
    height = HEADER + body_h + 20 + FOOTER_LINE * (len(footer) + 1)
    heading = title or f"Package dependencies — {picture.name}"
    summary = (
        f"generation {picture.generation} · {picture.files} files · "
        f"{len(picture.nodes)} of {picture.package_count} packages · "
        f"{len(picture.edges)} dependencies · {len(picture.package_cycles)} package cycle(s)"
    )
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{xml_text(heading)}">',
        f"<title>{xml_text(heading)}</title>",
        f"<style>{STYLE}</style>",
        "<defs>"
        + _marker("arrow", EDGE_COLOUR)
        + _marker("arrow-cycle", CYCLE_COLOUR)
        + _marker("arrow-guess", GUESS_COLOUR)
        + "</defs>",
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>',
        f'<text class="h1" x="{GUTTER}" y="28">{xml_text(heading)}</text>',
        f'<text class="sub" x="{GUTTER}" y="48">{xml_text(summary)}</text>',
    ]
    out.extend(_bands(picture, oy))
    out.extend(_edge(e, nodes, ox, oy) for e in picture.edges)
    out.extend(_node(n, ox, oy) for n in picture.nodes)
    out.extend(side)
    fy = HEADER + body_h + 20
    legend = "arrows: A → B means A depends on B (resolved edges) · red: a cycle"
    if any(e.guessed for e in picture.edges):
        legend += " · dashed: guessed (unresolved) uses"
    out.append(f'<text class="sub" x="{GUTTER}" y="{fy:.1f}">{xml_text(legend)}</text>')
    for i, text in enumerate(footer, 1):
        out.append(f'<text class="sub" x="{GUTTER}" y="{fy + i * FOOTER_LINE:.1f}">{xml_text(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _bands(picture: Picture, oy: float) -> list[str]:
    """One shaded band per layer (over all its rows, alternating), labelled once."""
    out: list[str] = []
    start = 0
    band = 0
    for index in range(1, len(picture.rows) + 1):
        if index < len(picture.rows) and picture.rows[index] == picture.rows[start]:
            continue
        top = oy + MARGIN + start * (NODE_HEIGHT + ROW_GAP) - 12
        bottom = oy + MARGIN + (index - 1) * (NODE_HEIGHT + ROW_GAP) + NODE_HEIGHT + 12
        if band % 2 == 0:
            out.append(
                f'<rect class="rowband" x="8" y="{top:.1f}" width="{GUTTER + picture.width - 8:.1f}" '
                f'height="{bottom - top:.1f}" rx="4"/>'
            )
        out.append(
            f'<text class="layer" x="12" y="{(top + bottom) / 2 + 4:.1f}">layer {picture.rows[start]}</text>'
        )
        band += 1
        start = index
    return out


def _footer_lines(picture: Picture) -> list[str]:
    lines = [c for c in picture.coverage if "data shows" in c or "packages are" in c]
    return [_clip("coverage: " + c, 190) for c in lines[:MAX_FOOTER_LINES]]

"""The package picture as a static file: ``svg`` (our own writer), ``html`` (that SVG with the
symbol, cycle and coverage lists, no script), ``dot`` (Graphviz, one rank per layer) and ``mermaid``
(a flowchart for a README). Every format quotes repository text its own way, so any package name
survives: XML escaping, DOT string escaping, Mermaid entity codes.
"""

from __future__ import annotations

import re

from lazy_intel.ui.picture import Picture
from lazy_intel.ui.svg import CYCLE_COLOUR, GUESS_COLOUR, render_svg, xml_text

FORMATS: tuple[str, ...] = ("svg", "html", "dot", "mermaid")

_MERMAID_SAFE = re.compile(r"[A-Za-z0-9 _./:@+,()\-]")


def dot_string(value: object) -> str:
    """``value`` as a double-quoted DOT string (backslashes, quotes and line breaks escaped)."""
    out = []
    for ch in str(value):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r" or (ord(ch) < 0x20 and ch != "\t") or ch == "\x7f":
            out.append("\ufffd")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def mermaid_text(value: object) -> str:
    """``value`` for a quoted Mermaid label: every character outside a small safe set becomes an
    entity code (``#35;``), so quotes, brackets, pipes and markup cannot end the label."""
    return "".join(ch if _MERMAID_SAFE.fullmatch(ch) else f"#{ord(ch)};" for ch in str(value))


def render_dot(picture: Picture) -> str:
    out = [
        "digraph packages {",
        f"  label={dot_string(f'Package dependencies — {picture.name} (generation {picture.generation})')};",
        "  labelloc=t; rankdir=TB; newrank=true;",
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", color="#4a6fa5", '
        'fontname="Helvetica", fontsize=11];',
        '  edge [color="#5b6b7f", arrowsize=0.7];',
    ]
    for n in picture.nodes:
        attrs = [f"label={dot_string(n.package + chr(10) + n.detail)}"]
        if n.cycle is not None:
            attrs.append(f'color="{CYCLE_COLOUR}", penwidth=2, fillcolor="#fdf0ee"')
        out.append(f"  {dot_string(n.package)} [{', '.join(attrs)}];")
    for layer in sorted({n.layer for n in picture.nodes}, reverse=True):
        members = " ".join(dot_string(n.package) + ";" for n in picture.nodes if n.layer == layer)
        out.append(f"  {{ rank=same; {members} }}  // layer {layer}")
    for e in picture.edges:
        attrs = [f"label={dot_string(e.total)}", f"tooltip={dot_string(e.summary)}"]
        if e.in_cycle:
            attrs.append(f'color="{CYCLE_COLOUR}", penwidth=2')
        elif e.guessed:
            attrs.append(f'color="{GUESS_COLOUR}", style=dashed')
        out.append(f"  {dot_string(e.source)} -> {dot_string(e.target)} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def render_mermaid(picture: Picture) -> str:
    ids = {n.package: f"p{i}" for i, n in enumerate(picture.nodes)}
    out = [
        "%% Package dependencies — "
        + mermaid_text(picture.name)
        + f" (generation {picture.generation}); A --> B: A depends on B",
        "flowchart TD",
    ]
    for n in picture.nodes:
        out.append(f'  {ids[n.package]}["{mermaid_text(n.package)}<br/>{mermaid_text(n.detail)}"]')
    cycle_links: list[int] = []
    guess_links: list[int] = []
    for index, e in enumerate(picture.edges):
        arrow = "-.->" if e.guessed and not e.in_cycle else "-->"
        out.append(f"  {ids[e.source]} {arrow}|{e.total}| {ids[e.target]}")
        if e.in_cycle:
            cycle_links.append(index)
        elif e.guessed:
            guess_links.append(index)
    cycle_nodes = [ids[n.package] for n in picture.nodes if n.cycle is not None]
    if cycle_nodes:
        out.append(f"  classDef cycle stroke:{CYCLE_COLOUR},stroke-width:2px,fill:#fdf0ee")
        out.append(f"  class {','.join(cycle_nodes)} cycle")
    if cycle_links:
        out.append(f"  linkStyle {','.join(map(str, cycle_links))} stroke:{CYCLE_COLOUR},stroke-width:2px")
    if guess_links:
        out.append(f"  linkStyle {','.join(map(str, guess_links))} stroke:{GUESS_COLOUR}")
    return "\n".join(out) + "\n"


HTML_STYLE = """
body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; margin: 24px; color: #1d2733; }
h1 { font-size: 20px; } h2 { font-size: 15px; margin-top: 24px; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border-bottom: 1px solid #e3e8ef; padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
.cycle { color: #c0392b; } .muted { color: #5f6b7a; font-size: 12px; }
.picture { overflow: auto; border: 1px solid #e3e8ef; }
"""


def render_html(picture: Picture) -> str:
    """One self-contained page: the SVG inline, then the lists (no script, nothing fetched)."""
    svg = render_svg(picture).split("\n", 1)[1]  # drop the XML declaration inside HTML
    title = f"Package dependencies — {picture.name}"
    rows = [
        f"<tr><td>{rank}</td><td>{xml_text(s.qualified_name or s.text)}</td>"
        f"<td>{xml_text(s.symbol_kind or '')}</td><td>{xml_text(s.path)}:{s.start_line}-{s.end_line}</td>"
        f"<td>{s.score:.4f}</td></tr>"
        if s.score is not None
        else f"<tr><td>{rank}</td><td>{xml_text(s.qualified_name or s.text)}</td><td></td>"
        f"<td>{xml_text(s.path)}:{s.start_line}</td><td></td></tr>"
        for rank, s in enumerate(picture.central, 1)
    ]
    deps = [
        f'<tr class="{"cycle" if e.in_cycle else ""}"><td>{xml_text(e.source)}</td><td>{xml_text(e.target)}</td>'
        f"<td>{xml_text(', '.join(f'{n} {k}' for k, n in sorted(e.counts.items())))}</td>"
        f"<td>{'guessed' if e.guessed else 'resolved'}</td></tr>"
        for e in picture.edges
    ]
    entries = [
        f"<li>{xml_text(s.text)} <span class=muted>{xml_text(s.path)}:{s.start_line}</span></li>"
        for s in picture.entry_points
    ]
    spots = [
        f"<li>{xml_text(s.qualified_name or s.path)} <span class=muted>{xml_text(s.text)}</span></li>"
        for s in picture.hotspots
    ]
    cycles = [f'<li class="cycle">{xml_text(" ⇄ ".join(c))}</li>' for c in picture.package_cycles]
    imports = [f'<li class="cycle">{xml_text(" ⇄ ".join(c))}</li>' for c in picture.import_cycles]
    coverage = [f"<li>{xml_text(c)}</li>" for c in picture.coverage]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{xml_text(title)}</title><style>{HTML_STYLE}</style></head><body>",
            f"<h1>{xml_text(title)}</h1>",
            f'<p class="muted">generation {picture.generation} · published {xml_text(picture.published_at or "?")}'
            f" · {picture.files} files · {picture.package_count} packages</p>",
            f'<div class="picture">{svg}</div>',
            "<h2>Central symbols (PageRank)</h2>",
            "<table><tr><th>#</th><th>symbol</th><th>kind</th><th>where</th><th>score</th></tr>"
            + "".join(rows)
            + "</table>",
            "<h2>Entry points</h2><ul>" + ("".join(entries) or "<li>none</li>") + "</ul>",
            ("<h2>Hotspots (commits x size)</h2><ul>" + "".join(spots) + "</ul>") if spots else "",
            "<h2>Package cycles</h2><ul>" + ("".join(cycles) or "<li>none</li>") + "</ul>",
            "<h2>File import cycles</h2><ul>" + ("".join(imports) or "<li>none</li>") + "</ul>",
            "<h2>Package dependencies</h2>",
            "<table><tr><th>from</th><th>to</th><th>edges</th><th></th></tr>" + "".join(deps) + "</table>",
            "<h2>Coverage</h2><ul>" + "".join(coverage) + "</ul>",
            "</body></html>",
        ]
    )


def render(picture: Picture, fmt: str) -> str:
    if fmt == "svg":
        return render_svg(picture)
    if fmt == "html":
        return render_html(picture)
    if fmt == "dot":
        return render_dot(picture)
    if fmt == "mermaid":
        return render_mermaid(picture)
    raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")

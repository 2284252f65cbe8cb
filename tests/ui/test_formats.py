"""Static pictures: every format carries any package name intact (a fuzzer over names with quotes,
markup, control characters, newlines, astral characters) and draws what the picture holds."""

from __future__ import annotations

import html.parser
import re
import xml.etree.ElementTree as ET

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.cli.main import main
from lazy_intel.ui.formats import dot_string, mermaid_text, render_dot, render_html, render_mermaid
from lazy_intel.ui.picture import picture_from_answer
from lazy_intel.ui.svg import render_svg
from tests.ui.conftest import make_shop
from tests.ui.test_picture import architecture_answer

SVG = "{http://www.w3.org/2000/svg}"
NAMES = st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != "")
XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_form(name: str) -> str:
    """What survives XML 1.0: invalid characters become U+FFFD (line breaks are kept as references)."""
    return XML_INVALID.sub("\ufffd", name)


def dot_unquote(quoted: str) -> str:
    assert quoted.startswith('"') and quoted.endswith('"')
    body = quoted[1:-1]
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            nxt = body[i + 1]
            out.append("\n" if nxt == "n" else nxt)
            i += 2
        else:
            assert body[i] != '"', "an unescaped quote ends the string early"
            out.append(body[i])
            i += 1
    return "".join(out)


def mermaid_decode(text: str) -> str:
    assert not set(text) & set('"[]{}|<>`'), text
    return re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), text)


@settings(max_examples=80, deadline=None)
@given(st.lists(NAMES, min_size=2, max_size=6, unique=True))
def test_any_package_name_survives_every_format(names: list[str]) -> None:
    deps = {(names[0], names[1]), (names[1], names[0])} | {(n, names[0]) for n in names[2:]}
    picture = picture_from_answer(architecture_answer(names, deps), "repo")

    svg = ET.fromstring(render_svg(picture).split("\n", 1)[1])  # well-formed, whatever the names
    drawn = {g.get("data-package") for g in svg.iter(f"{SVG}g") if g.get("data-package") is not None}
    expected = {xml_form(n) for n in names}
    assert drawn == expected
    cycle = {g.get("data-package") for g in svg.iter(f"{SVG}g") if "cycle" in (g.get("class") or "")}
    assert {xml_form(n) for n in names[:2]} <= cycle

    dot = render_dot(picture)
    quoted = re.findall(r'"(?:[^"\\]|\\.)*"', dot)
    strings = {dot_unquote(q) for q in quoted}
    for n in names:
        assert dot_string(n) in quoted
        assert re.sub("[\r\x00-\x08\x0b-\x1f\x7f]", "\ufffd", n) in strings
    assert dot.count("{ rank=same;") == len({n.layer for n in picture.nodes})
    assert len(re.findall(r"^  \".*\" -> \".*\" \[", dot, re.M)) == len(deps)

    mermaid = render_mermaid(picture)
    labels = re.findall(r'^  p\d+\["(.*)"\]$', mermaid, re.M)
    assert {mermaid_decode(label.split("<br/>")[0]) for label in labels} == set(names)
    assert len(re.findall(r"^  p\d+ -->\|\d+\| p\d+$", mermaid, re.M)) == len(deps)

    page = render_html(picture)
    parser = _Tags()
    parser.feed(page)
    assert "script" not in parser.tags  # no name can smuggle markup in
    assert parser.texts.count(names[0]) >= 1 or XML_INVALID.search(names[0])


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


def test_mermaid_entities_and_dot_escapes() -> None:
    assert mermaid_text('a"b]<c>|') == "a#34;b#93;#60;c#62;#124;"
    assert dot_string('x"y\\z\nw') == '"x\\"y\\\\z\\nw"'


def test_the_cli_writes_each_format(tmp_path) -> None:
    root = make_shop(tmp_path)
    runner = CliRunner()

    def run(fmt: str) -> str:
        result = runner.invoke(main, ["architecture", "--root", str(root), "--format", fmt])
        assert result.exit_code == 0, result.output
        return result.output

    svg = ET.fromstring(run("svg").split("\n", 1)[1])
    packages = {g.get("data-package") for g in svg.iter(f"{SVG}g") if g.get("data-package")}
    assert packages == {"app", "ring/left", "ring/right", "tests"}
    edges = {(g.get("data-from"), g.get("data-to")) for g in svg.iter(f"{SVG}g") if g.get("data-from")}
    assert {("tests", "app"), ("ring/left", "ring/right"), ("ring/right", "ring/left")} <= edges
    red = {g.get("data-from") for g in svg.iter(f"{SVG}g") if g.get("class") == "edge cycle"}
    assert red == {"ring/left", "ring/right"}
    title = next(svg.iter(f"{SVG}title")).text
    assert title == "Package dependencies — shop"
    texts = " ".join(t.text or "" for t in svg.iter(f"{SVG}text"))
    assert "#1 " in texts and "ring/left ⇄ ring/right" in texts

    dot = run("dot")
    assert dot.startswith("digraph packages {") and '"ring/left" -> "ring/right"' in dot
    mermaid = run("mermaid")
    assert "flowchart TD" in mermaid and "linkStyle" in mermaid and "class " in mermaid
    page = run("html")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page

    as_json = runner.invoke(main, ["architecture", "--root", str(root), "--format", "json"])
    assert as_json.exit_code == 0 and '"operation": "architecture"' in as_json.output
    missing = runner.invoke(main, ["architecture", "--root", str(root), "--format", "svg", "--path", "nope"])
    assert missing.exit_code != 0 and "error" in missing.output and "<svg" not in missing.output

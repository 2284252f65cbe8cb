"""The page in a real headless chromium against a real ``lazy-intel ui`` process.

Expectations come from the CLI's own answers (``architecture``, ``callers``, ``symbol`` run as
separate processes), so the page is checked against what the operations say, plus fixed facts of
the fixture (the ring/left ⇄ ring/right cycle, tests → app) so nothing passes vacuously.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.faults import run_json
from tests.ui.conftest import UIProcess, answer, write_tree

CYCLE_RED = "#c0392b"
NODE_CENTRE = """([kind, id]) => {
  const view = window.lazyIntelUI[kind];
  const p = view.network.getPositions([id])[id];
  const d = view.network.canvasToDOM(p);
  const r = document.getElementById('graph').getBoundingClientRect();
  return [d.x + r.left, d.y + r.top];
}"""


def open_page(page: Any, ui: UIProcess) -> None:
    response = page.goto(ui.url)
    assert response is not None and response.status == 200
    page.wait_for_function("() => window.lazyIntelUI && window.lazyIntelUI.packages !== null")


def click_node(page: Any, kind: str, node_id: str, *, double: bool = False) -> None:
    x, y = page.evaluate(NODE_CENTRE, [kind, node_id])
    if double:
        page.mouse.dblclick(x, y)
    else:
        page.mouse.click(x, y)


def architecture(ui: UIProcess) -> dict[str, Any]:
    found = answer(ui.root, operation="architecture", maxChars=200_000, limit=25)
    assert found["status"] == "ok", found
    return found


def test_the_page_draws_the_architecture_answer(page: Any, shared_ui: UIProcess) -> None:
    arch = architecture(shared_ui)
    expected = arch["data"]
    open_page(page, shared_ui)
    nodes = page.evaluate("() => window.lazyIntelUI.packages.nodes.get()")
    edges = page.evaluate("() => window.lazyIntelUI.packages.edges.get()")
    assert {n["id"] for n in nodes} == {p["package"] for p in expected["packages"]}
    assert {(e["from"], e["to"]) for e in edges} == {(d["from"], d["to"]) for d in expected["dependencies"]}
    assert {("tests", "app"), ("ring/left", "ring/right"), ("ring/right", "ring/left")} <= {
        (e["from"], e["to"]) for e in edges
    }
    assert expected["package_cycles"] == [["ring/left", "ring/right"]]
    red = {n["id"] for n in nodes if n["color"]["border"] == CYCLE_RED}
    assert red == {"ring/left", "ring/right"}
    cycle_edges = {(e["from"], e["to"]) for e in edges if e["color"]["color"] == CYCLE_RED}
    assert cycle_edges == {("ring/left", "ring/right"), ("ring/right", "ring/left")}
    # laid out by layer: a package is drawn above every package it depends on (or level, in a cycle)
    y = {n["id"]: n["y"] for n in nodes}
    assert y["tests"] < y["app"] and y["ring/left"] == y["ring/right"]
    assert architecture_generation(page) == str(arch["view"]["generation"])
    central = page.eval_on_selector_all("#central-list li", "(lis) => lis.map(li => li.dataset.symbol)")
    answer_central = [i["symbol"]["qualified_name"] for i in arch["items"] if i["kind"] == "central_symbol"]
    assert central == answer_central and "norm" in central
    assert page.inner_text("#cycle-list") == "ring/left ⇄ ring/right"
    assert page.problems == []


def architecture_generation(page: Any) -> str:
    return page.get_attribute("#generation", "data-generation")


def test_clicking_nodes_shows_details_and_anchored_source(page: Any, shared_ui: UIProcess) -> None:
    open_page(page, shared_ui)
    click_node(page, "packages", "app")
    page.wait_for_selector("#package-title")
    assert page.inner_text("#package-title") == "app"
    assert "3" in page.inner_text("#side-content")  # app/__init__.py, util.py, svc.py
    page.click("text=Back to overview")

    page.click("#central-list a.sym:text-is('clean')")
    page.wait_for_function("() => window.lazyIntelUI.symbols && window.lazyIntelUI.symbols.nodes.length > 0")
    callers = answer(shared_ui.root, operation="callers", symbol="clean", relativePath="app/svc.py")
    ids = page.evaluate("() => window.lazyIntelUI.symbols.nodes.getIds()")
    names = {i.split("|")[0] for i in ids}
    assert {i["caller"]["name"] for i in callers["items"] if i["kind"] == "call"} <= names
    assert {"clean", "clean_all", "test_clean", "norm"} <= names

    norm = answer(shared_ui.root, operation="symbol", symbol="norm", relativePath="app/util.py")
    anchor = norm["items"][0]["anchor"]
    norm_id = next(i for i in ids if i.startswith("norm|"))
    click_node(page, "symbols", norm_id)
    page.wait_for_function(
        "() => window.lazyIntelUI.source && window.lazyIntelUI.source.path === 'app/util.py'"
    )
    box = page.locator("#source")
    assert box.get_attribute("data-path") == anchor["path"]
    assert box.get_attribute("data-sha256") == anchor["sha256"]
    assert int(box.get_attribute("data-start-line")) == anchor["start_line"]
    assert int(box.get_attribute("data-end-line")) == anchor["end_line"]
    lit = page.eval_on_selector_all("#source .line.hl .code", "(rows) => rows.map(r => r.textContent)")
    assert "\n".join(lit) == norm["items"][0]["text"].rstrip("\n")
    assert page.inner_text("#source-title").startswith(
        f"app/util.py:{anchor['start_line']}-{anchor['end_line']}"
    )

    click_node(page, "symbols", norm_id, double=True)  # expand: norm's own callers join the graph
    page.wait_for_function(
        "() => window.lazyIntelUI.symbols.nodes.getIds().some(id => id.startsWith('shout|'))"
    )
    assert page.problems == []


def test_impact_mode_and_search(page: Any, shared_ui: UIProcess) -> None:
    open_page(page, shared_ui)
    page.click("#central-list a.sym:text-is('norm')")
    page.wait_for_function("() => window.lazyIntelUI.symbols && window.lazyIntelUI.symbols.nodes.length > 0")
    page.check("input[name=mode][value=impact]")
    page.wait_for_function(
        "() => window.lazyIntelUI.symbols.graph && window.lazyIntelUI.symbols.graph.mode === 'impact'"
    )
    nodes = page.evaluate("() => window.lazyIntelUI.symbols.nodes.get().map(n => n.data)")
    roles = {n["name"]: n["role"] for n in nodes}
    assert roles["norm"] == "target" and roles["clean"] == "dependent" and roles["test_clean"] == "test"

    page.fill("#search-input", "strip the text")
    page.press("#search-input", "Enter")
    page.wait_for_selector("#results .result")
    found = answer(shared_ui.root, operation="search", query="strip the text", limit=20)
    first = found["items"][0]["anchor"]
    links = page.locator("#results .result a.loc")
    assert links.first.inner_text() == f"{first['path']}:{first['start_line']}-{first['end_line']}"
    links.first.click()
    page.wait_for_function(
        f"() => window.lazyIntelUI.source && window.lazyIntelUI.source.path === {json.dumps(first['path'])}"
    )
    assert int(page.get_attribute("#source", "data-start-line")) == first["start_line"]
    assert page.problems == []


def test_a_new_publication_updates_the_page(page: Any, ui_server: UIProcess) -> None:
    open_page(page, ui_server)
    before = int(architecture_generation(page))
    page.wait_for_function("() => document.getElementById('live').classList.contains('on')")
    write_tree(
        ui_server.root,
        {"extra/report.py": "from app.util import shout\n\n\ndef report(x):\n    return shout(x)\n"},
    )
    code, status = run_json("index", str(ui_server.root))  # another process publishes
    assert code == 0
    after = status["data"]["generation"]
    assert after > before
    page.wait_for_function(
        f"() => document.getElementById('generation').dataset.generation === '{after}' && "
        "window.lazyIntelUI.packages && window.lazyIntelUI.packages.nodes.get('extra') !== null"
    )
    edges = page.evaluate("() => window.lazyIntelUI.packages.edges.get().map(e => [e.from, e.to])")
    assert ["extra", "app"] in edges
    assert page.evaluate("() => window.lazyIntelUI.reloads") >= 1
    assert page.problems == []


def test_requests_without_the_token_are_refused(page: Any, shared_ui: UIProcess) -> None:
    for target in (shared_ui.address("/", token=None), shared_ui.address("/", token="wrong" * 8)):
        response = page.goto(target)
        assert response is not None and response.status == 403
        assert json.loads(page.inner_text("body"))["code"] == "FORBIDDEN"
    open_page(page, shared_ui)
    # the page's own origin without the token gets nothing either
    status = page.evaluate("async () => (await fetch('/api/source?path=app/util.py')).status")
    assert status == 403
    for path in ("/static/app.js", "/static/vis-network.min.js", "/api/events", "/api/view"):
        try:
            urllib.request.urlopen(shared_ui.address(path, token=None), timeout=10)
            raise AssertionError(f"{path} served without the token")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403

"""Graph operations through ``execute`` on real indexed fixture repositories (several languages)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.evidence.budget import serialize
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

Run = Callable[..., dict[str, Any]]

PYTHON = {
    "pkg/__init__.py": "from .core import helper\n",
    "pkg/core.py": (
        "import os\n\n"
        "class Base:\n"
        "    def run(self):\n"
        "        return self.step()\n\n"
        "    def step(self):\n"
        "        return 1\n\n\n"
        "class Child(Base):\n"
        "    def step(self):\n"
        "        return helper(2)\n\n\n"
        "def helper(x):\n"
        '    return os.path.join("a", str(x))\n\n\n'
        "def entry():\n"
        "    c = Child()\n"
        "    return c.run() + unknown_fn()\n"
    ),
    "pkg/web.py": (
        "from flask import Flask\n"
        "from pkg.core import entry\n\n"
        "app = Flask(__name__)\n\n"
        '@app.route("/items", methods=["GET"])\n'
        "def list_items():\n"
        "    return entry()\n"
    ),
    "pkg/chain.py": (
        "def chain_a():\n    return chain_b()\n\n\n"
        "def chain_b():\n    return chain_c()\n\n\n"
        "def chain_c():\n    return chain_d()\n\n\n"
        "def chain_d():\n    return 0\n"
    ),
    # six classes define frob: a call on an unknown receiver has too many candidates to resolve
    "pkg/gadgets.py": "".join(
        f"class Gadget{i}:\n    def frob(self):\n        return {i}\n\n\n" for i in range(6)
    )
    + "def use(thing):\n    return thing.frob()\n",
    "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1)\n",
}

LAYERED = {
    "app/util.py": "def norm(x):\n    return x.strip()\n",
    "app/svc.py": "from app.util import norm\n\n\ndef clean(x):\n    return norm(x)\n",
    "api/handlers.py": "from app.svc import clean\n\n\ndef handle(x):\n    return clean(x)\n",
    "tests/test_api.py": "from api.handlers import handle\n\n\ndef test_handle():\n    assert handle(' a ') == 'a'\n",
    "loop/x.py": "from loop.y import why\n\n\ndef ex():\n    return why()\n",
    "loop/y.py": "import loop.x\n\n\ndef why():\n    return 1\n",
    "cli/__main__.py": "from api.handlers import handle\n\n\ndef main():\n    handle('x')\n",
}

POLYGLOT = {
    "web/src/math.ts": (
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n\n"
        "export interface Shape {\n  area(): number;\n}\n\n"
        "export class Square implements Shape {\n  constructor(private side: number) {}\n"
        "  area(): number {\n    return this.side * this.side;\n  }\n}\n"
    ),
    "web/src/app.ts": (
        'import { add, Square } from "./math";\n\n'
        "export function total(): number {\n  const s = new Square(2);\n  return add(s.area(), 1);\n}\n"
    ),
    "web/src/server.js": (
        'const express = require("express");\nconst app = express();\n'
        'function listUsers(req, res) {\n  res.send("ok");\n}\napp.get("/users", listUsers);\n'
    ),
    "java/com/acme/Dog.java": (
        "package com.acme;\n\npublic class Dog {\n    public String sound() { return bark(); }\n\n"
        '    String bark() { return "woof"; }\n}\n'
    ),
    "rb/greeter.rb": 'def greet(name)\n  "hi #{name}"\nend\n\ndef welcome\n  greet("bob")\nend\n',
}


def open_repo(
    make_repo: Callable[..., Path], files: dict[str, str], env: dict[str, str] | None = None
) -> tuple[Path, Run]:
    root = make_repo(files)
    settings = load_settings(env=env or {})
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        answer = execute(args, lambda _root: ws, settings)
        assert answer.used_chars == len(serialize(answer))
        assert answer.status == "error" or answer.used_chars <= answer.max_chars
        return answer.to_dict()

    return root, run


@pytest.fixture
def python_repo(make_repo, backend_env) -> tuple[Path, Run]:
    return open_repo(make_repo, PYTHON, backend_env)


def assert_site(root: Path, item: dict[str, Any]) -> None:
    """A source item is the verbatim slice of the captured file at its anchor."""
    anchor = item["anchor"]
    data = (root / anchor["path"]).read_bytes()
    assert anchor["sha256"] == hashlib.sha256(data).hexdigest()
    assert item["text"] == data[anchor["start_byte"] : anchor["end_byte"]].decode()
    assert anchor["start_line"] == data[: anchor["start_byte"]].count(b"\n") + 1


def of_kind(answer: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in answer["items"] if i["kind"] == kind]


def coverage_with(answer: dict[str, Any], text: str) -> list[str]:
    return [c for c in answer["coverage"] if text in c]


def test_callers_are_call_sites_with_strategy_and_confidence(python_repo) -> None:
    root, run = python_repo
    answer = run(operation="callers", symbol="helper")
    assert answer["status"] == "ok", answer
    (target,) = of_kind(answer, "target")
    assert target["symbol"]["qualified_name"] == "helper" and target["anchor"]["path"] == "pkg/core.py"
    calls = of_kind(answer, "call")
    assert {(c["caller"]["name"], c["text"], c["edge"]["strategy"]) for c in calls} == {
        ("Child.step", "helper(2)", "local"),
        ("test_helper", "helper(1)", "import"),
    }
    for call in calls:
        assert_site(root, call)
        assert call["distance"] == 1 and call["confidence"] == pytest.approx(0.95)
    assert coverage_with(answer, "complete to depth 1")
    assert coverage_with(answer, "no unresolved sites are written as 'helper'")
    assert answer["data"]["source"] == "index" and answer["data"]["total"] == 2


def test_depth_bounds_the_walk_and_says_so(python_repo) -> None:
    _root, run = python_repo
    shallow = run(operation="callers", symbol="chain_d")
    assert [c["caller"]["name"] for c in of_kind(shallow, "call")] == ["chain_c"]
    assert coverage_with(shallow, "depth limit 1 reached: 1 more callers")
    deep = run(operation="callers", symbol="chain_d", depth=3)
    calls = of_kind(deep, "call")
    assert [(c["caller"]["name"], c["distance"]) for c in calls] == [
        ("chain_c", 1),
        ("chain_b", 2),
        ("chain_a", 3),
    ]
    assert calls[2]["confidence"] == pytest.approx(0.95**3, abs=1e-4)
    assert coverage_with(deep, "complete to depth 3")
    assert not coverage_with(deep, "depth limit")


def test_no_callers_is_told_apart_from_could_not_tell(python_repo) -> None:
    _root, run = python_repo
    none = run(operation="callers", symbol="chain_a")
    assert none["status"] == "ok" and not of_kind(none, "call")
    assert "no callers of chain_a" in none["message"]
    assert coverage_with(none, "complete to depth 1") and coverage_with(none, "no unresolved sites")
    # thing.frob() has six candidate classes: the site stays unresolved, and the answer says so
    unsure = run(operation="callers", symbol="Gadget3.frob")
    assert not of_kind(unsure, "call")
    (line,) = coverage_with(unsure, "unresolved site(s) written as 'frob'")
    assert line.startswith("1 unresolved") and "pkg/gadgets.py:32" in line


def test_callees_list_resolved_then_unresolved_calls(python_repo) -> None:
    root, run = python_repo
    answer = run(operation="callees", symbol="entry")
    calls = of_kind(answer, "call")
    resolved = [(c["callee"]["name"], c["edge"]["strategy"]) for c in calls if c["confidence"] > 0]
    assert resolved == [("Child", "local"), ("Base.run", "inheritance")]
    unresolved = [c for c in calls if c["confidence"] == 0]
    assert [(c["text"], c["edge"]["strategy"], c["callee"]["resolved"]) for c in unresolved] == [
        ("unknown_fn()", "unresolved", False)
    ]
    for call in calls:
        assert_site(root, call)
    assert coverage_with(answer, "1 call site(s) of the target itself did not resolve")
    deeper = run(operation="callees", symbol="entry", depth=2)
    assert ("Base.step", 2) in [(c["callee"]["name"], c["distance"]) for c in of_kind(deeper, "call")]


def test_references_from_the_index_are_labelled_with_their_source(python_repo) -> None:
    root, run = python_repo
    answer = run(operation="references", symbol="helper")
    assert answer["coverage"][0] == "source: index graph, because no trusted language server is configured"
    assert answer["data"]["source"] == "index"
    (declaration,) = of_kind(answer, "declaration")
    assert declaration["anchor"]["start_line"] == 16
    refs = of_kind(answer, "reference")
    assert [(r["anchor"]["path"], r["edge"]["type"]) for r in refs] == [
        ("pkg/__init__.py", "IMPORTS"),
        ("pkg/core.py", "CALLS"),
        ("tests/test_core.py", "IMPORTS"),
        ("tests/test_core.py", "CALLS"),
    ]
    for ref in refs:
        assert ref["evidence"] == "index" and ref["confidence"] > 0
        assert_site(root, ref)
    without = run(operation="references", symbol="helper", includeDeclaration=False)
    assert not of_kind(without, "declaration") and len(of_kind(without, "reference")) == 4


def test_references_without_symbol_and_without_a_server_is_refused(python_repo) -> None:
    _root, run = python_repo
    answer = run(operation="references", relativePath="pkg/core.py", line=15, character=4)
    assert answer["code"] == "INVALID_ARGUMENT" and "needs symbol" in answer["message"]


def test_implementations_walk_subtypes_and_overrides(python_repo, make_repo, backend_env) -> None:
    _root, run = python_repo
    classes = run(operation="implementations", symbol="Base")
    assert [
        (i["symbol"]["qualified_name"], i["edge"]["type"]) for i in of_kind(classes, "implementation")
    ] == [("Child", "INHERITS")]
    methods = run(operation="implementations", symbol="Base.step")
    (override,) = of_kind(methods, "implementation")
    assert override["symbol"]["qualified_name"] == "Child.step" and override["edge"]["type"] == "OVERRIDES"
    refused = run(operation="implementations", symbol="helper")
    assert refused["code"] == "INVALID_ARGUMENT"
    _root, poly = open_repo(make_repo, POLYGLOT, backend_env)
    shape = poly(operation="implementations", symbol="Shape")
    assert [(i["symbol"]["qualified_name"], i["edge"]["type"]) for i in of_kind(shape, "implementation")] == [
        ("Square", "IMPLEMENTS")
    ]
    area = poly(operation="implementations", symbol="Shape.area")
    assert [i["symbol"]["qualified_name"] for i in of_kind(area, "implementation")] == ["Square.area"]


def test_impact_is_reverse_transitive_with_distance_confidence_and_tests(make_repo, backend_env) -> None:
    _root, run = open_repo(make_repo, LAYERED, backend_env)
    answer = run(operation="impact", symbol="norm", limit=50)
    dependents = {
        (d["anchor"]["path"], d.get("symbol", {}).get("qualified_name")): d
        for d in of_kind(answer, "dependent")
    }
    assert dependents[("app/svc.py", "clean")]["distance"] == 1
    assert dependents[("api/handlers.py", "handle")]["distance"] == 2
    assert dependents[("tests/test_api.py", "test_handle")]["distance"] == 3
    assert dependents[("api/handlers.py", "handle")]["confidence"] == pytest.approx(0.95 * 0.95, abs=1e-4)
    assert dependents[("api/handlers.py", "handle")]["depends_on"]["name"] == "clean"
    tests = [t["symbol"]["qualified_name"] for t in of_kind(answer, "affected_test") if "symbol" in t]
    assert "test_handle" in tests
    assert {"name": "test_handle", "label": "Function", "path": "tests/test_api.py", "line": 4} in answer[
        "data"
    ]["affected_tests"]
    assert answer["data"]["by_distance"]["1"] >= 2  # clean and the importing file
    shallow = run(operation="impact", symbol="norm", depth=1)
    assert coverage_with(shallow, "depth limit 1 reached")
    assert all(d["distance"] == 1 for d in of_kind(shallow, "dependent"))
    by_file = run(operation="impact", relativePath="app/util.py", depth=1)
    (target,) = of_kind(by_file, "target")
    assert target["anchor"]["path"] == "app/util.py"
    assert ("app/svc.py", "clean") in {
        (d["anchor"]["path"], d.get("symbol", {}).get("qualified_name"))
        for d in of_kind(by_file, "dependent")
    }
    assert run(operation="impact")["code"] == "INVALID_ARGUMENT"
    everything = [i["anchor"] for i in answer["items"] if i["kind"] != "target"]
    page1 = run(operation="impact", symbol="norm", limit=2)
    page2 = run(operation="impact", symbol="norm", limit=2, cursor=page1["next_cursor"])
    paged = [i["anchor"] for p in (page1, page2) for i in p["items"] if i["kind"] != "target"]
    assert paged == everything[:4]


def test_routes_from_flask_and_express(python_repo, make_repo, backend_env) -> None:
    _root, run = python_repo
    answer = run(operation="routes")
    (route,) = of_kind(answer, "route")
    assert (route["method"], route["pattern"], route["framework"], route["handler"]["name"]) == (
        "GET",
        "/items",
        "flask",
        "list_items",
    )
    _root, poly = open_repo(make_repo, POLYGLOT, backend_env)
    express = poly(operation="routes", query="users")
    assert [
        (r["method"], r["pattern"], r["framework"], r["handler"]["name"]) for r in of_kind(express, "route")
    ] == [("GET", "/users", "express", "listUsers")]
    none = poly(operation="routes", query="nothing-like-this")
    assert none["status"] == "partial" and none["message"] == "no HTTP routes recognised in the index"


def test_architecture_packages_layers_cycles_entry_points_central(make_repo, backend_env) -> None:
    root, run = open_repo(make_repo, LAYERED, backend_env)
    answer = run(operation="architecture", limit=3)
    assert answer["status"] == "ok"
    data = answer["data"]
    layer = {p["package"]: p["layer"] for p in data["packages"]}
    assert layer["app"] == 0 and layer["api"] == 1 and layer["cli"] == 2 and layer["tests"] == 2
    deps = {(d["from"], d["to"]) for d in data["dependencies"]}
    assert {("api", "app"), ("cli", "api"), ("tests", "api")} <= deps and ("app", "api") not in deps
    assert ["loop/x.py", "loop/y.py"] in data["import_cycles"]
    entries = [e["anchor"]["path"] for e in of_kind(answer, "entry_point")]
    assert "cli/__main__.py" in entries
    central = of_kind(answer, "central_symbol")
    assert len(central) == 3
    assert [c["score"] for c in central] == sorted((c["score"] for c in central), reverse=True)
    assert central[0]["symbol"]["qualified_name"] in {"norm", "clean", "handle"}
    scoped = run(operation="architecture", relativePath="app")
    assert {p["package"] for p in scoped["data"]["packages"]} == {"app"}
    too_small = run(operation="architecture", maxChars=500)  # the smallest budget a request may ask
    assert too_small["code"] == "INVALID_ARGUMENT" and "needs at least" in too_small["message"]
    header = int(re.search(r"needs at least (\d+)", too_small["message"]).group(1))
    tiny = run(operation="architecture", maxChars=header + 100)  # room for the header and a little data
    assert tiny["status"] in {"ok", "partial"} and tiny["budget"]["used_chars"] <= header + 100
    assert coverage_with(tiny, "data shows")
    # a new generation is never answered from the structure computed for an older one
    (root / "extra").mkdir()
    (root / "extra" / "mod.py").write_text("def fresh():\n    return 1\n")
    assert run(operation="sync")["status"] == "ok"
    again = run(operation="architecture", limit=3)
    assert again["view"]["generation"] == answer["view"]["generation"] + 1
    assert "extra" in {p["package"] for p in again["data"]["packages"]}


def test_languages_without_import_resolution_are_named(make_repo, backend_env) -> None:
    _root, run = open_repo(make_repo, POLYGLOT, backend_env)
    ruby = run(operation="callers", symbol="greet")
    assert [c["caller"]["name"] for c in of_kind(ruby, "call")] == ["welcome"]
    assert coverage_with(ruby, "no import resolution for ruby")
    assert coverage_with(run(operation="context", symbol="greet"), "no import resolution for ruby")
    square = run(operation="callers", symbol="Square")  # `new Square(2)` calls its constructor
    assert [(c["caller"]["name"], c["callee"]["name"]) for c in of_kind(square, "call")] == [
        ("total", "Square.constructor")
    ]
    ts = run(operation="callers", symbol="add")
    assert [(c["caller"]["name"], c["edge"]["strategy"]) for c in of_kind(ts, "call")] == [
        ("total", "import")
    ]
    assert not coverage_with(ts, "no import resolution")
    java = run(operation="callees", symbol="Dog.sound")
    assert [(c["callee"]["name"], c["edge"]["strategy"]) for c in of_kind(java, "call")] == [
        ("Dog.bark", "self")
    ]


def test_context_is_one_budgeted_composite(python_repo) -> None:
    root, run = python_repo
    answer = run(operation="context", symbol="helper")
    definitions = [i for i in answer["items"] if i.get("role") == "definition"]
    assert definitions[0]["text"].startswith("def helper(x):")
    assert_site(root, definitions[0])
    roles = [i.get("role") for i in answer["items"]]
    assert roles.index("definition") < roles.index("caller")
    assert "related_file" in roles
    related = {i["anchor"]["path"]: i["text"] for i in answer["items"] if i.get("role") == "related_file"}
    assert (
        related["tests/test_core.py"].startswith("tests pkg/core.py")
        or "pkg/core.py" in related["tests/test_core.py"]
    )
    small = run(operation="context", symbol="helper", maxChars=900)
    assert small["budget"]["used_chars"] <= 900


@pytest.mark.parametrize(
    ("query", "classified", "first", "frames"),
    [
        (
            'Traceback (most recent call last):\n  File "/srv/app/pkg/web.py", line 8, in list_items\n'
            '  File "/srv/app/pkg/core.py", line 22, in entry\nNameError: unknown_fn',
            "stack_trace",
            "entry",
            ["pkg/core.py", "pkg/web.py"],
        ),
        # one pasted frame line, from Windows: a stack trace, read at its line (was: text)
        ('  File "C:\\srv\\app\\pkg\\core.py", line 22, in entry', "stack_trace", "entry", ["pkg/core.py"]),
        ("tests/test_core.py:5: in test_helper", "stack_trace", "test_helper", ["tests/test_core.py"]),
        ("pkg/core.py:17", "path", "helper", None),
        ("pkg/core.py:17:5", "path", "helper", None),  # a compiler's file:line:col
        ("Child.step", "symbol", "Child.step", None),
        ("pkg/core.py::Child::step", "symbol", "Child.step", None),  # a pytest node id's form
        ("why does list_items fail", "text", "list_items", None),
        # pytest's summary line: the node id names the test, its file's stem is no identifier
        ("FAILED tests/test_core.py::test_helper - AssertionError", "text", "test_helper", None),
        ("why does pkg/core.py Child.step return 2", "text", "Child.step", None),  # a dotted name whole
    ],
)
def test_auto_classifies_and_runs_one_stage(
    python_repo, query: str, classified: str, first: str, frames: list[str] | None
) -> None:
    _root, run = python_repo
    answer = run(operation="auto", query=query)
    assert answer["data"]["classified"] == classified
    assert answer["data"]["ran"]
    assert answer["coverage"][0].startswith(f"auto: classified as {classified}; ran ")
    definitions = [i for i in answer["items"] if i.get("role") == "definition"]
    assert definitions[0]["symbol"]["qualified_name"] == first
    if frames is not None:
        assert [f["path"] for f in answer["data"]["frames"]] == frames


def test_graph_errors_have_stable_codes_and_pages_continue(python_repo) -> None:
    _root, run = python_repo
    assert run(operation="callers")["code"] == "INVALID_ARGUMENT"
    assert run(operation="callers", symbol="no_such_thing")["code"] == "NOT_FOUND"
    assert run(operation="callers", symbol="helper", depth=0)["code"] == "INVALID_ARGUMENT"
    assert run(operation="callers", symbol="helper", relativePath="nope.py")["code"] == "NOT_FOUND"
    first = run(operation="references", symbol="helper", limit=1, includeDeclaration=False)
    assert len(of_kind(first, "reference")) == 1 and first["next_cursor"]
    second = run(
        operation="references",
        symbol="helper",
        limit=1,
        includeDeclaration=False,
        cursor=first["next_cursor"],
    )
    assert of_kind(second, "reference")[0]["anchor"] != of_kind(first, "reference")[0]["anchor"]


def test_graph_items_verify_against_the_disk(python_repo) -> None:
    root, run = python_repo
    anchors = []
    for request in (
        {"operation": "callers", "symbol": "helper"},
        {"operation": "impact", "symbol": "helper"},
        {"operation": "routes"},
    ):
        for item in run(**request)["items"]:
            anchor = dict(item["anchor"])
            if item["text_kind"] == "source":
                anchor["text"] = item["text"]
            anchors.append(anchor)
    verified = run(operation="verify", anchors=anchors)
    assert [i["verdict"] for i in verified["items"]] == ["current"] * len(anchors)
    (root / "pkg/core.py").write_text(
        (root / "pkg/core.py").read_text().replace("def helper", "\n\ndef helper")
    )
    moved = run(operation="verify", anchors=anchors)
    verdicts = {(i["anchor"]["path"], i["verdict"]) for i in moved["items"]}
    assert ("pkg/core.py", "moved") in verdicts or ("pkg/core.py", "stale") in verdicts


ROUTES = {
    "api/main.py": (
        "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n"
        '@app.post("/orders")\ndef create_order():\n    return {}\n'
    ),
    "shop/views.py": "def product_list(request):\n    return None\n",
    "shop/urls.py": (
        "from django.urls import path\n\nfrom shop import views\n\n"
        'urlpatterns = [\n    path("products/", views.product_list),\n]\n'
    ),
    "pages/api/hello.ts": "export default function handler(req: any, res: any) {\n  res.status(200).json({});\n}\n",
    "app/users/route.ts": 'export async function GET() {\n  return new Response("[]");\n}\n',
}


def test_routes_across_frameworks_with_their_handlers(make_repo, backend_env) -> None:
    _root, run = open_repo(make_repo, ROUTES, backend_env)
    answer = run(operation="routes")
    found = {
        (r["method"], r["pattern"], r["framework"], r["handler"]["name"], r["handler"]["path"])
        for r in of_kind(answer, "route")
    }
    assert found == {
        ("POST", "/orders", "fastapi", "create_order", "api/main.py"),
        ("ANY", "/products/", "django", "product_list", "shop/views.py"),
        ("ANY", "/api/hello", "nextjs", "handler", "pages/api/hello.ts"),
        ("GET", "/users", "nextjs", "GET", "app/users/route.ts"),
    }
    assert answer["data"]["frameworks"] == ["django", "fastapi", "nextjs"]
    assert coverage_with(answer, "every route has a resolved handler")
    only_api = run(operation="routes", path="pages/*")
    assert [r["pattern"] for r in of_kind(only_api, "route")] == ["/api/hello"]


OVERLOADS = {
    "src/main/kotlin/okio/Buffer.kt": (
        "package okio\n\nclass Buffer {\n    fun write(b: Int): Buffer = this\n"
        "    fun write(s: String): Buffer = this\n    fun write(b: ByteArray, n: Int): Buffer = this\n}\n"
    ),
    "src/main/kotlin/okio/Use.kt": (
        'package okio\n\nfun use(b: Buffer) {\n    b.write(1)\n    b.write("x")\n}\n'
    ),
}


def test_a_call_site_of_overloads_is_listed_once(make_repo) -> None:
    """`callers Buffer.write` targets the three overloads; each site has an edge to every one (its
    arguments are not matched), and was listed three times (okio: every site five times)."""
    _root, run = open_repo(make_repo, OVERLOADS)
    answer = run(operation="callers", symbol="Buffer.write")
    assert len(of_kind(answer, "target")) == 3
    calls = of_kind(answer, "call")
    assert sorted(c["text"] for c in calls) == ['b.write("x")', "b.write(1)"]
    assert answer["data"]["total"] == 2
    assert coverage_with(answer, "2 call site(s) reach several of the targets")

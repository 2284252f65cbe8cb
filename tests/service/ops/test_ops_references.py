"""references/implementations prefer a live language server and fall back to the index graph, saying which."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.evidence.budget import serialize
from lazy_intel.semantic import SemanticLayer
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.semantic.conftest import INSTALL_HINT, locate_server, write_config

FILES = {
    "shapes.py": (
        "class Shape:\n"
        "    def area(self) -> float:\n"
        "        return 0.0\n\n\n"
        "class Square(Shape):\n"
        "    def area(self) -> float:\n"
        "        return 4.0\n\n\n"
        "def total(a: Shape, b: Shape) -> float:\n"
        "    return a.area() + b.area()\n"
    ),
    "main.py": "from shapes import Shape, total\n\n\ndef run() -> float:\n    return total(Shape(), Shape())\n",
    "greeter.rb": 'def greet(name)\n  "hi #{name}"\nend\n\ndef welcome\n  greet("bob")\nend\n',
}


def _jedi_entry(**overrides: Any) -> dict[str, Any]:
    server = locate_server("jedi")
    if server is None:
        if os.environ.get("CI"):
            pytest.fail(f"jedi-language-server missing in CI: {INSTALL_HINT}")
        pytest.skip(f"jedi-language-server not installed: {INSTALL_HINT}")
    return server.entry(**overrides)


def _runner(root: Path, config: Path | None) -> tuple[Any, SemanticLayer]:
    env = {"LAZY_INTEL_LSP_CONFIG": str(config)} if config else {}
    settings = load_settings(env=env)
    layer = SemanticLayer.from_settings(settings)
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        answer = execute(args, lambda _r: ws, settings, semantic=layer)
        assert answer.used_chars == len(serialize(answer)) <= answer.max_chars or answer.status == "error"
        return answer.to_dict()

    return run, layer


def test_live_server_answers_when_it_can_and_the_graph_otherwise(make_repo, tmp_path: Path) -> None:
    root = Path(os.path.realpath(make_repo(FILES)))
    config_dir = tmp_path / "operator"
    config_dir.mkdir()
    config = write_config(config_dir / "servers.json", [_jedi_entry()])
    run, layer = _runner(root, config)
    try:
        live = run(operation="references", symbol="total", relativePath="shapes.py")
        assert live["status"] in ("ok", "partial"), live
        assert live["data"]["source"] == "fused"
        assert live["coverage"][0].startswith("source: index graph and live language server jedi, fused: ")
        confirmed = [i for i in live["items"] if i["evidence"] == "both"]
        assert confirmed and all(i["observation"]["server_id"] == "jedi" for i in confirmed)
        assert {i["anchor"]["path"] for i in live["items"]} >= {"main.py"}
        # position input: nothing to fuse with, the live answer as it is
        at = run(operation="references", relativePath="shapes.py", line=10, character=4)
        assert at["data"]["source"] == "lsp" and at["coverage"][0].startswith(
            "source: live language server jedi"
        )
        # no server handles Ruby: the graph answers and says why
        ruby = run(operation="references", symbol="greet")
        assert ruby["data"]["source"] == "index"
        assert (
            ruby["coverage"][0]
            == "source: index graph, because no configured language server handles greeter.rb"
        )
        assert [i["evidence"] for i in ruby["items"] if i["kind"] == "reference"] == ["index"]
        # auto on a symbol: the definition from the index, then the live server's references
        auto = run(operation="auto", query="total")
        assert "references(live)" in auto["data"]["ran"]
        assert auto["items"][0]["symbol"]["qualified_name"] == "total"
        live_refs = [i for i in auto["items"] if "observation" in i]
        assert live_refs and {i["anchor"]["path"] for i in live_refs} >= {"main.py"}
        assert "references of total: live language server jedi" in auto["coverage"]
        # implementations: live only if jedi negotiated it, else the graph with the reason
        offered = layer.available_operations(root)
        impl = run(operation="implementations", symbol="Shape", relativePath="shapes.py")
        if "implementations" in offered:
            assert impl["data"]["source"] == "fused"
        else:
            assert impl["data"]["source"] == "index"
            assert impl["coverage"][0] == (
                "source: index graph, because language server jedi did not negotiate implementations"
            )
            assert [
                i["symbol"]["qualified_name"] for i in impl["items"] if i["kind"] == "implementation"
            ] == ["Square"]
    finally:
        layer.close()


def test_a_server_that_cannot_start_falls_back_to_the_graph(make_repo, tmp_path: Path) -> None:
    root = Path(os.path.realpath(make_repo(FILES)))
    config_dir = tmp_path / "operator"
    config_dir.mkdir()
    # a fault-test server: an executable that exits at once instead of answering initialize
    broken = config_dir / "exits-at-once"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    digest = hashlib.sha256(broken.read_bytes()).hexdigest()
    entry = _jedi_entry(id="broken", name="broken", executable=str(broken), executable_sha256=digest)
    config = write_config(config_dir / "servers.json", [entry])
    run, layer = _runner(root, config)
    try:
        answer = run(operation="references", symbol="total", relativePath="shapes.py")
        assert answer["status"] == "ok" and answer["data"]["source"] == "index"
        assert answer["coverage"][0].startswith(
            "source: index graph, because language server broken is unavailable"
        )
        refs = [i for i in answer["items"] if i["kind"] == "reference"]
        assert [(r["anchor"]["path"], r["edge"]["type"]) for r in refs] == [
            ("main.py", "IMPORTS"),
            ("main.py", "CALLS"),
        ]
    finally:
        layer.close()


INSTANCES = {
    "net.py": (
        "class Session:\n"
        "    def __init__(self, retries=1):\n"
        "        self.retries = retries\n\n\n"
        "class Pool(Session):\n"
        "    def __init__(self):\n"
        "        super().__init__(3)\n\n\n"
        "def make():\n"
        "    return Session(2), Pool()\n"
    ),
    "app.py": "from net import Session\n\n\ndef main():\n    s = Session()\n    return s.retries\n",
}


def test_references_of_a_class_include_the_sites_that_instantiate_it(make_repo) -> None:  # type: ignore[no-untyped-def]
    root = make_repo(INSTANCES)
    run, layer = _runner(root, None)
    try:
        answer = run(operation="references", symbol="Session", freshness="fast")
        texts = [(i["anchor"]["path"], i["text"]) for i in answer["items"] if i["kind"] == "reference"]
        # the constructor runs, but the use is of the class; Pool() and super().__init__() are not
        assert ("net.py", "Session(2)") in texts and ("app.py", "Session()") in texts
        assert ("net.py", "Session") in texts  # the base class of Pool
        assert all("Pool()" not in t and "super()" not in t for _, t in texts)
        instantiated = [i for i in answer["items"] if i.get("edge", {}).get("instantiates") == "Session"]
        assert len(instantiated) == 2
        init = run(operation="references", symbol="Session.__init__", freshness="fast")
        init_texts = [i["text"] for i in init["items"] if i["kind"] == "reference"]
        assert "super().__init__(3)" in init_texts
    finally:
        layer.close()


UNWRITTEN = {
    "app.py": (
        "class Box:\n"
        "    def __iter__(self):\n        return iter(())\n\n"
        "    def __enter__(self):\n        return self\n\n"
        "    def __exit__(self, *a):\n        return None\n\n\n"
        "def route(path):\n"
        "    def decorator(f):\n        return f\n\n"
        "    return decorator\n\n\n"
        '@route("/")\n'
        "def index():\n"
        "    for x in Box():\n        pass\n"
        "    with Box() as b:\n        pass\n"
    ),
}


def test_calls_the_source_does_not_write_are_callers_not_references(make_repo) -> None:  # type: ignore[no-untyped-def]
    """`@route("/")` calls the closure `route` returns, `for x in box` calls `__iter__`, `with box:`
    `__enter__`: the graph keeps them (callers, impact), but `references` lists where a name is
    written, as a type checker does (flask: 20 `@app.route` sites were references of
    `Scaffold.route.decorator`)."""
    root = make_repo(UNWRITTEN)
    run, layer = _runner(root, None)
    try:
        for symbol in ("route.decorator", "Box.__iter__", "Box.__enter__"):
            callers = run(operation="callers", symbol=symbol, freshness="fast")
            assert [i for i in callers["items"] if i["kind"] != "target"], (symbol, callers["items"])
            refs = run(operation="references", symbol=symbol, freshness="fast")
            listed = [i["text"] for i in refs["items"] if i["kind"] == "reference"]
            if symbol == "route.decorator":
                assert listed == ["return decorator"], listed
            else:
                assert listed == [], (symbol, listed)
    finally:
        layer.close()


def test_references_of_a_class_include_instantiations_through_an_inherited_constructor(make_repo) -> None:  # type: ignore[no-untyped-def]
    """`Color("edge")` runs `Property.__init__` (Color defines none): the site is still a use of `Color`
    (seaborn: 42 such sites were missed by `references Color`); `Property`'s own instantiations stay
    its own."""
    files = {
        "props.py": (
            "class Property:\n    def __init__(self, name=None):\n        self.name = name\n\n\n"
            "class Color(Property):\n    pass\n\n\n"
            "class Fill(Color):\n    pass\n"
        ),
        "use.py": "from props import Color, Fill, Property\n\n\ndef go():\n    Color('edge')\n    Fill()\n    Property()\n",
    }
    root = make_repo(files)
    run, layer = _runner(root, None)
    try:
        texts = {
            name: [
                i["text"]
                for i in run(operation="references", symbol=name, freshness="fast")["items"]
                if i["kind"] == "reference"
            ]
            for name in ("Color", "Fill", "Property")
        }
        assert "Color('edge')" in texts["Color"] and "Fill()" not in texts["Color"]
        assert "Fill()" in texts["Fill"]
        assert "Property()" in texts["Property"] and "Color('edge')" not in texts["Property"]
    finally:
        layer.close()


def test_a_variable_s_references_are_its_imports_and_say_what_is_not_indexed(make_repo) -> None:  # type: ignore[no-untyped-def]
    """`references DEFAULT_DB_ALIAS` on Django answered "no references" for a constant imported in
    hundreds of files: its imports were unresolved, and reads of a variable are no edges at all."""
    root = make_repo(
        {
            "conf.py": "DEFAULT_ALIAS = 'default'\n",
            "db.py": "from conf import DEFAULT_ALIAS\n\n\ndef using(alias=DEFAULT_ALIAS):\n    return alias\n",
        }
    )
    settings = load_settings()
    ws = Workspace.open(Path(root), settings=settings)
    try:
        ws.sync()
        answer = execute(
            {"operation": "references", "symbol": "DEFAULT_ALIAS", "freshness": "fast"},
            lambda _r: ws,
            settings,
        ).to_dict()
    finally:
        ws.close()
    sites = [
        (i["anchor"]["path"], i["anchor"]["start_line"]) for i in answer["items"] if i["kind"] == "reference"
    ]
    assert ("db.py", 1) in sites
    assert any(c.startswith("variable: its imports") for c in answer["coverage"])

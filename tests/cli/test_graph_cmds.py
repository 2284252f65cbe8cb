"""The graph commands through click's runner: JSON answers, text output, exit codes."""

from __future__ import annotations

import json

from click.testing import CliRunner

from lazy_intel.cli.main import main

FILES = {
    "app/__init__.py": "",
    "app/util.py": "def norm(x):\n    return x.strip()\n",
    "app/svc.py": "from app.util import norm\n\n\ndef clean(x):\n    return norm(x)\n",
    "app/web.py": (
        "from flask import Flask\nfrom app.svc import clean\n\napp = Flask(__name__)\n\n\n"
        '@app.get("/clean")\ndef clean_view():\n    return clean(" x ")\n'
    ),
    "tests/test_svc.py": "from app.svc import clean\n\n\ndef test_clean():\n    assert clean(' a ') == 'a'\n",
}


def test_graph_commands(make_repo) -> None:
    root = make_repo(FILES)
    runner = CliRunner()
    common = ["--root", str(root), "--json"]

    def answer(*args: str) -> dict:
        result = runner.invoke(main, [*args, *common])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    callers = answer("callers", "norm", "--depth", "2")
    assert [(i["caller"]["name"], i["distance"]) for i in callers["items"] if i["kind"] == "call"] == [
        ("clean", 1),
        ("clean_view", 2),
        ("test_clean", 2),
    ]
    callees = answer("callees", "clean")
    assert [i["callee"]["name"] for i in callees["items"] if i["kind"] == "call"] == ["norm"]
    impact = answer("impact", "--path", "app/util.py")
    assert impact["data"]["dependents"] >= 3
    assert {"name": "test_clean", "label": "Function", "path": "tests/test_svc.py", "line": 4} in impact[
        "data"
    ]["affected_tests"]
    refs = answer("references", "clean", "--no-declaration")
    assert refs["data"]["source"] == "index"
    assert all(i["kind"] == "reference" for i in refs["items"])
    routes = answer("routes")
    assert [(i["method"], i["pattern"]) for i in routes["items"]] == [("GET", "/clean")]
    arch = answer("architecture", "--limit", "2")
    assert {p["package"] for p in arch["data"]["packages"]} == {"app", "tests"}
    context = answer("context", "clean", "--symbol")
    assert context["items"][0]["text"].startswith("def clean(x):")
    auto = answer("auto", "app/util.py:2")
    assert auto["data"]["classified"] == "path"

    text = runner.invoke(main, ["callers", "norm", "--root", str(root)])
    assert text.exit_code == 0 and "norm(x)" in text.output
    assert "CALLS import  distance 1  confidence 0.95" in text.output
    assert "coverage: depth limit 1 reached: 2 more callers one step further were not followed" in text.output
    nobody = runner.invoke(main, ["callers", "clean_view", "--root", str(root)])
    assert "note: no callers of clean_view in the index" in nobody.output
    missing = runner.invoke(main, ["callers", "nope", "--root", str(root)])
    assert missing.exit_code == 1
    bad = runner.invoke(main, ["callers", "norm", "--depth", "99", "--root", str(root)])
    assert bad.exit_code == 2
    impl = runner.invoke(main, ["implementations", "norm", "--root", str(root), "--json"])
    assert impl.exit_code == 2 and json.loads(impl.output)["code"] == "INVALID_ARGUMENT"

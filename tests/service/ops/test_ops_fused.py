"""Fused semantic evidence with real language servers (basedpyright, jedi-language-server, clangd):
references, implementations, callers and callees answer one list labelled index / lsp / both;
confirmed edges are upgraded and kept until a file changes; graph misses are reported; name-only
candidates are listed apart; a failing server leaves the index answer with the reason."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.evidence.budget import serialize
from lazy_intel.semantic import SemanticLayer
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.semantic.conftest import INSTALL_HINT, install_fake_server, locate_server, sha256_of, write_config

FILES = {
    "lib.py": (
        "class Engine:\n"
        "    def start(self) -> int:\n"
        "        return 1\n\n\n"
        "class Turbo(Engine):\n"
        "    def start(self) -> int:\n"
        "        return 2\n\n\n"
        "def build() -> Engine:\n"
        "    return Engine()\n\n\n"
        "def run(x: int) -> int:\n"
        "    return x\n"
    ),
    "use.py": (
        "import lib\n"
        "from lib import Engine, build, run\n\n\n"
        "def a() -> int:\n"
        "    e = build()\n"
        "    return run(e.start())\n\n\n"
        "def c(engine: Engine) -> int:\n"
        "    return engine.start()\n\n\n"
        "def e() -> int:\n"
        "    return max([Engine()], key=id).start()\n"
    ),
    # two classes define `spin`: an unknown receiver's call is an ambiguous, name-only candidate
    "spin.py": (
        "class Left:\n    def spin(self) -> int:\n        return 1\n\n\n"
        "class Right:\n    def spin(self) -> int:\n        return 2\n\n\n"
        "def twirl(thing) -> int:\n    return thing.spin()\n\n\n"
        "def left() -> int:\n    return Left().spin()\n"
    ),
}
SETTLE_TRIES = 30


def _server(which: str, **overrides: Any) -> dict[str, Any]:
    server = locate_server(which)
    if server is None:
        if os.environ.get("CI"):
            pytest.fail(f"{which} missing in CI: {INSTALL_HINT}")
        pytest.skip(f"{which} not installed: {INSTALL_HINT}")
    return server.entry(**overrides)


Run = Callable[..., dict[str, Any]]


@pytest.fixture
def fused(make_repo: Callable[..., Path], tmp_path: Path):  # type: ignore[no-untyped-def]
    """``fused(server_entry, files)`` -> (run, run_without_server, root, workspace)."""
    made: list[tuple[SemanticLayer, Workspace]] = []

    def build(entry: dict[str, Any], files: dict[str, str] = FILES) -> tuple[Run, Run, Path, Workspace]:
        root = Path(os.path.realpath(make_repo(files)))
        operator = tmp_path / f"operator{len(made)}"
        operator.mkdir()
        config = write_config(operator / "servers.json", [entry])
        settings = load_settings(env={"LAZY_INTEL_LSP_CONFIG": str(config)})
        layer = SemanticLayer.from_settings(settings)
        ws = Workspace.open(root, settings=settings)
        ws.sync()
        made.append((layer, ws))
        plain = load_settings(env={})

        def run(**args: Any) -> dict[str, Any]:
            answer = execute({"freshness": "fast", **args}, lambda _r: ws, settings, semantic=layer)
            assert answer.status == "error" or answer.used_chars == len(serialize(answer)) <= answer.max_chars
            return answer.to_dict()

        def without(**args: Any) -> dict[str, Any]:
            return execute({"freshness": "fast", **args}, lambda _r: ws, plain).to_dict()

        return run, without, root, ws

    yield build
    for layer, ws in made:
        layer.close()
        ws.close()


def settled(run: Run, **args: Any) -> dict[str, Any]:
    """The answer once the server has loaded the project: two answers in a row with the same sites
    (a cold server may answer from the open files only). Bounded: at most SETTLE_TRIES requests."""
    pause = threading.Event()
    previous = None
    answer: dict[str, Any] = {}
    for _ in range(SETTLE_TRIES):
        answer = run(**args)
        sites = [(i["anchor"]["path"], i["anchor"]["start_byte"], i.get("evidence")) for i in answer["items"]]
        if sites == previous:
            return answer
        previous = sites
        pause.wait(0.2)
    return answer


def by_text(answer: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for item in answer["items"]:
        out.setdefault((item.get("text") or "").strip(), []).append(item)
    return out


def test_references_fuse_index_and_server_with_labels(fused) -> None:  # type: ignore[no-untyped-def]
    run, without, _, _ = fused(_server("basedpyright"))
    answer = settled(run, operation="references", symbol="Engine.start", relativePath="lib.py", limit=50)
    assert answer["status"] == "ok" and answer["data"]["source"] == "fused"
    items = answer["items"]
    assert all(i.get("evidence") in ("index", "lsp", "both") for i in items)
    assert items[0]["kind"] == "declaration" and items[0]["evidence"] == "both"
    texts = by_text(answer)
    for site in ("return run(e.start())", "return engine.start()"):
        hit = [i for i in items if i["kind"] == "reference" and i["text"] in site]
        assert hit and hit[0]["evidence"] == "both", (site, items)
        assert hit[0]["edge"]["strategy"] == "lsp-confirmed" and hit[0]["confidence"] >= 0.99
        assert hit[0]["edge"]["resolved_by"] in ("member", "dataflow", "import", "local")
        assert hit[0]["observation"]["server_id"] == "basedpyright" and "lsp_match" in hit[0]
    # the graph did not resolve max([...]).start(); the server did: a graph miss, the live item as is
    misses = [i for i in items if i["evidence"] == "lsp"]
    assert misses and all("observation" in i and "edge" not in i for i in misses)
    assert any("max([Engine()], key=id).start()" in i["text"] for i in misses)
    assert answer["data"]["counts"]["lsp"] == len(misses)
    assert any(c.startswith("graph misses: ") and "use.py" in c for c in answer["coverage"])
    # the index alone still has every site it had, and now shows the confirmations
    later = without(operation="references", symbol="Engine.start", relativePath="lib.py", limit=50)
    assert later["data"]["source"] == "index"
    confirmed = [i for i in later["items"] if i.get("edge", {}).get("strategy") == "lsp-confirmed"]
    assert len(confirmed) == answer["data"]["counts"]["both"]
    assert all(i["edge"]["confirmed_by"] == "basedpyright" for i in confirmed)
    assert "texts" not in texts  # by_text is total: every item has a text


def test_confirmations_are_dropped_when_a_file_changes(fused) -> None:  # type: ignore[no-untyped-def]
    run, without, root, ws = fused(_server("basedpyright"))
    settled(run, operation="references", symbol="run", relativePath="lib.py")
    before = without(operation="references", symbol="run", relativePath="lib.py")
    assert any(i.get("edge", {}).get("strategy") == "lsp-confirmed" for i in before["items"])
    (root / "use.py").write_text((root / "use.py").read_text() + "\n\nX = 1\n")
    ws.sync()
    after = without(operation="references", symbol="run", relativePath="lib.py")
    strategies = {
        i["anchor"]["path"]: i["edge"]["strategy"] for i in after["items"] if i["kind"] == "reference"
    }
    assert strategies and all(s != "lsp-confirmed" for s in strategies.values()), strategies
    # the target's file changing drops them too
    settled(run, operation="references", symbol="run", relativePath="lib.py")
    (root / "lib.py").write_text((root / "lib.py").read_text() + "\n\nY = 2\n")
    ws.sync()
    final = without(operation="references", symbol="run", relativePath="lib.py")
    assert all(i.get("edge", {}).get("strategy") != "lsp-confirmed" for i in final["items"])


def test_name_only_candidates_are_listed_apart(fused) -> None:  # type: ignore[no-untyped-def]
    _, without, _, _ = fused(_server("basedpyright"))
    plain = without(operation="references", symbol="Left.spin", relativePath="spin.py")
    kinds = [(i["kind"], i["text"]) for i in plain["items"]]
    assert ("reference", "Left().spin()") in kinds
    assert all(text != "thing.spin()" for _, text in kinds)  # ambiguous: a candidate, left out
    assert plain["data"]["candidates"] == 1
    assert any(
        "candidate site(s) resolved by name only" in c and "includeCandidates" in c for c in plain["coverage"]
    )
    listed = without(
        operation="references", symbol="Left.spin", relativePath="spin.py", includeCandidates=True
    )
    candidate = [i for i in listed["items"] if i["kind"] == "candidate"]
    assert [i["text"] for i in candidate] == ["thing.spin()"] and candidate[0]["edge"][
        "strategy"
    ] == "ambiguous"


def test_fused_candidates_confirmed_by_the_server_become_references(fused) -> None:  # type: ignore[no-untyped-def]
    files = dict(FILES)
    files["spin.py"] = files["spin.py"].replace("def twirl(thing) -> int:", "def twirl(thing: Left) -> int:")
    files["spin.py"] = files["spin.py"].replace("twirl(thing: Left)", "twirl(thing: 'Left')")
    run, _, _, _ = fused(_server("basedpyright"), files)
    answer = settled(
        run, operation="references", symbol="Left.spin", relativePath="spin.py", includeCandidates=True
    )
    refs = {i["text"]: i for i in answer["items"] if i["kind"] in ("reference", "candidate")}
    assert refs["Left().spin()"]["evidence"] == "both"
    twirl = refs["thing.spin()"]
    # resolved by the annotation (member) or only by name: either way the server confirmed it
    assert twirl["evidence"] == "both" and twirl["kind"] == "reference"


def test_implementations_callers_and_callees_are_fused(fused) -> None:  # type: ignore[no-untyped-def]
    run, _, _, _ = fused(_server("basedpyright"))
    settled(run, operation="references", symbol="Engine", relativePath="lib.py")
    impl = settled(run, operation="implementations", symbol="Engine", relativePath="lib.py")
    assert impl["data"]["source"] == "fused"
    subs = [i for i in impl["items"] if i["kind"] == "implementation"]
    assert [(i["symbol"]["qualified_name"], i["evidence"]) for i in subs] == [("Turbo", "both")]
    assert subs[0]["observation"]["server_id"] == "basedpyright"
    callers = settled(run, operation="callers", symbol="run", relativePath="lib.py")
    assert callers["data"]["source"] == "fused"
    calls = [i for i in callers["items"] if i["kind"] == "call"]
    assert [(i["text"], i["evidence"]) for i in calls] == [("run(e.start())", "both")]
    assert calls[0]["edge"]["strategy"] == "lsp-confirmed"
    callees = settled(run, operation="callees", symbol="a", relativePath="use.py")
    labelled = {i["text"]: i["evidence"] for i in callees["items"] if i["kind"] == "call"}
    assert labelled.get("build()") == "both" and labelled.get("run(e.start())") == "both", callees["items"]
    assert any("call hierarchy, one level" in c for c in callees["coverage"])


def test_jedi_references_are_fused_and_unnegotiated_operations_say_why(fused) -> None:  # type: ignore[no-untyped-def]
    run, _, _, _ = fused(_server("jedi"))
    answer = settled(run, operation="references", symbol="build", relativePath="lib.py")
    assert answer["data"]["source"] == "fused"
    assert [(i["text"], i["evidence"]) for i in answer["items"] if i["kind"] == "reference"] == [
        ("from lib import Engine, build, run", "both"),
        ("build()", "both"),
    ]
    callers = run(operation="callers", symbol="build", relativePath="lib.py")
    assert callers["data"]["source"] == "index"
    assert (
        callers["coverage"][-1]
        == "source: index graph, because language server jedi did not negotiate call_hierarchy"
    )


C_FILES = {
    "compile_flags.txt": "-std=c11\n",
    "util.h": "int twice(int x);\n",
    "util.c": '#include "util.h"\n\nint twice(int x) {\n  return 2 * x;\n}\n',
    "main.c": '#include "util.h"\n\nint main(void) {\n  return twice(3) + twice(4);\n}\n',
}


def test_clangd_fuses_references_in_c(fused) -> None:  # type: ignore[no-untyped-def]
    entry = _server("clangd", languages=[{"id": "c", "extensions": [".c", ".h"]}])
    run, _, _, _ = fused(entry, C_FILES)
    answer = settled(run, operation="references", symbol="twice", relativePath="util.c")
    assert answer["data"]["source"] == "fused"
    refs = [i for i in answer["items"] if i["kind"] == "reference"]
    calls = [i for i in refs if i["anchor"]["path"] == "main.c"]
    assert len(calls) == 2 and all(i["evidence"] == "both" for i in calls), answer["items"]
    assert answer["data"]["counts"]["both"] >= 2


def test_a_server_that_fails_leaves_the_index_answer(fused, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    broken = tmp_path / "exits-at-once"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    import hashlib

    entry = _server(
        "basedpyright",
        id="broken",
        name="broken",
        executable=str(broken),
        executable_sha256=hashlib.sha256(broken.read_bytes()).hexdigest(),
        arguments=[],
    )
    run, _, _, _ = fused(entry)
    for operation, symbol in (("references", "run"), ("implementations", "Engine"), ("callers", "run")):
        answer = run(operation=operation, symbol=symbol, relativePath="lib.py")
        assert answer["status"] == "ok" and answer["data"]["source"] == "index", answer
        assert any("language server broken is unavailable" in c for c in answer["coverage"])


def test_a_server_that_dies_or_errs_mid_request_leaves_the_index_answer(fused, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config_dir = Path(os.path.realpath(tmp_path / "fake"))
    config_dir.mkdir()
    exe = install_fake_server(config_dir)
    for mode, said in (("crash-references", "the live server"), ("plain", "the live server answered")):
        entry = {
            "protocol_version": "code-intel-lsp.v1",
            "id": f"fake-{mode}",
            "name": "fake",
            "languages": [{"id": "python", "extensions": [".py"]}],
            "executable": str(exe),
            "arguments": [mode, str(config_dir / f"{mode}.log")],
            "executable_sha256": sha256_of(exe),
            "request_timeout_ms": 10_000,
            "reviewed_by": "test-suite",
            "reviewed_at": "2026-01-01T00:00:00Z",
        }
        run, _, _, _ = fused(entry)
        answer = run(operation="references", symbol="run", relativePath="lib.py")
        assert answer["status"] == "ok" and answer["data"]["source"] == "index", answer
        assert answer["coverage"][0].startswith(f"source: index graph, because {said}"), answer["coverage"]
        assert [i["text"] for i in answer["items"] if i["kind"] == "reference"] == [
            "from lib import Engine, build, run",
            "run(e.start())",
        ]


def test_a_property_s_getter_and_setter_are_fused_as_one_symbol(fused) -> None:  # type: ignore[no-untyped-def]
    """A property is two definitions of one name (getter, setter): the server answers for the
    property, and the index's sites of both definitions are fused (flask: `references App.debug`
    with a server lost every `self.debug` read, which the index alone had, when the setter was the
    definition asked about)."""
    files = {
        "gauge.py": (
            "class Gauge:\n"
            "    @property\n    def level(self) -> int:\n        return 1\n\n"
            "    @level.setter\n    def level(self, value: int) -> None:\n        pass\n\n\n"
            "def read(g: Gauge) -> int:\n    return g.level\n\n\n"
            "def write(g: Gauge) -> None:\n    g.level = 2\n"
        )
    }
    run, without, _, _ = fused(_server("jedi"), files)
    index = without(operation="references", symbol="Gauge.level", relativePath="gauge.py")
    assert "g.level" in {i["text"] for i in index["items"] if i["kind"] == "reference"}
    answer = settled(run, operation="references", symbol="Gauge.level", relativePath="gauge.py")
    assert answer["data"]["source"] == "fused"
    assert not any("only; the answer fuses that definition" in w for w in answer["warnings"])
    texts = {i["text"] for i in answer["items"] if i["kind"] == "reference"}
    assert "g.level" in texts, answer["items"]


def test_server_sites_the_index_resolved_elsewhere_are_conflicts(fused) -> None:  # type: ignore[no-untyped-def]
    """jedi infers an untyped parameter from its call sites and then lists, among the references of
    `Left.spin`, the definition of `Other.spin` and `x.spin()` where only an `Other` is passed
    (xarray: every aggregation class's `mean` among the references of one of them). The index
    resolved both sites elsewhere: they are conflicts, left out unless candidates are asked for,
    never graph misses."""
    files = {
        "inh.py": (
            "class Left:\n    def spin(self) -> int:\n        return 1\n\n\n"
            "class Sub(Left):\n    def spin(self) -> int:\n        return 3\n\n\n"
            "class Other:\n    def spin(self) -> int:\n        return 4\n\n\n"
            "def f(x):\n    return x.spin()\n\n\n"
            "def g():\n    f(Other())\n    return Sub().spin()\n\n\n"
            "def h(items):\n    return [i.spin() for i in items]\n\n\n"
            "h([Left(), Other()])\n"
        )
    }
    run, without, _, _ = fused(_server("jedi"), files)
    args = {
        "operation": "references",
        "symbol": "Left.spin",
        "relativePath": "inh.py",
        "includeDeclaration": False,
    }
    answer = settled(run, **args)
    assert answer["data"]["source"] == "fused"
    listed = [(i["text"], i["evidence"]) for i in answer["items"]]
    assert all(e != "conflict" for _, e in listed) and all("x.spin" not in t for t, _ in listed), listed
    assert answer["data"]["counts"]["conflicts"] == 2, answer["data"]
    line = next(c for c in answer["coverage"] if c.startswith("conflicts: 2 site(s)"))
    assert "inh.py:12 -> Other.spin" in line and "inh.py:17 -> Other.spin" in line, line
    assert "includeCandidates" in line
    assert not any("inh.py:12" in m or "inh.py:17" in m for m in answer["data"]["graph_misses"])
    both = [t for t, e in listed if e == "both"]
    assert "i.spin()" in both, listed  # a call the index resolves to both classes is confirmed
    # asked for candidates: the conflicts are listed last, with where the index puts them
    full = settled(run, **args, includeCandidates=True)
    conflicts = [i for i in full["items"] if i.get("evidence") == "conflict"]
    assert [(i["kind"], i["anchor"]["start_line"]) for i in conflicts] == [
        ("candidate", 12),
        ("candidate", 17),
    ]
    assert [i["index_resolves_to"]["name"] for i in conflicts] == ["Other.spin", "Other.spin"]
    assert conflicts[0]["index_edge"]["strategy"] == "definition"
    assert conflicts[1]["index_edge"]["strategy"] not in ("ambiguous", "unique-name", "definition")
    assert all("observation" in i for i in conflicts)
    # the index alone never says a word about them
    plain = without(**args)
    assert "conflicts" not in plain["data"].get("counts", {})

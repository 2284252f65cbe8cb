"""Symbol graphs built from real callers/callees/impact answers, and how two of them merge."""

from __future__ import annotations

from pathlib import Path

from lazy_intel.ui.graphs import call_graph, impact_graph
from tests.conftest import write_tree
from tests.ui.conftest import answer, make_shop


def graph_of(root: Path, symbol: str, path: str | None = None) -> dict:
    common = {"symbol": symbol, "relativePath": path, "maxChars": 200_000, "limit": 60}
    return call_graph(
        answer(root, operation="callers", **common), answer(root, operation="callees", **common)
    )


def test_callers_and_callees_become_nodes_and_edges(tmp_path: Path) -> None:
    root = make_shop(tmp_path)
    graph = graph_of(root, "clean", "app/svc.py")
    roles = {n["name"]: n["role"] for n in graph["nodes"]}
    assert roles == {"clean": "target", "clean_all": "caller", "test_clean": "caller", "norm": "callee"}
    target = next(n for n in graph["nodes"] if n["role"] == "target")
    assert target["anchor"]["path"] == "app/svc.py" and target["anchor"]["start_line"] == 4
    ids = {n["name"]: n["id"] for n in graph["nodes"]}
    pairs = {(e["from"], e["to"]) for e in graph["edges"]}
    assert pairs == {
        (ids["clean_all"], ids["clean"]),
        (ids["test_clean"], ids["clean"]),
        (ids["clean"], ids["norm"]),
    }
    site = next(e for e in graph["edges"] if e["to"] == ids["norm"])
    assert (
        site["type"] == "CALLS"
        and site["anchor"]["path"] == "app/svc.py"
        and site["anchor"]["start_line"] == 5
    )
    assert all(0 < e["confidence"] <= 1 for e in graph["edges"])


def test_expanding_merges_on_the_same_node_ids(tmp_path: Path) -> None:
    root = make_shop(tmp_path)
    around_clean = graph_of(root, "clean", "app/svc.py")
    around_norm = graph_of(root, "norm", "app/util.py")
    norm_id = next(n["id"] for n in around_clean["nodes"] if n["name"] == "norm")
    assert norm_id in {n["id"] for n in around_norm["nodes"] if n["role"] == "target"}
    clean_id = next(n["id"] for n in around_clean["nodes"] if n["name"] == "clean")
    assert clean_id in {n["id"] for n in around_norm["nodes"] if n["role"] == "caller"}
    assert {n["name"] for n in around_norm["nodes"] if n["resolved"]} == {"norm", "clean", "shout"}
    assert {n["name"] for n in around_norm["nodes"] if not n["resolved"]} == {"x.strip"}


def test_unresolved_calls_are_external_nodes(tmp_path: Path) -> None:
    root = tmp_path / "ext"
    write_tree(root, {"m.py": "import json\n\n\ndef load(s):\n    return json.loads(s).get('a')\n"})
    answer(root, operation="sync")
    graph = graph_of(root, "load")
    external = [n for n in graph["nodes"] if n["role"] == "external"]
    assert external and all(not n["resolved"] and n["path"] is None for n in external)
    assert all(e["confidence"] == 0 for e in graph["edges"] if e["to"] in {n["id"] for n in external})


def test_impact_graph_links_each_dependent_to_what_it_uses(tmp_path: Path) -> None:
    root = make_shop(tmp_path)
    impact = answer(root, operation="impact", symbol="norm", depth=3, limit=100, maxChars=200_000)
    graph = impact_graph(impact)
    by_id = {n["id"]: n for n in graph["nodes"]}
    names = {n["name"]: n for n in graph["nodes"]}
    assert names["norm"]["role"] == "target"
    assert names["clean"]["role"] == "dependent" and names["test_clean"]["role"] == "test"
    dependents = [i for i in impact["items"] if i["kind"] == "dependent"]
    assert (
        len([n for n in graph["nodes"] if n["role"] in ("dependent", "test")])
        >= len({(i["anchor"]["path"], i["anchor"]["start_line"]) for i in dependents}) - 1
    )
    for edge in graph["edges"]:
        assert edge["from"] in by_id and edge["to"] in by_id
    uses = {(by_id[e["from"]]["name"], by_id[e["to"]]["name"], e["type"]) for e in graph["edges"]}
    assert ("clean", "norm", "CALLS") in uses and ("test_clean", "clean", "CALLS") in uses
    assert all(n.get("anchor") for n in graph["nodes"] if n["role"] in ("dependent", "test"))

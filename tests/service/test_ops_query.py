"""``query`` end to end: a real repository indexed by run_sync, Cypher through ``execute`` and the CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lazy_intel.cli.main import main
from lazy_intel.evidence.budget import serialize
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "pkg/__init__.py": "",
    "pkg/b.py": "def helper(x):\n    return inner(x)\n\n\ndef inner(x):\n    return x\n",
    "pkg/a.py": (
        "from pkg.b import helper\n\n\n"
        "class Base:\n"
        "    def run(self):\n"
        "        return helper(1)\n\n\n"
        "class Child(Base):\n"
        "    def run(self):\n"
        "        return self.go()\n\n"
        "    def go(self):\n"
        "        return helper(2)\n\n\n"
        "def main():\n"
        "    Child().run()\n"
        "    missing_thing()\n"
    ),
    "tests/test_a.py": "from pkg.a import main\n\n\ndef test_main():\n    main()\n",
}


def indexed_runner(
    make_repo, files: dict[str, str] = FILES, env: dict[str, str] | None = None, **overrides: Any
) -> tuple[Path, Any]:
    root = make_repo(files)
    settings = load_settings(env=env or {}, **overrides)
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        answer = execute({"operation": "query", "freshness": "fast", **args}, lambda _root: ws, settings)
        assert answer.used_chars == len(serialize(answer))
        assert answer.max_chars == 0 or answer.used_chars <= answer.max_chars
        return answer.to_dict()

    return root, run


@pytest.fixture
def indexed(make_repo, backend_env) -> tuple[Path, Any]:
    return indexed_runner(make_repo, env=backend_env)


def column(answer: dict[str, Any], name: str) -> list[Any]:
    """One column of every row of the page, items first (rows with anchors), then data rows."""
    rows = [item["row"] for item in answer["items"]] + answer["data"]["rows"]
    return [row[name] for row in rows]


def test_callers_of_a_function(indexed) -> None:
    _root, run = indexed
    answer = run(query="MATCH (a)-[:CALLS]->(b:Function {name: 'helper'}) RETURN a.qualified_name AS caller")
    assert answer["status"] == "ok", answer
    assert answer["data"]["columns"] == ["caller"]
    assert column(answer, "caller") == ["Base.run", "Child.go"]
    assert any("unresolved" in c for c in answer["coverage"])


def test_node_rows_are_anchored_items_that_verify(indexed) -> None:
    root, run = indexed
    answer = run(
        query="MATCH (a:Method)-[r:CALLS]->(b {name: 'helper'}) RETURN a, r.strategy AS how", limit=10
    )
    assert answer["status"] == "ok"
    assert [item["symbol"]["qualified_name"] for item in answer["items"]] == ["Base.run", "Child.go"]
    for item in answer["items"]:
        anchor = item["anchor"]
        data = (root / anchor["path"]).read_bytes()
        assert anchor["sha256"] == hashlib.sha256(data).hexdigest()
        assert data[anchor["start_byte"] : anchor["end_byte"]].startswith(
            f"def {item['symbol']['name']}".encode()
        )
        assert item["row"]["a"]["qualified_name"] == item["symbol"]["qualified_name"]
        assert item["row"]["how"] == "import" and item["text_kind"] == "description"
    anchors = [item["anchor"] for item in answer["items"]]
    checked = execute(
        {"operation": "verify", "anchors": anchors, "root": str(root)},
        lambda _r: Workspace.open(root, settings=load_settings(env={})),
        load_settings(env={}),
    )
    assert [i.extra["verdict"] for i in checked.items if i.extra] == ["current", "current"]


@pytest.mark.parametrize(
    ("hops", "callers"),
    [
        ("1..1", ["helper"]),
        ("1..2", ["Base.run", "Child.go", "helper"]),
        ("2..3", ["Base.run", "Child.go", "Child.run"]),
        ("1..4", ["Base.run", "Child.go", "Child.run", "helper", "main"]),
    ],
)
def test_transitive_callers_by_variable_length_path(indexed, hops: str, callers: list[str]) -> None:
    _root, run = indexed
    answer = run(
        query=f"MATCH (a)-[:CALLS*{hops}]->(b:Function {{name: 'inner'}}) RETURN a.qualified_name AS q"
    )
    assert answer["status"] == "ok"
    assert column(answer, "q") == callers


def test_unresolved_calls_stay_queryable(indexed) -> None:
    _root, run = indexed
    answer = run(query="MATCH (f)-[r:CALLS]->() WHERE NOT r.resolved RETURN f.name AS f, r.target AS target")
    assert [(row["f"], row["target"]) for row in answer["data"]["rows"]] == [("main", "missing_thing")]


def test_aggregates_come_back_as_data_rows(indexed) -> None:
    _root, run = indexed
    answer = run(query="MATCH (a)-[:CALLS]->(b {name: 'helper'}) RETURN b.name, count(a) AS callers")
    assert answer["status"] == "ok" and answer["items"] == []
    assert answer["data"]["rows"] == [{"b.name": "helper", "callers": 2}]


def test_row_cap_makes_the_answer_partial(make_repo) -> None:
    _root, run = indexed_runner(make_repo, query_max_rows=2)
    answer = run(query="MATCH (n:Function) RETURN n.name AS name", limit=50)
    assert answer["status"] == "partial"
    assert answer["data"]["row_count"] == 2 and len(column(answer, "name")) == 2
    assert any("more than 2 rows" in w for w in answer["warnings"])
    within = run(query="MATCH (n:Function) RETURN n.name AS name LIMIT 2")
    assert within["status"] == "ok" and not within["warnings"]


def test_hop_cap_is_reported(make_repo) -> None:
    _root, run = indexed_runner(make_repo, query_max_hops=2)
    answer = run(query="MATCH (a)-[:CALLS*]->(b {name: 'inner'}) RETURN a.qualified_name AS q")
    assert answer["status"] == "partial"
    assert column(answer, "q") == ["Base.run", "Child.go", "helper"]
    assert any("stop at 2 hops" in c for c in answer["coverage"])


def test_pages_follow_the_cursor_and_cover_every_row(indexed) -> None:
    _root, run = indexed
    query = "MATCH (n) WHERE n.path STARTS WITH 'pkg/' RETURN n ORDER BY n.qualified_name"
    whole = run(query=query, limit=200, maxChars=200_000)
    expected = [item["row"]["n"]["id"] for item in whole["items"]]
    assert len(expected) > 5 and whole.get("next_cursor") is None
    seen: list[int] = []
    cursor = None
    for _ in range(50):
        page = run(query=query, limit=2, **({"cursor": cursor} if cursor else {}))
        seen.extend(item["row"]["n"]["id"] for item in page["items"])
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == expected
    names = [item["row"]["n"]["qualified_name"] for item in whole["items"]]
    assert names == sorted(names)


def test_a_small_budget_trims_rows_and_offers_a_cursor(indexed) -> None:
    _root, run = indexed
    answer = run(query="MATCH (n) WHERE n.path STARTS WITH 'pkg/' RETURN n LIMIT 50", maxChars=3_000)
    assert 0 < len(answer["items"]) < answer["data"]["row_count"]
    assert answer["next_cursor"] and answer["status"] == "partial"
    assert any("maxChars" in w for w in answer["warnings"])


def test_unsupported_syntax_is_an_error_with_its_position(indexed) -> None:
    _root, run = indexed
    answer = run(query="MATCH (a:Function)\nDETACH DELETE a")
    assert answer["status"] == "error" and answer["code"] == "INVALID_ARGUMENT"
    assert answer["data"] == {
        "reason": "unsupported",
        "construct": "DETACH",
        "offset": 19,
        "line": 2,
        "column": 1,
    }
    assert "read-only" in answer["message"]
    typo = run(query="MATCH (a:Fuction) RETURN a")
    assert typo["data"]["reason"] == "unknown_label" and "Function" in typo["message"]
    missing = run()
    assert missing["code"] == "INVALID_ARGUMENT" and "query" in missing["message"]


def test_a_slow_query_times_out_and_the_view_still_answers(make_repo) -> None:
    chain = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n\n\n" for i in range(200))
    _root, run = indexed_runner(make_repo, {"chain.py": chain}, query_timeout_ms=1)
    answer = run(query="MATCH (a), (b), (c) WHERE a.name < b.name RETURN count(*)")
    assert answer["status"] == "error" and answer["code"] == "TIMEOUT"
    assert "LAZY_INTEL_QUERY_TIMEOUT_MS" in answer["next_step"]
    after = run(query="MATCH (a:Function {name: 'f0'})-[:CALLS]->(b) RETURN b.name")
    assert after["status"] == "ok" and after["data"]["rows"] == [{"b.name": "f1"}]


def test_cli_query_prints_a_table_and_json(make_repo) -> None:
    root = make_repo(FILES)
    runner = CliRunner()
    cypher = "MATCH (a)-[:CALLS]->(b {name: 'helper'}) RETURN a.qualified_name AS caller, a"
    text = runner.invoke(main, ["query", cypher, "--root", str(root)])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0] == "caller\ta"
    assert lines[1].startswith("Base.run\t(Method Base.run pkg/a.py:5)")
    assert lines[2].startswith("Child.go\t(Method Child.go pkg/a.py:13)")
    assert "2 of 2 row(s)" in lines[-1]
    as_json = runner.invoke(main, ["query", cypher, "--root", str(root), "--json"])
    answer = json.loads(as_json.output)
    assert [i["row"]["caller"] for i in answer["items"]] == ["Base.run", "Child.go"]
    refused = runner.invoke(main, ["query", "CREATE (n)", "--root", str(root)])
    assert refused.exit_code == 2 and "CREATE is not supported" in refused.output

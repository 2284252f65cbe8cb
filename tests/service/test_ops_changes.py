"""``changes`` on real git repositories: edits, additions, deletions, new files, an older revision,
dependents, affected tests, budgets and cursors, refusals, and the CLI command."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lazy_intel.cli.main import main
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import git

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "import os\n\n\n"
        "class Store:\n"
        "    def save(self, x):\n"
        "        return helper(x)\n\n\n"
        "def helper(x):\n"
        "    return x + 1\n\n\n"
        "def unused():\n"
        "    return 0\n"
    ),
    "pkg/api.py": "from pkg.core import helper\n\n\ndef handle(x):\n    return helper(x)\n",
    "pkg/cli.py": "from pkg.api import handle\n\n\ndef main():\n    return handle(1)\n",
    "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n",
    "tests/test_api.py": "from pkg.api import handle\n\n\ndef test_handle():\n    assert handle(1) == 2\n",
    "tests/test_other.py": "def test_nothing():\n    assert True\n",
    "README.md": "# demo\n",
}


@pytest.fixture
def setup(make_repo: Callable[..., Path]):  # type: ignore[no-untyped-def]
    root = make_repo(FILES, use_git=True)
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(root, settings=settings)

    def run(**args: Any) -> dict[str, Any]:
        args.setdefault("freshness", "strict")
        return execute({"operation": "changes", **args}, lambda _: ws, settings).to_dict()

    yield root, run
    ws.close()


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def symbols(answer: dict[str, Any]) -> set[tuple[str, str]]:
    """(change, path:qualified name) of every changed definition listed."""
    return {
        (i["change"], f"{i['path']}:{i['symbol']['qualified_name']}")
        for i in answer["items"]
        if i["kind"] == "changed_symbol"
    }


def test_clean_tree_has_no_changes(setup) -> None:  # type: ignore[no-untyped-def]
    _, run = setup
    answer = run()
    assert answer["status"] == "ok" and answer["items"] == []
    assert answer["message"].startswith("no changes between HEAD")
    assert answer["data"]["files_total"] == 0


def test_edited_definition_with_dependents_and_affected_tests(setup) -> None:  # type: ignore[no-untyped-def]
    root, run = setup
    edit(root, "pkg/core.py", "return x + 1", "return x + 2")
    answer = run(limit=50)
    assert answer["status"] == "ok"
    assert symbols(answer) == {("modified", "pkg/core.py:helper")}
    changed = next(i for i in answer["items"] if i["kind"] == "changed_symbol")
    assert changed["anchor"]["path"] == "pkg/core.py" and changed["anchor"]["start_line"] == 9
    assert {(d["path"], d["name"]) for d in changed["dependents"]} >= {
        ("pkg/core.py", "Store.save"),
        ("pkg/api.py", "handle"),
    }
    dependents = {
        (i["anchor"]["path"], i.get("symbol", {}).get("qualified_name"))
        for i in answer["items"]
        if i["kind"] == "dependent"
    }
    assert {("pkg/api.py", "handle"), ("pkg/cli.py", "main"), ("pkg/core.py", "Store.save")} <= dependents
    tests = answer["data"]["affected_test_files"]
    assert "tests/test_core.py" in tests and "tests/test_api.py" in tests
    assert "tests/test_other.py" not in tests
    test_items = {i["anchor"]["path"]: i for i in answer["items"] if i["kind"] == "affected_test"}
    assert any("imports" in r for r in test_items["tests/test_core.py"]["reasons"])
    assert answer["data"]["files"] == [
        {"path": "pkg/core.py", "status": "modified", "symbols": {"modified": 1}}
    ]
    # the anchors are the indexed bytes: verify says current
    anchors = [i["anchor"] for i in answer["items"]]
    verified = execute_verify(root, run, anchors)
    assert {i["verdict"] for i in verified["items"]} == {"current"}


def execute_verify(root: Path, run, anchors):  # type: ignore[no-untyped-def]
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(root, settings=settings)
    try:
        return execute({"operation": "verify", "anchors": anchors}, lambda _: ws, settings).to_dict()
    finally:
        ws.close()


def test_added_deleted_new_and_removed_files(setup) -> None:  # type: ignore[no-untyped-def]
    root, run = setup
    edit(root, "pkg/core.py", "def unused():\n    return 0\n", "def fresh():\n    return 5\n")
    (root / "pkg" / "extra.py").write_text("def brand_new():\n    return 1\n")  # untracked
    (root / "pkg" / "cli.py").unlink()
    edit(root, "tests/test_other.py", "assert True", "assert 1")
    answer = run(limit=100)
    found = symbols(answer)
    assert ("added", "pkg/core.py:fresh") in found and ("deleted", "pkg/core.py:unused") in found
    assert ("added", "pkg/extra.py:brand_new") in found
    assert ("deleted", "pkg/cli.py:main") in found
    assert ("modified", "tests/test_other.py:test_nothing") in found
    by_path = {f["path"]: f for f in answer["data"]["files"]}
    assert by_path["pkg/extra.py"]["status"] == "added" and by_path["pkg/cli.py"]["status"] == "deleted"
    deleted = next(
        i for i in answer["items"] if i.get("change") == "deleted" and i["symbol"]["name"] == "unused"
    )
    assert deleted["side"] == "old" and deleted["anchor"]["start_line"] == 13
    assert "tests/test_other.py" in answer["data"]["affected_test_files"]  # touched by the change
    assert any("unresolved site" in c for c in answer["coverage"])


def test_since_an_older_revision_includes_committed_changes(setup) -> None:  # type: ignore[no-untyped-def]
    root, run = setup
    edit(root, "pkg/api.py", "return helper(x)", "return helper(x) * 2")
    git(root, "commit", "-qam", "api")
    edit(root, "pkg/core.py", "return x + 1", "return x - 1")
    assert symbols(run()) == {("modified", "pkg/core.py:helper")}
    older = run(since="HEAD~1", limit=50)
    assert symbols(older) == {("modified", "pkg/core.py:helper"), ("modified", "pkg/api.py:handle")}
    assert older["data"]["since"]["commit"] == git(root, "rev-parse", "HEAD~1").strip()
    git(root, "branch", "base", "HEAD~1")
    assert symbols(run(since="base")) == symbols(older)


def test_module_level_and_non_code_changes(setup) -> None:  # type: ignore[no-untyped-def]
    root, run = setup
    edit(root, "pkg/core.py", "import os", "import sys")
    (root / "README.md").write_text("# demo, edited\n")
    answer = run(limit=50)
    files = {i["anchor"]["path"]: i for i in answer["items"] if i["kind"] == "changed_file"}
    assert set(files) == {"pkg/core.py", "README.md"}
    assert files["pkg/core.py"]["text"].startswith("modified module-level code")
    assert symbols(answer) == set()
    assert "tests/test_core.py" in answer["data"]["affected_test_files"]  # it imports the changed module


def test_budget_and_cursor_page_through_the_changes(setup) -> None:  # type: ignore[no-untyped-def]
    root, run = setup
    edit(root, "pkg/core.py", "return x + 1", "return x + 2")
    edit(root, "pkg/api.py", "return helper(x)", "return helper(x) + 0")
    everything = run(limit=100)
    total = everything["data"]["total"]
    seen: list[str] = []
    cursor = None
    for _ in range(total + 1):
        page = run(limit=2, **({"cursor": cursor} if cursor else {}))
        assert page["budget"]["used_chars"] <= page["budget"]["max_chars"]
        seen.extend(i["text"] for i in page["items"])
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == [i["text"] for i in everything["items"]]
    small = run(limit=100, maxChars=1500)
    assert small["budget"]["used_chars"] <= 1500 and small["status"] in ("ok", "partial")


def test_refusals(setup, make_repo: Callable[..., Path]) -> None:  # type: ignore[no-untyped-def]
    _, run = setup
    bad = run(since="no-such-branch")
    assert bad["code"] == "INVALID_ARGUMENT" and "no-such-branch" in bad["message"]
    for ref in ("--output=/tmp/x", "HEAD..main", "a b"):
        assert run(since=ref)["code"] == "INVALID_ARGUMENT"
    plain = make_repo({"a.py": "x = 1\n"})
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(plain, settings=settings)
    try:
        answer = execute({"operation": "changes", "freshness": "strict"}, lambda _: ws, settings).to_dict()
    finally:
        ws.close()
    assert answer["code"] == "UNSUPPORTED" and "not inside a git work tree" in answer["message"]


def test_unborn_repository_lists_every_file_as_added(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n"})
    git(root, "init", "-q", "-b", "main")
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(root, settings=settings)
    try:
        answer = execute({"operation": "changes", "freshness": "strict"}, lambda _: ws, settings).to_dict()
    finally:
        ws.close()
    assert answer["data"]["since"]["commit"] is None
    assert symbols(answer) == {("added", "a.py:f")}


def test_cli_changes_command(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = setup
    edit(root, "pkg/core.py", "return x + 1", "return x + 3")
    runner = CliRunner()
    state = str(tmp_path / "cli-state")
    done = runner.invoke(main, ["changes", "--root", str(root), "--state-dir", state, "--json"])
    assert done.exit_code == 0, done.output
    answer = json.loads(done.output)
    assert symbols(answer) == {("modified", "pkg/core.py:helper")}
    git(root, "commit", "-qam", "x")
    since = runner.invoke(
        main, ["changes", "--since", "HEAD~1", "--root", str(root), "--state-dir", state, "--json"]
    )
    assert symbols(json.loads(since.output)) == {("modified", "pkg/core.py:helper")}
    text = runner.invoke(main, ["changes", "--since", "HEAD~1", "--root", str(root), "--state-dir", state])
    assert "modified function helper (pkg/core.py:9)" in text.output


def test_import_statements_name_the_files_they_load() -> None:
    from lazy_intel.service.ops_changes import names_python_file

    assert names_python_file("tests/t.py", "requests.compat", "src/requests/compat.py")
    assert names_python_file("tests/t.py", "requests.compat", "src/requests/__init__.py")  # the package runs
    assert names_python_file("tests/t.py", "requests", "requests/__init__.py")
    assert not names_python_file("tests/t.py", "requests", "src/requests/models.py")
    assert not names_python_file("tests/t.py", "requests.compat", "src/other/compat.py")
    assert not names_python_file("tests/t.py", "compat", "src/requests/compat_extra.py")
    # relative imports: from the importer's package, exactly
    assert names_python_file("pkg/tests/t.py", ".helpers", "pkg/tests/helpers.py")
    assert names_python_file("pkg/tests/t.py", "..core", "pkg/core.py")
    assert not names_python_file("pkg/tests/t.py", "..core", "other/pkg/core.py")
    assert names_python_file("pkg/tests/t.py", ".", "pkg/tests/__init__.py")

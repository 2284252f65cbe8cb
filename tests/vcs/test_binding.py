"""The repository binding on real git repositories: commits, branches, dirty trees, a linked
worktree, submodules, a subdirectory root, an ignored root, and the bounds of the dirty digest."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from lazy_intel.cli.main import main
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.vcs.binding import (
    MAX_DIRTY_ENTRIES,
    BindingSource,
    capture,
    check_binding,
)
from lazy_intel.vcs.git import NoRepository, Repository, discover
from lazy_intel.workspace.scope import SUBMODULE_REASON, list_scope, load_policy
from tests.conftest import git
from tests.vcs.conftest import add_submodule, commit_all


def bind(root: Path):  # type: ignore[no-untyped-def]
    return capture(discover(root))


def test_clean_repository_is_bound_to_its_commit_and_branch(repo: Path) -> None:
    binding = bind(repo)
    assert binding.git and not binding.dirty and binding.dirty_digest is None
    assert binding.commit == git(repo, "rev-parse", "HEAD").strip()
    assert binding.branch == "main"
    assert binding.worktree == "main" and binding.bounded
    assert binding.to_dict() == {"git": True, "commit": binding.commit, "branch": "main", "dirty": False}


def test_dirty_digest_follows_content_index_and_untracked_files(repo: Path) -> None:
    clean = bind(repo)
    core = repo / "pkg" / "core.py"
    original = core.read_text()
    core.write_text(original + "# one\n")
    first = bind(repo)
    assert first.dirty and first.dirty_count == 1 and first.dirty_digest
    core.write_text(original + "# two\n")  # same size, same status code: only the bytes differ
    second = bind(repo)
    assert second.dirty_digest != first.dirty_digest
    git(repo, "add", "pkg/core.py")  # same bytes, the index entry moved
    staged = bind(repo)
    assert staged.dirty_digest != second.dirty_digest
    git(repo, "reset", "-q", "pkg/core.py")
    assert bind(repo).dirty_digest == second.dirty_digest
    (repo / "new.py").write_text("x = 1\n")
    with_new = bind(repo)
    assert with_new.dirty_count == 2 and with_new.dirty_digest != second.dirty_digest
    (repo / "new.py").unlink()
    core.write_text(original)
    assert bind(repo) == clean


def test_state_directory_never_makes_a_tree_dirty(repo: Path) -> None:
    (repo / ".lazy-intel" / "stores").mkdir(parents=True)
    (repo / ".lazy-intel" / "stores" / "x.sqlite").write_bytes(b"\0" * 10)
    (repo / "pkg" / ".lazy-intel").mkdir()
    (repo / "pkg" / ".lazy-intel" / "catalog.json").write_text("{}")
    assert not bind(repo).dirty


def test_commit_branch_and_detached_head(repo: Path) -> None:
    before = bind(repo)
    (repo / "pkg" / "core.py").write_text("def helper(x):\n    return x\n")
    after_commit = commit_all(repo, "second")
    moved = bind(repo)
    assert moved.commit == after_commit != before.commit and not moved.dirty
    git(repo, "checkout", "-q", "-b", "feature")
    assert bind(repo).branch == "feature" and bind(repo).commit == after_commit
    git(repo, "checkout", "-q", "--detach", before.commit or "")
    detached = bind(repo)
    assert detached.branch is None and detached.commit == before.commit


def test_unborn_repository_has_no_commit(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"a.py": "x = 1\n"})
    git(root, "init", "-q", "-b", "main")
    binding = bind(root)
    assert binding.git and binding.commit is None and binding.branch == "main" and binding.dirty


def test_linked_worktree_is_bound_to_its_own_head(repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    found = discover(linked)
    assert isinstance(found, Repository) and found.worktree == "linked"
    assert found.common_dir.resolve() == (repo / ".git").resolve()
    binding = bind(linked)
    assert binding.branch == "side" and binding.commit == bind(repo).commit
    assert binding.to_dict()["worktree"] == "linked"
    main_before = bind(repo)
    (linked / "pkg" / "core.py").write_text("changed = True\n")
    assert bind(linked).dirty and bind(repo) == main_before  # each work tree has its own dirty set
    commit_all(linked, "on side")
    assert bind(linked).commit != main_before.commit and bind(repo).commit == main_before.commit
    # the scope of a linked worktree is its own git listing
    listing = list_scope(load_policy(linked))
    assert listing.source == "git" and "pkg/core.py" in listing.paths


def test_linked_worktree_through_the_service(repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked-svc"
    git(repo, "worktree", "add", "-q", "-b", "svc", str(linked))
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(linked, settings=settings)
    try:
        ws.sync()
        answer = execute(
            {"operation": "symbol", "symbol": "helper", "freshness": "fast"}, lambda _: ws, settings
        ).to_dict()
    finally:
        ws.close()
    assert answer["status"] == "ok"
    assert answer["view"]["repository"]["worktree"] == "linked"
    assert answer["view"]["repository"]["branch"] == "svc"


def test_submodules_are_bound_and_excluded_from_the_scope(repo: Path) -> None:
    sub = add_submodule(repo, {"lib.py": "def lib():\n    return 1\n"})
    binding = bind(repo)
    assert not binding.dirty and binding.submodules == ("vendor/lib",)
    assert binding.to_dict()["submodules"] == 1
    listing = list_scope(load_policy(repo))
    assert "vendor/lib" not in listing.paths
    assert ("vendor/lib", SUBMODULE_REASON) in listing.excluded
    # a change inside the submodule, or a new commit checked out there, moves the parent's binding
    (sub / "lib.py").write_text("def lib():\n    return 2\n")
    edited = bind(repo)
    assert edited.dirty and edited.dirty_paths == ("vendor/lib",)
    (sub / "lib.py").write_text("def lib():\n    return 3\n")
    assert bind(repo).dirty_digest != edited.dirty_digest
    # the submodule as a root of its own: bound to its own commit, and says it is a submodule
    inner = bind(sub)
    assert inner.submodule and inner.commit == git(sub, "rev-parse", "HEAD").strip()
    assert inner.to_dict()["submodule"] is True


def test_submodule_checkout_is_not_reported_dirty_after_a_sync(repo: Path) -> None:
    add_submodule(repo, {"lib.py": "x = 1\n"})
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(repo, settings=settings)
    try:
        ws.sync()
        answer = execute({"operation": "status"}, lambda _: ws, settings).to_dict()
    finally:
        ws.close()
    assert answer["view"]["dirty"] is False, answer["view"]
    assert answer["data"]["repository"]["submodules"] == [{"path": "vendor/lib", "note": SUBMODULE_REASON}]


def test_subdirectory_root_only_sees_its_own_dirty_set(repo: Path) -> None:
    pkg = repo / "pkg"
    found = discover(pkg)
    assert isinstance(found, Repository) and found.prefix == "pkg/"
    (repo / "tests" / "test_core.py").write_text("# edited outside pkg\n")
    assert not bind(pkg).dirty
    (pkg / "core.py").write_text("y = 2\n")
    inside = bind(pkg)
    assert inside.dirty and inside.dirty_paths == ("core.py",)


def test_ignored_root_and_plain_directory_have_no_binding(repo: Path, make_repo: Callable[..., Path]) -> None:
    (repo / ".gitignore").write_text("downloads/\n")
    (repo / "downloads").mkdir()
    (repo / "downloads" / "a.py").write_text("x = 1\n")
    ignored = discover(repo / "downloads")
    assert isinstance(ignored, NoRepository) and "ignored by the repository" in ignored.reason
    plain = make_repo({"a.py": "x = 1\n"})
    assert bind(plain).to_dict() == {"git": False, "reason": "not inside a git work tree"}


def test_a_dirty_set_past_the_bound_is_never_current(repo: Path) -> None:
    many = repo / "many"
    many.mkdir()
    for i in range(MAX_DIRTY_ENTRIES + 5):
        (many / f"f{i}.txt").write_text(str(i))
    binding = bind(repo)
    assert not binding.bounded and binding.dirty_count == MAX_DIRTY_ENTRIES
    assert binding.to_dict()["bounded"] is False
    check = check_binding(binding.to_dict(), bind(repo))
    assert check.state == "partial"


def test_check_binding_names_what_moved(repo: Path) -> None:
    given = bind(repo).to_dict()
    assert check_binding(given, bind(repo)).state == "current"
    (repo / "pkg" / "core.py").write_text("z = 3\n")
    dirty = check_binding(given, bind(repo))
    assert dirty.state == "stale" and set(dirty.changed) == {"dirty", "dirty_digest"}
    commit_all(repo, "third")
    committed = check_binding(given, bind(repo))
    assert committed.state == "stale" and committed.changed == ("commit",)
    git(repo, "checkout", "-q", "-b", "other")
    assert "branch" in check_binding(given, bind(repo)).changed


def test_binding_source_reuses_a_capture_only_while_nothing_can_have_moved(repo: Path) -> None:
    source = BindingSource(repo)
    first = source.binding(change_seq=7)
    assert source.binding(change_seq=7) is first
    (repo / "pkg" / "core.py").write_text("w = 4\n")  # the caller's change sequence moves with it
    assert source.binding(change_seq=8).dirty
    commit_all(repo, "fourth")  # HEAD's ref moved: recaptured even at the same sequence
    assert source.binding(change_seq=8).commit == git(repo, "rev-parse", "HEAD").strip()
    (repo / "pkg" / "core.py").write_text("w = 5\n")
    assert source.binding(change_seq=None).dirty  # no trusted sequence: always captured


@pytest.fixture
def indexed(repo: Path):  # type: ignore[no-untyped-def]
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(repo, settings=settings)
    ws.sync()
    yield ws, settings
    ws.close()


def test_every_answer_carries_the_binding_and_verify_reports_stale(indexed, repo: Path) -> None:  # type: ignore[no-untyped-def]
    ws, settings = indexed

    def run(**args: object) -> dict:  # type: ignore[type-arg]
        return execute(args, lambda _: ws, settings).to_dict()

    answer = run(operation="symbol", symbol="helper", freshness="fast")
    repository = answer["view"]["repository"]
    assert repository["commit"] == git(repo, "rev-parse", "HEAD").strip() and repository["dirty"] is False
    missing = run(operation="symbol", symbol="no_such_name", freshness="fast")
    assert missing["status"] == "error" and missing["view"]["repository"] == repository
    bad = run(operation="symbol", freshness="fast")
    assert bad["status"] == "error" and bad["view"]["repository"] == repository
    anchors = [item["anchor"] for item in answer["items"]]
    now = run(operation="verify", anchors=anchors, binding=repository)
    assert now["data"]["binding"]["state"] == "current"
    assert [i["binding"] for i in now["items"]] == ["current"]
    (repo / "README.md").write_text("unrelated\n")  # the dirty set moved; the anchor's bytes did not
    later = run(operation="verify", anchors=anchors, binding=repository)
    assert later["data"]["binding"]["state"] == "stale"
    assert later["items"][0]["verdict"] == "current" and later["items"][0]["binding"] == "stale"
    assert any("stale" in w for w in later["warnings"])
    only_binding = run(operation="verify", binding=repository)
    assert only_binding["status"] == "ok" and only_binding["data"]["binding"]["state"] == "stale"
    refused = run(operation="verify", binding={"commit": "x"})
    assert refused["code"] == "INVALID_ARGUMENT"


def test_cli_verify_reads_the_binding_of_a_whole_answer(repo: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    state = str(tmp_path / "state")
    symbol = runner.invoke(main, ["symbol", "helper", "--root", str(repo), "--state-dir", state, "--json"])
    assert symbol.exit_code == 0, symbol.output
    saved = symbol.output
    same = runner.invoke(main, ["verify", "--root", str(repo), "--state-dir", state, "--json"], input=saved)
    assert json.loads(same.output)["data"]["binding"]["state"] == "current"
    git(repo, "checkout", "-q", "-b", "elsewhere")
    moved = runner.invoke(main, ["verify", "--root", str(repo), "--state-dir", state, "--json"], input=saved)
    verdict = json.loads(moved.output)["data"]["binding"]
    assert verdict["state"] == "stale" and verdict["changed"] == ["branch"]

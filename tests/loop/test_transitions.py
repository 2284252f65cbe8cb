"""Every transition and every refusal of the goal loop, on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lazy_intel.errors import GateRefused, InvalidArgument, NotFound
from lazy_intel.loop import operations
from lazy_intel.loop.store import LoopStore
from tests.conftest import git
from tests.loop.conftest import PASS, commit_file


def refused(code: str, call: Callable[[], object]) -> GateRefused:
    with pytest.raises(GateRefused) as err:
        call()
    assert err.value.code == code, err.value
    assert err.value.message and err.value.next_step
    return err.value


def head_tree(root: Path) -> str:
    return git(root, "rev-parse", "HEAD^{tree}").strip()


def history_events(root: Path) -> list[dict]:
    record = LoopStore(root).load()
    assert record is not None
    return list(record.history)


# -- register -------------------------------------------------------------------------------------------
def test_register_creates_state_and_refuses_a_second_active_loop(repo: Path):
    result = operations.register(repo, "export-csv", "Export CSV")
    assert result["loop"]["state"] == "registered"
    assert (repo / ".lazy-intel" / "loop" / "loop.json").is_file()
    err = refused("LOOP_EXISTS", lambda: operations.register(repo, "other", "Other"))
    assert err.details == {"slug": "export-csv", "state": "registered"}
    assert LoopStore(repo).load().slug == "export-csv"  # type: ignore[union-attr]


def test_register_replace_archives_the_unfinished_loop_as_abandoned(repo: Path):
    operations.register(repo, "first", "First")
    result = operations.register(repo, "second", "Second", replace_active=True)
    archived = json.loads(Path(result["archived"]).read_text())
    assert archived["slug"] == "first" and archived["state"] == "abandoned"
    assert archived["history"][-1]["event"] == "abandoned"
    assert LoopStore(repo).load().slug == "second"  # type: ignore[union-attr]


@pytest.mark.parametrize(("slug", "title"), [("Bad Slug", "t"), ("-x", "t"), ("ok", "  "), ("ok", "x" * 201)])
def test_register_validates_slug_and_title(repo: Path, slug: str, title: str):
    with pytest.raises(InvalidArgument):
        operations.register(repo, slug, title)
    assert not (repo / ".lazy-intel").exists()


@pytest.mark.parametrize(
    "call",
    [
        lambda r: operations.submit_plan(r, r / "plan.md", PASS),
        operations.start,
        lambda r: operations.step_done(r, "F1", "x"),
        operations.finish,
    ],
)
def test_every_command_refuses_without_a_registered_loop(repo: Path, call: Callable[[Path], object]):
    refused("LOOP_NOT_REGISTERED", lambda: call(repo))
    assert not (repo / ".lazy-intel").exists()


# -- plan -----------------------------------------------------------------------------------------------
def test_plan_without_review_or_with_revise_is_refused_and_recorded(repo: Path):
    operations.register(repo, "export-csv", "Export CSV")
    refused("PLAN_NOT_APPROVED", lambda: operations.submit_plan(repo, repo / "plan.md", None))
    err = refused(
        "PLAN_NOT_APPROVED",
        lambda: operations.submit_plan(repo, repo / "plan.md", "plan-reviewer: REVISE F2 is not observable"),
    )
    assert err.details["note"] == "F2 is not observable"
    record = LoopStore(repo).load()
    assert record is not None and record.state == "registered" and record.plan_sha256 is None
    refusals = [h for h in record.history if h["event"] == "refused"]
    assert [r["code"] for r in refusals] == ["PLAN_NOT_APPROVED", "PLAN_NOT_APPROVED"]
    assert not LoopStore(repo).plan_file.exists()


def test_plan_with_pass_is_accepted_copied_and_can_be_resubmitted_until_start(repo: Path):
    operations.register(repo, "export-csv", "Export CSV")
    result = operations.submit_plan(repo, repo / "plan.md", PASS)
    assert result["loop"]["state"] == "planned"
    assert result["loop"]["required"] == ["F1", "F2"]
    assert [i["id"] for i in result["items"]] == ["F1", "F2", "T1"]
    assert result["loop"]["review"]["reviewer"] == "plan-reviewer"
    assert LoopStore(repo).plan_file.read_bytes() == (repo / "plan.md").read_bytes()
    (repo / "plan.md").write_text("- [ ] F1: only one item now\n")
    again = operations.submit_plan(repo, repo / "plan.md", "bob: PASS smaller")
    assert again["loop"]["required"] == ["F1"]
    operations.start(repo)
    refused("LOOP_STATE", lambda: operations.submit_plan(repo, repo / "plan.md", PASS))


def test_plan_file_problems(repo: Path):
    operations.register(repo, "export-csv", "Export CSV")
    with pytest.raises(NotFound):
        operations.submit_plan(repo, repo / "missing.md", PASS)
    (repo / "empty.md").write_text("# nothing\n")
    with pytest.raises(InvalidArgument):
        operations.submit_plan(repo, repo / "empty.md", PASS)
    with pytest.raises(InvalidArgument):
        operations.submit_plan(repo, repo / "plan.md", "reviewer: MAYBE")
    assert LoopStore(repo).load().state == "registered"  # type: ignore[union-attr]


# -- start ----------------------------------------------------------------------------------------------
def test_start_needs_a_plan_and_happens_once(repo: Path):
    operations.register(repo, "export-csv", "Export CSV")
    refused("LOOP_STATE", lambda: operations.start(repo))
    operations.submit_plan(repo, repo / "plan.md", PASS)
    assert operations.start(repo)["loop"]["state"] == "executing"
    refused("LOOP_STATE", lambda: operations.start(repo))


def test_start_refuses_a_tampered_plan_copy(repo: Path):
    operations.register(repo, "export-csv", "Export CSV")
    operations.submit_plan(repo, repo / "plan.md", PASS)
    LoopStore(repo).plan_file.write_text("- [ ] F1: something else\n")
    refused("LOOP_STATE_CORRUPT", lambda: operations.start(repo))


# -- step done ------------------------------------------------------------------------------------------
def test_step_done_binds_evidence_to_head_tree(executing: Path):
    result = operations.step_done(executing, "f1", "curl /export -> 200, parses as CSV")
    assert result["item"] == "F1"
    assert result["evidence"]["tree"] == head_tree(executing)
    assert result["evidence"]["head"] == git(executing, "rev-parse", "HEAD").strip()
    assert result["evidence"]["dirty_digest"] is None
    assert result["evidence"]["text"] == "curl /export -> 200, parses as CSV"


def test_step_done_refusals(executing: Path):
    with pytest.raises(NotFound):
        operations.step_done(executing, "F9", "x")
    with pytest.raises(InvalidArgument):
        operations.step_done(executing, "F1", "   ")
    with pytest.raises(InvalidArgument):
        operations.step_done(executing, "F1", "x" * 8001)
    with pytest.raises(InvalidArgument):
        operations.step_done(executing, "not-an-id", "x")
    assert operations.step_done(executing, "T1", None)["evidence"]["text"] == ""


def test_step_done_refuses_a_dirty_tree_unless_allowed(executing: Path):
    (executing / "app.py").write_text("def export():\n    return 'a,b,c'\n")
    (executing / "new.txt").write_text("untracked\n")
    err = refused("DIRTY_TREE", lambda: operations.step_done(executing, "F1", "observed"))
    assert err.details["dirty_paths"] == ["app.py", "new.txt"]
    assert history_events(executing)[-1]["code"] == "DIRTY_TREE"
    result = operations.step_done(executing, "F1", "observed", allow_dirty=True)
    assert result["dirty"] is True
    assert result["evidence"]["dirty_digest"]
    assert result["evidence"]["tree"] == head_tree(executing)


def test_state_dir_never_counts_as_dirty(executing: Path):
    state = executing / ".lazy-intel"
    (state / ".gitignore").unlink()  # even without its own ignore file
    (state / "loop" / "notes.txt").write_text("scratch\n")
    assert git(executing, "status", "--porcelain").strip()  # git itself does see it
    assert operations.step_done(executing, "F1", "observed")["dirty"] is False


# -- finish ---------------------------------------------------------------------------------------------
def test_finish_refuses_missing_evidence_then_finishes(executing: Path):
    err = refused("EVIDENCE_MISSING", lambda: operations.finish(executing))
    assert err.details["missing"] == ["F1", "F2"]
    operations.step_done(executing, "F1", "curl -> 200")
    err = refused("EVIDENCE_MISSING", lambda: operations.finish(executing))
    assert err.details["missing"] == ["F2"]
    operations.step_done(executing, "F2", "header: a,b")
    result = operations.finish(executing)
    assert result["loop"]["state"] == "done"
    assert result["tree"] == head_tree(executing)
    assert {r["id"]: r["evidence"] for r in result["items"]} == {
        "F1": "fresh",
        "F2": "fresh",
        "T1": "missing",
    }
    refused("LOOP_STATE", lambda: operations.finish(executing))
    refused("LOOP_STATE", lambda: operations.step_done(executing, "F1", "late"))


def test_evidence_goes_stale_after_a_commit_and_fresh_after_recapture(executing: Path):
    operations.step_done(executing, "F1", "curl -> 200")
    operations.step_done(executing, "F2", "header ok")
    old_tree = head_tree(executing)
    new_tree = commit_file(executing, "app.py", "def export():\n    return 'x'\n", "change export")
    assert new_tree != old_tree
    err = refused("EVIDENCE_STALE", lambda: operations.finish(executing))
    assert [s["id"] for s in err.details["stale"]] == ["F1", "F2"]
    assert old_tree[:12] in err.details["stale"][0]["why"] and new_tree[:12] in err.details["stale"][0]["why"]
    status = operations.status(executing)
    assert {r["id"]: r["evidence"] for r in status["items"]}["F1"] == "stale"

    recaptured = operations.step_done(executing, "F1", "curl -> 200 again")
    assert recaptured["evidence"]["tree"] == new_tree
    err = refused("EVIDENCE_STALE", lambda: operations.finish(executing))
    assert [s["id"] for s in err.details["stale"]] == ["F2"]
    operations.step_done(executing, "F2", "header ok again")
    assert operations.finish(executing)["loop"]["state"] == "done"
    events = [h["event"] for h in history_events(executing)]
    assert events.count("recaptured") == 2 and events[-1] == "finished"


def test_dirty_evidence_is_fresh_only_on_the_same_dirty_state(executing: Path):
    operations.step_done(executing, "F2", "header ok")
    (executing / "app.py").write_text("def export():\n    return 'dirty'\n")
    operations.step_done(executing, "F1", "observed on dirty tree", allow_dirty=True)
    # F2 was captured clean; the tree now has uncommitted changes, so F2 is stale.
    err = refused("EVIDENCE_STALE", lambda: operations.finish(executing))
    assert [s["id"] for s in err.details["stale"]] == ["F2"]
    assert "uncommitted" in err.details["stale"][0]["why"]
    (executing / "app.py").write_text("def export():\n    return 'dirtier'\n")
    err = refused("EVIDENCE_STALE", lambda: operations.finish(executing))
    assert [s["id"] for s in err.details["stale"]] == ["F1", "F2"]
    # Committing the change makes every capture stale by construction; recapture on the clean tree.
    git(executing, "commit", "-q", "-am", "dirtier")
    err = refused("EVIDENCE_STALE", lambda: operations.finish(executing))
    assert [s["id"] for s in err.details["stale"]] == ["F1", "F2"]
    operations.step_done(executing, "F1", "observed after commit")
    operations.step_done(executing, "F2", "observed after commit")
    assert operations.finish(executing)["loop"]["state"] == "done"


def test_register_after_done_archives_the_finished_loop(executing: Path):
    operations.step_done(executing, "F1", "a")
    operations.step_done(executing, "F2", "b")
    operations.finish(executing)
    result = operations.register(executing, "next-goal", "Next")
    assert json.loads(Path(result["archived"]).read_text())["state"] == "done"
    assert result["loop"]["state"] == "registered"


# -- git problems ---------------------------------------------------------------------------------------
def test_not_a_git_repository(make_repo: Callable[..., Path]):
    root = make_repo({"plan.md": "- [ ] F1: x\n"})
    operations.register(root, "no-git", "No git")
    operations.submit_plan(root, root / "plan.md", PASS)
    operations.start(root)
    refused("NOT_A_GIT_REPO", lambda: operations.step_done(root, "F1", "x"))
    refused("NOT_A_GIT_REPO", lambda: operations.finish(root))
    assert operations.status(root)["git"]


def test_repository_without_commits(make_repo: Callable[..., Path]):
    root = make_repo({"plan.md": "- [ ] F1: x\n"})
    git(root, "init", "-q", "-b", "main")
    operations.register(root, "empty", "Empty")
    operations.submit_plan(root, root / "plan.md", PASS)
    operations.start(root)
    err = refused("NOT_A_GIT_REPO", lambda: operations.step_done(root, "F1", "x"))
    assert "no commit" in err.message


# -- state files ----------------------------------------------------------------------------------------
def test_corrupt_state_is_refused_and_replace_recovers(repo: Path):
    operations.register(repo, "export-csv", "Export CSV")
    LoopStore(repo).loop_file.write_text("{not json")
    refused("LOOP_STATE_CORRUPT", lambda: operations.status(repo))
    refused("LOOP_STATE_CORRUPT", lambda: operations.register(repo, "again", "Again"))
    operations.register(repo, "again", "Again", replace_active=True)
    assert LoopStore(repo).load().slug == "again"  # type: ignore[union-attr]
    assert list((repo / ".lazy-intel" / "loop" / "archive").glob("corrupt-*.json"))


@pytest.mark.parametrize("linked", [".lazy-intel", ".lazy-intel/loop", ".lazy-intel/loop/archive"])
def test_state_directories_never_follow_symlinks_out(repo: Path, tmp_path: Path, linked: str):
    outside = tmp_path / "outside"
    outside.mkdir()
    link = repo / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(InvalidArgument):
        operations.register(repo, "export-csv", "Export CSV")
    assert list(outside.iterdir()) == []


def test_symlinked_lock_file_is_refused(repo: Path, tmp_path: Path):
    operations.register(repo, "export-csv", "Export CSV")
    outside = tmp_path / "lock-target"
    lock = repo / ".lazy-intel" / "loop" / "loop.lock"
    lock.unlink()
    lock.symlink_to(outside)
    with pytest.raises(InvalidArgument):
        operations.submit_plan(repo, repo / "plan.md", PASS)
    assert not outside.exists()


def test_symlinked_loop_file_is_refused(repo: Path, tmp_path: Path):
    operations.register(repo, "export-csv", "Export CSV")
    store = LoopStore(repo)
    target = tmp_path / "elsewhere.json"
    target.write_text(store.loop_file.read_text())
    store.loop_file.unlink()
    store.loop_file.symlink_to(target)
    with pytest.raises(InvalidArgument):
        operations.status(repo)

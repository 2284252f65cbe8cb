from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lazy_intel.loop import doctor_checks, operations
from lazy_intel.loop.store import LoopStore
from tests.loop.conftest import commit_file


def by_name(root: Path) -> dict[str, tuple[str, str]]:
    return {c.name: (c.status, c.message) for c in doctor_checks(root)}


def test_no_loop_is_information_not_failure(repo: Path):
    checks = by_name(repo)
    assert checks["loop.state_dir"][0] == "info"
    assert checks["loop.git"][0] == "ok"
    assert not (repo / ".lazy-intel").exists()


def test_executing_loop_reports_evidence_freshness(executing: Path):
    operations.step_done(executing, "F1", "a")
    checks = by_name(executing)
    assert checks["loop.state"] == ("ok", "loop `export-csv` is executing")
    assert checks["loop.plan"][0] == "ok"
    assert checks["loop.evidence"] == ("ok", "F evidence: 1 fresh, 0 stale, 1 missing")
    commit_file(executing, "app.py", "changed\n")
    status, message = by_name(executing)["loop.evidence"]
    assert status == "warn" and "stale: F1" in message


def test_corrupt_state_and_tampered_plan_fail(executing: Path):
    LoopStore(executing).plan_file.write_text("- [ ] F1: other\n")
    assert by_name(executing)["loop.plan"][0] == "fail"
    LoopStore(executing).loop_file.write_text("[]")
    assert by_name(executing)["loop.state"][0] == "fail"


def test_symlinked_state_fails(repo: Path, tmp_path: Path):
    (repo / ".lazy-intel").symlink_to(tmp_path, target_is_directory=True)
    assert by_name(repo)["loop.state_dir"][0] == "fail"


def test_active_loop_outside_git_fails_git_check(make_repo: Callable[..., Path]):
    root = make_repo({"plan.md": "- [ ] F1: x\n"})
    operations.register(root, "no-git", "No git")
    assert by_name(root)["loop.git"][0] == "fail"

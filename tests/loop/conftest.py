"""A real git repository with a goal loop, built by each test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lazy_intel.loop import operations
from tests.conftest import git

PLAN_TEXT = "# Plan\n- [ ] F1: GET /export -> 200 CSV\n- [ ] F2: header row names columns\n- [ ] T1: tests\n"
PASS = "plan-reviewer: PASS decision-complete"


def commit_file(root: Path, rel: str, content: str, message: str = "change") -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    git(root, "add", rel)
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD^{tree}").strip()


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo({"app.py": "def export():\n    return 'a,b'\n", "plan.md": PLAN_TEXT}, use_git=True)


@pytest.fixture
def executing(repo: Path) -> Path:
    """A loop registered, planned with a PASS review and started."""
    operations.register(repo, "export-csv", "Export the report as CSV")
    operations.submit_plan(repo, repo / "plan.md", PASS)
    operations.start(repo)
    return repo

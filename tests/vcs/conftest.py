"""Real git repositories for the vcs tests: commits, branches, dirty trees, worktrees, submodules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git, write_tree


def commit_all(root: Path, message: str = "change") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(make_repo: Callable[..., Path]) -> Path:
    return make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/core.py": "def helper(x):\n    return x + 1\n\n\ndef other():\n    return helper(2)\n",
            "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n",
        },
        use_git=True,
    )


def add_submodule(parent: Path, child_files: dict[str, str], name: str = "vendor/lib") -> Path:
    """A real submodule checkout of a repository built next to ``parent``."""
    source = parent.parent / f"{parent.name}-sub-src"
    source.mkdir()
    write_tree(source, child_files)
    git(source, "init", "-q", "-b", "main")
    commit_all(source, "sub init")
    git(parent, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), name)
    commit_all(parent, "add submodule")
    return parent / name

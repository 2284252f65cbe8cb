from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lazy_intel.loop.gitstate import _parse_porcelain_z, git_fingerprint
from tests.conftest import git


def test_clean_fingerprint_is_head_tree(make_repo: Callable[..., Path]):
    root = make_repo({"a.py": "x = 1\n", "sub/b.py": "y = 2\n"}, use_git=True)
    fp = git_fingerprint(root / "sub")  # any directory inside the work tree
    assert fp.tree == git(root, "rev-parse", "HEAD^{tree}").strip()
    assert fp.head == git(root, "rev-parse", "HEAD").strip()
    assert fp.clean and fp.dirty_paths == ()


def test_dirty_digest_follows_content_not_time(make_repo: Callable[..., Path]):
    root = make_repo({"a.py": "x = 1\n"}, use_git=True)
    (root / "a.py").write_text("x = 2\n")
    first = git_fingerprint(root)
    (root / "a.py").write_text("x = 2\n")  # rewritten, same bytes
    assert git_fingerprint(root).dirty_digest == first.dirty_digest
    (root / "a.py").write_text("x = 3\n")
    assert git_fingerprint(root).dirty_digest != first.dirty_digest
    assert first.dirty_paths == ("a.py",) and first.tree == git(root, "rev-parse", "HEAD^{tree}").strip()


def test_staged_rename_and_deletion_are_dirty(make_repo: Callable[..., Path]):
    root = make_repo({"a.py": "x = 1\n", "b.py": "y = 1\n"}, use_git=True)
    git(root, "mv", "a.py", "c.py")
    (root / "b.py").unlink()
    fp = git_fingerprint(root)
    assert set(fp.dirty_paths) == {"a.py", "b.py", "c.py"}


def test_ignored_files_and_state_dirs_are_not_dirty(make_repo: Callable[..., Path]):
    root = make_repo({".gitignore": "*.log\n", "a.py": "x\n"}, use_git=True)
    (root / "debug.log").write_text("noise\n")
    nested = root / "pkg" / ".lazy-intel" / "loop"
    nested.mkdir(parents=True)
    (nested / "loop.json").write_text("{}")
    assert git_fingerprint(root).clean


def test_porcelain_parser_handles_renames_and_spaces():
    raw = b"R  new name.py\x00old name.py\x00?? dir/x y.txt\x00 M a.py\x00"
    assert _parse_porcelain_z(raw) == [
        ("R ", "new name.py"),
        ("- ", "old name.py"),
        ("??", "dir/x y.txt"),
        (" M", "a.py"),
    ]

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lazy_intel.errors import NotFound
from lazy_intel.workspace import scope as scope_module
from lazy_intel.workspace.scope import list_scope, load_policy
from tests.conftest import git, write_tree

FILES = {
    "src/app.py": "print(1)\n",
    "src/node_modules/dep/index.js": "x\n",
    "build/out.py": "x\n",
    "dist/bundle.js": "x\n",
    "vendor/lib.py": "x\n",
    "package-lock.json": "{}\n",
    "docs/readme.md": "# hi\n",
    "ignored.log": "x\n",
    ".gitignore": "*.log\n",
}


def test_git_scope_includes_untracked_but_not_ignored(make_repo) -> None:
    root = make_repo(FILES, use_git=True)
    (root / "new_untracked.py").write_text("y = 2\n")
    (root / "also.log").write_text("ignored by .gitignore\n")
    listing = list_scope(load_policy(root))
    assert listing.source == "git"
    assert "src/app.py" in listing.paths
    assert "new_untracked.py" in listing.paths
    assert "also.log" not in listing.paths
    assert "ignored.log" not in listing.paths  # committed? no: .gitignore'd before the first commit
    for derived in ("src/node_modules/dep/index.js", "build/out.py", "dist/bundle.js"):
        assert derived not in listing.paths
    assert "package-lock.json" not in listing.paths
    assert ("package-lock.json", "lockfile") in listing.excluded


def test_lazy_intel_ignore_narrows_scope_and_changes_digest(make_repo) -> None:
    root = make_repo(FILES, use_git=True)
    before = load_policy(root)
    assert "vendor/lib.py" in list_scope(before).paths
    (root / ".lazy-intel-ignore").write_text("vendor/\n")
    after = load_policy(root)
    listing = list_scope(after)
    assert "vendor/lib.py" not in listing.paths
    assert ("vendor/lib.py", ".lazy-intel-ignore") in listing.excluded
    assert before.digest("p") != after.digest("p")


def test_walk_honours_nested_gitignore_and_prunes_derived(make_repo) -> None:
    root = make_repo(
        {
            "a.py": "x\n",
            ".gitignore": "secret/\n",
            "secret/key.py": "x\n",
            "pkg/.gitignore": "*.gen.py\n!keep.gen.py\n",
            "pkg/mod.py": "x\n",
            "pkg/auto.gen.py": "x\n",
            "pkg/keep.gen.py": "x\n",
            "node_modules/x/y.js": "x\n",
        }
    )
    listing = list_scope(load_policy(root))
    assert listing.source == "walk"
    assert set(listing.paths) == {"a.py", ".gitignore", "pkg/.gitignore", "pkg/mod.py", "pkg/keep.gen.py"}


def test_state_dir_is_never_in_scope(make_repo) -> None:
    root = make_repo({"a.py": "x\n"})
    write_tree(root, {".lazy-intel/stores/x.py": "x\n"})
    assert list_scope(load_policy(root)).paths == ("a.py",)
    git(root, "init", "-q")
    git(root, "add", "-f", ".lazy-intel/stores/x.py", "a.py")
    assert list_scope(load_policy(root)).paths == ("a.py",)


def test_symlink_loops_and_links_are_not_followed(make_repo) -> None:
    root = make_repo({"a.py": "x\n", "sub/b.py": "y\n"})
    os.symlink(root / "sub", root / "sub" / "again")  # a directory loop
    os.symlink(root / "a.py", root / "link.py")
    listing = list_scope(load_policy(root))
    assert "sub/again/b.py" not in listing.paths
    assert set(listing.paths) == {"a.py", "sub/b.py", "link.py", "sub/again"}
    from lazy_intel.workspace.capture import capture_all

    captured = {c.path: c for c in capture_all(root, listing.paths, max_bytes=1 << 20, priors={})}
    assert captured["link.py"].status == "excluded" and captured["link.py"].reason == "symlink"
    assert captured["sub/again"].reason == "symlink"


def test_git_listing_skips_paths_deleted_from_disk(make_repo) -> None:
    root = make_repo({"a.py": "x\n", "b.py": "y\n"}, use_git=True)
    Path(root / "b.py").unlink()
    # git still lists b.py (deleted, not staged); capture skips it because it is gone
    from lazy_intel.workspace.capture import capture_all

    listing = list_scope(load_policy(root))
    captured = capture_all(root, listing.paths, max_bytes=1 << 20, priors={})
    assert [c.path for c in captured] == ["a.py"]


def test_root_ignored_by_an_enclosing_repository_is_walked(make_repo) -> None:
    outer = make_repo({".gitignore": "downloads/\n", "x.py": "x\n"}, use_git=True)
    write_tree(outer, {"downloads/lib/mod.py": "def f():\n    pass\n"})
    listing = list_scope(load_policy(outer / "downloads" / "lib"))
    assert listing.source == "walk"
    assert listing.paths == ("mod.py",)


def test_walk_skips_a_directory_removed_mid_walk_but_refuses_a_vanished_root(make_repo, monkeypatch) -> None:
    root = make_repo({"a.py": "x = 1\n", "gone/b.py": "y = 2\n", "kept/c.py": "z = 3\n"})
    policy = load_policy(root)
    real_scandir = os.scandir

    def scandir_then_remove(path):  # the edit lands between listing the root and descending
        if not isinstance(path, int) and Path(path) == root:
            entries = list(real_scandir(path))
            shutil.rmtree(root / "gone")
            return iter(entries)
        return real_scandir(path)

    monkeypatch.setattr(scope_module.os, "scandir", scandir_then_remove)
    listing = list_scope(policy)
    assert listing.source == "walk"
    assert set(listing.paths) == {"a.py", "kept/c.py"}

    monkeypatch.setattr(scope_module.os, "scandir", real_scandir)
    shutil.rmtree(root)
    with pytest.raises(NotFound, match="no longer exists"):
        list_scope(policy)

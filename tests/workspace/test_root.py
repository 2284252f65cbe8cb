from __future__ import annotations

import os
from pathlib import Path

import pytest

from lazy_intel.errors import InvalidArgument, NotFound
from lazy_intel.workspace.root import canonical_root, contained_relative_path


def test_canonical_root_resolves_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert canonical_root(str(link)) == real.resolve()


@pytest.mark.parametrize("raw", ["/", "/.."])
def test_filesystem_root_is_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument, match="filesystem root"):
        canonical_root(raw)


def test_home_directory_itself_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument, match="home directory"):
        canonical_root(str(tmp_path), home=tmp_path)
    (tmp_path / "project").mkdir()
    assert canonical_root(str(tmp_path / "project"), home=tmp_path) == (tmp_path / "project").resolve()


def test_missing_and_non_directory_roots(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="does not exist"):
        canonical_root(str(tmp_path / "nope"))
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(InvalidArgument, match="not a directory"):
        canonical_root(str(tmp_path / "f.txt"))
    with pytest.raises(InvalidArgument):
        canonical_root("")


def test_state_directory_is_not_a_root(tmp_path: Path) -> None:
    state = tmp_path / ".lazy-intel" / "stores"
    state.mkdir(parents=True)
    with pytest.raises(InvalidArgument, match="state directory"):
        canonical_root(str(state))


def test_allowed_and_denied_roots(tmp_path: Path) -> None:
    inside = tmp_path / "allowed" / "proj"
    inside.mkdir(parents=True)
    outside = tmp_path / "other"
    outside.mkdir()
    assert canonical_root(str(inside), allowed_roots=[str(tmp_path / "allowed")]) == inside.resolve()
    with pytest.raises(InvalidArgument, match="outside the allowed roots"):
        canonical_root(str(outside), allowed_roots=[str(tmp_path / "allowed")])
    with pytest.raises(InvalidArgument, match="denied root"):
        canonical_root(str(inside), deny_roots=[str(tmp_path / "allowed")])


def test_relative_paths_are_contained(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "a").mkdir()
    (root / "a" / "b.py").write_text("x = 1\n")
    assert contained_relative_path(root, "a/b.py") == "a/b.py"
    assert contained_relative_path(root, "./a/../a/b.py") == "a/b.py"
    assert contained_relative_path(root, str(root / "a" / "b.py")) == "a/b.py"
    for bad in ["../x.py", "a/../../x.py", "/etc/passwd", "", "a\x00b"]:
        with pytest.raises(InvalidArgument):
            contained_relative_path(root, bad)


def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    root = (tmp_path / "root").resolve()
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, root / "escape.txt")
    with pytest.raises(InvalidArgument, match="through a symlink"):
        contained_relative_path(root, "escape.txt")


def test_symlink_loop_is_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink(root / "loop_a", root / "loop_b")
    with pytest.raises(InvalidArgument):
        contained_relative_path(root, "loop_a")

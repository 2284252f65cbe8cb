"""Entries the scope records but never indexes never count as changes (issue 18, class 1).

A random tree mixes indexed files with entries that are listed but not indexed or not listed at all:
symlinks to files, to directories (inside and outside the root), dangling and looping symlinks,
directories that link to an ancestor, files under derived directories, lockfiles, files that
``.gitignore`` or ``.lazy-intel-ignore`` leaves out, FIFOs and git submodule entries. Whatever the
mix, once a sync has published the tree, capturing it again finds nothing to do: the next sync
publishes nothing, and the stat pass behind ``dirty``/``dirty_paths`` (and behind a strict read
beside another process) reports no path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import git, write_tree

NAMES = st.sampled_from(["a", "b", "pkg", "sub", "lib", "tests", "certs", "ca", "node_modules", "build"])
FILE_NAMES = st.sampled_from(
    ["m.py", "n.js", "README.md", "data.bin", "yarn.lock", "notes.log", "skip.txt", "big.py"]
)


@st.composite
def trees(draw: st.DrawFn) -> dict[str, object]:
    """A description of a tree: files, links and special entries, as relative paths."""
    dirs = draw(st.lists(st.lists(NAMES, min_size=1, max_size=3).map("/".join), max_size=5))
    files: dict[str, bytes] = {"root.py": b"def root():\n    return 1\n"}
    for _ in range(draw(st.integers(1, 8))):
        base = draw(st.sampled_from(["", *dirs]))
        name = draw(FILE_NAMES)
        rel = f"{base}/{name}" if base else name
        content = b"\x00\x01binary" if name == "data.bin" else f"def f_{len(files)}():\n    pass\n".encode()
        if name == "big.py":
            content = b"x = 1\n" * 400  # over the test's max file size: too-large
        files[rel] = content
    kinds = st.sampled_from(["file_link", "dir_link", "dangling", "loop", "ancestor", "outside", "fifo"])
    links = draw(st.lists(st.tuples(kinds, st.sampled_from(["", *dirs]), NAMES), max_size=6))
    return {
        "files": files,
        "links": links,
        "gitignore": draw(st.booleans()),
        "lazy_ignore": draw(st.booleans()),
        "use_git": draw(st.booleans()),
        "submodule": draw(st.booleans()),
    }


def build(base: Path, spec: dict[str, object]) -> Path:
    if base.exists():
        shutil.rmtree(base)
    root = base / "root"
    outside = base / "outside"
    outside.mkdir(parents=True)
    (outside / "o.py").write_text("def outside():\n    pass\n")
    root.mkdir()
    files: dict[str, bytes] = spec["files"]  # type: ignore[assignment]
    write_tree(root, files)
    if spec["gitignore"]:
        (root / ".gitignore").write_text("*.log\n")
    if spec["lazy_ignore"]:
        (root / ".lazy-intel-ignore").write_text("*.txt\n")
    some_file = sorted(files)[0]
    for index, (kind, where, name) in enumerate(spec["links"]):  # type: ignore[attr-defined]
        parent = root / where if where else root
        parent.mkdir(parents=True, exist_ok=True)
        link = parent / f"{name}_{kind}_{index}"
        if link.exists() or link.is_symlink():
            continue
        if kind == "file_link":
            os.symlink(os.path.relpath(root / some_file, parent), link)
        elif kind == "dir_link":
            os.symlink(os.path.relpath(root / (where or "."), parent) if where else ".", link)
        elif kind == "dangling":
            os.symlink("does-not-exist", link)
        elif kind == "loop":
            os.symlink(link.name + "_twin", link)
            os.symlink(link.name, parent / (link.name + "_twin"))
        elif kind == "ancestor":
            os.symlink("../" * (where.count("/") + 1) if where else ".", link)
        elif kind == "outside":
            os.symlink(str(outside), link)
        elif kind == "fifo":
            os.mkfifo(link)
    if spec["use_git"]:
        git(root, "init", "-q", "-b", "main")
        if spec["submodule"]:
            inner = root / "vendored"
            inner.mkdir()
            (inner / "x.py").write_text("x = 1\n")
            git(inner, "init", "-q", "-b", "main")
            git(inner, "add", "-A")
            git(inner, "commit", "-q", "-m", "inner")
            # a gitlink in the index, as a submodule (without .gitmodules: git treats it the same)
            git(root, "add", "vendored")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "init", "--allow-empty")
    return root


def open_workspace(root: Path) -> Workspace:
    return Workspace.open(
        root,
        settings=load_settings(env={}, max_file_bytes=1024),
        state_dir=root.parent / "state",
    )


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spec=trees())
def test_a_published_tree_captures_again_as_unchanged(tmp_path_factory, spec) -> None:
    root = build(tmp_path_factory.mktemp("tree"), spec)
    ws = open_workspace(root)
    try:
        first = ws.sync()
        assert first.published
        again = ws.sync()
        assert (again.added, again.modified, again.removed) == (0, 0, 0), again
        assert not again.published
        with ws.read() as view:
            assert ws.stat_dirty(view) == ()
            assert ws.dirty_paths(view) == ()
    finally:
        ws.close()


def test_requests_directory_symlinks_are_not_changes(tmp_path) -> None:
    """The tree that showed it: psf/requests tracks ``tests/certs/*/ca`` as directory symlinks."""
    mirror = Path("/work/.mirror/psf+requests/repo")
    if not mirror.is_dir():
        pytest.skip("no local mirror of psf/requests")
    root = tmp_path / "requests"
    subprocess.run(["git", "clone", "-q", str(mirror), str(root)], check=True, capture_output=True)
    assert (root / "tests/certs/valid/ca").is_symlink()
    ws = open_workspace(root)
    try:
        ws.sync()
        with ws.read() as view:
            assert ws.stat_dirty(view) == ()
    finally:
        ws.close()


def test_a_real_change_beside_links_is_still_seen(tmp_path) -> None:
    """The fix must not blind the stat pass: edits, new files and deletions still show."""
    root = build(
        tmp_path / "t",
        {
            "files": {"root.py": b"x = 1\n", "pkg/m.py": b"y = 2\n"},
            "links": [("dir_link", "pkg", "ca"), ("file_link", "", "l"), ("loop", "", "z")],
            "gitignore": False,
            "lazy_ignore": False,
            "use_git": True,
            "submodule": True,
        },
    )
    ws = open_workspace(root)
    try:
        ws.sync()
        (root / "pkg/m.py").write_text("y = 22222\n")
        (root / "new.py").write_text("z = 3\n")
        (root / "root.py").unlink()
        link = next(p for p in root.iterdir() if p.name.startswith("l_file_link"))
        link.unlink()
        link.write_text("now a file\n")  # a symlink replaced by a regular file is a change
        with ws.read() as view:
            dirty = set(ws.stat_dirty(view))
        assert dirty == {"pkg/m.py", "new.py", "root.py", link.name}
    finally:
        ws.close()

"""The gitignore-aware walk against git itself: random trees with random nested .gitignore files.

The oracle is ``git ls-files --others --exclude-standard`` on a copy of the tree (nothing tracked, no
global excludes). Before :mod:`lazy_intel.workspace.gitignore`, this found three kinds of difference
in the first 300 seeds: a deeper ``!b.txt`` could not re-include what a shallower ``*.txt`` ignored,
``**/pkg/**`` pruned the ``pkg`` directory itself, and ``!pkg/`` re-included the files inside
``pkg`` as well as the directory. On the 100k benchmark tree the first dropped 3,307 source files
(astropy's ``cextern/.gitignore`` re-includes the ``*.c`` its root ignores)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from lazy_intel.workspace.scope import list_scope, load_policy
from tests.conftest import write_tree

DIRS = ("a", "b", "src", "pkg", "a/b", "src/pkg", "pkg/c", "src/pkg/d", "b/src")
NAMES = (
    "x.py",
    "a.py",
    "y.txt",
    "keep.gen.py",
    "z.gen.py",
    "n.md",
    "c",
    "b.txt",
    "1.py",
    "a b.py",
    "[x].py",
    "d",
)
PATTERNS = (
    "*.py",
    "!a.py",
    "*.txt",
    "a/",
    "/b",
    "b",
    "**/c",
    "c/*.py",
    "src/**",
    "!src/x.py",
    "*.gen.py",
    "!keep.gen.py",
    "d/**/x.py",
    "# a comment",
    "",
    "/pkg/*.txt",
    "a/b/",
    "x.*",
    "!*.md",
    "?.py",
    "[ab].py",
    "pkg",
    "!pkg/",
    "/*.txt",
    "**/pkg/**",
    "!b.txt",
    "src/",
    "\\!x",
    "*.py ",
    "pkg/c/",
)


SEGMENTS = (
    "a",
    "b",
    "c",
    "d",
    "pkg",
    "src",
    "x.py",
    "*",
    "?",
    "**",
    "*.py",
    "[ab]",
    "[!a].py",
    "[a-c]*",
    "[[:digit:]].py",
    "x.*",
    "a b.py",
    "\\[x].py",
    "*.t?t",
    "***",
)


def _generated(rng: random.Random) -> str:
    """A pattern from the glob grammar: segments, slashes, negation, directory marks, spaces."""
    pool = (*SEGMENTS, *NAMES, "a", "b", "src", "pkg", "d")
    body = "/".join(rng.choices(pool, k=rng.choice((1, 1, 2, 3))))
    if rng.random() < 0.3:
        body = "/" + body
    if rng.random() < 0.25:
        body += "/"
    if rng.random() < 0.25:
        body = "!" + body
    if rng.random() < 0.1:
        body += rng.choice(("  ", "\\ ", "\\"))
    return body


def _random_tree(rng: random.Random) -> dict[str, str]:
    files: dict[str, str] = {}
    for d in ("", *rng.sample(DIRS, rng.randint(1, len(DIRS)))):
        for name in rng.sample(NAMES, rng.randint(1, 4)):
            rel = f"{d}/{name}" if d else name
            if any(rel.startswith(f"{other}/") or other.startswith(f"{rel}/") for other in files):
                continue
            files[rel] = "x\n"
    for d in ("", *rng.sample(DIRS, rng.randint(0, 3))):
        lines = [
            rng.choice(PATTERNS) if rng.random() < 0.5 else _generated(rng) for _ in range(rng.randint(1, 5))
        ]
        rel = f"{d}/.gitignore" if d else ".gitignore"
        if any(other.startswith(f"{rel}/") for other in files) or rel in files:
            continue
        if d and any(d == f or d.startswith(f"{f}/") for f in files):
            continue  # a file where the directory would be
        files[rel] = "\n".join(lines) + "\n"
    return files


def _git_listing(root: Path, home: Path) -> set[str]:
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(home)}
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True, env=env)
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
        env=env,
    ).stdout
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


@pytest.mark.parametrize("seed", range(100))
def test_the_walk_lists_what_git_lists(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    files = _random_tree(rng)
    walked, oracle = tmp_path / "walked", tmp_path / "oracle"
    write_tree(walked, files)
    shutil.copytree(walked, oracle)
    expected = _git_listing(oracle, tmp_path)
    listing = list_scope(load_policy(walked))
    assert listing.source == "walk"
    assert set(listing.paths) == expected, files


def test_a_deeper_negation_re_includes_what_a_shallower_file_ignored(make_repo) -> None:
    # astropy's layout: the root ignores *.c (generated), cextern/.gitignore re-includes them
    root = make_repo(
        {".gitignore": "*.c\n", "gen.c": "x\n", "cextern/.gitignore": "!*.c\n", "cextern/erfa/a.c": "x\n"}
    )
    assert set(list_scope(load_policy(root)).paths) == {
        ".gitignore",
        "cextern/.gitignore",
        "cextern/erfa/a.c",
    }


def test_a_directory_pattern_decides_the_directory_not_what_is_in_it(make_repo) -> None:
    root = make_repo(
        {
            ".gitignore": "**/pkg/**\n!keep.py\nlogs/\n",
            "src/pkg/keep.py": "x\n",  # pkg/** matches inside pkg, not pkg: the negation applies
            "src/pkg/drop.py": "x\n",
            "src/pkg/sub/keep.py": "x\n",  # sub is inside pkg: excluded, never descended
            "logs/keep.py": "x\n",
        }
    )
    assert set(list_scope(load_policy(root)).paths) == {".gitignore", "src/pkg/keep.py"}

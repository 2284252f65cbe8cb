"""The git state evidence binds to: ``HEAD^{tree}`` plus a digest of uncommitted changes.

Read-only: ``git --no-optional-locks`` never refreshes or writes the index. Every ``.lazy-intel``
directory is excluded from the dirty check, so the loop's own state never makes a tree dirty.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from lazy_intel.errors import GateRefused, Timeout
from lazy_intel.loop.model import Fingerprint
from lazy_intel.workspace.root import STATE_DIR_NAME

GIT_TIMEOUT_S = 30
MAX_DIRTY_PATHS_KEPT = 50
_EXCLUDE_STATE = f":(exclude,glob)**/{STATE_DIR_NAME}/**"


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", "-C", str(cwd), *args],
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError:
        raise GateRefused(
            "git is not installed; the goal loop binds evidence to git trees",
            code="NOT_A_GIT_REPO",
            next_step="install git",
        ) from None
    except subprocess.TimeoutExpired:
        raise Timeout(f"git {' '.join(args[:2])} took longer than {GIT_TIMEOUT_S}s in {cwd}") from None


def git_toplevel(root: Path) -> Path:
    done = _git(root, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise GateRefused(
            f"{root} is not inside a git work tree; loop evidence is bound to git trees",
            code="NOT_A_GIT_REPO",
            next_step="run `git init` and commit, or run the loop in a git repository",
        )
    return Path(done.stdout.decode("utf-8", "surrogateescape").strip())


def _content_hash(path: Path) -> str:
    try:
        if path.is_symlink():
            return "link:" + hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()
        if path.is_dir():
            return "dir"
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"unreadable:{exc.errno}"


def _parse_porcelain_z(raw: bytes) -> list[tuple[str, str]]:
    """``git status --porcelain=v1 -z`` into (XY, path); a rename also yields its source path."""
    entries: list[tuple[str, str]] = []
    fields = raw.split(b"\0")
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        xy = entry[:2].decode("ascii", "replace")
        path = entry[3:].decode("utf-8", "surrogateescape")
        entries.append((xy, path))
        if xy[0] in "RC" and i < len(fields):
            entries.append(("-" + xy[1], fields[i].decode("utf-8", "surrogateescape")))
            i += 1
    return entries


def git_fingerprint(root: Path) -> Fingerprint:
    """``HEAD^{tree}``, ``HEAD`` and, for a dirty work tree, a digest of its uncommitted changes."""
    top = git_toplevel(root)
    tree = _git(top, "rev-parse", "--verify", "--quiet", "HEAD^{tree}")
    head = _git(top, "rev-parse", "--verify", "--quiet", "HEAD")
    if tree.returncode != 0 or head.returncode != 0:
        raise GateRefused(
            f"repository {top} has no commit yet; evidence binds to HEAD^{{tree}}",
            code="NOT_A_GIT_REPO",
            next_step="commit first, capture after",
        )
    status = _git(
        top,
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=none",
        "--",
        ".",
        _EXCLUDE_STATE,
    )
    if status.returncode != 0:
        raise GateRefused(
            f"git status failed in {top}: {status.stderr.decode('utf-8', 'replace').strip()}",
            code="NOT_A_GIT_REPO",
        )
    entries = [
        (xy, path) for xy, path in _parse_porcelain_z(status.stdout) if STATE_DIR_NAME not in Path(path).parts
    ]
    tree_id = tree.stdout.decode().strip()
    head_id = head.stdout.decode().strip()
    if not entries:
        return Fingerprint(tree_id, head_id)
    digest = hashlib.sha256()
    for xy, path in sorted(entries, key=lambda e: (e[1], e[0])):
        digest.update(f"{xy}\0{path}\0{_content_hash(top / path)}\n".encode("utf-8", "surrogateescape"))
    paths = tuple(sorted({p for _, p in entries}))
    return Fingerprint(tree_id, head_id, digest.hexdigest(), paths[:MAX_DIRTY_PATHS_KEPT])

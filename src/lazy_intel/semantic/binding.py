"""Evidence binding of semantic results (seed 001 "Evidence and invalidation").

A semantic answer is pinned to: the workspace root (and its identity on disk), the git commit,
branch, dirty state and a digest of the dirty set (status entries, index blob ids and worktree
content hashes of the dirty paths), the document's hash and LSP version, and the server's epoch
and capability fingerprint. It is ``current`` only while all of these hold; a change of any makes
it ``stale``. A dirty set too large to digest within bounds never yields ``current``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lazy_intel.workspace.root import STATE_DIR_NAME

MAX_DIRTY_ENTRIES = 1000
MAX_DIRTY_FILE_BYTES = 16 * 1024 * 1024
GIT_TIMEOUT_S = 10.0

STATE_CURRENT = "current"
STATE_STALE = "stale"
STATE_PARTIAL = "partial"
STATE_UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class SourceBinding:
    root: str
    root_fingerprint: str
    git: bool
    commit: str | None = None
    branch: str | None = None
    dirty: bool = False
    dirty_digest: str | None = None
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SourceBinding:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
        "HOME": os.environ.get("HOME", "/"),
    }
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def _root_fingerprint(root: Path) -> str:
    info = os.stat(root)
    return hashlib.sha256(f"{root}\0{info.st_dev}\0{info.st_ino}".encode()).hexdigest()


def _file_digest(path: Path) -> str:
    try:
        if path.is_symlink():
            return "symlink:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
        size = path.stat().st_size
        if size > MAX_DIRTY_FILE_BYTES:
            return f"too-large:{size}"
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "deleted"
    except OSError:
        return "unreadable"


def capture_binding(root: Path) -> SourceBinding:
    """The source binding of ``root`` now (git facts when it is inside a git work tree)."""
    fingerprint = _root_fingerprint(root)
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or top.returncode != 0:
        return SourceBinding(str(root), fingerprint, git=False)
    toplevel = Path(os.fsdecode(top.stdout.strip()))
    head = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    commit = head.stdout.decode().strip() if head is not None and head.returncode == 0 else None
    ref = _git(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    branch = ref.stdout.decode().strip() if ref is not None and ref.returncode == 0 else None
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", ".")
    if status is None or status.returncode != 0:
        return SourceBinding(str(root), fingerprint, True, commit, branch, dirty=True, truncated=True)
    entries: list[tuple[str, str]] = []
    for record in status.stdout.split(b"\0"):
        if len(record) < 4:
            continue
        code, path = record[:2].decode("ascii", "replace"), os.fsdecode(record[3:])
        if path.split("/")[0] == STATE_DIR_NAME or f"/{STATE_DIR_NAME}/" in f"/{path}":
            continue
        entries.append((code, path))
    entries.sort(key=lambda e: e[1])
    truncated = len(entries) > MAX_DIRTY_ENTRIES
    entries = entries[:MAX_DIRTY_ENTRIES]
    if not entries:
        return SourceBinding(str(root), fingerprint, True, commit, branch, dirty=False)
    digest = hashlib.sha256()
    staged: dict[str, str] = {}
    listing = _git(toplevel, "ls-files", "-s", "-z", "--", *[f":(literal){p}" for _, p in entries])
    if listing is not None and listing.returncode == 0:
        for record in listing.stdout.split(b"\0"):
            meta, _, path = record.partition(b"\t")
            if path:
                staged[os.fsdecode(path)] = meta.decode("ascii", "replace")
    for code, path in entries:
        digest.update(f"{code}\0{path}\0{staged.get(path, '-')}\0{_file_digest(toplevel / path)}\n".encode())
    return SourceBinding(
        str(root),
        fingerprint,
        True,
        commit,
        branch,
        dirty=True,
        dirty_digest=digest.hexdigest(),
        truncated=truncated,
    )


def binding_state(before: SourceBinding, after: SourceBinding) -> str:
    """``current`` when nothing moved between two captures, else ``stale`` (``partial`` if unbounded)."""
    if before != after:
        return STATE_STALE
    if before.truncated:
        return STATE_PARTIAL
    return STATE_CURRENT

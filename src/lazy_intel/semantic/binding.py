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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lazy_intel.vcs.binding import capture
from lazy_intel.vcs.git import discover

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


def _root_fingerprint(root: Path) -> str:
    info = os.stat(root)
    return hashlib.sha256(f"{root}\0{info.st_dev}\0{info.st_ino}".encode()).hexdigest()


def capture_binding(root: Path) -> SourceBinding:
    """The source binding of ``root`` now: the repository binding every answer carries
    (:mod:`lazy_intel.vcs.binding`: commit, branch, dirty digest) plus the root's identity on disk."""
    fingerprint = _root_fingerprint(root)
    now = capture(discover(root))
    return SourceBinding(
        str(root),
        fingerprint,
        now.git,
        now.commit,
        now.branch,
        dirty=now.dirty,
        dirty_digest=now.dirty_digest,
        truncated=not now.bounded,
    )


def binding_state(before: SourceBinding, after: SourceBinding) -> str:
    """``current`` when nothing moved between two captures, else ``stale`` (``partial`` if unbounded)."""
    if before != after:
        return STATE_STALE
    if before.truncated:
        return STATE_PARTIAL
    return STATE_CURRENT

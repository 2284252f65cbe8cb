"""The repository binding every answer carries (seed 001 "Evidence and invalidation").

An answer is bound to the git state it was read in: commit, branch (``None`` when detached), the
dirty flag and a digest of the dirty set — for every path ``git status`` reports under the root: its
status code, its index entry (mode, blob id, stage) and a hash of its bytes in the work tree (a
submodule's checked-out commit and status instead). ``verify`` compares a given binding with the
state now: ``current`` when commit, branch, worktree and dirty digest all hold, ``stale`` when one
moved (and which), ``partial`` when the dirty set was too large to digest (never ``current``:
something outside the digest could have changed), ``unavailable`` outside git.

Bounds: at most :data:`MAX_DIRTY_ENTRIES` status entries and :data:`MAX_DIRTY_BYTES` bytes hashed;
past either the binding is ``bounded: false``. ``.lazy-intel`` state directories never count.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lazy_intel.errors import InvalidArgument
from lazy_intel.vcs.git import (
    WORKTREE_LINKED,
    NoRepository,
    Repository,
    decode_path,
    run_git,
)
from lazy_intel.workspace.root import STATE_DIR_NAME

MAX_DIRTY_ENTRIES = 1000
MAX_DIRTY_BYTES = 64 * 1024 * 1024
MAX_DIRTY_FILE_BYTES = 16 * 1024 * 1024
DIGEST_HEX = 24
EXCLUDE_STATE = f":(exclude,glob)**/{STATE_DIR_NAME}/**"
GITLINK_MODE = "160000"

STATE_CURRENT = "current"
STATE_STALE = "stale"
STATE_PARTIAL = "partial"
STATE_UNAVAILABLE = "unavailable"
COMPARED_FIELDS = ("git", "commit", "branch", "worktree", "dirty", "dirty_digest")


@dataclass(frozen=True)
class DirtyEntry:
    code: str  # porcelain XY
    path: str  # relative to the root
    index: str  # "mode blob stage" or "-" when not in the index
    content: str  # sha256 of the work-tree bytes, "deleted", "submodule:<commit>:<status>", …


@dataclass(frozen=True)
class RepositoryBinding:
    git: bool
    reason: str | None = None  # why there is no git binding
    commit: str | None = None  # None: no commit yet
    branch: str | None = None  # None: detached HEAD
    worktree: str | None = None  # "main" or "linked"
    submodule: bool = False  # the work tree is a submodule checkout of a superproject
    dirty: bool = False
    dirty_count: int = 0
    dirty_digest: str | None = None
    bounded: bool = True
    dirty_paths: tuple[str, ...] = field(default=(), compare=False)
    submodules: tuple[str, ...] = ()  # submodule checkouts inside the root (never indexed)

    def to_dict(self) -> dict[str, Any]:
        """The compact form in every answer's ``view.repository``."""
        if not self.git:
            return {"git": False, "reason": self.reason}
        out: dict[str, Any] = {
            "git": True,
            "commit": self.commit,
            "branch": self.branch,
            "dirty": self.dirty,
        }
        if self.dirty:
            out["dirty_count"] = self.dirty_count
            out["dirty_digest"] = self.dirty_digest
        if self.worktree == WORKTREE_LINKED:
            out["worktree"] = WORKTREE_LINKED
        if self.submodule:
            out["submodule"] = True
        if self.submodules:
            out["submodules"] = len(self.submodules)
        if not self.bounded:
            out["bounded"] = False
        return out


SUBMODULE_NOTE = "submodule: a separate repository, not indexed here (open it as its own root)"


def describe_binding(binding: RepositoryBinding) -> dict[str, Any]:
    """The longer form ``status`` shows: the compact binding plus dirty paths and submodules."""
    out = binding.to_dict()
    if binding.dirty_paths:
        out["dirty_paths"] = list(binding.dirty_paths)
    if binding.submodules:
        out["submodules"] = [{"path": p, "note": SUBMODULE_NOTE} for p in binding.submodules]
    return out


def _content_digest(path: Path, budget: list[int], nested: bool) -> tuple[str, bool]:
    """(hash of the work-tree entry, whether it stayed within the byte budget)."""
    try:
        if path.is_symlink():
            return "symlink:" + hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest(), True
        if path.is_dir():
            if (path / ".git").exists():
                return _submodule_state(path, nested)
            return "directory", True
        size = path.stat().st_size
        if size > MAX_DIRTY_FILE_BYTES or size > budget[0]:
            info = path.stat()
            return f"unhashed:{size}:{info.st_mtime_ns}", False
        budget[0] -= size
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest(), True
    except FileNotFoundError:
        return "deleted", True
    except OSError as exc:
        return f"unreadable:{exc.errno}", True


def _submodule_state(path: Path, nested: bool) -> tuple[str, bool]:
    """A submodule checkout: its commit and the digest of its own dirty set (one level deep; a
    submodule of a submodule is summarised by its status line)."""
    from lazy_intel.vcs.git import discover

    found = discover(path)
    if not isinstance(found, Repository):
        return "submodule:uninitialised", True
    head = run_git(path, "rev-parse", "--verify", "-q", "HEAD", timeout_s=10.0)
    commit = head.stdout.decode().strip() if head.returncode == 0 else "-"
    if nested:
        status = run_git(path, "status", "--porcelain=v1", "-z", "--untracked-files=all", timeout_s=30.0)
        return f"submodule:{commit}:{hashlib.sha256(status.stdout).hexdigest()[:16]}", True
    entries, bounded = dirty_entries(found, nested=True)
    return f"submodule:{commit}:{digest_entries(entries)}", bounded


def parse_porcelain(raw: bytes) -> list[tuple[str, str]]:
    """``git status --porcelain=v1 -z --no-renames`` into (XY, path relative to the top)."""
    out: list[tuple[str, str]] = []
    for record in raw.split(b"\0"):
        if len(record) < 4:
            continue
        out.append((record[:2].decode("ascii", "replace"), decode_path(record[3:])))
    return out


def _head(repo: Repository) -> tuple[str | None, str | None]:
    done = run_git(repo.root, "rev-parse", "--verify", "-q", "HEAD", timeout_s=10.0)
    commit = done.stdout.decode().strip() if done.returncode == 0 else None
    ref = run_git(repo.root, "symbolic-ref", "-q", "--short", "HEAD", timeout_s=10.0)
    branch = ref.stdout.decode("utf-8", "replace").strip() if ref.returncode == 0 else None
    return commit, branch


def submodule_paths(repo: Repository) -> tuple[str, ...]:
    """Submodule checkouts under the root (gitlinks in the index), relative to the root."""
    if not (repo.toplevel / ".gitmodules").is_file():
        return ()
    done = run_git(repo.root, "ls-files", "-s", "-z", "--", ".")
    if done.returncode != 0:
        return ()
    out: list[str] = []
    for record in done.stdout.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if path and meta.startswith(GITLINK_MODE.encode()):
            out.append(_root_relative(repo, decode_path(path)))
    return tuple(sorted(out))


def _root_relative(repo: Repository, top_path: str) -> str:
    return top_path[len(repo.prefix) :] if repo.prefix and top_path.startswith(repo.prefix) else top_path


def dirty_entries(repo: Repository, *, nested: bool = False) -> tuple[list[DirtyEntry], bool]:
    """The root's dirty set, sorted by path, and whether it stayed within the bounds."""
    status = run_git(
        repo.root,
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=none",
        "--no-renames",
        "--",
        ".",
        EXCLUDE_STATE,
    )
    if status.returncode != 0:
        return [], False
    entries = [
        (code, path) for code, path in parse_porcelain(status.stdout) if STATE_DIR_NAME not in path.split("/")
    ]
    entries.sort(key=lambda e: (e[1], e[0]))
    bounded = len(entries) <= MAX_DIRTY_ENTRIES
    entries = entries[:MAX_DIRTY_ENTRIES]
    staged: dict[str, str] = {}
    if entries:
        listing = run_git(
            repo.toplevel, "ls-files", "-s", "-z", "--", *[f":(literal){path}" for _, path in entries]
        )
        if listing.returncode == 0:
            for record in listing.stdout.split(b"\0"):
                meta, _, path = record.partition(b"\t")
                if path:
                    key = decode_path(path)
                    staged[key] = (staged[key] + ";" if key in staged else "") + meta.decode(
                        "ascii", "replace"
                    )
    budget = [MAX_DIRTY_BYTES]
    out: list[DirtyEntry] = []
    for code, path in entries:
        content, within = _content_digest(repo.toplevel / path, budget, nested)
        bounded = bounded and within
        out.append(DirtyEntry(code, _root_relative(repo, path), staged.get(path, "-"), content))
    return out, bounded


def digest_entries(entries: list[DirtyEntry]) -> str:
    digest = hashlib.sha256()
    for entry in entries:
        digest.update(
            f"{entry.code}\0{entry.path}\0{entry.index}\0{entry.content}\n".encode("utf-8", "surrogateescape")
        )
    return digest.hexdigest()[:DIGEST_HEX]


def capture(repo: Repository | NoRepository) -> RepositoryBinding:
    """The binding of the root now."""
    if isinstance(repo, NoRepository):
        return RepositoryBinding(git=False, reason=repo.reason)
    commit, branch = _head(repo)
    entries, bounded = dirty_entries(repo)
    return RepositoryBinding(
        git=True,
        commit=commit,
        branch=branch,
        worktree=repo.worktree,
        submodule=repo.superproject is not None,
        dirty=bool(entries) or not bounded,
        dirty_count=len(entries),
        dirty_digest=digest_entries(entries) if entries or not bounded else None,
        bounded=bounded,
        dirty_paths=tuple(e.path for e in entries[:50]),
        submodules=submodule_paths(repo),
    )


@dataclass(frozen=True)
class BindingCheck:
    state: str
    changed: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "changed": list(self.changed), "reason": self.reason}


def check_binding(given: Mapping[str, Any], now: RepositoryBinding) -> BindingCheck:
    """Compare a binding from an earlier answer (its ``view.repository``) with the state now."""
    if not isinstance(given, Mapping) or not isinstance(given.get("git"), bool):
        raise InvalidArgument("binding must be the view.repository object of an earlier answer")
    current = now.to_dict()
    if not given["git"] and not now.git:
        return BindingCheck(STATE_UNAVAILABLE, (), f"no git binding: {now.reason}")
    changed = tuple(
        name
        for name in COMPARED_FIELDS
        if (given.get(name) if name != "worktree" else given.get(name, "main"))
        != (current.get(name) if name != "worktree" else current.get(name, "main"))
    )
    if changed:
        detail = ", ".join(f"{name} {given.get(name)!r} -> {current.get(name)!r}" for name in changed[:4])
        return BindingCheck(STATE_STALE, changed, f"the repository moved since the answer: {detail}")
    if given.get("bounded") is False or not now.bounded:
        return BindingCheck(
            STATE_PARTIAL,
            (),
            f"the dirty set is larger than {MAX_DIRTY_ENTRIES} entries or {MAX_DIRTY_BYTES >> 20} MiB, so "
            "the digest cannot prove that nothing changed",
        )
    return BindingCheck(STATE_CURRENT, (), "commit, branch and dirty digest are unchanged")


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


class BindingSource:
    """The binding of one root, re-captured unless it provably cannot have changed.

    A capture is reused only when the caller passes a change sequence it trusts (the watcher's count
    of in-scope changes; ``None`` means "cannot tell") that has not moved, and git's ``HEAD``, index,
    branch ref and packed refs have the same identity, size and mtime as at the capture. The
    repository itself is discovered once and again when the work tree's ``.git`` entry changes.
    """

    def __init__(self, root: Path) -> None:
        from lazy_intel.vcs.git import discover

        self.root = root
        self._discover = discover
        self._repo: Repository | NoRepository | None = None
        self._repo_key: object = None
        self._key: object = None
        self._binding: RepositoryBinding | None = None
        self._lock = threading.Lock()

    def repository(self) -> Repository | NoRepository:
        top = self._repo.toplevel if isinstance(self._repo, Repository) else self.root
        key = _stat_key(top / ".git")
        if self._repo is None or isinstance(self._repo, NoRepository) or key != self._repo_key:
            self._repo = self._discover(self.root)
            top = self._repo.toplevel if isinstance(self._repo, Repository) else self.root
            self._repo_key = _stat_key(top / ".git")
        return self._repo

    def _git_key(self, repo: Repository) -> tuple[object, ...]:
        head = repo.git_dir / "HEAD"
        try:
            target = head.read_bytes()
        except OSError:
            target = b""
        ref = target[5:].strip().decode("utf-8", "replace") if target.startswith(b"ref: ") else None
        return (
            target,
            _stat_key(head),
            _stat_key(repo.git_dir / "index"),
            _stat_key(repo.common_dir / "packed-refs"),
            _stat_key(repo.common_dir / ref) if ref else None,
        )

    def binding(self, change_seq: int | None = None) -> RepositoryBinding:
        with self._lock:
            repo = self.repository()
            if isinstance(repo, NoRepository):
                return capture(repo)
            key = (change_seq, self._git_key(repo))
            if change_seq is not None and self._binding is not None and key == self._key:
                return self._binding
            binding = capture(repo)
            self._key, self._binding = key, binding
            return binding

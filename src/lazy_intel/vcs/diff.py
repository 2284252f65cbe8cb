"""What changed between a commit and the working tree: revisions, changed paths and old blobs.

Paths are relative to the workspace root (``git diff --relative``); the comparison is the commit's
tree against the files on disk (staged and unstaged edits alike), plus untracked files git does not
ignore. Renames are reported as a deletion and an addition (``--no-renames``): a symbol's identity is
its path and qualified name. State directories are never part of a change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.errors import InvalidArgument
from lazy_intel.vcs.git import Repository, decode_path, run_git, stderr_line
from lazy_intel.workspace.root import STATE_DIR_NAME

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree object
MAX_BLOB_BYTES = 4 * 1024 * 1024
EXCLUDE_STATE = f":(exclude,glob)**/{STATE_DIR_NAME}/**"

ADDED = "added"
MODIFIED = "modified"
DELETED = "deleted"
STATUS_NAMES = {"A": ADDED, "M": MODIFIED, "D": DELETED, "T": MODIFIED, "U": MODIFIED}


@dataclass(frozen=True)
class Revision:
    """A resolved revision: what the user wrote and the commit it names (``None``: the empty tree of
    a repository with no commit yet)."""

    ref: str
    commit: str | None

    @property
    def tree_ish(self) -> str:
        return self.commit or EMPTY_TREE


@dataclass(frozen=True)
class FileChange:
    path: str  # relative to the root
    status: str  # added | modified | deleted


def resolve_revision(repo: Repository, ref: str) -> Revision:
    """``ref`` to a commit; ``INVALID_ARGUMENT`` naming it when it names none."""
    if ref.startswith("-"):
        raise InvalidArgument(f"since={ref!r} is not a revision")
    done = run_git(repo.root, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}")
    if done.returncode == 0:
        return Revision(ref, done.stdout.decode().strip())
    if ref == "HEAD":
        head = run_git(repo.root, "rev-parse", "--verify", "-q", "HEAD")
        if head.returncode != 0:  # no commit yet: every file is new
            return Revision(ref, None)
    raise InvalidArgument(
        f"since={ref!r} names no commit in the repository at {repo.toplevel}",
        next_step="pass a branch, tag, commit id or HEAD~N that exists (git log shows them)",
    )


def _state_path(path: str) -> bool:
    return STATE_DIR_NAME in path.split("/")


def changed_files(repo: Repository, revision: Revision) -> list[FileChange]:
    """Files under the root that differ between ``revision`` and the working tree, sorted by path."""
    diff = run_git(
        repo.root,
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--relative",
        "--name-status",
        "-z",
        "--no-renames",
        "--ignore-submodules=all",
        revision.tree_ish,
        "--",
        ".",
        EXCLUDE_STATE,
    )
    if diff.returncode != 0:
        raise InvalidArgument(f"git diff {revision.ref} failed: {stderr_line(diff)}")
    fields = diff.stdout.split(b"\0")
    out: dict[str, FileChange] = {}
    for status, path in zip(fields[0::2], fields[1::2], strict=False):
        if not status or not path:
            continue
        name = decode_path(path)
        if not _state_path(name):
            out[name] = FileChange(name, STATUS_NAMES.get(status[:1].decode("ascii", "replace"), MODIFIED))
    untracked = run_git(
        repo.root, "ls-files", "-z", "--others", "--exclude-standard", "--", ".", EXCLUDE_STATE
    )
    if untracked.returncode == 0:
        for raw in untracked.stdout.split(b"\0"):
            name = decode_path(raw)
            if name and not _state_path(name):
                out.setdefault(name, FileChange(name, ADDED))
    return [out[p] for p in sorted(out)]


def read_objects(
    cwd: Path, specs: Sequence[str], max_bytes: int = MAX_BLOB_BYTES
) -> list[tuple[str | None, bytes | None]]:
    """``git cat-file --batch`` for ``specs`` (``<rev>:<path>`` from the top of the work tree): per
    spec, (blob id, bytes) — (``None``, ``None``) when missing or not a blob, (id, ``None``) when larger
    than ``max_bytes``."""
    if not specs:
        return []
    request = b"".join(spec.encode("utf-8", "surrogateescape") + b"\n" for spec in specs)
    done = run_git(cwd, "cat-file", "--batch", stdin=request, timeout_s=120.0)
    out: list[tuple[str | None, bytes | None]] = []
    data = done.stdout
    pos = 0
    for _ in specs:
        end = data.find(b"\n", pos)
        if end < 0:
            out.append((None, None))
            continue
        header = data[pos:end].split(b" ")
        pos = end + 1
        if len(header) != 3:  # "<spec> missing" / "ambiguous"
            out.append((None, None))
            continue
        size = int(header[2])
        body = data[pos : pos + size]
        pos += size + 1
        if header[1] != b"blob":  # a tree, or a submodule's commit
            out.append((None, None))
        else:
            out.append((header[0].decode(), body if size <= max_bytes else None))
    return out


def read_blobs(repo: Repository, tree_ish: str, paths: Iterable[str]) -> dict[str, bytes | None]:
    """The bytes of ``paths`` (root-relative) in ``tree_ish``; ``None`` where absent or too large."""
    wanted = list(dict.fromkeys(paths))
    found = read_objects(repo.root, [f"{tree_ish}:{repo.top_path(p)}" for p in wanted])
    return {path: body for path, (_, body) in zip(wanted, found, strict=True)}

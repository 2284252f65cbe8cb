"""Which files belong to a workspace: one policy for indexing and for the watcher (DESIGN §4).

Decisions:
- In a git work tree the scope is ``git ls-files --cached --others --exclude-standard``: tracked
  files plus new files git does not ignore (an agent's new file is indexed before it is committed).
- Outside git, a walk that honours every ``.gitignore`` on the way down, as git reads them
  (:mod:`lazy_intel.workspace.gitignore`).
- Derived directories (:data:`DERIVED_DIRS`) and lockfiles are excluded even when tracked.
- ``.lazy-intel-ignore`` at the root (gitignore syntax) narrows the scope; its text is hashed into the
  scope digest so editing it changes what a sync captures.
- Symbolic links are never followed (no loops, no escapes); a symlinked file is recorded as excluded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from lazy_intel.errors import NotFound
from lazy_intel.workspace.gitignore import IgnoreFile, gitignored
from lazy_intel.workspace.root import STATE_DIR_NAME

logger = logging.getLogger(__name__)

SCOPE_POLICY_VERSION = 3  # 3: the walk reads nested .gitignore files as git does (deeper negations, `dir/**`)
IGNORE_FILE = ".lazy-intel-ignore"

DERIVED_DIRS: frozenset[str] = frozenset(
    {
        STATE_DIR_NAME,
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "bower_components",
        "dist",
        "build",
        "target",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".parcel-cache",
        ".cache",
        ".gradle",
        "DerivedData",
        ".idea",
        ".vscode-test",
        "coverage",
        "htmlcov",
    }
)

LOCKFILES: frozenset[str] = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "Pipfile.lock",
        "Cargo.lock",
        "go.sum",
        "composer.lock",
        "Gemfile.lock",
        "bun.lockb",
    }
)

GIT_TIMEOUT_S = 60


@dataclass(frozen=True)
class ScopePolicy:
    """The exclusion rules of one root; build with :func:`load_policy`."""

    root: Path
    ignore_text: str = ""
    ignore_spec: pathspec.PathSpec | None = field(default=None, compare=False)

    def excluded_reason(self, rel: str, *, is_dir: bool = False) -> str | None:
        """Why ``rel`` (POSIX, relative to the root) is out of scope, or ``None`` if it is in."""
        parts = rel.split("/")
        dir_parts = parts if is_dir else parts[:-1]
        for part in dir_parts:
            if part in DERIVED_DIRS or part.endswith(".egg-info"):
                return f"derived directory {part}"
        if not is_dir and parts[-1] in LOCKFILES:
            return "lockfile"
        if self.ignore_spec is not None:
            probe = rel + "/" if is_dir else rel
            if self.ignore_spec.match_file(probe):
                return IGNORE_FILE
        return None

    def digest(self, *extra: str) -> str:
        """Hash of everything that decides scope and parse output; a change invalidates the view."""
        h = hashlib.sha256()
        h.update(f"scope-policy:{SCOPE_POLICY_VERSION}\n".encode())
        h.update(("\n".join(sorted(DERIVED_DIRS)) + "\n").encode())
        h.update(("\n".join(sorted(LOCKFILES)) + "\n").encode())
        h.update(self.ignore_text.encode("utf-8", "surrogateescape"))
        for piece in extra:
            h.update(b"\x00" + piece.encode())
        return h.hexdigest()


def load_policy(root: Path) -> ScopePolicy:
    path = root / IGNORE_FILE
    if not path.is_file() or path.is_symlink():
        return ScopePolicy(root=root)
    text = path.read_bytes().decode("utf-8", "replace")
    spec = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    return ScopePolicy(root=root, ignore_text=text, ignore_spec=spec)


@dataclass(frozen=True)
class ScopeListing:
    """Candidate paths (POSIX, relative, sorted) and how they were found."""

    paths: tuple[str, ...]
    source: str  # "git" | "walk"
    excluded: tuple[tuple[str, str], ...] = ()


SUBMODULE_REASON = "submodule: a separate repository, not indexed here (open it as its own root)"  # = vcs.binding.SUBMODULE_NOTE


def _gitlinks(root: Path, toplevel: str) -> set[str]:
    """Submodule checkouts under ``root`` (index entries of mode 160000), relative to the root.

    ``git ls-files`` lists a submodule as one path, a directory: never a file to capture."""
    if not os.path.isfile(os.path.join(toplevel, ".gitmodules")):
        return set()
    try:
        staged = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "-s", "--cached"],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    out: set[str] = set()
    for record in staged.stdout.split(b"\x00"):
        meta, _, path = record.partition(b"\t")
        if path and meta.startswith(b"160000 "):
            out.add(os.fsdecode(path))
    return out


def _git_paths(root: Path) -> tuple[list[str], set[str]] | None:
    """(paths git lists under the root, the submodule checkouts among them), or ``None``."""
    try:
        inside = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--is-inside-work-tree", "--show-toplevel"],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = inside.stdout.split(b"\n")
    if inside.returncode != 0 or answer[0].strip() != b"true":
        return None
    toplevel = os.fsdecode(answer[1].strip()) if len(answer) > 1 else str(root)
    # a root that the enclosing repository ignores (a build tree, a download inside a repo, a home
    # directory under a dotfiles repo) is not described by git: walk it instead
    try:
        ignored = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "-q", "."],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if ignored.returncode == 0:
        return None
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git ls-files failed in %s: %s; walking instead", root, exc)
        return None
    if listed.returncode != 0:
        logger.warning("git ls-files failed in %s: %s; walking instead", root, listed.stderr[:200])
        return None
    out: list[str] = []
    for raw in listed.stdout.split(b"\x00"):
        if raw:
            out.append(os.fsdecode(raw))
    return out, _gitlinks(root, toplevel)


PAUSE_EVERY_DIRS = 64


def _walk_paths(
    policy: ScopePolicy, pause: Callable[[], object] | None = None
) -> Iterator[tuple[str, str | None]]:
    """Yield ``(rel, exclusion)`` for every file under the root, honouring nested .gitignore files.

    Derived directories are pruned, not descended; symlinked directories are never followed.
    ``pause`` is called every :data:`PAUSE_EVERY_DIRS` directories (a background walk's chance to
    let a sync run alone).
    """
    root = os.fspath(policy.root)  # strings, not Paths: this runs once per directory of every sync
    stack: list[tuple[str, list[IgnoreFile]]] = [("", [])]
    walked = 0
    while stack:
        rel_dir, ignores = stack.pop()
        walked += 1
        if pause is not None and walked % PAUSE_EVERY_DIRS == 0:
            pause()
        abs_dir = os.path.join(root, rel_dir) if rel_dir else root
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except FileNotFoundError:
            if not rel_dir:  # the root itself is gone: never publish that as "every file deleted"
                raise NotFound(f"workspace root {root} no longer exists") from None
            # removed while we walked (an edit in progress): the next sync lists it as gone
            logger.debug("directory vanished during the walk: %s", abs_dir)
            continue
        except OSError as exc:
            logger.warning("cannot list %s: %s", abs_dir, exc)
            continue
        for entry in entries:  # a .gitignore that is a regular file (never a symlink's target)
            if entry.name == ".gitignore":
                try:
                    if entry.is_file(follow_symlinks=False):
                        with open(entry.path, "rb") as fh:
                            lines = fh.read().decode("utf-8", "replace").splitlines()
                        ignores = [*ignores, IgnoreFile.parse(rel_dir, lines)]
                except OSError:
                    pass
                break
        subdirs: list[str] = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if ignores and gitignored(ignores, rel, is_dir):
                continue
            if is_dir:
                if policy.excluded_reason(rel, is_dir=True) is None:
                    subdirs.append(rel)
            elif is_link:
                yield rel, None  # capture records it as excluded (symlink), as in a git listing
            elif entry.is_file(follow_symlinks=False):
                yield rel, None
        stack.extend((d, ignores) for d in reversed(subdirs))


def list_scope(policy: ScopePolicy, pause: Callable[[], object] | None = None) -> ScopeListing:
    """List the files in scope under ``policy.root``; exclusions are reported with their reason.
    ``pause``: called now and then during a walk (see :func:`_walk_paths`)."""
    root = policy.root
    paths: list[str] = []
    excluded: list[tuple[str, str]] = []
    git = _git_paths(root)
    if git is not None:
        source = "git"
        listed, submodules = git
        candidates: Iterator[tuple[str, str | None]] = (
            (p, SUBMODULE_REASON if p in submodules else None) for p in listed
        )
    else:
        source = "walk"
        candidates = _walk_paths(policy, pause)
    seen: set[str] = set()
    for rel, reason in candidates:
        if rel in seen:
            continue
        seen.add(rel)
        why = reason or policy.excluded_reason(rel)
        if why is not None:
            if not why.startswith("derived directory"):
                excluded.append((rel, why))
            continue
        paths.append(rel)
    paths.sort()
    excluded.sort()
    return ScopeListing(paths=tuple(paths), source=source, excluded=tuple(excluded))

"""One bounded way to run git, and what kind of repository a workspace root lives in.

Read-only by construction: ``--no-optional-locks`` (no index refresh written), no pager, no colour,
and the settings that would make git run programs the repository configures (``core.fsmonitor``
hooks, external diff drivers, textconv filters, GPG for signatures) are overridden on the command
line. The caller's ``GIT_*`` environment is dropped so that a variable such as ``GIT_DIR`` set for
another repository never redirects a query.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.errors import Timeout, Unsupported

GIT_TIMEOUT_S = 30.0
SAFE_CONFIG = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "diff.external=",
    "-c",
    "log.showSignature=false",
    "-c",
    "color.ui=never",
    "-c",
    "core.quotePath=false",
)


def git_environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "LC_ALL": "C",
        }
    )
    return env


def run_git(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    timeout_s: float = GIT_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git -C cwd args`` and return what it did (never raises for a non-zero exit).

    ``UNSUPPORTED`` when git is not installed; ``TIMEOUT`` past ``timeout_s``.
    """
    command = ["git", "--no-optional-locks", *SAFE_CONFIG, "-C", str(cwd), *args]
    try:
        return subprocess.run(
            command,
            input=stdin,
            capture_output=True,
            env=git_environment(),
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError:
        raise Unsupported("git is not installed", next_step="install git") from None
    except subprocess.TimeoutExpired:
        raise Timeout(f"git {' '.join(args[:2])} took longer than {timeout_s:g}s in {cwd}") from None


def decode_path(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def stderr_line(done: subprocess.CompletedProcess[bytes]) -> str:
    text = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return text[-1][:300] if text else f"exit status {done.returncode}"


WORKTREE_MAIN = "main"
WORKTREE_LINKED = "linked"


@dataclass(frozen=True)
class Repository:
    """Where a workspace root sits in git.

    ``prefix`` is the root relative to the work tree's top (``""`` at the top, else ending in
    ``/``). ``worktree`` is ``main`` or ``linked`` (a ``git worktree add`` checkout, whose ``.git``
    is a file pointing into the common directory). ``superproject`` is set when the work tree is a
    submodule checkout.
    """

    root: Path
    toplevel: Path
    git_dir: Path
    common_dir: Path
    prefix: str
    worktree: str
    superproject: Path | None = None

    def top_path(self, rel: str) -> str:
        """A root-relative path as git names it from the top of the work tree."""
        return f"{self.prefix}{rel}"


@dataclass(frozen=True)
class NoRepository:
    """Why a root has no git binding (plain directory, git missing, ignored by its repository)."""

    reason: str


def discover(root: Path) -> Repository | NoRepository:
    """The repository ``root`` belongs to, or why there is none to bind answers to."""
    try:
        done = run_git(
            root,
            "rev-parse",
            "--path-format=absolute",
            "--is-inside-work-tree",
            "--show-toplevel",
            "--absolute-git-dir",
            "--git-common-dir",
            "--show-prefix",
            "--show-superproject-working-tree",
            timeout_s=10.0,
        )
    except Unsupported:
        return NoRepository("git is not installed")
    if done.returncode != 0:
        return NoRepository("not inside a git work tree")
    lines = done.stdout.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 5 or lines[0] != "true":
        return NoRepository("not inside a git work tree (bare repository or .git directory)")
    toplevel, git_dir, common_dir, prefix = (lines[1], lines[2], lines[3], lines[4])
    superproject = lines[5] if len(lines) > 5 and lines[5] else None
    ignored = run_git(root, "check-ignore", "-q", ".", timeout_s=10.0)
    if ignored.returncode == 0:
        return NoRepository(
            f"the root is ignored by the repository at {toplevel}, so git describes none of its files"
        )
    git_path = Path(git_dir)
    common = Path(common_dir)
    linked = git_path.resolve() != common.resolve()
    return Repository(
        root=root,
        toplevel=Path(toplevel),
        git_dir=git_path,
        common_dir=common,
        prefix=prefix,
        worktree=WORKTREE_LINKED if linked else WORKTREE_MAIN,
        superproject=Path(superproject) if superproject else None,
    )

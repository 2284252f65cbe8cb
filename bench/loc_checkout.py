"""The SWE-bench Lite dev set's issues and their checkouts (``swebench_loc``'s input side).

An issue (``Issue``, read by ``load_issues`` from ``../shared/bench/swebench-lite-dev.jsonl``) names a
repository and a ``base_commit``; ``materialise`` writes that commit's tree (the whole checkout, or
``--scope source``'s non-test Python) from a directory of git repositories (``owner+name``, bare or
not, optionally with the git directory in ``owner+name/repo``) with one ``git cat-file --batch``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.parse.languages import is_parsed_language, language_for_path
from lazy_intel.store.schema import SCHEMA_VERSION
from lazy_intel.text.paths import is_test_path

DATA_NAME = Path("shared") / "bench" / "swebench-lite-dev.jsonl"
PSEUDO_SPANS = ("imports", "impl")
SCOPES = ("whole", "source")


def default_data() -> Path:
    """``shared/bench/swebench-lite-dev.jsonl`` beside the checkout (or any directory above it)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / DATA_NAME).is_file():
            return parent / DATA_NAME
    return Path(__file__).resolve().parents[2] / DATA_NAME


@dataclass(frozen=True)
class Issue:
    instance_id: str
    repo: str
    base_commit: str
    query: str
    gold_files: tuple[str, ...]
    gold_spans: tuple[str, ...]

    @property
    def gold_functions(self) -> tuple[str, ...]:
        """``path:qualified`` spans that name a function or class (not ``imports``/``impl``)."""
        out = []
        for span in self.gold_spans:
            _, _, name = span.partition(":")
            if name.split(":")[0] not in PSEUDO_SPANS:
                out.append(span)
        return tuple(out)


def load_issues(path: Path) -> list[Issue]:
    issues = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            issues.append(
                Issue(
                    d["instance_id"],
                    d["repo"],
                    d["base_commit"],
                    d["query"],
                    tuple(d["gold_files"]),
                    tuple(d.get("gold_spans", ())),
                )
            )
    return issues


# ---- repositories
def git_dir_for(repos: Path, repo: str) -> Path | None:
    """The git directory of ``owner/name`` under ``repos`` (``owner+name``, bare or not, or ``…/repo``)."""
    base = repos / repo.replace("/", "+")
    for candidate in (base / "repo", base / ".git", base, base / "repo" / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


# ``--scope source`` (the protocol before issue 13) kept these languages' non-test files only.
LANGUAGES: frozenset[str] = frozenset({"python"})


def wanted_path(path: str, scope: str = "whole", languages: frozenset[str] = LANGUAGES) -> bool:
    """``whole``: every file of the checkout. ``source``: non-test files of a parsed language."""
    if scope == "whole":
        return True
    lang = language_for_path(path)
    return is_parsed_language(lang) and lang in languages and not is_test_path(path)


def tree_blobs(git_dir: Path, commit: str, scope: str = "whole") -> list[tuple[str, str]]:
    """(path, blob sha) of the wanted files at ``commit`` (no symbolic links, no submodules)."""
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--full-tree", commit],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    blobs = []
    for entry in out.split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != "120000" and wanted_path(path, scope):
            blobs.append((path, sha))
    return blobs


def read_blobs(git_dir: Path, shas: Sequence[str]) -> dict[str, bytes]:
    """Blob contents by sha via one ``git cat-file --batch``; missing blobs are left out."""
    if not shas:
        return {}
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input=("\n".join(shas) + "\n").encode(),
        capture_output=True,
        check=True,
    )
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for sha in shas:
        end = data.index(b"\n", pos)
        header = data[pos:end].decode()
        pos = end + 1
        if header.endswith("missing"):
            continue
        size = int(header.split()[2])
        out[sha] = data[pos : pos + size]
        pos += size + 1
    return out


def materialise(git_dir: Path, commit: str, dest: Path, scope: str = "whole") -> tuple[int, int]:
    """Make ``dest`` hold exactly the wanted files at ``commit``; unchanged files keep their mtime.

    Returns (files written or kept, blobs missing).
    """
    blobs = tree_blobs(git_dir, commit, scope)
    wanted = dict(blobs)
    dest.mkdir(parents=True, exist_ok=True)
    for existing in sorted(dest.rglob("*"), reverse=True):
        rel = existing.relative_to(dest).as_posix()
        if (existing.is_file() or existing.is_symlink()) and rel not in wanted:
            existing.unlink()
        elif existing.is_dir() and not existing.is_symlink() and not any(existing.iterdir()):
            existing.rmdir()
    contents = read_blobs(git_dir, sorted(set(wanted.values())))
    missing = 0
    for path, sha in blobs:
        data = contents.get(sha)
        target = dest / path
        if data is None:
            missing += 1
            target.unlink(missing_ok=True)
            continue
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return len(blobs) - missing, missing


def commit_time(git_dir: Path, commit: str) -> int:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", "-s", "--format=%ct", commit],
        capture_output=True,
        text=True,
        check=False,
    )
    return int(out.stdout.strip() or 0)


def index_profile(scope: str) -> str:
    """The cache key of an index: what was materialised and which store schema built it."""
    return f"{scope}-schema{SCHEMA_VERSION}"

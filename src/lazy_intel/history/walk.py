"""The bounded history walk: the last N non-merge commits under a root, what each touched.

Each commit is read on its own terms — the files its diff against its first parent touches (lines
added and deleted) and the definitions that diff changes (parsed from the two blob versions, see
:mod:`lazy_intel.history.symbol_diff`) — so a commit's record never depends on which other commits
were walked with it: a store updated commit by commit equals a fresh walk of the same window.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.history.symbol_diff import DELETED, Definition, definitions, diff_definitions
from lazy_intel.parse.languages import is_parsed_language, language_for_path
from lazy_intel.vcs.diff import read_objects
from lazy_intel.vcs.git import decode_path, run_git

MAX_SUBJECT_CHARS = 200
MAX_FILES_PER_COMMIT_SYMBOLS = 50  # a commit touching more files gets file-level records only
PARSE_CACHE = 256


@dataclass(frozen=True)
class HistorySource:
    """Where the history comes from.

    ``cwd`` is where git runs (the workspace root, or any git directory such as a mirror), ``head``
    the revision walked back from, ``prefix`` the root's path from the top of the tree (``""`` or
    ending in ``/``): commits and paths are limited to it and paths are reported relative to it.
    """

    cwd: Path
    head: str = "HEAD"
    prefix: str = ""

    def pathspec(self) -> list[str]:
        # no pathspec for a whole tree: in a bare repository (a mirror) ":(top)." matches nothing
        return ["--", f":(top){self.prefix}"] if self.prefix else []

    def top(self, path: str) -> str:
        return f"{self.prefix}{path}"


@dataclass(frozen=True)
class FileTouch:
    path: str  # relative to the root
    added: int  # lines; -1 for a binary file
    deleted: int


@dataclass(frozen=True)
class CommitRecord:
    hash: str
    parent: str | None  # first parent; None for a root commit
    time: int
    subject: str
    files: tuple[FileTouch, ...]


@dataclass(frozen=True)
class SymbolTouch:
    path: str
    qualified_name: str
    kind: str
    change: str  # added | modified | deleted
    lines: int  # the definition's line count in the commit's version (the old one when deleted)


def resolve_head(source: HistorySource) -> str | None:
    done = run_git(source.cwd, "rev-parse", "--verify", "-q", "--end-of-options", f"{source.head}^{{commit}}")
    return done.stdout.decode().strip() if done.returncode == 0 else None


def window(source: HistorySource, head: str, count: int) -> list[str]:
    """The ``count`` most recent non-merge commits reachable from ``head`` that touch the root."""
    if count <= 0:
        return []
    done = run_git(
        source.cwd,
        "rev-list",
        "--no-merges",
        f"--max-count={count}",
        head,
        *source.pathspec(),
        timeout_s=120.0,
    )
    if done.returncode != 0:
        return []
    return [line for line in done.stdout.decode().split("\n") if line]


def _strip_prefix(source: HistorySource, path: str) -> str | None:
    if not source.prefix:
        return path
    return path[len(source.prefix) :] if path.startswith(source.prefix) else None


def read_commits(source: HistorySource, hashes: Sequence[str]) -> list[CommitRecord]:
    """The records of ``hashes`` (in that order): time, subject, first parent, files touched."""
    if not hashes:
        return []
    done = run_git(
        source.cwd,
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "-z",
        "--numstat",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--format=%x01%H%x1f%P%x1f%ct%x1f%s",
        *source.pathspec(),
        stdin="".join(h + "\n" for h in hashes).encode(),
        timeout_s=300.0,
    )
    records: dict[str, CommitRecord] = {}
    for chunk in done.stdout.split(b"\x01"):
        if not chunk:
            continue
        header, _, rest = chunk.partition(b"\0")
        fields = header.decode("utf-8", "replace").split("\x1f")
        if len(fields) < 4:
            continue
        commit, parents, when, subject = fields[0], fields[1].split(), fields[2], "\x1f".join(fields[3:])
        touched: list[FileTouch] = []
        for entry in rest.lstrip(b"\n").split(b"\0"):
            parts = entry.split(b"\t", 2)
            if len(parts) != 3:
                continue
            path = _strip_prefix(source, decode_path(parts[2]))
            if path is None:
                continue
            added = int(parts[0]) if parts[0].isdigit() else -1
            deleted = int(parts[1]) if parts[1].isdigit() else -1
            touched.append(FileTouch(path, added, deleted))
        records[commit] = CommitRecord(
            commit,
            parents[0] if parents else None,
            int(when) if when.isdigit() else 0,
            subject[:MAX_SUBJECT_CHARS],
            tuple(sorted(touched, key=lambda t: t.path)),
        )
    return [records[h] for h in hashes if h in records]


class DefinitionCache:
    """Parsed definitions by blob id: consecutive commits share most file versions."""

    def __init__(self, size: int = PARSE_CACHE) -> None:
        self._size = size
        self._data: OrderedDict[str, list[Definition] | None] = OrderedDict()

    def get(self, blob: str, path: str, data: bytes) -> list[Definition] | None:
        key = f"{blob}\0{language_for_path(path)}"
        if key in self._data:
            self._data.move_to_end(key)
            return self._data[key]
        found = definitions(path, data)
        self._data[key] = found
        if len(self._data) > self._size:
            self._data.popitem(last=False)
        return found


def symbol_touches(
    source: HistorySource, commit: CommitRecord, cache: DefinitionCache
) -> list[SymbolTouch] | None:
    """The definitions ``commit`` changed (``None`` when it touched too many files to look inside)."""
    files = [f for f in commit.files if is_parsed_language(language_for_path(f.path)) and f.added >= 0]
    if len(commit.files) > MAX_FILES_PER_COMMIT_SYMBOLS:
        return None
    if not files:
        return []
    specs: list[str] = []
    for touch in files:
        specs.append(f"{commit.hash}:{source.top(touch.path)}")
        specs.append(f"{commit.parent}:{source.top(touch.path)}" if commit.parent else "")
    objects = read_objects(source.cwd, [s for s in specs if s])
    found = iter(objects)
    out: list[SymbolTouch] = []
    for touch, (new_spec, old_spec) in zip(files, _pairs(specs), strict=True):
        new_blob, new_data = next(found) if new_spec else (None, None)
        old_blob, old_data = next(found) if old_spec else (None, None)
        if (new_blob and new_data is None) or (old_blob and old_data is None):
            continue  # a version past the size bound: no definitions for this file
        new_defs = cache.get(new_blob, touch.path, new_data) if new_blob and new_data is not None else []
        old_defs = cache.get(old_blob, touch.path, old_data) if old_blob and old_data is not None else []
        if new_defs is None or old_defs is None:
            continue
        diff = diff_definitions(old_data, old_defs, new_data, new_defs)
        for change in diff.symbols:
            where = change.old if change.change == DELETED else change.new
            assert where is not None
            out.append(
                SymbolTouch(
                    touch.path,
                    change.qualified_name,
                    change.kind,
                    change.change,
                    where.end_line - where.start_line + 1,
                )
            )
    return out


def _pairs(specs: Sequence[str]) -> Iterable[tuple[str, str]]:
    return zip(specs[0::2], specs[1::2], strict=True)

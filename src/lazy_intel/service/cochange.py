"""Co-changed files for ``impact`` and ``context``: what the history says changes together.

For each file asked about, the files most often changed in the same commits of the history window
(commits touching at most :data:`~lazy_intel.history.signals.MAX_COCHANGE_FILES` files, pairs seen
at least twice), with ``count`` and ``support`` (the share of the file's commits that touched the
other one too). A co-changed file is evidence of coupling the graph may not show (a test and its
subject, a schema and its migration, two sides of a protocol); it is not a dependency.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Item
from lazy_intel.history.signals import co_changed, symbol_churn
from lazy_intel.service.history import History
from lazy_intel.store.reader import ReadView

MAX_COCHANGED = 5


@dataclass(frozen=True)
class CoChanged:
    of: str
    path: str
    count: int
    support: float

    def to_dict(self) -> dict[str, Any]:
        return {"of": self.of, "path": self.path, "count": self.count, "support": round(self.support, 3)}


def co_changed_files(
    history: History | str, view: ReadView, paths: Iterable[str], limit: int = MAX_COCHANGED
) -> list[CoChanged]:
    """Files co-changed with ``paths`` that the index holds (best first per file, ``limit`` in all)."""
    if isinstance(history, str):
        return []
    asked = list(dict.fromkeys(paths))
    out: list[CoChanged] = []
    seen = set(asked)
    for path in asked:
        for pair in co_changed(history.conn, path, limit=limit * 2):
            if pair.path in seen or view.file(pair.path) is None:
                continue
            seen.add(pair.path)
            out.append(CoChanged(path, pair.path, pair.count, pair.support))
    out.sort(key=lambda c: (-c.count, -c.support, c.path))
    return out[:limit]


def co_changed_items(view: ReadView, pairs: Iterable[CoChanged], kind: str = "co_changed") -> list[Item]:
    items = []
    for pair in pairs:
        row = view.file(pair.path)
        if row is None:
            continue
        items.append(
            Item(
                kind=kind,
                text_kind=TEXT_DESCRIPTION,
                text=f"{pair.path} changed together with {pair.of} in {pair.count} commit(s) "
                f"({pair.support:.0%} of {pair.of}'s)",
                anchor=Anchor(pair.path, row.sha256, 0, row.size, 1, max(1, row.line_count), view.generation),
                extra={"co_changed_with": pair.of, "count": pair.count, "support": round(pair.support, 3)},
            )
        )
    return items


def last_changes(history: History | str, definitions: Iterable[tuple[str, str]]) -> list[dict[str, Any]]:
    """For each (path, qualified name): its commits in the history window and its last change."""
    if isinstance(history, str):
        return []
    out = []
    for path, qualified in dict.fromkeys(definitions):
        for churn in symbol_churn(history.conn, path, qualified):
            out.append(
                {
                    "path": path,
                    "symbol": qualified,
                    "commits": churn.commits,
                    "last_commit": churn.last_hash,
                    "last_time": churn.last_time,
                    "last_subject": churn.last_subject,
                }
            )
    return out


def co_change_coverage(history: History | str) -> str:
    if isinstance(history, str):
        return history + "; no co-changed files"
    return (
        history.note
        + "; co-changed: files changed in the same commits (at most 30 files, seen twice or more)"
    )

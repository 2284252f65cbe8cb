"""History signals for the operations: the workspace's history store, refreshed within a budget.

The store lives in ``<state>/history/history.sqlite``; it is derived from git alone (never from the
index), so it survives reindexing and is shared by every process of the workspace. A request brings
it up to HEAD within ``LAZY_INTEL_HISTORY_BUDGET_MS`` (and a third of its own remaining time); the CLI,
which has no deadline, reads the whole window. Every answer that uses history says how much of the
window it covered.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.errors import LazyIntelError
from lazy_intel.history.store import HistoryState, open_history, refresh
from lazy_intel.history.walk import HistorySource
from lazy_intel.service.context import OperationContext
from lazy_intel.vcs.git import NoRepository

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class History:
    conn: sqlite3.Connection
    state: HistoryState

    @property
    def note(self) -> str:
        return self.state.describe()


def history_path(ctx: OperationContext) -> Path:
    return ctx.workspace.state.subdir("history") / "history.sqlite"


def _budget_s(ctx: OperationContext) -> float | None:
    assert ctx.settings is not None
    remaining = ctx.remaining_s()
    if remaining is None:
        return None  # the CLI: no deadline, read the whole window
    return max(0.0, min(ctx.settings.history_budget_ms / 1000, remaining / 3))


@contextmanager
def open_signals(ctx: OperationContext) -> Iterator[History | str]:
    """The history of the workspace, brought up to HEAD within the request's budget, or the reason
    there is none (no git, history off, git failing)."""
    assert ctx.settings is not None
    limit = int(ctx.settings.history_commits)
    if limit <= 0:
        yield "history: off (LAZY_INTEL_HISTORY_COMMITS=0)"
        return
    repo = ctx.workspace.binding_source.repository()
    if isinstance(repo, NoRepository):
        yield f"history: none ({repo.reason})"
        return
    source = HistorySource(repo.root, "HEAD", repo.prefix)
    try:
        path = history_path(ctx)
        refreshed = refresh(path, source, limit, budget_s=_budget_s(ctx))
    except (LazyIntelError, sqlite3.Error, OSError) as exc:
        logger.warning("history of %s not refreshed: %s", ctx.workspace.root, exc)
        yield f"history: unavailable ({exc})"
        return
    with open_history(path) as conn:
        yield History(conn, refreshed)

"""Time a store connection's statements by their text (the sync profiles of the benchmarks).

``traced(module, costs)`` replaces ``module.connect`` for its duration with one that returns a
:class:`TimedConnection`: every ``execute``/``executemany`` is run, its rows fetched at once (what
the writer's reads allow), and its CPU and wall seconds, calls and rows added to ``costs`` under the
statement's text (whitespace folded, cut at 110 characters). Used by ``edit_profile.py
--statements`` and ``scale_warm.py``.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass
class StatementCost:
    cpu_s: float = 0.0
    wall_s: float = 0.0
    calls: int = 0
    rows: int = 0


def statement_costs() -> defaultdict[str, StatementCost]:
    return defaultdict(StatementCost)


class FetchedRows(list):  # type: ignore[type-arg]
    """A statement's rows, fetched: what the sync reads of a cursor."""

    rowcount: int = -1
    lastrowid: int | None = None
    description: Any = None

    def fetchone(self) -> Any:
        return self.pop(0) if self else None

    def fetchall(self) -> list[Any]:
        rows = list(self)
        self.clear()
        return rows


class TimedConnection:
    """A store connection adding up each statement's execute + fetch cost by its text."""

    def __init__(self, conn: Any, costs: defaultdict[str, StatementCost]) -> None:
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_costs", costs)

    def _timed(self, key: str, run: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        cursor = run()
        rows = FetchedRows(cursor.fetchall() if cursor.description else [])
        rows.rowcount, rows.lastrowid, rows.description = (
            cursor.rowcount,
            cursor.lastrowid,
            cursor.description,
        )
        cost = self._costs[re.sub(r"\s+", " ", key)[:110]]
        cost.cpu_s += time.process_time() - cpu
        cost.wall_s += time.perf_counter() - wall
        cost.calls += 1
        cost.rows += len(rows)
        return rows

    def execute(self, sql: str, *args: Any) -> Any:
        return self._timed(sql, lambda: self._conn.execute(sql, *args))

    def executemany(self, sql: str, *args: Any) -> Any:
        return self._timed("(many) " + sql, lambda: self._conn.executemany(sql, *args))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._conn, name, value)


@contextmanager
def traced(module: Any, costs: defaultdict[str, StatementCost]) -> Iterator[None]:
    """While open, ``module.connect`` returns connections timed into ``costs``."""
    real = module.connect
    module.connect = lambda *a, **k: TimedConnection(real(*a, **k), costs)
    try:
        yield
    finally:
        module.connect = real

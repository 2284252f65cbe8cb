"""Run a compiled query on a read connection, bounded in time, and decode its rows."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from lazy_intel.errors import Timeout
from lazy_intel.graph.cypher.compiler import CompiledQuery
from lazy_intel.graph.cypher.expressions import EDGE_FIELDS, NODE_FIELDS
from lazy_intel.graph.cypher.regex import SQL_FUNCTION, regexp

# SQLite virtual-machine instructions between two checks of the deadline.
PROGRESS_STEPS = 1_000


@dataclass(frozen=True)
class QueryRows:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]  # decoded values: dicts for nodes/edges, lists, scalars
    truncated: bool  # more rows matched than the query's row cap
    elapsed_ms: float


def _json(text: Any) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def _node(values: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(NODE_FIELDS, values, strict=True))
    out["labels"] = (out.get("labels") or "").split()
    out["properties"] = _json(out.get("properties"))
    return {k: v for k, v in out.items() if v is not None and v != []}


def _edge(values: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(EDGE_FIELDS, values, strict=True))
    out["properties"] = _json(out.get("properties"))
    return {k: v for k, v in out.items() if v is not None}


def decode_row(compiled: CompiledQuery, raw: tuple[Any, ...]) -> tuple[Any, ...]:
    out: list[Any] = []
    i = 0
    for column in compiled.columns:
        chunk = raw[i : i + column.width]
        i += column.width
        if column.kind == "node":
            out.append(None if chunk[0] is None else _node(chunk))
        elif column.kind == "edge":
            out.append(None if chunk[0] is None else _edge(chunk))
        elif column.kind == "json":
            out.append(_json(chunk[0]))
        elif column.kind == "labels":
            out.append(None if chunk[0] is None else str(chunk[0]).split())
        else:
            out.append(chunk[0])
    return tuple(out)


def run_query(conn: sqlite3.Connection, compiled: CompiledQuery, *, timeout_ms: int) -> QueryRows:
    """Execute ``compiled``; past ``timeout_ms`` SQLite is interrupted and :class:`Timeout` raised."""
    started = time.monotonic()
    deadline = started + timeout_ms / 1000.0

    def over_time() -> int:
        return 1 if time.monotonic() > deadline else 0

    if compiled.uses_regex:
        conn.create_function(SQL_FUNCTION, 2, regexp, deterministic=True)
    conn.set_progress_handler(over_time, PROGRESS_STEPS)
    try:
        cursor = conn.execute(compiled.sql, compiled.params)
        raw_rows = cursor.fetchmany(compiled.row_cap + 1)
        cursor.close()
    except sqlite3.OperationalError as exc:
        if "interrupt" in str(exc).lower():
            raise Timeout(
                f"the query ran longer than {timeout_ms} ms and was stopped",
                next_step="narrow the pattern (labels, names, fewer hops) or raise LAZY_INTEL_QUERY_TIMEOUT_MS",
            ) from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
    truncated = len(raw_rows) > compiled.row_cap
    rows = tuple(decode_row(compiled, r) for r in raw_rows[: compiled.row_cap])
    return QueryRows(
        tuple(c.name for c in compiled.columns), rows, truncated, (time.monotonic() - started) * 1000.0
    )

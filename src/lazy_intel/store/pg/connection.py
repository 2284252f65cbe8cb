"""A psycopg connection that speaks the ``sqlite3`` interface the rest of the code uses.

``execute``/``executemany`` take SQLite SQL, translated once per statement text by
:mod:`.dialect`; cursors answer ``fetchone``/``fetchall``/``fetchmany``/iteration, ``rowcount``
and ``lastrowid``. Transactions are explicit, as with the ``sqlite3`` connections we open
(``isolation_level=None``): ``BEGIN``/``COMMIT``/``ROLLBACK`` statements pass through. A *bulk*
connection (a full build into a staging store, :mod:`.build`) commits its batches without folding
the full-text statistics: its triggers are off and :meth:`PgConnection.fold_bulk` counts them once,
in the transaction that publishes the store.

``PRAGMA`` statements have no PostgreSQL meaning: page counts answer 0 (no vacuum is ever asked
for; autovacuum reclaims space) and settings are accepted and ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.adapt import Loader
from psycopg.pq import TransactionStatus

from lazy_intel.store.pg.dialect import TableInfo, copy_form, translate
from lazy_intel.store.pg.functions import fold_fts_statistics_sql

logger = logging.getLogger(__name__)

DIALECT = "postgresql"


# values a COPY row carries exactly as a parameter would (text format: NULL, numbers, text, bytea); a
# batch holding anything else (a bool, an array) goes through executemany
COPY_TYPES = frozenset({type(None), int, float, str, bytes})


class _NumericLoader(Loader):
    """``numeric`` (PostgreSQL's sum and avg of integers) as SQLite answers: int, or float."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return float(Decimal(text)) if "." in text or "e" in text.lower() else int(text)


def configure(raw: psycopg.Connection) -> None:
    raw.adapters.register_loader("numeric", _NumericLoader)


class PgCursor:
    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._next >= len(self._rows):
            return None
        row = self._rows[self._next]
        self._next += 1
        return row

    def fetchmany(self, size: int = 1) -> list[tuple[Any, ...]]:
        out = self._rows[self._next : self._next + size]
        self._next += len(out)
        return out

    def fetchall(self) -> list[tuple[Any, ...]]:
        out = self._rows[self._next :]
        self._next = len(self._rows)
        return out

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row

    def close(self) -> None:
        self._rows = []


class PgConnection:
    """One store schema on one psycopg connection (``search_path`` = that schema)."""

    dialect = DIALECT

    def __init__(
        self,
        raw: psycopg.Connection,
        schema: str,
        tables: dict[str, TableInfo],
        *,
        bulk: bool = False,
        owned: bool = True,
    ) -> None:
        self.raw = raw
        self.schema = schema
        self.tables = tables
        self.bulk = bulk  # a staging store's build: statistics counted once, by fold_bulk
        self.owned = owned  # close() closes the raw connection
        self._fts_touched = False
        self.statement_timeout_ms: int | None = None

    # ---- sqlite3.Connection interface
    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> PgCursor:
        tr = translate(sql, self.tables)
        if tr.pragma:
            return self._pragma(sql)
        if tr.transaction:
            self._transaction(tr.transaction)
            return PgCursor([], -1, None)
        self._note_fts(tr.sql)
        cur = self.raw.execute(tr.sql, list(params or ()))  # type: ignore[arg-type]
        if tr.returns_row_id:
            row = cur.fetchone()
            return PgCursor([], cur.rowcount, int(row[0]) if row else None)
        rows = cur.fetchall() if cur.description else []
        return PgCursor(rows, cur.rowcount, None)

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> PgCursor:
        tr = translate(sql, self.tables)
        text = tr.sql
        if tr.returns_row_id:
            text = text.rsplit(" RETURNING ", 1)[0]
        rows = [list(r) for r in seq]
        if not rows:
            return PgCursor([], 0, None)
        self._note_fts(text)
        copy = copy_form(text)
        with self.raw.cursor() as cur:
            if copy is not None and all(type(v) in COPY_TYPES for row in rows for v in row):
                with cur.copy(copy) as stream:  # the same rows, ~3x faster into chunks_fts
                    for row in rows:
                        stream.write_row(row)
                return PgCursor([], len(rows), None)
            cur.executemany(text, rows)  # type: ignore[arg-type]
            return PgCursor([], cur.rowcount, None)

    def executescript(self, script: str) -> None:
        from lazy_intel.store.pg.dialect import split_statements

        for statement in split_statements(script):
            self.execute(statement)

    def close(self) -> None:
        if not self.owned:
            return
        try:
            if self.in_transaction and not self.raw.closed:
                self.raw.rollback()
        except psycopg.Error:
            pass
        self.raw.close()

    def create_function(self, *args: Any, **kwargs: Any) -> None:
        """Functions live in the database (``lazy_intel`` schema); nothing to register per connection."""

    def set_progress_handler(self, handler: Any, steps: int) -> None:
        """SQLite's deadline hook; on PostgreSQL the deadline is ``statement_timeout``
        (:meth:`set_deadline_ms`)."""

    def set_deadline_ms(self, ms: int | None) -> None:
        """Statements of the open transaction stop after ``ms`` (``QueryCanceled``)."""
        value = max(1, int(ms)) if ms is not None else 0
        self.raw.execute(
            f"SET LOCAL statement_timeout = {value}"
            if self.in_transaction
            else f"SET statement_timeout = {value}"
        )

    # ---- internals
    def _note_fts(self, sql: str) -> None:
        head = sql.lstrip()[:40].upper()
        if ("INSERT" in head or "DELETE" in head) and "chunks_fts" in sql[:80]:
            self._fts_touched = True

    def fold_bulk(self) -> None:
        """Count the full-text statistics of the whole store (a bulk build's, in its open
        transaction: the row triggers were off while its batches were written)."""
        for statement in fold_fts_statistics_sql(bulk=True):
            self.raw.execute(statement)
        self._fts_touched = False

    def _fold_fts(self) -> None:
        if not self._fts_touched or self.bulk:
            return
        for statement in fold_fts_statistics_sql(bulk=False):
            self.raw.execute(statement)
        self._fts_touched = False

    def _transaction(self, kind: str) -> None:
        if kind == "BEGIN":
            self.raw.execute("BEGIN")
            self._fts_touched = False
        elif kind == "ROLLBACK":
            self.raw.execute("ROLLBACK")
            self._fts_touched = False
        else:
            self._fold_fts()
            self.raw.execute("COMMIT")

    def _pragma(self, sql: str) -> PgCursor:
        name = (
            sql.split(None, 1)[1]
            .split("(", maxsplit=1)[0]
            .split("=", maxsplit=1)[0]
            .strip()
            .lower()
            .rstrip(";")
        )
        if name in ("page_count", "freelist_count"):
            return PgCursor([(0,)], -1, None)
        return PgCursor([], -1, None)

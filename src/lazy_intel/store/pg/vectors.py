"""Dense vectors on PostgreSQL through pgvector, where the server has it (else NumPy, as on SQLite).

The ``vectors`` table is the SQLite schema's (``embed_sha``, ``profile``, float32 ``data``): the
canonical copy, carried over between stores and dumped alike on both backends. Where the server has
the ``vector`` extension (``pg_available_extensions``; :func:`enable_pgvector` runs ``CREATE
EXTENSION IF NOT EXISTS vector`` once per database), the store's table gets one PostgreSQL-only
column more, ``embedding vector(dim)``, holding the same float32 values, and a dense query is one
exact scan in the server (:func:`nearest_candidates`; no approximate index, no matrix in the
reader's memory) whose candidate rows the reader scores as NumPy does (``search/vector_search.py``).
The column is not part of the store schema (no ``SCHEMA_VERSION`` change): meta
:data:`META_COLUMN` names it once every row has its value; :func:`ensure_embedding_column` adds and
fills it in a store that lacks it, and a store without it (a server without pgvector, a store
written before) is searched in NumPy from ``data``.

The scan orders by pgvector's negated inner product ``<#>``, not the cosine distance ``<=>``: our
vectors are unit length, so both rank alike, but NumPy's score is the dot product, and ``<=>`` is
NaN for a zero vector (a text with no known token) where the dot product is 0.

The extension's schema is wherever ``CREATE EXTENSION`` put it (``lazy_intel`` when we create it, a
DBA's ``public`` otherwise): every use names it (``"schema".vector``, ``OPERATOR("schema".<#>)``),
because a store connection's ``search_path`` is the store schema alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lazy_intel.store.pg.dialect import FUNCTIONS_SCHEMA

logger = logging.getLogger(__name__)

EXTENSION = "vector"
COLUMN = "embedding"
META_COLUMN = "pgvector_column"  # "<type schema>|<dim>" once every vector row has its column value
BACKFILL_BATCH = 500
# A row holds ``data`` and ``embedding``, about 2 KB each at 256 dimensions: past PostgreSQL's 2 KB
# TOAST threshold, so one of them goes out of line. The scan reads ``embedding`` of every row and
# ``data`` of the candidates only, so ``embedding`` stays in the row (MAIN: out of line only as a
# last resort) and ``data`` (EXTENDED) is the one moved; the other way round every distance was a
# TOAST fetch (a scan of 36,749 vectors: 672 ms p50 at load 12-15).
KEEP_INLINE_SQL = f"ALTER TABLE vectors ALTER COLUMN {COLUMN} SET STORAGE MAIN"  # rows converted per statement when a store's column is filled from ``data``

PGVECTOR = "pgvector"  # how a store's dense queries run: an exact scan in the server
NUMPY = "numpy"  # ... or one matrix product in the reader (no column: no extension, older store)


def enable_pgvector(raw: Any) -> str | None:
    """Create the extension if the server has it (inside the caller's transaction, under a
    savepoint: a role that may not create it leaves the transaction usable); its schema or ``None``."""
    import psycopg

    schema = extension_schema(raw)
    if schema is not None:
        return schema
    available = raw.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s", [EXTENSION]).fetchone()
    if available is None:
        logger.info("the server has no pgvector: dense search runs in NumPy")
        return None
    try:
        with raw.transaction():
            raw.execute(f'CREATE EXTENSION IF NOT EXISTS {EXTENSION} SCHEMA "{FUNCTIONS_SCHEMA}"')
    except psycopg.Error as exc:
        logger.warning(
            "pgvector is installed but cannot be created here (%s): dense search runs in NumPy", exc
        )
        return None
    return extension_schema(raw)


def extension_schema(raw: Any) -> str | None:
    row = raw.execute(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = %s",
        [EXTENSION],
    ).fetchone()
    return str(row[0]) if row else None


@dataclass(frozen=True)
class EmbeddingColumn:
    """The store's ``embedding`` column: the extension's schema and the declared dimension."""

    type_schema: str
    dim: int

    @classmethod
    def parse(cls, marked: str) -> EmbeddingColumn:
        """From meta :data:`META_COLUMN`'s value, ``<type schema>|<dim>``."""
        type_schema, _, dim = marked.partition("|")
        return cls(type_schema, int(dim or -1))

    @property
    def marker(self) -> str:
        return f"{self.type_schema}|{self.dim}"

    @property
    def vector_type(self) -> str:
        return f'"{self.type_schema}".vector'

    @property
    def inner_product(self) -> str:
        return f'OPERATOR("{self.type_schema}".<#>)'


def embedding_column(raw: Any, schema: str) -> EmbeddingColumn | None:
    """The ``embedding`` column of ``schema``'s vectors table, or ``None`` when it has none."""
    row = raw.execute(
        "SELECT tn.nspname, a.atttypmod FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "JOIN pg_namespace cn ON cn.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid "
        "JOIN pg_namespace tn ON tn.oid = t.typnamespace "
        "WHERE cn.nspname = %s AND c.relname = 'vectors' AND a.attname = %s AND NOT a.attisdropped",
        [schema, COLUMN],
    ).fetchone()
    return EmbeddingColumn(str(row[0]), int(row[1])) if row else None


def search_column(raw: Any) -> EmbeddingColumn | None:
    """The column a query of the store on ``raw``'s ``search_path`` may search: named by meta
    :data:`META_COLUMN` once every vector row has its value (one primary-key read per query)."""
    row = raw.execute("SELECT value FROM meta WHERE key = %s", [META_COLUMN]).fetchone()
    return EmbeddingColumn.parse(str(row[0])) if row else None


def vector_literal(values: Sequence[float]) -> str:
    """pgvector's text form of float32 ``values``: each the shortest decimal of its double, which
    ``strtof`` reads back as the same float32 (the double *is* that float32)."""
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def ensure_embedding_column(conn: Any, dim: int) -> EmbeddingColumn | None:
    """The store's column for ``dim``-dimensional vectors where the server has pgvector (``None``
    where it has not): added, or retyped when the profile's dimension changed, then filled from
    ``data`` for the rows without a value, after which meta :data:`META_COLUMN` names it for the
    readers. Runs in its own transactions on the writer's connection; a writer killed while filling
    leaves the meta row absent (readers search in NumPy) and the next one goes on filling."""
    raw = conn.raw
    marked = search_column(raw)
    if marked is not None and marked.dim == dim:
        return marked  # the common case: one primary-key read per sync
    type_schema = extension_schema(raw)
    if type_schema is None:
        return None
    column = embedding_column(raw, conn.schema)
    with raw.transaction():
        raw.execute("DELETE FROM meta WHERE key = %s", [META_COLUMN])
        if column is None:
            raw.execute(f'ALTER TABLE vectors ADD COLUMN {COLUMN} "{type_schema}".vector({dim})')
        elif column.dim != dim:  # a new profile of another dimension: the old profile's rows go with it
            raw.execute(
                f'UPDATE vectors SET {COLUMN} = NULL WHERE "{type_schema}".vector_dims({COLUMN}) != %s', [dim]
            )
            raw.execute(f'ALTER TABLE vectors ALTER COLUMN {COLUMN} TYPE "{type_schema}".vector({dim})')
        raw.execute(KEEP_INLINE_SQL)
    column = EmbeddingColumn(type_schema, dim)
    filled = fill_embedding_column(raw, column)
    with raw.transaction():
        raw.execute(
            "INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [META_COLUMN, column.marker],
        )
    logger.info("pgvector column of %s ready (%d values filled from data)", conn.schema, filled)
    return column


def fill_embedding_column(raw: Any, column: EmbeddingColumn) -> int:
    """Give every row whose ``data`` has the column's dimension its pgvector value; rows filled."""
    import numpy as np

    filled = 0
    while True:
        with raw.transaction():
            rows = raw.execute(
                f"SELECT embed_sha, profile, data FROM vectors WHERE {COLUMN} IS NULL AND length(data) = %s LIMIT %s",
                [4 * column.dim, BACKFILL_BATCH],
            ).fetchall()
            if not rows:
                return filled
            with raw.cursor() as cur:
                cur.executemany(
                    f"UPDATE vectors SET {COLUMN} = %s::{column.vector_type} WHERE embed_sha = %s AND profile = %s",
                    [
                        (vector_literal(np.frombuffer(bytes(data), dtype=np.float32).tolist()), sha, profile)
                        for sha, profile, data in rows
                    ],
                )
        filled += len(rows)


def carry_embedding_column(conn: Any, previous: str) -> str:
    """Give the staging store on ``conn`` the filled pgvector column of store ``previous`` (in the
    caller's transaction): the extra columns its vector copy selects (``""`` when ``previous`` has
    none, and the next vector refresh fills the column from ``data``)."""
    raw = conn.raw
    row = raw.execute(f'SELECT value FROM "{previous}".meta WHERE key = %s', [META_COLUMN]).fetchone()
    if row is None:
        return ""
    type_schema, _, dim = str(row[0]).partition("|")
    if embedding_column(raw, conn.schema) is None:
        raw.execute(f'ALTER TABLE vectors ADD COLUMN {COLUMN} "{type_schema}".vector({int(dim)})')
        raw.execute(KEEP_INLINE_SQL)
    raw.execute(
        "INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        [META_COLUMN, str(row[0])],
    )
    return f", {COLUMN}"


def upsert_vectors_sql(column: EmbeddingColumn) -> str:
    """One vector row, its float32 bytes and its pgvector form (parameters: sha, profile, data, text)."""
    return (
        f"INSERT INTO vectors(embed_sha, profile, data, {COLUMN}) VALUES (%s, %s, %s, %s::{column.vector_type}) "
        f"ON CONFLICT (embed_sha, profile) DO UPDATE SET data = EXCLUDED.data, {COLUMN} = EXCLUDED.{COLUMN}"
    )


@dataclass(frozen=True)
class ServerCandidates:
    """The rows nearest a query by pgvector's inner product, nearest first (ties by chunk id): chunk
    ids, float32 ``data``, pgvector's distances (``<#>``: the negated dot product), how many chunks
    have a vector of the profile, and whether every such chunk is among them."""

    chunk_ids: list[int]
    blobs: list[bytes]
    distances: list[float]
    searched: int
    exhausted: bool


def nearest_candidates(
    raw: Any,
    column: EmbeddingColumn,
    profile: str,
    query: Sequence[float],
    *,
    limit: int | None = None,
    within: float | None = None,
) -> ServerCandidates:
    """One exact scan in the server over the store on ``raw``'s ``search_path``: the ``limit``
    nearest rows, or every row at distance ``<= within``."""
    where = (
        f"WHERE v.{COLUMN} {column.inner_product} %s::{column.vector_type} <= %s"
        if within is not None
        else ""
    )
    literal = vector_literal(query)
    args: list[Any] = [literal, profile]
    if within is not None:
        args += [literal, within]
    # the scan carries ids and distances only; ``data`` is read for the rows it keeps
    scan = (
        f"SELECT c.id, c.embed_sha, v.{COLUMN} {column.inner_product} %s::{column.vector_type} AS d, "
        "count(*) OVER () AS n FROM chunks c JOIN vectors v ON v.embed_sha = c.embed_sha AND v.profile = %s "
        f"{where} ORDER BY d, c.id"
    )
    if limit is not None:
        scan += " LIMIT %s"
        args.append(max(1, limit))
    sql = (
        f"SELECT t.id, v.data, t.d, t.n FROM ({scan}) t JOIN vectors v "
        "ON v.embed_sha = t.embed_sha AND v.profile = %s ORDER BY t.d, t.id"
    )
    rows = raw.execute(sql, [*args, profile], binary=True).fetchall()
    total = int(rows[0][3]) if rows else 0
    if within is not None:  # the count is of the rows within the distance: count them all
        total = int(
            raw.execute(
                "SELECT count(*) FROM chunks c JOIN vectors v ON v.embed_sha = c.embed_sha AND v.profile = %s",
                [profile],
            ).fetchone()[0]
        )
    return ServerCandidates(
        [int(r[0]) for r in rows],
        [bytes(r[1]) for r in rows],
        [float(r[2]) for r in rows],
        total,
        exhausted=within is not None or limit is None or len(rows) < limit,
    )


def search_method(dialect: str, marked: str | None) -> str:
    """How a store's dense queries run, given its dialect and meta :data:`META_COLUMN`."""
    return PGVECTOR if dialect == "postgresql" and marked is not None else NUMPY

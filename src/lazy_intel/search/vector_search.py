"""A dense query's nearest chunks: NumPy over the store's vector matrix, or pgvector in PostgreSQL.

Both are exact and give the same chunks in the same order with the same scores, bit for bit
(``tests/store/test_pg_vectors.py``). On a PostgreSQL store whose ``vectors`` table has the
pgvector column (meta ``pgvector_column``, ``store/pg/vectors.py``) the server scans it and hands
back only candidate rows, which are scored here exactly as :func:`~lazy_intel.search.vectors.nearest`
scores the whole matrix; elsewhere the matrix is loaded (once per generation) and searched in NumPy.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from lazy_intel.lazy_import import lazy_module
from lazy_intel.search.vectors import load_vector_index, nearest
from lazy_intel.store.reader import ReadView

np = lazy_module("numpy")
pg_vectors = lazy_module("lazy_intel.store.pg.vectors")  # a SQLite store's reads never load it

IN_SERVER = "exact cosine, pgvector in PostgreSQL"
IN_NUMPY = "exact cosine"


# Where a PostgreSQL store's dense query runs. The server's exact scan costs ~380 ms a query on
# 37k vectors, NumPy over a matrix the reader holds ~2 ms, loading that matrix ~830 ms
# (bench/pg_dense.py, docs/design/scale.md "Vectors"); the answers are equal bit for bit. So the
# first dense query of a generation in a process runs in the server (a one-shot CLI call never
# loads the matrix), and from the second on the reader loads the matrix and answers in NumPy, but
# only while the matrix fits this many bytes: a large team store is always searched in the server,
# so its readers hold no copy of the vectors per generation.
PG_MATRIX_LOAD_MAX_BYTES = 64 * 1024 * 1024
_SERVER_ANSWERED_MAX = 16  # (store, generation, profile) keys remembered; the oldest forgotten
_server_answered: dict[tuple[str, int, str], int] = {}


def dense_nearest(view: ReadView, profile: str, query: np.ndarray, k: int) -> DenseHits | None:
    """The ``k`` chunks nearest ``query`` among the vectors of ``profile`` (``None``: no vectors)."""
    if getattr(view, "dialect", "sqlite") == "postgresql":
        marked = view.meta(pg_vectors.META_COLUMN)  # set once every vector row has its column value
        if marked is not None:
            column = pg_vectors.EmbeddingColumn.parse(marked)
            key = (str(view.store_path), int(view.generation), profile)
            searched = _server_answered.get(key)
            if searched is None or not loads_matrix(searched, column.dim):
                hits = nearest_in_server(view.conn, column, profile, query, k)
                _remember(key, hits.searched)
                return hits if hits.searched else None
    index = load_vector_index(view.conn, str(view.store_path), view.generation, profile)
    if index is None:
        return None
    rows, scores = nearest(index.matrix, query, k)
    ids = [int(index.chunk_ids[r]) for r in rows]
    return DenseHits(ids, [float(s) for s in scores.tolist()], len(index.chunk_ids), IN_NUMPY)


def loads_matrix(vectors: int, dim: int) -> bool:
    """Whether a reader that has had one server answer of this generation loads its matrix."""
    return 0 < vectors * max(dim, 1) * 4 <= PG_MATRIX_LOAD_MAX_BYTES


def _remember(key: tuple[str, int, str], searched: int) -> None:
    if key not in _server_answered and len(_server_answered) >= _SERVER_ANSWERED_MAX:
        _server_answered.pop(next(iter(_server_answered)))
    _server_answered[key] = searched


# pgvector's candidates for an exact top k: the k nearest by its inner product and this many more
# (at least), since its float32 sum differs from ``row_scores``'s in the last bits; a quarter of k
# kept the second, distance-bounded scan rare (checked on the fixtures: near-ties only)
SERVER_MARGIN_MIN = 64
SERVER_MARGIN_SHARE = 4
# A bound on |pgvector's inner product - row_scores| for unit vectors: each float32 sum of n
# products errs by at most n * 2^-24 (the classic bound); twice that for the two sums, twice again
# for vectors normalised in float32, and a floor.
SCORE_SLACK_PER_DIM = 4 * 2.0**-24
SCORE_SLACK_FLOOR = 1e-6


@dataclass(frozen=True)
class DenseHits:
    """The nearest chunks of a dense query: ids and scores, best first, and the chunks searched."""

    chunk_ids: list[int]
    scores: list[float]
    searched: int
    method: str = IN_SERVER


def nearest_in_server(
    conn: sqlite3.Connection, column: pg_vectors.EmbeddingColumn, profile: str, query: np.ndarray, k: int
) -> DenseHits:
    """The ``k`` nearest chunks by pgvector, equal to :func:`nearest` over all of the store's
    vectors item for item and bit for bit: pgvector's exact scan picks the candidates, which are
    scored here as :func:`nearest` scores them and ranked the same way (score, then chunk id).

    Every chunk of the true top k is a candidate: an unfetched row is at pgvector distance (the
    negated dot product) at least the last candidate's, so its score is at most ``-distance +
    slack``; when the k-th score is not above that, every row within ``slack`` of the k-th score is
    fetched instead (near-ties at the boundary)."""
    raw = conn.raw  # type: ignore[attr-defined]
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    values = q.tolist()
    slack = SCORE_SLACK_PER_DIM * q.size + SCORE_SLACK_FLOOR
    margin = max(SERVER_MARGIN_MIN, k // SERVER_MARGIN_SHARE)
    found = pg_vectors.nearest_candidates(raw, column, profile, values, limit=k + margin)
    hits = _ranked(found, q, k)
    if not found.exhausted and len(hits.scores) == k and hits.scores[-1] <= -found.distances[-1] + slack:
        found = pg_vectors.nearest_candidates(raw, column, profile, values, within=-hits.scores[-1] + slack)
        hits = _ranked(found, q, k)
    return hits


def _ranked(found: pg_vectors.ServerCandidates, query: np.ndarray, k: int) -> DenseHits:
    """The candidates' top ``k`` as :func:`nearest` ranks the whole matrix (rows in chunk-id order)."""
    ids = np.asarray(found.chunk_ids, dtype=np.int64)
    if ids.size == 0:
        return DenseHits([], [], found.searched)
    by_id = np.argsort(ids, kind="stable")
    data = b"".join(found.blobs[i] for i in by_id.tolist())
    matrix = np.frombuffer(data, dtype=np.float32).reshape(ids.size, -1)
    rows, scores = nearest(matrix, query, k)
    return DenseHits([int(ids[by_id[r]]) for r in rows], [float(s) for s in scores.tolist()], found.searched)

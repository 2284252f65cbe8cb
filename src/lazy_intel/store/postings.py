"""Ranked full-text queries answered from per-phrase scores held in memory (FTS5's ranking exactly).

FTS5's ``bm25()`` costs per matched row x phrase on every search: on a long report (48 terms,
repeated up to 6 times by weight, most of a large repository's chunks matching) it was most of a
warm search. A published generation never changes, so each phrase's ``bm25()`` summand in every row
holding it (:mod:`.bm25`) is read once per (store, generation, column weights), lazily, with a
one-phrase FTS5 query, and kept in one process-wide cache bounded in bytes
(``LAZY_INTEL_POSTINGS_MB``, least recently used out first). A search then adds up arrays, ranks,
and looks up the file of its best rows (the joins of the SQL) by id. (It read a map of every chunk
to its file once per generation: at 100k files ~10^6 rows, 1-2 s on the first search after each
edit, issue 15.) A matched row whose chunk or file is missing — never in a store that passes its
checks — is dropped as the SQL's joins drop it: then the whole map is read and the query ranked
again, so the answer stays exactly the SQL's.

A query is answered here only when that gives exactly what its SQL returns: no request filter
(language, path, kind: those run in SQL), every column weight positive (a weight of 0 turns into a
column filter), and what it needs within the bound. Otherwise :func:`memory_lexical` returns
``None`` and the query's FTS5 SQL runs.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lazy_intel.store.bm25 import (
    PhraseScores,
    phrase_scores_sql,
    quoted_phrase,
    ranked,
    summed_scores,
)

if TYPE_CHECKING:
    from lazy_intel.search.lexical import LexicalQuery

GENERATIONS_KEPT = 4  # stores (their newest generation) whose phrase scores are kept
FILE_LOOKUP_BATCH = 500  # chunk ids per lookup of their files


def read_chunk_files(conn: sqlite3.Connection) -> np.ndarray:
    """File id of each chunk id (the SQL joins chunks and files), ``-1`` where there is none."""
    top = conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
    size = int(top or 0) + 1
    out = np.full(size, -1, dtype=np.int64)
    rows = conn.execute("SELECT c.id, c.file_id FROM chunks c JOIN files f ON f.id = c.file_id").fetchall()
    if rows:
        pairs = np.array(rows, dtype=np.int64)
        out[pairs[:, 0]] = pairs[:, 1]
    return out


def read_files_of(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int]:
    """File id of each of the chunk ids ``ids`` that has a chunk and a file (the SQL's joins)."""
    out: dict[int, int] = {}
    for start in range(0, len(ids), FILE_LOOKUP_BATCH):
        batch = [int(i) for i in ids[start : start + FILE_LOOKUP_BATCH]]
        marks = ",".join("?" * len(batch))
        out.update(
            conn.execute(
                f"SELECT c.id, c.file_id FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
                batch,
            ).fetchall()
        )
    return out


def read_phrase_scores(conn: sqlite3.Connection, part: str, weights: Sequence[float]) -> PhraseScores:
    """The ``-bm25()`` summand of phrase ``part`` in every row holding it (one FTS5 query)."""
    rows = conn.execute(phrase_scores_sql(weights), (quoted_phrase(part),)).fetchall()
    docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    return PhraseScores(docs, scores)


class PostingsCache:
    """Phrase scores and chunk -> file maps of the last few (store, generation)s, bounded in bytes."""

    def __init__(self, generations: int = GENERATIONS_KEPT) -> None:
        self._lock = threading.Lock()
        self._keys: OrderedDict[tuple[str, int], None] = OrderedDict()  # (store, generation)s held
        self._phrases: OrderedDict[tuple[str, int, tuple[float, ...], str], PhraseScores] = OrderedDict()
        self._bytes = 0
        self._generations = generations

    @property
    def nbytes(self) -> int:
        """Bytes of arrays held now."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._phrases)

    def clear(self) -> None:
        with self._lock:
            self._keys.clear()
            self._phrases.clear()
            self._bytes = 0

    def _shrink(self, max_bytes: int) -> None:
        while self._bytes > max_bytes and self._phrases:
            _, dropped = self._phrases.popitem(last=False)
            self._bytes -= dropped.nbytes

    def use(self, key: tuple[str, int]) -> None:
        """Note that ``key`` (store, generation) is read: a store's older generations are not read
        again once a newer one is (a view still open on one reads its phrases afresh), nor are the
        stores beyond the last :data:`GENERATIONS_KEPT`; their phrases go."""
        with self._lock:
            if key in self._keys:
                self._keys.move_to_end(key)
                return
            self._keys[key] = None
            older = [k for k in self._keys if k[0] == key[0] and k[1] < key[1]]
            while len(self._keys) - len(older) > self._generations:
                older.append(next(k for k in self._keys if k not in older))
            for gone in older:
                self._drop_generation(gone)

    def _drop_generation(self, key: tuple[str, int]) -> None:
        self._keys.pop(key, None)
        for k in [k for k in self._phrases if k[:2] == key]:
            self._bytes -= self._phrases.pop(k).nbytes

    def phrase_scores(
        self,
        conn: sqlite3.Connection,
        key: tuple[str, int],
        weights: tuple[float, ...],
        parts: Sequence[str],
        max_bytes: int,
    ) -> dict[str, PhraseScores] | None:
        """Scores of every phrase of ``parts``, the missing ones read; ``None`` if they do not fit."""
        out: dict[str, PhraseScores] = {}
        missing: list[str] = []
        with self._lock:
            for part in dict.fromkeys(parts):
                found = self._phrases.get((*key, weights, part))
                if found is None:
                    missing.append(part)
                else:
                    self._phrases.move_to_end((*key, weights, part))
                    out[part] = found
        for part in missing:
            out[part] = read_phrase_scores(conn, part, weights)
        need = sum(p.nbytes for p in out.values())
        with self._lock:
            if need > max_bytes:
                return None  # this query's phrases alone exceed the bound: FTS5 answers it
            for part, scores in out.items():
                cache_key = (*key, weights, part)
                if cache_key not in self._phrases:
                    self._phrases[cache_key] = scores
                    self._bytes += scores.nbytes
                else:
                    self._phrases.move_to_end(cache_key)  # what this query uses stays
            self._shrink(max_bytes)
        return out


CACHE = PostingsCache()


def servable(query: LexicalQuery) -> bool:
    """Whether :func:`memory_lexical` answers ``query`` exactly as its SQL (module docstring)."""
    return (
        bool(query.parts)
        and len(query.parts) == len(query.phrases)
        and not query.filters
        and bool(query.weights)
        and all(w > 0 for w in query.weights)
    )


def memory_lexical(
    conn: sqlite3.Connection,
    key: tuple[str, int],
    query: LexicalQuery,
    max_bytes: int,
    cache: PostingsCache = CACHE,
) -> list[tuple[int, int, float]] | None:
    """``(chunk_id, file_id, score)`` best first, what ``query.sql`` returns; ``None`` when the query
    is not answered from memory (not :func:`servable`, or over the bound)."""
    if max_bytes <= 0 or not servable(query):
        return None
    cache.use(key)
    found = cache.phrase_scores(conn, key, tuple(query.weights), query.parts, max_bytes)
    if found is None:
        return None
    phrases = [found[p] for p in query.parts]
    size = max((int(p.docs[-1]) for p in phrases if len(p.docs)), default=-1) + 1
    score, matched = summed_scores(phrases, size)
    eligible = np.ones(size, dtype=bool)
    if query.within is not None:
        eligible[:] = False
        ids = np.fromiter((i for i in query.within if 0 <= i < size), dtype=np.int64)
        eligible[ids] = True
    ids, values = ranked(score, matched, eligible, query.limit)
    files = read_files_of(conn, ids.tolist())
    if len(files) < len(ids):  # rows the SQL's joins drop: exclude every such row, rank again
        every = read_chunk_files(conn)
        eligible[: len(every)] &= every[:size] >= 0
        eligible[len(every) :] = False
        ids, values = ranked(score, matched, eligible, query.limit)
        files = read_files_of(conn, ids.tolist())
    return [(i, files[i], v) for i, v in zip(ids.tolist(), values.tolist(), strict=True)]

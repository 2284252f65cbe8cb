"""Ranked full-text queries answered from per-phrase scores held in memory (the SQL's ranking exactly).

FTS5's ``bm25()`` costs per matched row x phrase on every search: on a long report (48 terms,
repeated up to 6 times by weight, most of a large repository's chunks matching) it was most of a
warm search. Each phrase's ``bm25()`` summand in every row holding it (:mod:`.bm25`) is read once,
lazily, with a one-phrase FTS5 query, and kept per (store, column weights, phrase) in one
process-wide cache bounded in bytes (``LAZY_INTEL_POSTINGS_MB``, least recently used out first). A
publication moves every summand (``idf`` and ``avgdl`` are the whole table's), so a phrase used at a
later generation is carried over (:mod:`.phrase_carry`: the rows the publications in between
changed, from meta's chunk change log, re-read; every other row's summand recomputed from its kept
weighted count and length) instead of read again — at 100k files that re-read was most of a search
right after an edit (issue 15). A search then adds up arrays, ranks, and looks up the file of its
best rows (the joins of the SQL) by id. A matched row whose chunk or file is missing — never in a
store that passes its checks — is dropped as the SQL's joins drop it: then the whole map of chunks
to files is read and the query ranked again, so the answer stays exactly the SQL's.

Both store backends are served the same way: a :class:`~.phrase_source.PhraseSource` reads a
phrase's summands and the table's statistics from SQLite's FTS5 table or from PostgreSQL's
``tsvector`` columns (``store/pg/phrases.py``: its BM25 SQL stopped before the sum), so on PostgreSQL
too a warm search adds arrays instead of scoring every matching chunk in SQL (18.6x SQLite's median
at 15k files before, docs/design/scale.md).

A query is answered here only when that gives exactly what its SQL returns: no request filter
(language, path, kind: those run in SQL), every column weight positive (a weight of 0 turns into a
column filter), and what it needs within the bound. Otherwise :func:`memory_lexical` returns
``None`` and the query's FTS5 SQL runs.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lazy_intel.store.bm25 import PhraseScores, TableTotals, ranked, summed_scores, weight_grid
from lazy_intel.store.chunk_changes import changes_between, id_ranges, range_pairs
from lazy_intel.store.phrase_carry import PhraseEntry, carried
from lazy_intel.store.phrase_source import Fts5Phrases, PhraseSource

if TYPE_CHECKING:
    from lazy_intel.search.lexical import LexicalQuery

log = logging.getLogger(__name__)

GENERATIONS_KEPT = 4  # stores whose phrase scores are kept
TOTALS_KEPT = 16  # (store, generation)s whose table statistics are kept
ABSENT = -1  # the length held for a rowid with no row
FILE_LOOKUP_BATCH = 500  # chunk ids per lookup of their files


def read_chunk_files(conn: Any) -> np.ndarray:
    """File id of each chunk id (the SQL joins chunks and files), ``-1`` where there is none."""
    top = conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
    size = int(top or 0) + 1
    out = np.full(size, -1, dtype=np.int64)
    rows = conn.execute("SELECT c.id, c.file_id FROM chunks c JOIN files f ON f.id = c.file_id").fetchall()
    if rows:
        pairs = np.array(rows, dtype=np.int64)
        out[pairs[:, 0]] = pairs[:, 1]
    return out


def read_files_of(conn: Any, ids: Sequence[int]) -> dict[int, int]:
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


class PostingsCache:
    """Phrase scores of the last few stores, carried from generation to generation, bounded in bytes.

    An entry per (store, column weights, phrase) holds the phrase's summands at the generation it
    was last used in; used at a later generation it is carried over (:mod:`.phrase_carry`, with the
    store's row lengths, kept here too, and the chunk change log of meta), or read afresh where that
    cannot be done exactly. A view of an older generation than an entry's reads its own, unkept.
    """

    def __init__(self, generations: int = GENERATIONS_KEPT) -> None:
        self._lock = threading.Lock()
        self._stores: OrderedDict[str, None] = OrderedDict()  # stores whose phrases are held
        self._phrases: OrderedDict[tuple[str, tuple[float, ...], str], PhraseEntry] = OrderedDict()
        self._lengths: dict[str, tuple[int, np.ndarray]] = {}  # store -> (generation, length by rowid)
        self._totals: OrderedDict[tuple[str, int], TableTotals] = OrderedDict()
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
            self._stores.clear()
            self._phrases.clear()
            self._lengths.clear()
            self._totals.clear()
            self._bytes = 0

    def _shrink(self, max_bytes: int) -> None:
        while self._bytes > max_bytes and self._phrases:
            _, dropped = self._phrases.popitem(last=False)
            self._bytes -= dropped.nbytes
        if self._bytes > max_bytes:  # the row lengths alone: dropped too
            for store in list(self._lengths):
                self._bytes -= int(self._lengths.pop(store)[1].nbytes)

    def use(self, key: tuple[str, int]) -> None:
        """Note that ``key`` (store, generation) is read: the phrases of the stores beyond the last
        :data:`GENERATIONS_KEPT` read go."""
        with self._lock:
            store = key[0]
            if store in self._stores:
                self._stores.move_to_end(store)
                return
            self._stores[store] = None
            while len(self._stores) > self._generations:
                self._drop_store(next(iter(self._stores)))

    def _drop_store(self, store: str) -> None:
        self._stores.pop(store, None)
        for k in [k for k in self._phrases if k[0] == store]:
            self._bytes -= self._phrases.pop(k).nbytes
        held = self._lengths.pop(store, None)
        if held is not None:
            self._bytes -= int(held[1].nbytes)

    def _store_totals(self, source: PhraseSource, key: tuple[str, int]) -> TableTotals:
        with self._lock:
            found = self._totals.get(key)
        if found is None:
            found = source.totals()
            with self._lock:
                self._totals[key] = found
                while len(self._totals) > TOTALS_KEPT:
                    self._totals.popitem(last=False)
        return found

    def _row_lengths(
        self, source: PhraseSource, key: tuple[str, int], columns: int, max_bytes: int
    ) -> np.ndarray | None:
        """Each rowid's length at generation ``key[1]`` (:data:`ABSENT` where there is no row): read
        once per store, then updated from the chunk change log; ``None`` when that generation is older
        than the held one, over the bound, or when the rows held do not add up to the table's row
        count (a change log that misses rows)."""
        store, generation = key
        with self._lock:
            held = self._lengths.get(store)
        if held is not None and held[0] == generation:
            return held[1]
        if held is not None and held[0] > generation:
            return None
        changes = changes_between(source.change_log(), held[0], generation) if held is not None else None
        if held is not None and changes is not None:
            top = max(len(held[1]), int(changes.added[-1]) + 1 if len(changes.added) else 0)
            lengths = np.full(top, ABSENT, dtype=np.int32)
            lengths[: len(held[1])] = held[1]
            lengths[changes.removed[changes.removed < top]] = ABSENT
            ids, values = source.lengths(columns, range_pairs(id_ranges(changes.added.tolist())))
        else:
            ids, values = source.lengths(columns)
            lengths = np.full(int(ids.max()) + 1 if len(ids) else 0, ABSENT, dtype=np.int32)
        lengths[ids] = values
        if lengths.nbytes > max_bytes // 2:
            return None
        if int(np.count_nonzero(lengths != ABSENT)) != self._store_totals(source, key).rows:
            log.debug("store %s generation %d: row lengths do not add up to the row count", store, generation)
            with self._lock:
                if self._lengths.get(store) is held and held is not None:
                    self._bytes -= int(held[1].nbytes)
                    del self._lengths[store]
            return None
        with self._lock:
            before = self._lengths.get(store)
            if before is None or before[0] < generation:
                self._bytes += int(lengths.nbytes) - (int(before[1].nbytes) if before is not None else 0)
                self._lengths[store] = (generation, lengths)
        return lengths

    def _carried(
        self,
        source: PhraseSource,
        key: tuple[str, int],
        weights: tuple[float, ...],
        part: str,
        entry: PhraseEntry,
        *,
        max_bytes: int,
    ) -> PhraseEntry | None:
        grid = weight_grid(weights)
        if grid is None:
            return None
        changes = changes_between(source.change_log(), entry.generation, key[1])
        if changes is None:
            return None
        lengths = self._row_lengths(source, key, len(weights), max_bytes)
        if lengths is None:
            return None
        totals = self._store_totals(source, key)
        return carried(
            source, part, weights, entry, key[1], changes=changes, lengths=lengths, totals=totals, grid=grid
        )

    def phrase_scores(
        self,
        source: PhraseSource,
        key: tuple[str, int],
        weights: tuple[float, ...],
        parts: Sequence[str],
        max_bytes: int,
    ) -> dict[str, PhraseScores] | None:
        """Scores of every phrase of ``parts`` at generation ``key[1]``: held, carried over from an
        earlier generation, or read; ``None`` if they do not fit."""
        store, generation = key
        out: dict[str, PhraseEntry] = {}
        older: dict[str, PhraseEntry] = {}
        missing: list[str] = []
        unkept: set[str] = set()
        with self._lock:
            for part in dict.fromkeys(parts):
                found = self._phrases.get((store, weights, part))
                if found is not None and found.generation == generation:
                    self._phrases.move_to_end((store, weights, part))
                    out[part] = found
                elif found is not None and found.generation < generation:
                    older[part] = found
                else:
                    missing.append(part)
                    if found is not None:  # a view of an older generation than the one held
                        unkept.add(part)
        for part, entry in older.items():
            moved = self._carried(source, key, weights, part, entry, max_bytes=max_bytes)
            if moved is None:
                missing.append(part)
            else:
                out[part] = moved
        if missing:
            totals = self._store_totals(source, key)
            for part, scores in source.many(list(dict.fromkeys(missing)), weights).items():
                out[part] = PhraseEntry(generation, scores, totals)
        need = sum(e.nbytes for e in out.values())
        with self._lock:
            if need > max_bytes:
                return None  # this query's phrases alone exceed the bound: FTS5 answers it
            for part, entry in out.items():
                cache_key = (store, weights, part)
                held = self._phrases.get(cache_key)
                if part in unkept or (held is not None and held.generation > generation):
                    continue
                if held is not entry:
                    if held is not None:
                        self._bytes -= held.nbytes
                    self._phrases[cache_key] = entry
                    self._bytes += entry.nbytes
                self._phrases.move_to_end(cache_key)  # what this query uses stays
            self._shrink(max_bytes)
        return {part: entry.scores for part, entry in out.items()}


CACHE = PostingsCache()


def prime_row_lengths(
    conn: sqlite3.Connection,
    key: tuple[str, int],
    columns: int,
    max_bytes: int,
    cache: PostingsCache = CACHE,
    *,
    source: PhraseSource | None = None,
) -> bool:
    """Read the store's row lengths now (a watching server, once, before the first edit), so the
    first search after an edit carries its phrases over without reading them (~0.9 s at 100k files);
    True if they are held."""
    if max_bytes <= 0:
        return False
    cache.use(key)
    return cache._row_lengths(source or Fts5Phrases(conn), key, columns, max_bytes) is not None


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
    conn: Any,
    key: tuple[str, int],
    query: LexicalQuery,
    max_bytes: int,
    cache: PostingsCache = CACHE,
    *,
    source: PhraseSource | None = None,
) -> list[tuple[int, int, float]] | None:
    """``(chunk_id, file_id, score)`` best first, what ``query.sql`` returns; ``None`` when the query
    is not answered from memory (not :func:`servable`, or over the bound)."""
    if max_bytes <= 0 or not servable(query):
        return None
    cache.use(key)
    found = cache.phrase_scores(
        source or Fts5Phrases(conn), key, tuple(query.weights), query.parts, max_bytes
    )
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

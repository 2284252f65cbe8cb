"""Read views: one read transaction over one store file, so every query of an answer sees one generation.

SQLite WAL gives snapshot isolation inside a transaction: a writer that commits while a view is open
does not change what the view reads; the next view sees the new generation.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lazy_intel.errors import StoreCorrupt, StoreError, Timeout
from lazy_intel.settings import SETTINGS_BY_NAME
from lazy_intel.store.row_counts import parse_row_counts
from lazy_intel.store.schema import (
    FTS_COLUMNS_BY_VERSION,
    READABLE_SCHEMA_VERSIONS,
    SCHEMA_VERSION,
    connect,
)

if TYPE_CHECKING:
    from lazy_intel.search.lexical import LexicalQuery
    from lazy_intel.store.phrase_source import PhraseSource


@dataclass(frozen=True)
class FileRow:
    id: int
    path: str
    sha256: str
    size: int
    lang: str | None
    status: str
    reason: str | None
    encoding: str | None
    line_count: int
    syntax_errors: int
    mtime_ns: int
    captured_ns: int


@dataclass(frozen=True)
class SymbolRow:
    id: int
    file_id: int
    path: str
    name: str
    qualified_name: str
    kind: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    signature: str
    doc: str | None
    parent_name: str | None
    lang: str | None
    file_sha256: str
    name_start_byte: int


@dataclass(frozen=True)
class ChunkRow:
    id: int
    file_id: int
    path: str
    file_sha256: str
    lang: str | None
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    window: int
    symbol_id: int | None
    symbol_name: str | None
    qualified_name: str | None
    kind: str | None
    signature: str | None
    doc: str | None
    parent_name: str | None


_FILE_COLUMNS = (
    "id, path, sha256, size, lang, status, reason, encoding, line_count, syntax_errors, mtime_ns, captured_ns"
)
_SYMBOL_SELECT = (
    "SELECT s.id, s.file_id, f.path, s.name, s.qualified_name, s.kind, s.start_byte, s.end_byte, s.start_line, "
    "s.end_line, s.signature, s.doc, s.parent_name, f.lang, f.sha256, s.name_start_byte "
    "FROM symbols s JOIN files f ON f.id = s.file_id"
)
CHUNK_SELECT = (
    "SELECT c.id, c.file_id, f.path, f.sha256, f.lang, c.start_byte, c.end_byte, c.start_line, c.end_line, "
    "c.window, c.symbol_id, s.name, s.qualified_name, s.kind, s.signature, s.doc, s.parent_name "
    "FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id"
)


class ReadView:
    """Queries over one consistent snapshot. Use :func:`open_view` to get one."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, store_path: Path, *, postings_bytes: int = 0) -> None:
        self.conn = conn
        self.store_path = store_path
        self.postings_bytes = postings_bytes  # bound of the in-memory postings (store/postings.py); 0: off
        self._meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        self._content_cache: dict[str, bytes] = {}
        self._vocab_ready = False
        self._chunk_count: int | None = None

    # ---- meta
    def meta(self, key: str, default: str | None = None) -> str | None:
        return self._meta.get(key, default)

    @property
    def generation(self) -> int:
        return int(self._meta.get("generation", "0"))

    @property
    def schema_version(self) -> int:
        """The store's schema version: :data:`SCHEMA_VERSION`, or an older one still readable."""
        return int(self._meta.get("schema_version", "0"))

    @property
    def outdated(self) -> bool:
        """Built at an older (readable) schema version: served until a sync rebuilds it."""
        return self.schema_version != SCHEMA_VERSION

    @property
    def fts_columns(self) -> tuple[str, ...]:
        """The columns of ``chunks_fts`` in this store, in order."""
        return FTS_COLUMNS_BY_VERSION[self.schema_version]

    @property
    def published_at(self) -> str | None:
        return self._meta.get("published_at")

    # ---- files and bytes
    def file(self, path: str) -> FileRow | None:
        row = self.conn.execute(f"SELECT {_FILE_COLUMNS} FROM files WHERE path=?", (path,)).fetchone()
        return FileRow(*row) if row else None

    def files(self) -> list[FileRow]:
        return [FileRow(*r) for r in self.conn.execute(f"SELECT {_FILE_COLUMNS} FROM files ORDER BY path")]

    def content(self, sha256: str) -> bytes | None:
        cached = self._content_cache.get(sha256)
        if cached is not None:
            return cached
        row = self.conn.execute("SELECT data FROM contents WHERE sha256=?", (sha256,)).fetchone()
        if row is None:
            return None
        data = bytes(row[0])
        if hashlib.sha256(data).hexdigest() != sha256:  # never serve bytes that are not what they claim
            raise StoreCorrupt(
                f"store {self.store_path.name}: the content blob {sha256[:12]} does not hash to its key",
                next_step="the store is being rebuilt; retry shortly (or run lazy-intel repair)",
            )
        if len(self._content_cache) < 256:
            self._content_cache[sha256] = data
        return data

    # ---- symbols
    def symbols_by_qualified(self, qualified: str, path: str | None = None) -> list[SymbolRow]:
        sql = _SYMBOL_SELECT + " WHERE s.qualified_name = ?"
        args: list[object] = [qualified]
        if path is not None:
            sql += " AND f.path = ?"
            args.append(path)
        return [SymbolRow(*r) for r in self.conn.execute(sql + " ORDER BY f.path, s.start_byte", args)]

    def symbols_by_ids(self, ids: Sequence[int]) -> list[SymbolRow]:
        out: list[SymbolRow] = []
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ",".join("?" * len(batch))
            out.extend(
                SymbolRow(*r) for r in self.conn.execute(f"{_SYMBOL_SELECT} WHERE s.id IN ({marks})", batch)
            )
        return out

    def symbols_by_name(self, name: str, path: str | None = None, limit: int = 500) -> list[SymbolRow]:
        sql = _SYMBOL_SELECT + " WHERE s.name = ?"
        args: list[object] = [name]
        if path is not None:
            sql += " AND f.path = ?"
            args.append(path)
        sql += " ORDER BY f.path, s.start_byte LIMIT ?"
        args.append(limit)
        return [SymbolRow(*r) for r in self.conn.execute(sql, args)]

    def receiver_annotations(self, symbol: SymbolRow) -> list[str]:
        """The declared types (expression JSON) of the ``receiver`` parameters of the method
        ``symbol`` (C#'s ``this T x`` of an extension method), within its span: overloads share
        their qualified name."""
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT annotation FROM flows WHERE file_id = ? AND kind = 'receiver' AND scope_name = ? "
                "AND start_byte >= ? AND start_byte < ? AND annotation IS NOT NULL",
                (symbol.file_id, symbol.qualified_name, symbol.start_byte, symbol.end_byte),
            )
        ]

    def symbols_with_suffix(self, suffix: str, limit: int = 500) -> list[SymbolRow]:
        """Symbols whose qualified name ends with ``.suffix`` (e.g. ``request`` -> ``Session.request``)."""
        last = suffix.rsplit(".", 1)[-1]
        sql = (
            _SYMBOL_SELECT
            + " WHERE s.name = ? AND (s.qualified_name = ? OR s.qualified_name LIKE ? ESCAPE '\\')"
        )
        pattern = "%." + suffix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [
            SymbolRow(*r)
            for r in self.conn.execute(
                sql + " ORDER BY f.path, s.start_byte LIMIT ?", (last, suffix, pattern, limit)
            )
        ]

    # ---- chunks
    def chunks_by_ids(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ",".join("?" * len(batch))
            for r in self.conn.execute(f"{CHUNK_SELECT} WHERE c.id IN ({marks})", batch):
                out[r[0]] = ChunkRow(*r)
        return out

    def fts(self, sql: str, args: Sequence[object]) -> list[tuple[int, int, float]]:
        """Run a prepared FTS query (built by :mod:`lazy_intel.search.lexical`) -> (chunk, file, score)."""
        return [(int(r[0]), int(r[1]), float(r[2])) for r in self.conn.execute(sql, list(args))]

    def lexical(self, query: LexicalQuery) -> list[tuple[int, int, float]]:
        """Run a ranked full-text query (``search/lexical.py``) -> (chunk, file, score), best first.

        Answered from the in-memory postings of this generation when they can give the SQL's exact
        answer within their bound (``store/postings.py``, reading phrases from
        :meth:`phrase_source`), else by the store's full-text SQL (:meth:`lexical_sql`).
        """
        if query.within is not None and not query.within:
            return []
        if self.postings_bytes > 0 and query.columns == self.fts_columns:
            from lazy_intel.store.postings import memory_lexical  # NumPy, only where postings are kept

            found = memory_lexical(
                self.conn,
                (str(self.store_path), self.generation),
                query,
                self.postings_bytes,
                source=self.phrase_source(),
            )
            if found is not None:
                return found
        return self.lexical_sql(query)

    def lexical_sql(self, query: LexicalQuery) -> list[tuple[int, int, float]]:
        """``query`` ranked by FTS5."""
        return self.fts(query.sql, query.args)

    def phrase_source(self) -> PhraseSource:
        """Where the in-memory postings read this store's phrases (``store/phrase_source.py``)."""
        from lazy_intel.store.phrase_source import Fts5Phrases

        return Fts5Phrases(self.conn)

    def prime_postings(self) -> bool:
        """Load what carrying the in-memory postings over to a later generation needs (the rows'
        lengths, ``store/postings.py``); False when postings are off or do not fit."""
        if self.postings_bytes <= 0:
            return False
        from lazy_intel.store.postings import prime_row_lengths

        key = (str(self.store_path), self.generation)
        return prime_row_lengths(
            self.conn, key, len(self.fts_columns), self.postings_bytes, source=self.phrase_source()
        )

    def chunk_count(self) -> int:
        """Rows of the full-text index (one per chunk): as the publication recorded them in meta
        (store/row_counts.py), else counted once per view."""
        if self._chunk_count is None:
            recorded = parse_row_counts(self._meta)
            if recorded is not None:
                self._chunk_count = recorded.chunks
            else:
                self._chunk_count = int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        return self._chunk_count

    def indexed_paths_by_name(self) -> dict[str, tuple[str, ...]]:
        """Indexed paths by file name, in id order; read once per (store, generation) per process.

        A published generation never changes, so the index is shared by every view of it.
        """
        key = (str(self.store_path), self.generation)
        found = _PATHS_BY_NAME.get(key)
        if found is None:
            by_name: dict[str, list[str]] = {}
            for (path,) in self.conn.execute("SELECT path FROM files WHERE status = 'indexed' ORDER BY id"):
                by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            found = {name: tuple(paths) for name, paths in by_name.items()}
            with _PATHS_GUARD:
                _PATHS_BY_NAME[key] = found
                while len(_PATHS_BY_NAME) > PATHS_BY_NAME_KEPT:
                    _PATHS_BY_NAME.pop(next(iter(_PATHS_BY_NAME)))
        return found

    def term_document_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many chunks hold each of ``terms`` (full-text index tokens); absent terms are left out.

        FTS5 counts a term's chunks by reading its whole posting list (a common word of a large
        repository: tens of milliseconds), so counts are kept per (store, generation) in this
        process: a published generation never changes, and agents' reports share most words.
        """
        if not terms:
            return {}
        known = _term_counts_of(str(self.store_path), self.generation)
        unique = list(dict.fromkeys(terms))
        missing = [t for t in unique if t not in known]
        if missing:
            if not self._vocab_ready:
                # fts5vocab reads the live index: no copy, and a temp table is private to this connection
                self.conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)"
                )
                self._vocab_ready = True
            found: dict[str, int] = dict.fromkeys(missing, 0)  # 0: not in the index
            for start in range(0, len(missing), 500):
                batch = missing[start : start + 500]
                marks = ",".join("?" * len(batch))
                for term, docs in self.conn.execute(
                    f"SELECT term, doc FROM temp.chunks_vocab WHERE term IN ({marks})", batch
                ):
                    found[str(term)] = int(docs)
            if len(known) + len(found) <= TERM_COUNTS_KEPT:
                known.update(found)
        else:
            found = {}
        out: dict[str, int] = {}
        for term in unique:
            docs = known.get(term, found.get(term, 0))
            if docs:
                out[term] = docs
        return out

    # ---- counts
    def per_generation(self, name: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``compute()`` read once per (store, generation) in this process (a published generation
        never changes): the row counts ``status`` shows, which a client polling for an edit would
        otherwise pay a scan of the largest tables for at every call. A copy each time."""
        key = (str(self.store_path), self.generation, name)
        found = _SUMMARIES.get(key)
        if found is None:
            found = compute()
            with _PATHS_GUARD:
                _SUMMARIES[key] = found
                while len(_SUMMARIES) > SUMMARIES_KEPT:
                    _SUMMARIES.pop(next(iter(_SUMMARIES)))
        return dict(found)

    def per_generation_values(
        self, name: str, keys: Sequence[Hashable], compute: Callable[[list[Hashable]], Mapping[Hashable, Any]]
    ) -> dict[Hashable, Any]:
        """The values of ``keys`` under ``name``, each computed once per (store, generation) in this
        process: ``compute(missing)`` answers the keys not known yet, for every one of them. For facts
        a published generation fixes (a file's resolved in-degree, say) that searches ask about again
        and again; at most :data:`VALUES_KEPT` values per name and generation are kept (past that
        they are computed each time, with the same value)."""
        known = _values_of(str(self.store_path), self.generation, name)
        unique = list(dict.fromkeys(keys))
        missing = [k for k in unique if k not in known]
        found = dict(compute(missing)) if missing else {}
        if missing and len(known) + len(found) <= VALUES_KEPT:
            known.update(found)
        return {k: known[k] if k in known else found[k] for k in unique}

    def counts(self) -> dict[str, int]:
        return self.per_generation("counts", self._counts)

    def _counts(self) -> dict[str, int]:
        out = {
            "files": self.conn.execute("SELECT count(*) FROM files").fetchone()[0],
            "symbols": self.conn.execute("SELECT count(*) FROM symbols").fetchone()[0],
            "chunks": self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0],
            "references": self.conn.execute("SELECT count(*) FROM refs").fetchone()[0],
            "imports": self.conn.execute("SELECT count(*) FROM imports").fetchone()[0],
        }
        for status, n in self.conn.execute("SELECT status, count(*) FROM files GROUP BY status"):
            out[f"files_{status.replace('-', '_')}"] = n
        return out

    def languages(self) -> dict[str, int]:
        return self.per_generation("languages", self._languages)

    def _languages(self) -> dict[str, int]:
        rows = self.conn.execute(
            # ties by name: SQLite and PostgreSQL order equal counts differently otherwise
            "SELECT lang, count(*) FROM files WHERE status='indexed' AND lang IS NOT NULL GROUP BY lang "
            "ORDER BY 2 DESC, 1"
        )
        return {lang: n for lang, n in rows}


# indexed paths by file name of the last few (store, generation) views (ReadView.indexed_paths_by_name)
PATHS_BY_NAME_KEPT = 4
_PATHS_BY_NAME: dict[tuple[str, int], dict[str, tuple[str, ...]]] = {}
_PATHS_GUARD = threading.Lock()
# summaries of the last few (store, generation) views (ReadView.per_generation): a few per view
SUMMARIES_KEPT = 16
_SUMMARIES: dict[tuple[str, int, str], dict[str, Any]] = {}

# document counts of the terms searched in the last few (store, generation) views, at most this
# many terms each (ReadView.term_document_counts)
TERM_COUNTS_KEPT = 200_000
_TERM_COUNTS: dict[tuple[str, int], dict[str, int]] = {}


# values computed per key of the last few (store, generation) views (ReadView.per_generation_values)
VALUES_KEPT = 50_000
_VALUES: dict[tuple[str, int, str], dict[Hashable, Any]] = {}


def _values_of(store: str, generation: int, name: str) -> dict[Hashable, Any]:
    key = (store, generation, name)
    found = _VALUES.get(key)
    if found is None:
        with _PATHS_GUARD:
            found = _VALUES.setdefault(key, {})
            while len(_VALUES) > SUMMARIES_KEPT:
                _VALUES.pop(next(iter(_VALUES)))
    return found


def _term_counts_of(store: str, generation: int) -> dict[str, int]:
    key = (store, generation)
    found = _TERM_COUNTS.get(key)
    if found is None:
        with _PATHS_GUARD:
            found = _TERM_COUNTS.setdefault(key, {})
            while len(_TERM_COUNTS) > PATHS_BY_NAME_KEPT:
                _TERM_COUNTS.pop(next(iter(_TERM_COUNTS)))
    return found


MIB = 1 << 20

# SQLite calls the progress handler every this many virtual-machine steps (~1 ms of work)
PROGRESS_STEPS = 20_000
TRANSIENT_ERRORS = ("database is locked", "database is busy", "unable to open database file")


@contextmanager
def open_view(
    store_path: Path, *, deadline: float | None = None, postings_bytes: int | None = None
) -> Iterator[ReadView]:
    """A read view inside one transaction; closed on exit.

    ``deadline`` (``time.monotonic()`` seconds) interrupts any query still running after it
    (``TIMEOUT``). A store SQLite cannot read is ``STORE_CORRUPT``; a missing file or a
    schema this build cannot read (not in ``READABLE_SCHEMA_VERSIONS``) is ``STORE_CORRUPT`` too,
    since either way the store must be rebuilt. ``postings_bytes``: the bound of the in-memory
    postings full-text queries may use (default: ``LAZY_INTEL_POSTINGS_MB``'s default; 0: FTS5 only).
    """
    if postings_bytes is None:
        postings_bytes = SETTINGS_BY_NAME["postings_mb"].default * MIB
    if not store_path.is_file():
        raise StoreCorrupt(f"store file {store_path} is missing", next_step="run lazy-intel index")
    conn = connect(str(store_path), readonly=True)
    if deadline is not None:
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_STEPS)
    try:
        conn.execute("BEGIN")
        view = ReadView(conn, store_path, postings_bytes=postings_bytes)
        version = view.meta("schema_version")
        if version not in {str(v) for v in READABLE_SCHEMA_VERSIONS}:
            raise StoreCorrupt(
                f"store {store_path.name} has schema {version}, this build needs {SCHEMA_VERSION}",
                next_step="run lazy-intel index to rebuild",
            )
        yield view
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "interrupted" in text:
            raise Timeout("the request ran out of time while reading the index", next_step="retry") from None
        if any(t in text for t in TRANSIENT_ERRORS):
            raise StoreError(f"store {store_path.name} is busy: {text}", next_step="retry") from None
        raise StoreCorrupt(
            f"store {store_path} cannot be read: {text}", next_step="run lazy-intel repair"
        ) from None
    except sqlite3.DatabaseError as exc:
        raise StoreCorrupt(
            f"store {store_path} cannot be read: {exc}", next_step="run lazy-intel repair"
        ) from None
    finally:
        try:
            conn.execute("COMMIT") if conn.in_transaction else None
        except sqlite3.Error:
            pass
        finally:
            conn.close()

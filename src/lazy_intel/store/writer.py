"""Publication: one write transaction per sync that bumps the generation (DESIGN §4).

The writer never commits a partial view: :meth:`StoreWriter.publish` wraps the whole change set in
``BEGIN IMMEDIATE … COMMIT``; an exception rolls everything back and the previous generation stays.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from lazy_intel.allocator import relaxed_collection
from lazy_intel.faultpoints import pause_point
from lazy_intel.parse.chunks import ChunkSpan
from lazy_intel.parse.encoding import decode_with, source_codec
from lazy_intel.parse.facts import FactRows, FileFacts, fact_rows
from lazy_intel.store.chunk_changes import CHUNK_CHANGES_KEY, logged
from lazy_intel.store.row_counts import (
    ROW_COUNTS_KEY,
    RowCounts,
    chunk_count,
    count_rows,
    format_row_counts,
    read_meta_counts,
)
from lazy_intel.store.schema import FILE_TABLES, FTS_COLUMNS
from lazy_intel.text.embedding_text import embedding_text
from lazy_intel.text.stems import stems_text
from lazy_intel.text.tokens import index_text, path_text
from lazy_intel.workspace.capture import sha256_bytes


@dataclass(frozen=True)
class FileRecord:
    """Everything the store keeps about one captured file."""

    path: str
    sha256: str
    size: int
    mtime_ns: int
    lang: str | None
    status: str
    reason: str | None = None
    encoding: str | None = None
    line_count: int = 0
    syntax_errors: int = 0
    data: bytes | None = None
    facts: FileFacts | None = None
    chunks: tuple[ChunkSpan, ...] = field(default=())
    # per chunk: token texts for chunks_fts, one per column of FTS_COLUMNS (name, qualified,
    # signature, doc, body, path, stems), computed where the file is parsed (in worker processes)
    # rather than in the single writer
    fts_rows: tuple[tuple[str, ...], ...] = field(default=())
    # per chunk: SHA-256 of the text an embedder reads (text/embedding_text.py)
    embed_shas: tuple[str, ...] = field(default=())
    # the facts as store rows, in place of ``facts`` in a record sent from a parse worker
    # (:func:`for_transfer`)
    rows: FactRows | None = None
    # the file's graph outline (``lazy_intel.graph.build.FileOutline``: nodes, interface record,
    # definitions) when its parse worker computed it for a full build; the writer does not store it
    # (the build writes it with the file, ``graph.build.write_outline``)
    outline: object | None = None

    def fact_rows(self) -> FactRows | None:
        """The store rows of this record's facts (``None`` when it has none)."""
        if self.rows is not None:
            return self.rows
        return fact_rows(self.facts) if self.facts is not None else None


def for_transfer(record: FileRecord) -> FileRecord:
    """``record`` as a parse worker sends it to the writer: its facts as store rows (plain tuples,
    several times cheaper to pickle and unpickle than the fact dataclasses) instead of
    :class:`FileFacts`. The writer stores the same rows either way. A record whose FTS texts are not
    computed yet keeps its facts (:func:`with_fts_rows` reads its symbols)."""
    chunks = len(record.chunks)
    if record.facts is None or len(record.fts_rows) != chunks or len(record.embed_shas) != chunks:
        return record
    return replace(record, facts=None, rows=fact_rows(record.facts))


def with_fts_rows(record: FileRecord) -> FileRecord:
    """``record`` with the FTS token texts of each of its chunks."""
    data = record.data or b""
    symbols = record.facts.symbols if record.facts is not None else ()
    path_tokens = path_text(record.path)
    rows = []
    embed_shas = []
    codec = source_codec(data)  # the index reads names as extraction did (parse/encoding.py)
    for chunk in record.chunks:
        symbol = symbols[chunk.symbol_index] if chunk.symbol_index is not None else None
        text = decode_with(data[chunk.start_byte : chunk.end_byte], codec)
        body = index_text(text)
        embed_shas.append(
            sha256_bytes(
                embedding_text(
                    record.path,
                    symbol.qualified_name if symbol else None,
                    symbol.kind if symbol else None,
                    text,
                ).encode("utf-8")
            )
        )
        if symbol is None:
            named = ("", "", "", "", body)
        else:
            named = (
                index_text(symbol.name),
                index_text(symbol.qualified_name),
                index_text(symbol.signature),
                index_text(symbol.doc or ""),
                body,
            )
        # stems of every token but the path's (text/stems.py): inflections meet beside exact tokens
        rows.append((*named, path_tokens, stems_text(" ".join(named))))
    return replace(record, fts_rows=tuple(rows), embed_shas=tuple(embed_shas))


@dataclass(frozen=True)
class StatRefresh:
    """A file whose bytes are unchanged but whose stat (mtime) moved."""

    path: str
    mtime_ns: int


@dataclass(frozen=True)
class ChangeSet:
    """What one publication applies. ``upserts`` may be a lazy iterable (records stream from parsers)."""

    upserts: Iterable[FileRecord] = ()
    removals: tuple[str, ...] = ()
    refreshes: tuple[StatRefresh, ...] = ()
    changes_content: bool = False


# content hashes looked up per statement when dropping unreferenced contents (two bound parameters
# each; SQLite's default limit is 32766)
CONTENT_BATCH = 500

# meta key: full-text rows deleted since the index was last optimized (their space is not reclaimed
# until FTS5 merges them away; see :func:`compact_fulltext`)
FTS_DELETED_KEY = "fts_deleted_rows"


def fts_deleted_rows(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (FTS_DELETED_KEY,)).fetchone()
    return int(row[0]) if row else 0


def compact_fulltext(conn: sqlite3.Connection) -> bool:
    """Merge the full-text index into one segment once more rows were deleted from it than it holds.

    FTS5 keeps a deleted row's postings (and a tombstone) until a merge reaches the oldest segment,
    so a workspace whose files keep changing would grow its index with history. Optimizing costs time
    in proportion to the live index and runs only after at least that many deletions: amortized
    constant work per change, and an index bounded by about twice the current corpus.
    """
    deleted = fts_deleted_rows(conn)
    if not deleted:
        return False
    live = chunk_count(conn)
    if deleted <= live:
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
        conn.execute("DELETE FROM meta WHERE key=?", (FTS_DELETED_KEY,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return True


@dataclass(frozen=True)
class AppliedChange:
    """What a publication applied: the paths written and removed, and whether it rebuilt everything."""

    upserted: tuple[str, ...]
    removed: tuple[str, ...]
    full: bool


Derive = Callable[[sqlite3.Connection, AppliedChange], None]


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class StoreWriter:
    """Applies change sets to an open, writable store connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._fts_deleted = 0  # full-text rows deleted by the open transaction
        self._released: set[str] = set()  # content hashes of the file rows it deleted
        self._files_added = 0  # file rows inserted less those deleted by the open transaction
        self._chunks_added = 0  # chunk rows likewise (store/row_counts.py)
        self._logging = False  # whether the open transaction notes the chunk ids it changes
        self._chunk_ids_removed: list[int] = []  # for the chunk change log (store/chunk_changes.py)
        self._chunk_ids_added: list[int] = []

    def generation(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        return int(row[0]) if row else 0

    def publish(
        self,
        change: ChangeSet,
        meta: Mapping[str, str],
        *,
        captured_ns: int | None = None,
        derive: Derive | None = None,
        drop_meta: tuple[str, ...] = (),
    ) -> int:
        """Apply ``change`` and ``meta`` in one transaction; returns the (possibly new) generation.

        A change set that touches no content only refreshes stat data and does not bump the generation.
        ``derive`` updates projections computed from the applied facts (the graph) in the same
        transaction, so no reader ever sees files and graph from different generations.
        """
        stamp = captured_ns if captured_ns is not None else time.time_ns()
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        self._fts_deleted = 0
        self._released = set()
        self._files_added = self._chunks_added = 0
        self._logging = not change.changes_content
        self._chunk_ids_removed, self._chunk_ids_added = [], []
        build = contextlib.ExitStack()
        try:
            for path in change.removals:
                self._delete_file(path)
            # a store filled from empty: rows go in without the secondary indexes of the file tables,
            # each index is then built once (a sort) instead of updated row by row
            rebuilt = _drop_file_indexes(conn) if change.changes_content and self._empty() else []
            if change.changes_content:  # a full build (its graph too): fewer GC passes
                build.enter_context(relaxed_collection())
            upserted: list[str] = []
            for record in change.upserts:
                self._delete_file(record.path)
                self._insert_file(record, stamp)
                upserted.append(record.path)
            for sql in rebuilt:  # the graph reads the facts by file, by name
                conn.execute(sql)
            for refresh in change.refreshes:
                conn.execute(
                    "UPDATE files SET mtime_ns=?, captured_ns=? WHERE path=?",
                    (refresh.mtime_ns, stamp, refresh.path),
                )
            generation = self.generation()
            if upserted or change.removals or change.changes_content:
                self._drop_unreferenced_contents(everything=change.changes_content)
                if derive is not None:
                    derive(conn, AppliedChange(tuple(upserted), change.removals, change.changes_content))
                counts = self._counts_after(everything=change.changes_content)
                generation += 1
                self._set_meta(
                    {
                        "generation": str(generation),
                        "published_at": _now_iso(),
                        ROW_COUNTS_KEY: format_row_counts(generation, counts),
                    }
                )
                self._log_chunk_changes(generation)
            self._set_meta(meta)
            self._set_meta({"last_capture_ns": str(stamp)})
            if drop_meta:
                conn.executemany("DELETE FROM meta WHERE key=?", [(key,) for key in drop_meta])
            if self._fts_deleted:
                self._set_meta({FTS_DELETED_KEY: str(fts_deleted_rows(conn) + self._fts_deleted)})
            if upserted or change.removals or change.changes_content:
                pause_point("commit")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            build.close()
            self._logging = False
        return generation

    def _log_chunk_changes(self, generation: int) -> None:
        """Record the chunk ids this publication deleted and inserted (a full rebuild: the log goes)."""
        if not self._logging:
            self.conn.execute("DELETE FROM meta WHERE key=?", (CHUNK_CHANGES_KEY,))
            return
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (CHUNK_CHANGES_KEY,)).fetchone()
        text = logged(row[0] if row else None, generation, self._chunk_ids_removed, self._chunk_ids_added)
        self._set_meta({CHUNK_CHANGES_KEY: text})

    def _counts_after(self, *, everything: bool) -> RowCounts:
        """The files and chunks the store holds once the open transaction commits: the counts the
        last publication recorded plus this one's difference, or (a full build, none recorded for
        the current generation) counted."""
        prior = None if everything else read_meta_counts(self.conn)
        if prior is None:
            return count_rows(self.conn)
        return RowCounts(prior.files + self._files_added, prior.chunks + self._chunks_added)

    def _empty(self) -> bool:
        return self.conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None

    def write_batches(
        self,
        records: Iterable[FileRecord],
        removals: tuple[str, ...],
        *,
        batch_files: int,
        captured_ns: int,
        count_key: str,
        on_commit: Callable[[int], None] | None = None,
        forget: tuple[str, ...] = (),
    ) -> list[str]:
        """Write files into a fresh store (one no reader sees) in transactions of at most
        ``batch_files`` files, each also recording under meta ``count_key`` how many files the store
        holds; :meth:`publish` then derives and publishes. A process killed meanwhile leaves every
        committed batch whole (the store keeps a write-ahead log). Returns the paths written;
        ``on_commit(written)`` runs after each commit. The meta keys ``forget`` are deleted in the
        first transaction that writes or removes a file (what was derived from the old facts)."""
        conn = self.conn
        written: list[str] = []
        in_batch = 0
        self._fts_deleted = 0
        forgotten = False

        def changing() -> None:
            nonlocal forgotten
            if not forgotten:  # rows change outside the chunk change log: it no longer holds
                conn.executemany(
                    "DELETE FROM meta WHERE key=?", [(key,) for key in (*forget, CHUNK_CHANGES_KEY)]
                )
                forgotten = True

        def commit() -> None:
            held = conn.execute("SELECT count(*) FROM files").fetchone()[0]
            values = {count_key: str(held)}
            if self._fts_deleted:
                values[FTS_DELETED_KEY] = str(fts_deleted_rows(conn) + self._fts_deleted)
                self._fts_deleted = 0
            self._set_meta(values)
            conn.execute("COMMIT")

        conn.execute("BEGIN IMMEDIATE")
        try:
            for path in removals:
                changing()
                self._delete_file(path)
            with relaxed_collection():  # a fresh store's files: fewer GC passes
                for record in records:
                    changing()
                    self._delete_file(record.path)
                    self._insert_file(record, captured_ns)
                    written.append(record.path)
                    in_batch += 1
                    if in_batch >= batch_files:
                        commit()
                        in_batch = 0
                        if on_commit is not None:
                            on_commit(len(written))
                        conn.execute("BEGIN IMMEDIATE")
            commit()
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if in_batch and on_commit is not None:
            on_commit(len(written))
        return written

    def _set_meta(self, values: Mapping[str, str]) -> None:
        self.conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            list(values.items()),
        )

    def _drop_unreferenced_contents(self, *, everything: bool) -> None:
        """Delete the captured bytes no file row references any more.

        ``everything`` (a change of the whole content): every row of ``contents`` is checked. Otherwise
        only the hashes of the file rows this transaction deleted can have lost their last reference,
        so only those are looked up: an edit costs its own files, not a scan of the tree's captured
        bytes (at 100k files that scan read every leaf page of ``contents``, the files' text inline)."""
        conn = self.conn
        if everything:
            conn.execute("DELETE FROM contents WHERE sha256 NOT IN (SELECT sha256 FROM files)")
            return
        released = sorted(self._released)
        for offset in range(0, len(released), CONTENT_BATCH):
            batch = released[offset : offset + CONTENT_BATCH]
            marks = ",".join("?" * len(batch))
            conn.execute(
                f"DELETE FROM contents WHERE sha256 IN ({marks}) "
                f"AND sha256 NOT IN (SELECT sha256 FROM files WHERE sha256 IN ({marks}))",
                [*batch, *batch],
            )

    def _delete_file(self, path: str) -> None:
        row = self.conn.execute("SELECT id, sha256 FROM files WHERE path=?", (path,)).fetchone()
        if row is None:
            return
        file_id = row[0]
        self._released.add(row[1])
        if self._logging:
            self._chunk_ids_removed.extend(
                r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE file_id=?", (file_id,))
            )
        self.conn.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id=?)", (file_id,)
        )
        for table in FILE_TABLES:
            cur = self.conn.execute(f"DELETE FROM {table} WHERE file_id=?", (file_id,))
            if table == "chunks":
                self._fts_deleted += max(cur.rowcount, 0)
                self._chunks_added -= max(cur.rowcount, 0)
        self.conn.execute("DELETE FROM files WHERE id=?", (file_id,))
        self._files_added -= 1

    def _insert_file(self, record: FileRecord, captured_ns: int) -> None:
        conn = self.conn
        cur = conn.execute(
            "INSERT INTO files(path, sha256, size, mtime_ns, captured_ns, lang, status, reason, encoding, "
            "line_count, syntax_errors) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                record.path,
                record.sha256,
                record.size,
                record.mtime_ns,
                captured_ns,
                record.lang,
                record.status,
                record.reason,
                record.encoding,
                record.line_count,
                record.syntax_errors,
            ),
        )
        file_id = cur.lastrowid
        self._files_added += 1
        if record.data is not None:
            conn.execute(
                "INSERT OR IGNORE INTO contents(sha256, data) VALUES (?, ?)", (record.sha256, record.data)
            )
        rows = record.fact_rows()
        symbol_ids = self._insert_symbols(file_id, rows)
        if rows is not None:
            self._insert_refs(file_id, rows)
        if record.data is not None:
            self._insert_chunks(file_id, record, symbol_ids)

    def _insert_symbols(self, file_id: int | None, rows: FactRows | None) -> list[int]:
        if rows is None:
            return []
        ids: list[int] = []
        by_name: dict[object, int] = {}
        for ordinal, row in enumerate(rows.symbols):
            parent = row[11]  # the qualified name of the enclosing definition
            parent_id = by_name.get(parent) if parent else None
            cur = self.conn.execute(
                "INSERT INTO symbols(file_id, ordinal, name, qualified_name, kind, start_byte, end_byte, start_line, "
                "end_line, name_start_byte, name_end_byte, signature, doc, parent_name, parent_id) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (file_id, ordinal, *row, parent_id),
            )
            symbol_id = int(cur.lastrowid or 0)
            ids.append(symbol_id)
            by_name.setdefault(row[1], symbol_id)
        return ids

    def _insert_refs(self, file_id: int | None, rows: FactRows) -> None:
        self.conn.executemany(
            "INSERT INTO refs(file_id, name, kind, start_byte, end_byte, line, name_start_byte, name_end_byte, "
            "scope_name, receiver, callee, args) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(file_id, *row) for row in rows.references],
        )
        self.conn.executemany(
            "INSERT INTO flows(file_id, kind, scope_name, target, value, annotation, position, start_byte, "
            "end_byte, line, condition_path) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(file_id, *row) for row in rows.flows],
        )
        self.conn.executemany(
            "INSERT INTO imports(file_id, module, name, alias, start_byte, end_byte, line, scope_name, wildcard) "
            "VALUES (?,?,?,?,?,?,?,?,?)",
            [(file_id, *row) for row in rows.imports],
        )

    def _insert_chunks(self, file_id: int | None, record: FileRecord, symbol_ids: list[int]) -> None:
        data = record.data or b""
        if len(record.fts_rows) != len(record.chunks) or len(record.embed_shas) != len(record.chunks):
            record = with_fts_rows(record)
        fts_rows: list[tuple[object, ...]] = []
        for chunk, fts, embed_sha in zip(record.chunks, record.fts_rows, record.embed_shas, strict=True):
            symbol_id = symbol_ids[chunk.symbol_index] if chunk.symbol_index is not None else None
            cur = self.conn.execute(
                "INSERT INTO chunks(file_id, symbol_id, start_byte, end_byte, start_line, end_line, window, "
                "content_sha, embed_sha) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    file_id,
                    symbol_id,
                    chunk.start_byte,
                    chunk.end_byte,
                    chunk.start_line,
                    chunk.end_line,
                    chunk.window,
                    sha256_bytes(data[chunk.start_byte : chunk.end_byte]),
                    embed_sha,
                ),
            )
            fts_rows.append((cur.lastrowid, *fts))
            if self._logging:
                self._chunk_ids_added.append(int(cur.lastrowid or 0))
        # the file's full-text rows in one statement: on PostgreSQL a COPY, whose generated columns
        # (the positional vectors) are evaluated in one executor instead of one per chunk
        self.conn.executemany(_FTS_INSERT, fts_rows)
        self._chunks_added += len(record.chunks)


def _drop_file_indexes(conn: sqlite3.Connection) -> list[str]:
    """Drop the secondary indexes of the file tables; returns the statements that build them again."""
    tables = ", ".join(f"'{t}'" for t in FILE_TABLES)
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='index' "
        f"AND tbl_name IN ({tables}) AND sql IS NOT NULL ORDER BY name"
    ).fetchall()
    for name, _ in rows:
        conn.execute(f"DROP INDEX {name}")
    return [sql for _, sql in rows]


_FTS_INSERT = f"INSERT INTO chunks_fts(rowid, {', '.join(FTS_COLUMNS)}) VALUES (?{', ?' * len(FTS_COLUMNS)})"


def iter_paths(conn: sqlite3.Connection) -> Iterable[str]:
    for (path,) in conn.execute("SELECT path FROM files ORDER BY path"):
        yield path

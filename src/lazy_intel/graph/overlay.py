"""A view of a store with an uncommitted change laid over it, for resolve workers (issue 15).

An incremental sync writes the changed files' facts and nodes inside the writer's transaction, which
no other connection can see until the sync publishes. To resolve a large change in worker processes
like a full build, the writer copies just those rows — the changed files' ``files``, ``symbols``,
``refs``, ``imports``, ``flows`` and ``nodes`` rows, as they stand in its transaction — into a small
SQLite file of their own (:func:`write_overlay`), commits that, and the workers read the committed
store for every other file (:class:`OverlaidFactStore`). Every read a resolution makes goes through
:class:`~lazy_intel.graph.program.FactStore`'s three reads (a file's model or interface, the
definitions of a name, a node's path), so overriding those three makes the workers see exactly what
the writer's connection sees: a changed file from the overlay (a removed one not at all), any other
from the store, and a name's definitions from both, in the store's order.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from lazy_intel.graph.model import FileModel, file_key, load_interface, load_model
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import (
    NODE_PATH_SQL,
    WHERE_ENTRIES,
    FactStore,
    NamedDefinition,
    NodePaths,
    read_named,
)
from lazy_intel.store.schema import NODES_NAMED_INDEX, index_statements, table_statement

# the rows a file's resolution reads, per table: by the file's id, or (nodes) by its file key
OVERLAY_TABLES = ("files", "symbols", "refs", "imports", "flows", "nodes")
OVERLAY_BATCH = 500  # files per copy query


def write_overlay_file(source: sqlite3.Connection, path: Path, paths: Sequence[str]) -> int:
    """:func:`write_overlay` into a new SQLite file at ``path`` (no log: nothing writes it later);
    the file is removed when writing fails."""
    target = sqlite3.connect(str(path), isolation_level=None)
    try:
        try:
            target.execute("PRAGMA journal_mode=OFF")
            target.execute("PRAGMA synchronous=OFF")
            return write_overlay(source, target, paths)
        finally:
            target.close()
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def write_overlay(source: sqlite3.Connection, target: sqlite3.Connection, paths: Sequence[str]) -> int:
    """Copy the rows of the files ``paths`` that ``source`` sees (its own uncommitted writes
    included) into the empty store ``target``, with the indexes a resolution's reads use, and
    commit. Returns the number of rows copied."""
    target.execute("BEGIN")
    for table in OVERLAY_TABLES:
        target.execute(table_statement(table))
    columns = {
        table: [row[1] for row in target.execute(f"PRAGMA table_info({table})")] for table in OVERLAY_TABLES
    }
    copied = 0
    for start in range(0, len(paths), OVERLAY_BATCH):
        batch = list(paths[start : start + OVERLAY_BATCH])
        marks = ",".join("?" * len(batch))
        ids = [row[0] for row in source.execute(f"SELECT id FROM files WHERE path IN ({marks})", batch)]
        keys = [file_key(path) for path in batch]
        selections = {
            "files": (f"path IN ({marks})", batch),
            "nodes": (f"file_key IN ({marks})", keys),
        }
        for table in OVERLAY_TABLES:
            where, args = selections.get(table, (f"file_id IN ({','.join('?' * len(ids))})", ids))
            if not args:
                continue
            names = columns[table]
            rows = source.execute(f"SELECT {', '.join(names)} FROM {table} WHERE {where}", args).fetchall()
            target.executemany(f"INSERT INTO {table} VALUES ({','.join('?' * len(names))})", rows)
            copied += len(rows)
    for table in OVERLAY_TABLES:  # the indexes the reads use, and the same ones: the same row order
        for name, statement in index_statements(table):
            if name.endswith("_file"):
                target.execute(statement)
    target.execute(NODES_NAMED_INDEX)
    target.execute("COMMIT")
    return copied


class OverlaidNodePaths(NodePaths):
    """Node id -> path: a changed file's nodes from the overlay, any other file's from the store."""

    def __init__(
        self, conn: sqlite3.Connection, overlay: sqlite3.Connection, changed: frozenset[str], limit: int
    ) -> None:
        super().__init__(conn, limit)
        self.overlay = overlay
        self.changed = changed

    def read(self, node_id: int) -> str | None:
        row = self.overlay.execute(NODE_PATH_SQL, (node_id,)).fetchone()
        if row is not None:
            return str(row[0])
        path = super().read(node_id)
        return None if path in self.changed else path  # a node the change removed


class OverlaidFactStore(FactStore):
    """The facts the writer's transaction sees, read from the committed store ``conn`` and the
    overlay ``overlay`` holding the rows of the ``changed`` files (added, modified and removed)."""

    def __init__(
        self, conn: sqlite3.Connection, overlay: sqlite3.Connection, changed: frozenset[str], index: PathIndex
    ) -> None:
        super().__init__(conn, index)
        self.overlay = overlay
        self.changed = changed
        self.where = OverlaidNodePaths(conn, overlay, changed, WHERE_ENTRIES)

    def _source(self, path: str) -> sqlite3.Connection:
        return self.overlay if path in self.changed else self.conn

    def load_model(self, path: str) -> FileModel | None:
        return load_model(self._source(path), path)

    def load_interface(self, path: str) -> FileModel | None:
        return load_interface(self._source(path), path)

    def read_named(self, name: str) -> list[NamedDefinition]:
        changed = self.changed
        kept = [d for d in read_named(self.conn, name) if d.path not in changed]
        added = read_named(self.overlay, name)
        if not added:
            return kept
        # both in the store's order (path, qualified name, id; SQLite's binary order of UTF-8 text is
        # Python's order of the decoded strings)
        return list(heapq.merge(kept, added, key=lambda d: (d.path, d.qualified, d.node_id)))

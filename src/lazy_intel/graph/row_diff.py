"""Replace one file's node or edge rows by writing only the rows that differ.

An edit's sync used to delete every node and edge row of the edited file and insert them all again:
for Django's largest files (2,000-6,000 rows each) that was ~100 ms of CPU per edit, and more of the
commit's dirty pages than anything else (five indexes on ``nodes``, four on ``edges``). Most rows of an
edited file are the same as before (an appended function moves none of the others; an edit higher up
moves only the byte and line columns of what follows), so the rows are compared with what the store
holds and only the difference is written. The tables end in the same state as delete-then-insert
would leave them (node ids are the primary key; edge rows are compared as a multiset of their
values, their own row ids carry no meaning: the store dump leaves them out).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

NODE_FIELDS = (
    "id, file_key, label, labels, name, qualified_name, kind, path, lang, start_byte, end_byte, "
    "start_line, end_line, properties"
)
EDGE_FIELDS = (
    "file_key, type, src, dst, strategy, confidence, target, path, start_byte, end_byte, line, properties"
)
INSERT_NODE = f"INSERT OR REPLACE INTO nodes({NODE_FIELDS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
INSERT_EDGE = f"INSERT INTO edges({EDGE_FIELDS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"


def replace_file_nodes(conn: sqlite3.Connection, key: int, rows: Sequence[tuple[object, ...]]) -> int:
    """Make the nodes of ``key`` exactly ``rows`` (tuples in :data:`NODE_FIELDS` order, a later row
    of the same id winning, as ``INSERT OR REPLACE`` of all of them after deleting the file's rows
    would); returns how many rows were written."""
    old = {row[0]: row for row in conn.execute(f"SELECT {NODE_FIELDS} FROM nodes WHERE file_key=?", (key,))}
    new = {row[0]: tuple(row) for row in rows}
    stale = [(node_id,) for node_id in old if node_id not in new]
    if stale:
        conn.executemany("DELETE FROM nodes WHERE id=?", stale)
    changed = [row for node_id, row in new.items() if old.get(node_id) != row]
    if changed:
        conn.executemany(INSERT_NODE, changed)
    return len(changed)


def replace_file_edges(conn: sqlite3.Connection, key: int, rows: Sequence[tuple[object, ...]]) -> int:
    """Make the edges of ``key`` exactly ``rows`` (tuples in :data:`EDGE_FIELDS` order) as a multiset:
    equal rows already stored are kept, the others deleted, the missing ones inserted; returns how
    many rows were inserted."""
    held: dict[tuple[object, ...], list[int]] = {}
    for edge_id, *values in conn.execute(f"SELECT id, {EDGE_FIELDS} FROM edges WHERE file_key=?", (key,)):
        held.setdefault(tuple(values), []).append(edge_id)
    fresh = []
    for row in rows:
        ids = held.get(tuple(row))
        if ids:
            ids.pop()
        else:
            fresh.append(row)
    stale = [(edge_id,) for ids in held.values() for edge_id in ids]
    if stale:
        conn.executemany("DELETE FROM edges WHERE id=?", stale)
    if fresh:
        conn.executemany(INSERT_EDGE, fresh)
    return len(fresh)

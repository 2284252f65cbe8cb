"""Graph edges a live language server confirmed, kept until either end's file changes.

When a fused answer finds that a server reported exactly the use an indexed edge records (the same
site, into the same definition), the edge is *confirmed*: the answer shows it with strategy
``lsp-confirmed`` and confidence :data:`CONFIRMED_CONFIDENCE`, and the confirmation is written to
``<state>/semantic/confirmed.sqlite`` keyed by the site (path, byte span, edge type), the target node
and the SHA-256 of *both* files as indexed. Later index answers (no server, or a server that fails)
show the upgrade while both hashes still match the view; an edit to either file makes the key miss,
and the next write for that file drops the stale rows. The published store is never written by a
reader: this side file is derived evidence, like the history store.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from lazy_intel.graph.queries import GraphEdge
from lazy_intel.workspace.state import StateDir

logger = logging.getLogger(__name__)

CONFIRMED_STRATEGY = "lsp-confirmed"
CONFIRMED_CONFIDENCE = 0.99
BUSY_TIMEOUT_S = 5.0
BATCH = 400

_SCHEMA = """
CREATE TABLE IF NOT EXISTS confirmed(
    path TEXT NOT NULL, sha256 TEXT NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,
    type TEXT NOT NULL, dst INTEGER NOT NULL, dst_sha256 TEXT NOT NULL, server_id TEXT NOT NULL,
    observed_at REAL NOT NULL,
    PRIMARY KEY(path, sha256, start_byte, end_byte, type, dst)) WITHOUT ROWID;
"""

Key = tuple[str, int, int, str, int]  # path, start, end, type, dst


def edge_key(edge: GraphEdge) -> Key | None:
    if edge.path is None or edge.start_byte is None or edge.end_byte is None or edge.dst is None:
        return None
    return (edge.path, edge.start_byte, edge.end_byte, edge.type, edge.dst)


def upgraded(edge: GraphEdge, server_id: str) -> GraphEdge:
    """The edge as a confirmed one: strategy ``lsp-confirmed``, confidence raised, the server named."""
    properties = dict(edge.properties)
    properties.update({"confirmed_by": server_id, "resolved_by": edge.strategy})
    return replace(
        edge,
        strategy=CONFIRMED_STRATEGY,
        confidence=max(edge.confidence, CONFIRMED_CONFIDENCE),
        properties_json=json.dumps(properties, sort_keys=True),
    )


class Confirmations:
    """The confirmation side file of one workspace."""

    def __init__(self, state: StateDir) -> None:
        self.state = state

    def _connect(self) -> sqlite3.Connection:
        path: Path = self.state.subdir("semantic") / "confirmed.sqlite"
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_SCHEMA)
        return conn

    def record(
        self,
        edges: Iterable[GraphEdge],
        hashes: Mapping[str, str],
        dst_paths: Mapping[int, str],
        server_id: str,
    ) -> int:
        """Store confirmations of ``edges`` (``hashes``: path -> sha256 as indexed). Returns how many."""
        rows = []
        for edge in edges:
            key = edge_key(edge)
            if key is None:
                continue
            dst_path = dst_paths.get(key[4])
            if key[0] not in hashes or dst_path is None or dst_path not in hashes:
                continue
            rows.append((key[0], hashes[key[0]], key[1], key[2], key[3], key[4], hashes[dst_path], server_id))
        if not rows:
            return 0
        try:
            conn = self._connect()
        except (sqlite3.Error, OSError) as exc:
            logger.warning("confirmations not kept: %s", exc)
            return 0
        try:
            now = time.time()
            conn.execute("BEGIN IMMEDIATE")
            for path in {r[0] for r in rows}:  # rows of older versions of these files are dead
                conn.execute("DELETE FROM confirmed WHERE path = ? AND sha256 <> ?", (path, hashes[path]))
            conn.executemany(
                "INSERT OR REPLACE INTO confirmed VALUES(?,?,?,?,?,?,?,?,?)", [(*r, now) for r in rows]
            )
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            logger.warning("confirmations not kept: %s", exc)
            return 0
        finally:
            conn.close()
        return len(rows)

    def lookup(
        self, edges: Iterable[GraphEdge], hashes: Mapping[str, str], dst_paths: Mapping[int, str]
    ) -> dict[Key, str]:
        """The confirmed ones among ``edges`` whose two files still hash as confirmed: key -> server."""
        wanted: dict[Key, GraphEdge] = {}
        for edge in edges:
            key = edge_key(edge)
            if key is not None:
                wanted[key] = edge
        if not wanted or not (self.state.path / "semantic" / "confirmed.sqlite").is_file():
            return {}
        try:
            conn = self._connect()
        except (sqlite3.Error, OSError):
            return {}
        found: dict[Key, str] = {}
        try:
            paths = sorted({k[0] for k in wanted})
            for start in range(0, len(paths), BATCH):
                batch = paths[start : start + BATCH]
                marks = ",".join("?" * len(batch))
                for path, sha, s, e, kind, dst, dst_sha, server in conn.execute(
                    "SELECT path, sha256, start_byte, end_byte, type, dst, dst_sha256, server_id FROM confirmed "
                    f"WHERE path IN ({marks})",
                    batch,
                ):
                    key = (path, s, e, kind, dst)
                    dst_path = dst_paths.get(dst)
                    if (
                        key in wanted
                        and hashes.get(path) == sha
                        and dst_path is not None
                        and hashes.get(dst_path) == dst_sha
                    ):
                        found[key] = server
        except sqlite3.Error:
            return {}
        finally:
            conn.close()
        return found

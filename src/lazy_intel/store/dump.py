"""A canonical, id-free dump of a store: what "incremental equals clean" compares.

Row ids differ between a store built incrementally and one built from scratch; everything else
(paths, hashes, spans, names, tokens, meta that describes content) must be identical.
"""

from __future__ import annotations

import sqlite3

# meta keys that describe how/when a store was written, not what it holds
VOLATILE_META = frozenset(
    {
        "generation",
        "published_at",
        "last_capture_ns",
        "scope_source",
        "fts_deleted_rows",
        "graph_listing",
        "row_counts",
        "chunk_changes",
        "schema_upgraded_from",
        "pgvector_column",  # PostgreSQL only: the store's dense queries run through pgvector
    }
)


def canonical_dump(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    q = conn.execute
    dump: dict[str, list[tuple[object, ...]]] = {}
    dump["meta"] = sorted(r for r in q("SELECT key, value FROM meta") if r[0] not in VOLATILE_META)
    dump["files"] = sorted(
        q(
            "SELECT path, sha256, size, lang, status, reason, encoding, line_count, syntax_errors FROM files"
        ).fetchall()
    )
    dump["contents"] = sorted(q("SELECT sha256, length(data) FROM contents").fetchall())
    dump["symbols"] = sorted(
        q(
            "SELECT f.path, s.ordinal, s.name, s.qualified_name, s.kind, s.start_byte, s.end_byte, s.start_line, "
            "s.end_line, s.name_start_byte, s.name_end_byte, s.signature, s.doc, s.parent_name, p.qualified_name "
            "FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id"
        ).fetchall(),
        key=repr,
    )
    dump["chunks"] = sorted(
        q(
            "SELECT f.path, c.start_byte, c.end_byte, c.start_line, c.end_line, c.window, c.content_sha, c.embed_sha, "
            "s.qualified_name, s.ordinal, t.name, t.qualified, t.signature, t.doc, t.body, t.path, t.stems "
            "FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
            "JOIN chunks_fts t ON t.rowid = c.id"
        ).fetchall(),
        key=repr,
    )
    dump["refs"] = sorted(
        q(
            "SELECT f.path, r.name, r.kind, r.start_byte, r.end_byte, r.line, r.name_start_byte, r.name_end_byte, "
            "r.scope_name, r.receiver, r.callee, r.args FROM refs r JOIN files f ON f.id = r.file_id"
        ).fetchall(),
        key=repr,
    )
    dump["imports"] = sorted(
        q(
            "SELECT f.path, i.module, i.name, i.alias, i.start_byte, i.end_byte, i.line, i.scope_name, i.wildcard "
            "FROM imports i JOIN files f ON f.id = i.file_id"
        ).fetchall(),
        key=repr,
    )
    dump["flows"] = sorted(
        q(
            "SELECT f.path, w.kind, w.scope_name, w.target, w.value, w.annotation, w.position, w.start_byte, "
            "w.end_byte, w.line, w.condition_path FROM flows w JOIN files f ON f.id = w.file_id"
        ).fetchall(),
        key=repr,
    )
    dump["nodes"] = sorted(
        q(
            "SELECT id, file_key, label, labels, name, qualified_name, kind, path, lang, start_byte, end_byte, "
            "start_line, end_line, properties FROM nodes"
        ).fetchall(),
        key=repr,
    )
    # node ids are content-derived (stable), so edges compare by their endpoints' ids directly
    dump["edges"] = sorted(
        q(
            "SELECT file_key, type, src, dst, strategy, confidence, target, path, start_byte, end_byte, line, "
            "properties FROM edges"
        ).fetchall(),
        key=repr,
    )
    dump["graph_files"] = sorted(
        q("SELECT path, file_key, interface_sha, definitions, deps FROM graph_files").fetchall()
    )
    dump["graph_deps"] = sorted(q("SELECT token, file_key FROM graph_deps").fetchall())
    # vectors: which texts have a vector of which profile (float bits may differ with batch composition)
    dump["vectors"] = sorted(q("SELECT embed_sha, profile, length(data) FROM vectors").fetchall())
    dump["fts_rows"] = [(q("SELECT count(*) FROM chunks_fts").fetchone()[0],)]
    return dump

"""Bring the graph tables up to date inside the publication transaction (DESIGN §4 "Sync").

For each added, changed or removed file: rewrite its nodes and re-resolve its edges. Then
re-resolve every *other* file whose last resolution read something that changed:

* ``f:<path>`` — it read a changed file whose interface digest moved (definitions, imports,
  bases, decorators, module-level values or returns changed — not a body-only edit);
* ``n:<name>`` — it looked up a name whose set of definitions changed (added, removed, renamed);
* ``s:``/``d:``/``ds:`` — it looked up a path, directory or suffix a file now appears at or left.

Edges into a changed file from files that are not re-resolved stay valid because node ids are
content-derived; edges whose target went away are re-resolved because the target's name or
file interface changed. ``tests/graph/test_incremental.py`` checks the result equals a clean build.
"""

from __future__ import annotations

import logging
import posixpath
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from lazy_intel.graph.model import file_key, file_node_id, module_node_id
from lazy_intel.graph.modules import PathIndex, dirty_tokens_for_paths
from lazy_intel.graph.nodes import file_nodes
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file
from lazy_intel.graph.rows import CONFIDENCE, EdgeRow, NodeRow, labels_text
from lazy_intel.parse.languages import is_parsed_language

logger = logging.getLogger(__name__)

# Bump when resolution changes what it writes: a store built by another version is rebuilt.
RESOLVER_VERSION = "3"
MODULE_KEY = 0


@dataclass(frozen=True)
class GraphDelta:
    upserted: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    full: bool = False


@dataclass
class GraphReport:
    changed: int = 0
    dependents: int = 0
    nodes: int = 0
    edges: int = 0
    exhausted: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "changed_files": self.changed,
            "dependent_files": self.dependents,
            "nodes_written": self.nodes,
            "edges_written": self.edges,
            "seconds": round(self.seconds, 3),
        }


def _insert_nodes(conn: sqlite3.Connection, nodes: list[NodeRow]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO nodes(id, file_key, label, labels, name, qualified_name, kind, path, lang, "
        "start_byte, end_byte, start_line, end_line, properties) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                n.id,
                n.file_key,
                n.label,
                n.labels,
                n.name,
                n.qualified_name,
                n.kind,
                n.path,
                n.lang,
                n.start_byte,
                n.end_byte,
                n.start_line,
                n.end_line,
                n.properties,
            )
            for n in nodes
        ],
    )


def _insert_edges(conn: sqlite3.Connection, edges: list[EdgeRow]) -> None:
    conn.executemany(
        "INSERT INTO edges(file_key, type, src, dst, strategy, confidence, target, path, start_byte, end_byte, "
        "line, properties) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                e.file_key,
                e.type,
                e.src,
                e.dst,
                e.strategy,
                e.confidence,
                e.target,
                e.path,
                e.start_byte,
                e.end_byte,
                e.line,
                e.properties,
            )
            for e in edges
        ],
    )


def _module_rows(index: PathIndex) -> tuple[list[NodeRow], list[EdgeRow]]:
    """Module nodes (one per directory holding parsed files, and their ancestors) and CONTAINS edges."""
    directories: set[str] = set()
    for leaf in index.directories():
        directory = leaf
        while True:
            directories.add(directory)
            if not directory:
                break
            directory = posixpath.dirname(directory)
    nodes, edges = [], []
    for directory in sorted(directories):
        name = posixpath.basename(directory) or "."
        nodes.append(
            NodeRow(
                module_node_id(directory),
                MODULE_KEY,
                "Module",
                labels_text("Module"),
                name,
                directory or ".",
                "package",
                directory,
                None,
                None,
                None,
                None,
                None,
                None,
            )
        )
        if directory:
            parent = posixpath.dirname(directory)
            edges.append(
                EdgeRow(
                    MODULE_KEY,
                    "CONTAINS",
                    module_node_id(parent),
                    module_node_id(directory),
                    "syntax",
                    CONFIDENCE["syntax"],
                    name,
                    None,
                    None,
                    None,
                    None,
                    None,
                )
            )
    for path in sorted(index.files):
        edges.append(
            EdgeRow(
                MODULE_KEY,
                "CONTAINS",
                module_node_id(posixpath.dirname(path)),
                file_node_id(path),
                "syntax",
                CONFIDENCE["syntax"],
                posixpath.basename(path),
                None,
                None,
                None,
                None,
                None,
            )
        )
    return nodes, edges


def update_graph(
    conn: sqlite3.Connection, delta: GraphDelta, *, progress: Callable[[int, int], None] | None = None
) -> GraphReport:
    """Apply ``delta`` to the graph tables on ``conn`` (inside the caller's write transaction).

    ``progress(done, total)`` is told how many files have had their edges resolved."""
    started = time.monotonic()
    report = GraphReport()
    files: dict[str, str] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for path, lang, size, lines in conn.execute(
        "SELECT path, lang, size, line_count FROM files WHERE status='indexed' AND lang IS NOT NULL"
    ):
        if is_parsed_language(lang):
            files[path] = lang
            sizes[path] = (size, lines)
    index = PathIndex(files)
    store = FactStore(conn, index)
    indexes: dict[str, list[str]] = {"nodes": [], "edges": []}
    if delta.full:
        for table in ("nodes", "edges", "graph_files"):
            conn.execute(f"DELETE FROM {table}")
        changed = sorted(files)
        # bulk insert without the secondary indexes, then build each index once
        for name, table, sql in conn.execute(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type='index' "
            "AND tbl_name IN ('nodes', 'edges') AND sql IS NOT NULL ORDER BY name"
        ).fetchall():
            conn.execute(f"DROP INDEX {name}")
            indexes[table].append(sql)
    else:
        changed = sorted(set(delta.upserted) | set(delta.removed))
    dirty: set[str] = set()
    appeared_or_left: list[str] = []
    pending: list[str] = []
    interfaces: dict[str, tuple[str, set[str]] | None] = {}
    for path in changed:
        key = file_key(path)
        old = None
        if not delta.full:  # a full build starts from empty tables
            old = conn.execute(
                "SELECT interface_sha, definitions FROM graph_files WHERE path=?", (path,)
            ).fetchone()
            conn.execute("DELETE FROM nodes WHERE file_key=?", (key,))
            conn.execute("DELETE FROM edges WHERE file_key=?", (key,))
            conn.execute("DELETE FROM graph_files WHERE path=?", (path,))
        model = store.model(path) if path in files else None
        old_interface, old_definitions = (old[0], set(old[1].split("\n")) - {""}) if old else (None, set())
        if model is None:
            new_interface, new_definitions = None, set()
        else:
            size, lines = sizes[path]
            nodes = file_nodes(model, size, lines)
            _insert_nodes(conn, nodes)
            report.nodes += len(nodes)
            new_interface = model.interface().digest()
            new_definitions = set(model.definition_identities())
            pending.append(path)
        if (old is None) != (model is None):
            appeared_or_left.append(path)
        if old_interface != new_interface:
            dirty.add("f:" + path)
        dirty.update("n:" + line.split("\t", 1)[0] for line in old_definitions ^ new_definitions)
        interfaces[path] = (new_interface, new_definitions) if model is not None else None
    for sql in indexes["nodes"]:  # name lookups during resolution need them
        conn.execute(sql)
    dirty |= dirty_tokens_for_paths(appeared_or_left)
    dependents: list[str] = []
    if dirty and not delta.full:
        changed_set = set(changed)
        for path, deps in conn.execute("SELECT path, deps FROM graph_files"):
            if path not in changed_set and not dirty.isdisjoint(deps.split("\n")):
                dependents.append(path)
    if delta.full or appeared_or_left:
        conn.execute("DELETE FROM nodes WHERE file_key=?", (MODULE_KEY,))
        conn.execute("DELETE FROM edges WHERE file_key=?", (MODULE_KEY,))
        module_nodes, module_edges = _module_rows(index)
        _insert_nodes(conn, module_nodes)
        _insert_edges(conn, module_edges)
    to_resolve = sorted(pending + dependents)
    for done, path in enumerate(to_resolve):
        if progress is not None:
            progress(done, len(to_resolve))
        model = store.model(path)
        if model is None:
            continue
        key = file_key(path)
        if path in dependents:
            conn.execute("DELETE FROM edges WHERE file_key=?", (key,))
        graph = resolve_file(store, model)
        _insert_edges(conn, graph.edges)
        report.edges += len(graph.edges)
        if graph.exhausted:
            report.exhausted.append(path)
        deps = "\n".join(sorted(graph.deps))
        if path in dependents:
            conn.execute("UPDATE graph_files SET deps=? WHERE path=?", (deps, path))
        else:
            interface, definitions = interfaces[path] or ("", set())
            conn.execute(
                "INSERT INTO graph_files(path, file_key, interface_sha, definitions, deps) VALUES (?,?,?,?,?)",
                (path, key, interface, "\n".join(sorted(definitions)), deps),
            )
    if progress is not None:
        progress(len(to_resolve), len(to_resolve))
    for sql in indexes["edges"]:
        conn.execute(sql)
    report.changed = len(changed)
    report.dependents = len(dependents)
    report.seconds = time.monotonic() - started
    if report.exhausted:
        logger.info(
            "value-flow budget exhausted in %d file(s): %s", len(report.exhausted), report.exhausted[:5]
        )
    return report

"""Index a fixture repository and read its graph back as readable tuples (names, not ids)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings, load_settings
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect
from tests.conftest import write_tree


@dataclass(frozen=True)
class Edge:
    type: str
    src: str  # "path::qualified" of the source node ("path" for a File node)
    dst: str | None  # likewise, None when unresolved
    strategy: str
    confidence: float
    target: str | None
    line: int | None
    props: dict[str, object]


class Graph:
    """The nodes and edges of one store, keyed by ``path::qualified_name``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.names: dict[int, str] = {}
        self.labels: dict[str, str] = {}
        self.node_props: dict[str, dict[str, object]] = {}
        self.every_node_props: list[tuple[str, dict[str, object]]] = []  # names may repeat (a setter)
        for node_id, label, labels, qualified, path, properties in conn.execute(
            "SELECT id, label, labels, qualified_name, path, properties FROM nodes"
        ):
            if label == "File":
                name = path
            elif label == "Module":
                name = f"<module {qualified}>"
            else:
                name = f"{path}::{qualified}"
            self.names[node_id] = name
            self.labels[name] = labels
            self.node_props[name] = json.loads(properties) if properties else {}
            self.every_node_props.append((name, self.node_props[name]))
        self.edges: list[Edge] = []
        for type_, src, dst, strategy, confidence, target, line, properties in conn.execute(
            "SELECT type, src, dst, strategy, confidence, target, line, properties FROM edges"
        ):
            self.edges.append(
                Edge(
                    type_,
                    self.names.get(src, f"<missing {src}>"),
                    None if dst is None else self.names.get(dst, f"<missing {dst}>"),
                    strategy,
                    confidence,
                    target,
                    line,
                    json.loads(properties) if properties else {},
                )
            )

    def of(self, type_: str, src: str | None = None, dst: str | None = None) -> list[Edge]:
        return [
            e
            for e in self.edges
            if e.type == type_ and (src is None or e.src == src) and (dst is None or e.dst == dst)
        ]

    def pairs(self, type_: str) -> set[tuple[str, str | None]]:
        return {(e.src, e.dst) for e in self.of(type_)}

    def resolved(self, type_: str) -> dict[tuple[str, str], str]:
        """(src, dst) -> strategy, for resolved edges of ``type_``."""
        return {(e.src, e.dst): e.strategy for e in self.of(type_) if e.dst is not None}

    def call_targets(self, src: str, written: str) -> list[tuple[str | None, str]]:
        """(target, strategy) of every CALLS edge of ``src`` at a site written ``written``, sorted."""
        return sorted((e.dst, e.strategy) for e in self.of("CALLS", src) if e.target == written)

    def unresolved(self, type_: str, src: str | None = None) -> list[Edge]:
        return [e for e in self.of(type_, src) if e.dst is None]

    def dangling(self) -> list[Edge]:
        """Edges whose endpoints are not nodes of the store (never acceptable)."""
        return [e for e in self.edges if e.src.startswith("<missing") or (e.dst or "").startswith("<missing")]


def index_repo(root: Path, state: Path, *, rebuild: bool = False) -> Workspace:
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=state)
    ws.sync(rebuild=rebuild)
    return ws


@contextmanager
def indexed_workspace(base: Path, files: Mapping[str, str]) -> Iterator[Workspace]:
    """``files`` written under ``base/repo`` and indexed (the workspace closed afterwards)."""
    root = base / "repo"
    root.mkdir()
    write_tree(root, files)
    ws = index_repo(root, base / "state")
    try:
        yield ws
    finally:
        ws.close()


def graph_of(ws: Workspace) -> Graph:
    path = ws.store_path()
    assert path is not None
    conn = connect(str(path), readonly=True)
    try:
        return Graph(conn)
    finally:
        conn.close()


def dump_of(ws: Workspace) -> dict[str, list[tuple[object, ...]]]:
    path = ws.store_path()
    assert path is not None
    conn = connect(str(path), readonly=True)
    try:
        return canonical_dump(conn)
    finally:
        conn.close()


def rebuilt_dump(root: Path, state: Path, settings: Settings) -> dict[str, list[tuple[object, ...]]]:
    """The dump of a clean rebuild of ``root`` into ``state`` (what an incremental store must equal)."""
    ws = Workspace.open(root, settings=settings, state_dir=state)
    try:
        ws.sync(rebuild=True)
        return dump_of(ws)
    finally:
        ws.close()


def files_whose_edges_differ(
    before: dict[str, list[tuple[object, ...]]], after: dict[str, list[tuple[object, ...]]]
) -> set[str]:
    """Paths (of ``after``'s graph files) whose edges differ between two dumps: edges grouped by
    their ``file_key``, the first column of a dump's edge rows (``store/dump.py``)."""

    def by_file(dump: dict[str, list[tuple[object, ...]]]) -> dict[object, set[tuple[object, ...]]]:
        out: dict[object, set[tuple[object, ...]]] = {}
        for edge in dump["edges"]:
            out.setdefault(edge[0], set()).add(edge)
        return out

    old, new = by_file(before), by_file(after)
    paths = {row[1]: str(row[0]) for row in after["graph_files"]}
    return {paths[k] for k in old.keys() | new.keys() if old.get(k) != new.get(k) and k in paths}


def build_graph(tmp_path: Path, files: Mapping[str, str]) -> Graph:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, files)
    graph = graph_of(index_repo(root, tmp_path / "state"))
    assert graph.dangling() == []
    return graph


def serial_store(tmp_path: Path, files: Mapping[str, str | bytes]) -> Path:
    """The published store of ``files`` written under ``tmp_path/repo``, built by one parse worker
    (for tests that read what the graph build wrote)."""
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, files)
    ws = Workspace.open(root, settings=load_settings(env={}, parse_workers=1), state_dir=tmp_path / "state")
    try:
        ws.sync(rebuild=True)
        store = ws.store_path()
    finally:
        ws.close()
    assert store is not None
    return store

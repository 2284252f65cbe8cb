"""The view one file's resolution has of the rest of the program, with every read recorded.

:class:`FactStore` loads file models from the store (shared by all resolutions of one build: it
holds pure data). :class:`Program` is one resolution's window onto it: the file being resolved
is seen in full, every other file only through its interface, and each read adds a dependency
token (:mod:`lazy_intel.graph.modules`) so the build knows what to re-resolve after a change.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from dataclasses import dataclass

from lazy_intel.graph.model import FileModel, Symbol, load_model
from lazy_intel.graph.modules import Deps, PathIndex

MODEL_CACHE = 512
# node kinds that are not definitions other files can name
LOCAL_KINDS = ("local", "parameter")


@dataclass(frozen=True)
class NamedDefinition:
    node_id: int
    path: str
    qualified: str
    kind: str
    parent: str | None


class FactStore:
    """Models of the files in one store, loaded on demand and kept in a bounded cache."""

    def __init__(self, conn: sqlite3.Connection, index: PathIndex) -> None:
        self.conn = conn
        self.index = index
        self._models: OrderedDict[str, FileModel | None] = OrderedDict()
        self._interfaces: OrderedDict[str, FileModel | None] = OrderedDict()
        self._names: dict[str, list[NamedDefinition]] = {}

    def model(self, path: str) -> FileModel | None:
        if path in self._models:
            self._models.move_to_end(path)
            return self._models[path]
        model = load_model(self.conn, path)
        self._models[path] = model
        if len(self._models) > MODEL_CACHE:
            self._models.popitem(last=False)
        return model

    def interface(self, path: str) -> FileModel | None:
        if path in self._interfaces:
            self._interfaces.move_to_end(path)
            return self._interfaces[path]
        model = self.model(path)
        projection = model.interface() if model is not None else None
        self._interfaces[path] = projection
        if len(self._interfaces) > MODEL_CACHE:
            self._interfaces.popitem(last=False)
        return projection

    def forget(self, path: str) -> None:
        self._models.pop(path, None)
        self._interfaces.pop(path, None)

    def named(self, name: str) -> list[NamedDefinition]:
        """Every definition called ``name`` (symbol nodes of the current view), in a stable order."""
        found = self._names.get(name)
        if found is None:
            found = [
                NamedDefinition(*row)
                for row in self.conn.execute(
                    "SELECT id, path, qualified_name, kind, json_extract(properties, '$.parent') FROM nodes "
                    "WHERE name=? AND file_key != 0 AND kind IS NOT NULL AND kind NOT IN (?, ?) "
                    "AND label NOT IN ('File', 'Route') ORDER BY path, qualified_name, id",
                    (name, *LOCAL_KINDS),
                )
            ]
            self._names[name] = found
        return found

    def clear_names(self) -> None:
        self._names.clear()


class Program:
    """One resolution's window: ``focus`` in full, the others through their interfaces."""

    def __init__(self, store: FactStore, focus: FileModel) -> None:
        self.store = store
        self.focus = focus
        self.index = store.index
        self.deps = Deps()
        self._symbols: dict[int, tuple[FileModel, Symbol]] = {}
        self._where: dict[int, str] = {}
        self._register(focus)

    def _register(self, model: FileModel) -> None:
        for symbol in model.symbols:
            self._symbols.setdefault(symbol.node_id, (model, symbol))

    def model(self, path: str) -> FileModel | None:
        if path == self.focus.path:
            return self.focus
        self.deps.add("f:" + path)
        model = self.store.interface(path)
        if model is not None:
            self._register(model)
        return model

    def symbol(self, node_id: int) -> tuple[FileModel, Symbol] | None:
        entry = self._symbols.get(node_id)
        if entry is None and node_id in self._where:
            self.model(self._where[node_id])
            entry = self._symbols.get(node_id)
        return entry

    def named(self, name: str) -> list[NamedDefinition]:
        """Definitions called ``name`` anywhere (the unique-name strategy), without reading their files.

        Ordered by identity (path, qualified name), never by position, so moving code cannot change
        which candidates a bounded consumer sees.
        """
        self.deps.add("n:" + name)
        found = self.store.named(name)
        for definition in found:
            self._where.setdefault(definition.node_id, definition.path)
        return found

    def lang(self, path: str) -> str | None:
        return self.index.files.get(path)

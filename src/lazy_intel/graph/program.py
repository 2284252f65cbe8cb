"""The view one file's resolution has of the rest of the program, with every read recorded.

:class:`FactStore` loads file models from the store (shared by all resolutions of one build: it
holds pure data). :class:`Program` is one resolution's window onto it: the file being resolved
is seen in full, every other file only through its interface, and each read adds a dependency
token (:mod:`lazy_intel.graph.modules`) so the build knows what to re-resolve after a change.
"""

from __future__ import annotations

import sqlite3
import time
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, TypeVar

from lazy_intel.graph.interface_view import InterfaceView, top
from lazy_intel.graph.model import FileModel, Symbol, load_interface, load_model
from lazy_intel.graph.modules import GO_MODULES_TOKEN, RUST_CRATES_TOKEN, Deps, PathIndex, go_module_path
from lazy_intel.graph.php_autoload import MANIFEST_NAME as PHP_MANIFEST
from lazy_intel.graph.php_autoload import PHP_AUTOLOAD_TOKEN, read_psr4
from lazy_intel.graph.tsconfig import (
    TS_CONFIGS_TOKEN,
    ConfigFile,
    PathMapping,
    effective_mappings,
    is_config_name,
    read_config_file,
)
from lazy_intel.graph.workspace_packages import (
    MANIFEST,
    PACKAGES_TOKEN,
    WorkspacePackage,
    by_name,
    read_package,
)
from lazy_intel.parse.languages import GO_MODULE_LANG
from lazy_intel.store.schema import NAMED_DEFINITION_WHERE

T = TypeVar("T")
MODEL_CACHE = 64  # full models: the focus file and a few recent ones
# interfaces kept per process (a resolve worker of the Django build reads ~1,100 of 2,900): each
# holds ~0.09 MB (flows above all) and a reload costs ~1 ms. 256 keeps a worker's peak at 153 MB
# against 175 at 512, for ~420 more reloads of its 1,448 files (~0.5 CPU-s); issue 14,
# docs/design/indexing.md ("Peak RSS headroom")
INTERFACE_CACHE = 256
# pure demand results kept per process (FactStore.share)
SHARED_RESULTS = 16384
# definitions kept by name lookups (FactStore.named), counted over all names held: a 100k-file tree
# has millions, and a worker that kept every name it looked up grew past 1 GB (issue 15)
NAMED_DEFINITIONS = 200_000
# What an incremental update hands the next one (graph/listing.py): only the lookups that were
# dear to read — a common name at 100k files walks 17-28k node rows, 0.1-0.25 s — and at most this
# many definitions of them (~0.3 KB each, held between edits: a server's resident memory). On a
# small tree no lookup is that dear and nothing is held.
CARRIED_LOOKUP_MIN_S = 0.005
CARRIED_NAMED_DEFINITIONS = 20_000
# node id -> path entries kept (FactStore.where); a miss reads the nodes table
WHERE_ENTRIES = 200_000
# node kinds that are not definitions other files can name (spelled in NAMED_DEFINITION_WHERE)
LOCAL_KINDS = ("local", "parameter")


@dataclass(frozen=True, slots=True)
class NamedDefinition:
    node_id: int
    path: str
    qualified: str
    kind: str
    parent: str | None
    getter: bool = False  # a method with a getter decorator (graph/nodes.py ``is_getter``)


NODE_PATH_SQL = "SELECT path FROM nodes WHERE id=? AND file_key != 0 AND label NOT IN ('File', 'Route')"
NAMED_SQL = (
    "SELECT id, path, qualified_name, kind, json_extract(properties, '$.parent'), "
    "json_extract(properties, '$.getter') IS NOT NULL FROM nodes "
    f"WHERE name=? AND {NAMED_DEFINITION_WHERE} ORDER BY path, qualified_name, id"
)


def read_named(conn: sqlite3.Connection, name: str) -> list[NamedDefinition]:
    """Every definition called ``name`` in the store on ``conn``, ordered by (path, qualified, id)."""
    return [
        NamedDefinition(*row[:5], bool(row[5]))  # type: ignore[call-arg]
        for row in conn.execute(NAMED_SQL, (name,))
    ]


def content_paths(tokens: frozenset[str]) -> frozenset[str]:
    """The files whose content a result read: the paths of its ``o:``/``r:``/``f:`` tokens."""
    out = set()
    for token in tokens:
        kind = token[:2]
        if kind == "f:":
            out.add(token[2:])
        elif kind in ("o:", "r:"):
            out.add(token[2:].split(":", 1)[0])
    return frozenset(out)


class NodePaths:
    """Node id -> path of the symbol nodes, read from the store's ``nodes`` table on a miss and kept
    in a bounded cache (models seen add theirs: they are in the table too). Every symbol of a file
    the resolution can name has its node row before resolution starts, so a bounded cache answers
    exactly what an unbounded map of every symbol seen would."""

    def __init__(self, conn: sqlite3.Connection, limit: int) -> None:
        self.conn = conn
        self.limit = limit
        self._paths: OrderedDict[int, str | None] = OrderedDict()

    def setdefault(self, node_id: int, path: str) -> None:
        if node_id not in self._paths:
            self._keep(node_id, path)

    def add_symbols(self, symbols: Iterable[Symbol], path: str) -> None:
        """``setdefault(s.node_id, path)`` for each symbol (one bound check at the end: the same
        entries are kept, as every id of one file is new or already present)."""
        paths = self._paths
        for symbol in symbols:
            if symbol.node_id not in paths:
                paths[symbol.node_id] = path
        while len(paths) > self.limit:
            paths.popitem(last=False)

    def get(self, node_id: int) -> str | None:
        paths = self._paths
        if node_id in paths:
            paths.move_to_end(node_id)
            return paths[node_id]
        path = self.read(node_id)
        self._keep(node_id, path)
        return path

    def read(self, node_id: int) -> str | None:
        """The path of symbol node ``node_id`` in the store (a cache miss)."""
        row = self.conn.execute(NODE_PATH_SQL, (node_id,)).fetchone()
        return row[0] if row else None

    def __len__(self) -> int:
        return len(self._paths)

    def _keep(self, node_id: int, path: str | None) -> None:
        self._paths[node_id] = path
        if len(self._paths) > self.limit:
            self._paths.popitem(last=False)


def _captured(conn: sqlite3.Connection, lang: str) -> Iterator[tuple[str, bytes]]:
    """(path, captured bytes) of every indexed file of the text type ``lang``."""
    for path, data in conn.execute(
        "SELECT f.path, c.data FROM files f JOIN contents c ON c.sha256 = f.sha256 "
        "WHERE f.lang = ? AND f.status = 'indexed'",
        (lang,),
    ):
        yield path, bytes(data)


def read_go_modules(conn: sqlite3.Connection) -> dict[str, str]:
    """The directory of every indexed go.mod -> its module path (from the captured bytes)."""
    out: dict[str, str] = {}
    for path, data in _captured(conn, GO_MODULE_LANG):
        module = go_module_path(data)
        if module is not None:
            out[path.rpartition("/")[0]] = module
    return out


def read_rust_crates(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Crate name (``-`` read as ``_``, as Rust code writes it) -> the root files of that package's
    library and binaries, from every indexed ``Cargo.toml``: ``[lib] path`` else ``src/lib.rs``,
    ``[[bin]] path`` else ``src/main.rs`` (the paths need not exist; callers look them up)."""
    out: dict[str, list[str]] = {}
    for path, data in _captured(conn, "toml"):
        if path.rpartition("/")[2] != "Cargo.toml":
            continue
        try:
            manifest = tomllib.loads(data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        package = manifest.get("package")
        if not isinstance(package, dict) or not isinstance(package.get("name"), str):
            continue
        directory = path.rpartition("/")[0]
        lib = manifest.get("lib") if isinstance(manifest.get("lib"), dict) else {}
        roots = [lib.get("path") if isinstance(lib.get("path"), str) else "src/lib.rs", "src/main.rs"]
        bins = manifest.get("bin") if isinstance(manifest.get("bin"), list) else []
        roots += [b["path"] for b in bins if isinstance(b, dict) and isinstance(b.get("path"), str)]
        files = [f"{directory}/{r}" if directory else r for r in roots]
        out.setdefault(package["name"].replace("-", "_"), []).extend(files)
    return out


def read_php_autoload(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every PSR-4 ``(namespace prefix, directory)`` the indexed composer.json files declare."""
    return [
        pair
        for path, data in _captured(conn, "json")
        if path.rpartition("/")[2] == PHP_MANIFEST
        for pair in read_psr4(path, data)
    ]


def read_ts_configs(conn: sqlite3.Connection) -> dict[str, PathMapping]:
    """The directory of every indexed tsconfig.json / jsconfig.json -> the path mapping it declares
    or inherits through ``extends`` (graph/tsconfig.py)."""
    files: dict[str, ConfigFile] = {}
    for path, data in _captured(conn, "json"):
        if is_config_name(path.rpartition("/")[2]):
            found = read_config_file(path, data)
            if found is not None:
                files[path] = found
    return effective_mappings(files)


def read_workspace_packages(conn: sqlite3.Connection) -> dict[str, WorkspacePackage]:
    """The tree's own packages by name, from every indexed ``package.json`` (graph/workspace_packages.py)."""
    found: dict[str, WorkspacePackage] = {}
    for path, data in _captured(conn, "json"):
        if path.rpartition("/")[2] == MANIFEST:
            package = read_package(path, data)
            if package is not None:
                found[path] = package
    return by_name(found)


class FactStore:
    """Models of the files in one store, loaded on demand and kept in bounded caches."""

    def __init__(self, conn: sqlite3.Connection, index: PathIndex) -> None:
        self.conn = conn
        self.index = index
        self._models: OrderedDict[str, FileModel | None] = OrderedDict()
        self._interfaces: OrderedDict[str, FileModel | None] = OrderedDict()
        self._names: OrderedDict[str, list[NamedDefinition]] = OrderedDict()
        self._named_held = 0  # definitions held in _names
        self._dear: set[str] = set()  # names whose lookup took CARRIED_LOOKUP_MIN_S or more
        self.where = NodePaths(conn, WHERE_ENTRIES)  # node id -> path
        # what the view's manifests and configs declare (go.mod, tsconfig, Cargo.toml, package.json),
        # each read once: reader -> its table
        self._manifests: dict[Callable[[sqlite3.Connection], Any], Any] = {}
        # pure demand results shared by the resolutions of one build: key -> (value, tokens, the
        # files whose content the result read, its height: the demands it nested, itself included)
        self.shared: dict[tuple[object, ...], tuple[object, frozenset[str], frozenset[str], int]] = {}

    def model(self, path: str) -> FileModel | None:
        if path in self._models:
            self._models.move_to_end(path)
            return self._models[path]
        model = self.load_model(path)
        self._models[path] = model
        if model is not None:
            self.where.add_symbols(model.symbols, path)
        if len(self._models) > MODEL_CACHE:
            self._models.popitem(last=False)
        return model

    def interface(self, path: str) -> FileModel | None:
        if path in self._interfaces:
            self._interfaces.move_to_end(path)
            return self._interfaces[path]
        model = self._models.get(path)
        if model is not None:
            projection = model.interface()
        else:  # most files are only ever read through their interface: skip their call sites
            projection = self.load_interface(path)
            if projection is not None:
                self.where.add_symbols(projection.symbols, path)
        self._interfaces[path] = projection
        if len(self._interfaces) > INTERFACE_CACHE:
            self._interfaces.popitem(last=False)
        return projection

    def share(self, key: tuple[object, ...], value: object, tokens: frozenset[str], height: int = 1) -> None:
        """Keep a pure demand result for the other resolutions of this build; past
        :data:`SHARED_RESULTS` the oldest half is dropped (a dropped result is computed again, with
        the same value and tokens: what is shared never depends on which file was resolved first)."""
        shared = self.shared
        if len(shared) >= SHARED_RESULTS:
            for old in list(islice(shared, len(shared) // 2)):
                del shared[old]
        shared[key] = (value, tokens, content_paths(tokens), height)

    def forget(self, path: str) -> None:
        self._models.pop(path, None)
        self._interfaces.pop(path, None)

    def _manifest(self, reader: Callable[[sqlite3.Connection], T]) -> T:
        if reader not in self._manifests:
            self._manifests[reader] = reader(self.conn)
        return self._manifests[reader]  # type: ignore[no-any-return]

    def go_modules(self) -> dict[str, str]:
        """The directory of every go.mod of the view -> the module path it declares (read once)."""
        return self._manifest(read_go_modules)

    def ts_configs(self) -> dict[str, PathMapping]:
        """The path mappings of the view's tsconfig/jsconfig files, by directory (read once)."""
        return self._manifest(read_ts_configs)

    def rust_crates(self) -> dict[str, list[str]]:
        """The view's Rust packages by crate name -> their root files (read once)."""
        return self._manifest(read_rust_crates)

    def workspace_packages(self) -> dict[str, WorkspacePackage]:
        """The view's own JavaScript/TypeScript packages by name (read once)."""
        return self._manifest(read_workspace_packages)

    def php_autoload(self) -> list[tuple[str, str]]:
        """The view's PSR-4 namespace prefixes and their directories (read once)."""
        return self._manifest(read_php_autoload)

    def named(self, name: str) -> list[NamedDefinition]:
        """Every definition called ``name`` (symbol nodes of the current view), in a stable order."""
        names = self._names
        found = names.get(name)
        if found is not None:
            names.move_to_end(name)
        else:
            started = time.perf_counter()
            found = self.read_named(name)
            if time.perf_counter() - started >= CARRIED_LOOKUP_MIN_S:
                self._dear.add(name)
            names[name] = found
            self._named_held += len(found)
            while self._named_held > NAMED_DEFINITIONS and len(names) > 1:
                self._named_held -= len(names.popitem(last=False)[1])
        return found

    # the reads a view over more than one store overrides (graph/overlay.py)
    def load_model(self, path: str) -> FileModel | None:
        return load_model(self.conn, path)

    def load_interface(self, path: str) -> FileModel | None:
        return load_interface(self.conn, path)

    def read_named(self, name: str) -> list[NamedDefinition]:
        return read_named(self.conn, name)

    def clear_names(self) -> None:
        self._names.clear()
        self._named_held = 0

    @property
    def names(self) -> OrderedDict[str, list[NamedDefinition]]:
        """The name lookups held (the dict itself: :func:`graph.listing.keep_listing` keeps it)."""
        return self._names

    def adopt_names(self, carried: OrderedDict[str, list[NamedDefinition]], stale: set[str]) -> None:
        """Take the lookups an earlier update of this view kept, less ``stale`` (every name a node of
        a changed file had or has), and drop ``stale`` from those made here already."""
        names = self._names
        for name in stale:
            found = names.pop(name, None)
            if found is not None:
                self._named_held -= len(found)
        for name, found in reversed(carried.items()):  # the newest first, while the bound allows
            if name in stale or name in names:
                continue
            if self._named_held + len(found) > NAMED_DEFINITIONS:
                break
            names[name] = found
            names.move_to_end(name, last=False)  # older than this update's own lookups
            self._named_held += len(found)
            self._dear.add(name)  # only dear lookups are carried

    def keep_dear_names(self) -> None:
        """At the end of an update: keep in :attr:`names` (the dict the listing carries) only the
        dear lookups, the most recently used first, up to :data:`CARRIED_NAMED_DEFINITIONS`."""
        names = self._names
        kept: list[tuple[str, list[NamedDefinition]]] = []
        held = 0
        for name in reversed(names):
            if name in self._dear and held + len(names[name]) <= CARRIED_NAMED_DEFINITIONS:
                kept.append((name, names[name]))
                held += len(names[name])
        names.clear()
        names.update(reversed(kept))
        self._named_held = held


class Program:
    """One resolution's window: ``focus`` in full, the others through recording interface views."""

    def __init__(self, store: FactStore, focus: FileModel) -> None:
        self.store = store
        self.focus = focus
        self.index = store.index
        self.deps = Deps()
        self._views: dict[str, InterfaceView | None] = {}
        self._entries: dict[int, tuple[FileModel, Symbol, str]] = {}
        # told whenever the focus file is read in full: a result computed from that read must not be
        # shared with other files' resolutions (theirs see the file through a recording view, so the
        # tokens a shared result carries never depend on which file was resolved first)
        self.on_focus_read: Callable[[], None] = lambda: None
        store.where.add_symbols(focus.symbols, focus.path)

    def model(self, path: str) -> FileModel | None:
        """The focus file itself, or another file's interface as an :class:`InterfaceView` that records
        which facets this resolution reads (``o:``/``f:`` tokens)."""
        if path == self.focus.path:
            self.deps.add("f:" + path)  # dropped from the focus's own deps by the build
            self.on_focus_read()
            return self.focus
        return self.interface_view(path)

    def interface_view(self, path: str) -> FileModel | None:
        """``path``'s interface, reads recorded (also for the focus file: a result computed through it
        may be shared with another file's resolution, which then depends on the focus file)."""
        if path in self._views:
            view = self._views[path]
        else:
            raw = self.store.interface(path)
            view = InterfaceView(raw, self.deps) if raw is not None else None
            self._views[path] = view
        if view is None:
            self.deps.add("f:" + path)
            return None
        return view  # type: ignore[return-value]

    def symbol(self, node_id: int) -> tuple[FileModel, Symbol] | None:
        """The definition with this node id and the model it belongs to (recording its facet)."""
        cached = self._entries.get(node_id)
        if cached is not None:
            self.deps.add(cached[2])
            if cached[0] is self.focus:
                self.on_focus_read()
            return cached[0], cached[1]
        path = self.store.where.get(node_id)
        if path is None:
            return None
        model = self.model(path)
        if model is None:
            return None
        symbol = model.by_id.get(node_id) if model is self.focus else model.symbol_by_id(node_id)  # type: ignore[attr-defined]
        if symbol is None:
            return None
        token = "f:" + path if model is self.focus else f"o:{path}:{top(symbol.qualified)}"
        self._entries[node_id] = (model, symbol, token)
        return model, symbol

    def named(self, name: str, token: str | None = "n:") -> list[NamedDefinition]:
        """Definitions called ``name`` anywhere (the unique-name strategy), without reading their files.

        Ordered by identity (path, qualified name), never by position, so moving code cannot change
        which candidates a bounded consumer sees. ``token`` is the dependency recorded: ``n:`` (any
        change of the name's definitions), or ``g:`` for a reader that only uses which of them are
        getters (graph/invalidation.py ``definition_dirty_tokens``); ``None`` for a caller that records its
        own (``calls.by_unique_name``).
        """
        if token is not None:
            self.deps.add(token + name)
        return self.store.named(name)

    def go_modules(self) -> dict[str, str]:
        """The module path of every go.mod of the view, by directory; a change of any go.mod
        re-resolves the files that read them (``gm:``)."""
        self.deps.add(GO_MODULES_TOKEN)
        return self.store.go_modules()

    def ts_configs(self) -> dict[str, PathMapping]:
        """The tsconfig/jsconfig path mappings of the view; a change of any of those files
        re-resolves the files that read them (``tc:``)."""
        self.deps.add(TS_CONFIGS_TOKEN)
        return self.store.ts_configs()

    def rust_crates(self) -> dict[str, list[str]]:
        """The tree's Rust packages by crate name (``Cargo.toml``); a change of any of those files
        re-resolves the files that read them (``rc:``)."""
        self.deps.add(RUST_CRATES_TOKEN)
        return self.store.rust_crates()

    def workspace_packages(self) -> dict[str, WorkspacePackage]:
        """The tree's own packages by name (``package.json``); a change of any of those files
        re-resolves the files that read them (``pj:``)."""
        self.deps.add(PACKAGES_TOKEN)
        return self.store.workspace_packages()

    def php_autoload(self) -> list[tuple[str, str]]:
        """The tree's PSR-4 namespace prefixes (``composer.json``); a change of any of those files
        re-resolves the files that read them (``pa:``)."""
        self.deps.add(PHP_AUTOLOAD_TOKEN)
        return self.store.php_autoload()

    def lang(self, path: str) -> str | None:
        return self.index.files.get(path)

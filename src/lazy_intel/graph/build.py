"""Bring the graph tables up to date inside the publication transaction (DESIGN §4 "Sync").

For each added, changed or removed file: rewrite its nodes and re-resolve its edges. Then
re-resolve every *other* file whose last resolution read something that changed:

* ``o:<path>:<facet>`` — it read a top-level name of a changed file (what the name is bound to,
  its members, bases, decorators) whose facet digest moved (:mod:`lazy_intel.graph.interface_view`);
* ``r:<path>:<callable>`` — it evaluated inside that callable of a changed file (its return value,
  a local variable) and the flows of that body moved;
* ``f:<path>`` — it read a changed file in a way no facet describes, and anything of it moved;
* ``n:<name>`` — it looked up a name whose set of definitions changed (added, removed, renamed);
* ``g:<name>`` — it asked which methods of that name are getters (an attribute read that may call a
  ``@property``), and a definition of that name changed in a file that has or had such a getter:
  a new plain method ``name`` does not re-resolve every file that reads ``x.name``;
* ``c:<filter>:<name>`` — it found more than ``MAX_AMBIGUOUS`` definitions of a name under one of
  the unique-name filters (``calls.UNIQUE_NAME_FILTERS``) and resolved nothing, and that count
  crossed the cap (:func:`crossed_caps`);
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
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from lazy_intel.graph.deps_index import PENDING_DEPS, dependents_of, fill_deps, write_deps
from lazy_intel.graph.invalidation import (
    changed_names,
    crossed_caps,
    definition_dirty_tokens,
    definition_rows,
    filter_counts,
    interface_dirty_tokens,
    named_rows,
    outline_rows,
)
from lazy_intel.graph.listing import carried_names, keep_listing, read_listing
from lazy_intel.graph.model import FileModel, file_key, file_node_id, load_model, module_node_id
from lazy_intel.graph.modules import GO_MODULES_TOKEN, RUST_CRATES_TOKEN, PathIndex, dirty_tokens_for_paths
from lazy_intel.graph.nodes import definition_lines, file_nodes
from lazy_intel.graph.php_autoload import MANIFEST_NAME as PHP_MANIFEST
from lazy_intel.graph.php_autoload import PHP_AUTOLOAD_TOKEN
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import FileGraph, resolve_file
from lazy_intel.graph.row_diff import INSERT_EDGE, INSERT_NODE, replace_file_edges, replace_file_nodes
from lazy_intel.graph.rows import CONFIDENCE, EdgeRow, NodeRow, labels_text
from lazy_intel.graph.tsconfig import TS_CONFIGS_TOKEN, is_config_name
from lazy_intel.graph.workspace_packages import MANIFEST, PACKAGES_TOKEN
from lazy_intel.parse.languages import is_parsed_language
from lazy_intel.store.schema import index_statements

logger = logging.getLogger(__name__)

# Bump when resolution changes what it writes: a store built by another version is rebuilt.
# 103: an ECMAScript object pattern (`const { a, b: c } = x`, `({ scene }: Props) => …`) gives each
# name the member its key reads; a TypeScript property signature declares its member's type; `App["scene"]`
# is the type of the member, `Partial<T>`, `Readonly<T>`, `Pick<T, K>` hold the members of T;
# 102: a flow of a definition whose qualified name another shares is that definition's (a field's own
# declaration is its class's, not its same-named method's: `FileModel.flow_scope`);
# 101: the members a Java doc comment links to are references (`use: "doc"`, graph/doc_links.py), of the
# overload its parameter list names;
# 100: of definitions sharing a qualified name, code runs in the scope one (Java's method `data()`, not
# its field `data`: the method's parameters and locals were the class's) and, of overloads, the one that
# holds it (an edge's source); a Java override is of the overload with its arity;
# 99: a nested class sees the members of the classes around it (Java, C#, Kotlin, Scala, C++, Swift:
# `Method` in `Connection.Base` is `Connection.Method`); the receiver of a type, base or instantiation
# written `Outer.Inner` is a reference of Outer;
# 98: a constructor named after its class is no name inside the class (`Outer.Base` in Outer found
# `Outer()`); Java's methods have a namespace of their own (a call sees no field, a read no method), and a
# Java call runs the overloads its argument count fits (ClassMixin.overloads);
# 97: C++'s `std` namespace is the standard library (`std::make_shared` is external, not unresolved);
# 96: a C/C++ name an include declares comes before a C++ type found by its name alone, and a C++
#     namespace's definitions are seen through includes (not a class's members);
# 95: C++ `unique_ptr`, `shared_ptr`, `optional`, `reference_wrapper` hold their argument's value,
#     `vector`, `deque`, `list`, `set` and kin iterate it;
# 94: a C/C++ name is looked up among the tree's definitions of it that lie in the file's include
#     closure (every one, not the first an include walk met);
# 93: a C/C++ function a header declares, used as a value (stored, passed, returned), is its source
#     file's definition too, as a call of it is;
# 92: C/C++ `#include` resolves to the tree's file (beside the includer, else by path suffix) and its
#     names (and those of what it includes) are seen through it: a call of a function a header declares
#     is an `import` edge to its source file's definition, no longer a unique-name guess; a C
#     function-like macro called as a function resolves to the macro;
# 91: a compound assignment (`a += b`, `q |= x`) CALLS the method it runs: Python `__iadd__`, else `__add__`,
#     else `b.__radd__`; Rust `add_assign`; C++ `operator+=`; Kotlin `plusAssign`, else `plus`; Ruby `+`;
# 90: Rust, C++, Ruby and Kotlin operations run their operand type's operator method (`Add::add`,
#     `operator+`, `def +`, `operator fun plus`), without Python's reflection; a comparison of outside values
#     is not a value of their type;
# 89: dependency tokens the same under every hash seed, results past MAX_DEMAND_DEPTH the same in any order;
# 88: a pytest parameter no conftest or module fixture names takes the tree's one plugin fixture of the name;
# 87: a Ruby module mixed in (`include Helpers`) is a base, `Class.new(Base)` is its base;
# 86: a constant path of capitalised names (Ruby's `Rack::MockRequest`) reaches the type of that qualified
#     name whatever the namespace's parts; Ruby's core classes and test DSLs are builtin;
# 85: Java's `Outer.Inner` types and `new Box<T>()` typed, the rest of java.lang builtin;
# 84: an Express-shaped route is named by the router package its file imports (hono, fastify, koa, elysia);
# 83: an ECMAScript `export { A as B }` names B in the module (its flow), referenced once (as an export);
# 82: Starlette's `Route("/x", endpoint)` and `WebSocketRoute` are routes;
# 81: Go conversions to a predeclared type (`string(b)`) are builtin; a Go import without an alias also
#     binds the name Go's tools assume (`go.yaml.in/yaml/v3` binds `yaml`);
# 80: a parameter of a pytest test named like one of pytest's own fixtures that no fixture of the tree
#     defines holds a value of its type (`tmp_path` a `pathlib.Path`);
# 79: a Python operation (`a + b`) is what its operand's `__add__` returns (else `__radd__`), an outside
#     value's own type, a CALLS edge to the tree's method (`implicit: operator`);
# 78: `find`, `at`, `shift` give an element of a container, `filter`, `slice`, `iter()`, `stream()` keep it;
# 77: C's standard library and C++'s named casts are builtins unless the tree defines the name;
# 76: a splat parameter (`*args`, `**kwargs`) gets no fixture;
# 75: a pytest test's or fixture's parameter holds its fixture's value, a CALLS edge to the fixture;
# 74: a cast (`x as T`, `(T) x`, `x.(T)`) is its operand and an instance of its type;
# 73: JavaScript's `toString`, `has`, `slice`, `then`, … not guessed;
# 72: Rust's std methods not guessed (`builtin_methods.RUST`), a Rust macro guessed in its own crate first;
# 71: a C# extension method's receiver read within its own span (overloads share a qualified name);
# 70: a member missing beside a base the index cannot evaluate is guessed by name (`unresolved-base`);
# 69: a namespace package never hides the standard library (`import dataclasses` beside `docs_src/dataclasses/`);
# 68: … and a bare call is no method where members need their receiver (no `implicit_members`);
# 67: a name guess never lands on a function nested in a function (Python) or, for `x.f()`, on a
# `function` with a parent in Python, Rust and Go (`parented_functions_not_members`);
# 66: … and a C++ method defined out of line knows its class (`this`, bare calls);
# 65: Kotlin extension functions and C# extension methods (`this T x`) are members of T (`extension_members`);
# 64: a C#/Ruby runtime name is hidden only by a type of the caller's own language family;
# 63: C++ types by their name alone (`global_types`);
# 62: Swift's builtin methods (`expectation.fulfill()`) not guessed;
# 61, 60: a wildcard import binds after the package, the class's members and the tree's types;
# 59, 58: types by their name alone where every file sees them (C#, Ruby, Swift, Scala: `global_type`),
# Ruby's `X.new` an instance;
# 57: PHP namespaces (composer.json PSR-4, `php_resolve`), `use` imports, includes, global functions;
# 56: builtin methods of Java, Kotlin, Ruby and C# not guessed, runtime names of Ruby and C#, name
# guesses within the caller's language family (graph/builtin_methods.py, parse.languages.guess_family);
# 55: Kotlin imports, packages and default imports (`kotlin_resolve`);
# 54: a Java package spans its source roots (`src/main/java`, `src/test/java`: `jvm_package_dirs`);
# 53: a Rust path that starts with a package of the tree by its Cargo name (`grep_searcher::Searcher`);
# 52: … and of a method declared in its class in a header and defined out of line;
# 51: a C/C++ call by name of a function declared in a header and defined in a source file is the definition;
# 50: imports of the tree's own JavaScript/TypeScript packages by name (package.json `name`/`exports`);
# 49: an import of a module-level variable or constant is an edge to its definition (through re-exports);
# 48: only a concrete builtin or a project class narrows a parameter; 47: `import { default as X }` is a default import; 46: ECMAScript exports, `typeof x`, JSX closing tags referenced; 45: TypeScript's global types are builtins; 44: `object.__new__(cls)` is an instance of cls, `__new__`'s first parameter is the class;
# 43: a declared parameter type narrows what call sites pass; 42: names a module exports (`__all__`) referenced; 41: a parameter's default referenced; 40: receivers referenced, a subscripted class is the class,
# header code of a repeated name (a property's setter) in the enclosing scope; 39: Rust macros and
# functions named apart; 38: calling an instance calls its __call__; 37: getattr by a literal name;
# 36: the class of an instance (`type(x)`, `x.__class__`), results read against the receiver;
# 35: every ECMAScript/host global and Python builtin name, test-runner globals, dynamic members; 34: a mixin's self members through the subclasses of its file; 33: typing.cast; 32: builtin
# containers and types; 31: builtin method names not guessed;
# 30: `with … as x` binds what __enter__ returns; 29: enumeration members; 28: mixin self members;
# 27: generic Python bases, typing markers, type variable bounds; 26: tsconfig `extends`;
# 25: container element methods; 24: Rust builtins; 23: tsconfig path mapping; 22: JavaScript
# `this` outside classes; 21: Python import roots; 20: go.mod module paths; 19: Go new/make/append,
# fields named like types; 18: transparent decorators; 17: Python outside types; 16: getter values
RESOLVER_VERSION = "103"
MODULE_KEY = 0


# text files whose content resolution reads (not in the listing), and the token their readers record
def config_file_token(name: str) -> str | None:
    """The dependency token a change of the config file named ``name`` dirties (None: not a config
    resolution reads): go.mod's module paths, tsconfig/jsconfig path mappings (and their bases),
    package.json's package names and exports, Cargo.toml's crate names, composer.json's PSR-4
    namespaces."""
    if name == "go.mod":
        return GO_MODULES_TOKEN
    if name == MANIFEST:
        return PACKAGES_TOKEN
    if name == "Cargo.toml":
        return RUST_CRATES_TOKEN
    if name == PHP_MANIFEST:
        return PHP_AUTOLOAD_TOKEN
    return TS_CONFIGS_TOKEN if is_config_name(name) else None


INSERT_GRAPH_FILE = (
    "INSERT INTO graph_files(path, file_key, interface_sha, definitions, deps) VALUES (?,?,?,?,?)"
)


@dataclass(frozen=True, slots=True)
class ResolvedFile:
    """One file's resolution as the writer stores it: edge rows as plain tuples (cheap to pickle from
    a worker), its dependency tokens, and whether the value-flow budget ran out."""

    path: str
    edges: list[tuple[object, ...]]
    deps: tuple[str, ...]
    exhausted: bool

    @classmethod
    def of(cls, path: str, graph: FileGraph) -> ResolvedFile:
        return cls(path, [edge_values(e) for e in graph.edges], tuple(sorted(graph.deps)), graph.exhausted)


@dataclass(frozen=True, slots=True)
class FileOutline:
    """What a file contributes before resolution: its node rows (as tuples), interface record and
    definition identities (computed from the facts in the store, here or in a worker)."""

    path: str
    nodes: list[tuple[object, ...]]
    interface: str
    definitions: list[str]


def describe_file(store: FactStore, path: str, size: int, lines: int) -> FileOutline | None:
    # an outline reads few expressions: they are decoded on use (resolution loads the file again)
    model = load_model(store.conn, path, decode=False)
    if model is None:
        return None
    store.where.add_symbols(model.symbols, path)
    return outline_of(model, size, lines)


def outline_of(model: FileModel, size: int, lines: int) -> FileOutline:
    """The outline of ``model`` (a file of ``size`` bytes and ``lines`` lines): from the store
    (:func:`describe_file`) or from the rows a parse worker just extracted
    (:func:`lazy_intel.graph.model.model_from_rows`), the same either way."""
    nodes = [node_values(n) for n in file_nodes(model, size, lines)]
    return FileOutline(model.path, nodes, model.interface_record(), definition_lines(model))


def graph_tables_empty(conn: sqlite3.Connection) -> bool:
    """Whether the store holds no node and no ``graph_files`` row (a fresh build's store)."""
    return all(
        conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is None
        for table in ("nodes", "graph_files")
    )


def start_outlines(conn: sqlite3.Connection) -> None:
    """Before the first :func:`write_outline` of a build: the graph tables' secondary indexes go
    (rows are appended without them; :func:`update_graph` builds each once, from the schema)."""
    _graph_indexes(conn)


def write_outline(conn: sqlite3.Connection, outline: FileOutline) -> None:
    """Write a file's nodes and its ``graph_files`` row (deps :data:`PENDING_DEPS`) as
    :func:`update_graph` would: a full build writes them with the file's facts, in the same
    transaction, when its parse worker computed the outline (:class:`GraphDelta` ``described``)."""
    conn.executemany(INSERT_NODE, outline.nodes)
    conn.execute(
        INSERT_GRAPH_FILE,
        (
            outline.path,
            file_key(outline.path),
            outline.interface,
            "\n".join(sorted(set(outline.definitions))),
            PENDING_DEPS,
        ),
    )


# Describes the given files, (path, size, line count) each, given the parsed files of the view;
# yields each file's outline in the order given (a file without one is skipped).
DescribeMany = Callable[[list[tuple[str, int, int]], dict[str, str]], Iterable[FileOutline]]

# Resolves the given files against the facts and nodes of the store, given the parsed files of the
# view (path -> language), in this process or in workers; yields each file's result, in any order.
ResolveMany = Callable[[list[str], dict[str, str]], Iterable[ResolvedFile]]


@dataclass(frozen=True)
class GraphResolver:
    """How a full build resolves its files. ``publish_facts`` makes the facts and nodes written so far
    visible to other connections (commits them into the fresh store no reader can see yet), so that
    ``resolve_many`` may read them from worker processes; the writer then only writes their edges."""

    publish_facts: Callable[[], None]
    resolve_many: ResolveMany
    workers: int = 1
    describe_many: DescribeMany | None = None
    # told when every file is resolved (the workers are gone): the writer may grow its caches again
    resolved_all: Callable[[], None] = lambda: None


# an incremental update's choice of resolver: given the changed files and how many files it will
# resolve, a resolver that runs elsewhere, or ``None`` to resolve in the writer
OverlayResolver = Callable[[Sequence[str], int], "GraphResolver | None"]


@dataclass(frozen=True)
class GraphJournal:
    """A full build into a fresh store (one no reader sees) that commits its graph in steps, so that a
    build killed while resolving continues from its last commit instead of starting over (issue 15;
    :mod:`lazy_intel.service.indexing.resume` keeps the steps in the store's meta).

    ``described()``: the store holds a committed description — every file's nodes and its
    ``graph_files`` row (deps :data:`PENDING_DEPS` until resolved), the module rows, the node
    indexes — written from the facts it holds now. ``commit(resolved, total)`` commits the open
    transaction, recording that the description is complete and how many of the files are resolved,
    and opens the next; it runs after the description and after every ``batch_files`` resolved files."""

    described: Callable[[], bool]
    commit: Callable[[int, int], None]
    batch_files: int = 1000


def resolve_serially(store: FactStore) -> ResolveMany:
    def run(paths: list[str], files: dict[str, str]) -> Iterator[ResolvedFile]:
        for path in paths:
            model = store.model(path)
            if model is not None:
                yield ResolvedFile.of(path, resolve_file(store, model))

    return run


@dataclass(frozen=True)
class GraphDelta:
    upserted: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    full: bool = False
    # (a full build) the graph tables were empty when its files were written, and the files whose
    # parse worker computed an outline have their nodes and graph_files row already
    # (:func:`write_outline`): only the others are described
    described: bool = False
    # (an incremental update) outlines its parse workers computed, by path: taken instead of
    # describing the file from the store (the same outline, :func:`outline_of`)
    outlines: Mapping[str, FileOutline] = field(default_factory=dict)


@dataclass
class GraphReport:
    changed: int = 0
    dependents: int = 0
    nodes: int = 0
    edges: int = 0
    exhausted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    resolve_workers: int = 0  # worker processes that resolved the files (0: this process)
    dependent_paths: list[str] = field(default_factory=list)  # the unchanged files re-resolved
    resumed_files: int = 0  # files whose edges a killed build had committed (not resolved again)

    def to_dict(self) -> dict[str, object]:
        return {
            "changed_files": self.changed,
            "dependent_files": self.dependents,
            "nodes_written": self.nodes,
            "edges_written": self.edges,
            "resolve_workers": self.resolve_workers,
            "resumed_files": self.resumed_files,
            "seconds": round(self.seconds, 3),
        }


def node_values(n: NodeRow) -> tuple[object, ...]:
    return (
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


def _insert_nodes(conn: sqlite3.Connection, nodes: list[NodeRow]) -> None:
    conn.executemany(INSERT_NODE, [node_values(n) for n in nodes])


def edge_values(e: EdgeRow) -> tuple[object, ...]:
    return (
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


def _insert_edges(conn: sqlite3.Connection, edges: list[EdgeRow]) -> None:
    conn.executemany(INSERT_EDGE, [edge_values(e) for e in edges])


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


def _graph_indexes(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The secondary indexes of the graph tables, dropped now (a bulk insert builds each once at the
    end): their statements from the store, and from the schema for any the store no longer has (a
    resumed build whose killed predecessor had dropped them)."""
    present: dict[str, dict[str, str]] = {"nodes": {}, "edges": {}}
    for name, table, sql in conn.execute(
        "SELECT name, tbl_name, sql FROM sqlite_master WHERE type='index' "
        "AND tbl_name IN ('nodes', 'edges') AND sql IS NOT NULL ORDER BY name"
    ).fetchall():
        conn.execute(f"DROP INDEX {name}")
        present[table][name] = sql
    return {
        table: [*indexes.values(), *(sql for name, sql in index_statements(table) if name not in indexes)]
        for table, indexes in present.items()
    }


def update_graph(
    conn: sqlite3.Connection,
    delta: GraphDelta,
    resolver: GraphResolver | None = None,
    *,
    journal: GraphJournal | None = None,
    progress: Callable[[int, int], None] | None = None,
    incremental: OverlayResolver | None = None,
) -> GraphReport:
    """Apply ``delta`` to the graph tables on ``conn`` (inside the caller's write transaction).

    ``resolver`` (full builds only) resolves the files elsewhere; the result is the same store.
    ``journal`` (full builds into a fresh store only) commits the graph in steps and continues a
    killed build's committed ones. ``progress(done, total)`` is told how many files have had their
    edges resolved. ``incremental(changed, targets)`` (an incremental update) may return a resolver
    that resolves the change elsewhere (:func:`~lazy_intel.service.indexing.resolve_pool.overlay_resolver`)."""
    if journal is not None and delta.full and journal.described():
        return _resume_graph(conn, resolver, journal, progress)
    started = time.monotonic()
    report = GraphReport()
    # every parsed file and its path index: an incremental update starts from the last one's
    files, sizes, index = read_listing(conn, None if delta.full else [*delta.upserted, *delta.removed])
    # and the last update's name lookups (graph/listing.py), taken once this one's nodes are written
    carried = None if delta.full else carried_names(conn)
    store = FactStore(conn, index)
    keep_listing(conn, files, index, full=delta.full, names=store.names)
    indexes: dict[str, list[str]] = {"nodes": [], "edges": []}
    described: set[str] = set()  # files whose nodes and graph_files row were written with their facts
    if delta.full:
        # rows the parse workers wrote with the facts (nodes, graph_files) stay; graph_deps is
        # filled from graph_files once the build has resolved (fill_deps)
        for table in (
            ("edges", "graph_deps") if delta.described else ("nodes", "edges", "graph_files", "graph_deps")
        ):
            conn.execute(f"DELETE FROM {table}")
        changed = sorted(files)
        indexes = _graph_indexes(conn)  # bulk insert without them, then build each index once
        if delta.described:
            described = {row[0] for row in conn.execute("SELECT path FROM graph_files")}
            report.nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    else:
        changed = sorted(set(delta.upserted) | set(delta.removed))
    changed_keys = [file_key(path) for path in changed]
    stale_names = _node_names(conn, changed_keys) if carried is not None else set()
    # what the changes invalidate in other files' resolutions (a full build re-resolves every file:
    # it keeps none of it, which at 100k files was most of the writer's memory)
    dirty: set[str] = set()
    counts: Counter[tuple[str, str]] = Counter()  # (name, unique-name filter) -> definitions added
    appeared_or_left: list[str] = []
    pending: list[str] = []
    parallel = delta.full and resolver is not None and resolver.describe_many is not None
    # the workers' outlines arrive in the order of ``changed`` (files without one are skipped): they
    # are written as they come, never all held at once (the nodes of a large tree are ~100 MB)
    streamed: Iterator[FileOutline] = iter(())
    if parallel:
        assert resolver is not None and resolver.describe_many is not None
        # the workers read the facts just written; and the writer's page cache shrinks now, before
        # the node indexes are built (built with the bulk cache, the writer entered Django's
        # resolution ~20 MB larger, fifth round of docs/design/indexing.md)
        resolver.publish_facts()
        jobs = [(path, *sizes[path]) for path in changed if path in files and path not in described]
        if jobs:
            streamed = iter(resolver.describe_many(jobs, files))
    ahead: FileOutline | None = None
    for path in changed:
        if path in described:  # a full build: written with the file's facts
            pending.append(path)
            continue
        key = file_key(path)
        old = None
        if not delta.full:  # a full build starts from empty tables
            old = conn.execute(
                "SELECT interface_sha, definitions, deps FROM graph_files WHERE path=?", (path,)
            ).fetchone()
            if old is not None:
                write_deps(conn, key, old[2], None)
            # its nodes and edges are rewritten below where they differ (graph/row_diff.py): only a
            # file that has no outline now loses them here
            conn.execute("DELETE FROM graph_files WHERE path=?", (path,))
        if parallel:
            if ahead is None:
                ahead = next(streamed, None)
            outline = None
            if ahead is not None and ahead.path == path:
                outline, ahead = ahead, None
        elif path in files:
            outline = delta.outlines.get(path) or describe_file(store, path, *sizes[path])
        else:
            outline = None
        old_interface, old_definitions = (old[0], set(old[1].split("\n")) - {""}) if old else (None, set())
        new_interface, new_definitions = (
            (outline.interface, set(outline.definitions)) if outline else (None, set())
        )
        if not delta.full:  # before its nodes are rewritten: how many a unique-name filter kept
            names = changed_names(old_definitions, new_definitions)
            if names:
                counts.subtract(filter_counts(definition_rows(conn, path, names)))
                counts.update(filter_counts(outline_rows(outline.nodes, names) if outline else []))
        if outline is None:
            if not delta.full:
                conn.execute("DELETE FROM nodes WHERE file_key=?", (key,))
                conn.execute("DELETE FROM edges WHERE file_key=?", (key,))
        else:
            if delta.full:
                conn.executemany(INSERT_NODE, outline.nodes)
            else:
                replace_file_nodes(conn, key, outline.nodes)
            report.nodes += len(outline.nodes)
            # its row now, its deps once resolved: nothing per file is held until then
            conn.execute(
                INSERT_GRAPH_FILE,
                (path, key, new_interface, "\n".join(sorted(new_definitions)), PENDING_DEPS),
            )
            pending.append(path)
        if delta.full:
            continue
        if (old is None) != (outline is None):
            appeared_or_left.append(path)
        dirty |= interface_dirty_tokens(path, old_interface, new_interface)
        dirty |= definition_dirty_tokens(old_definitions, new_definitions)
    if parallel and (ahead is not None or next(streamed, None) is not None):  # also ends the pool
        raise RuntimeError("file outlines arrived out of order")
    for sql in indexes["nodes"]:  # name lookups during resolution need them
        conn.execute(sql)
    moved = {key: n for key, n in counts.items() if n}
    if moved:
        dirty |= crossed_caps(filter_counts(named_rows(conn, {name for name, _ in moved})), moved)
    if carried is not None and not appeared_or_left:  # (a file that came or went rewrites module nodes)
        store.adopt_names(carried, stale_names | _node_names(conn, changed_keys))
    dirty |= dirty_tokens_for_paths(appeared_or_left)
    # a go.mod or a tsconfig/jsconfig (text, not in the listing) came, went or changed: the module
    # paths Go imports read, the path mappings TypeScript imports read
    config_tokens = {
        token for path in changed if (token := config_file_token(path.rpartition("/")[2])) is not None
    }
    dirty |= config_tokens
    dependents: list[str] = []
    if dirty and not delta.full:
        # by index (graph_deps), not a scan of every file's deps text
        dependents = dependents_of(conn, dirty, exclude=set(changed))
    if delta.full or appeared_or_left:
        conn.execute("DELETE FROM nodes WHERE file_key=?", (MODULE_KEY,))
        conn.execute("DELETE FROM edges WHERE file_key=?", (MODULE_KEY,))
        module_nodes, module_edges = _module_rows(index)
        _insert_nodes(conn, module_nodes)
        _insert_edges(conn, module_edges)
    targets = sorted(pending + dependents)
    if not delta.full and incremental is not None and not config_tokens:
        # (workers read the committed store, which holds the old config: a config change resolves here)
        resolver = incremental(changed, len(targets))
    if journal is not None and delta.full:
        journal.commit(0, len(targets))  # the description: a build killed from here on resumes its resolution
    _resolve_targets(
        conn,
        store,
        targets,
        files=files,
        dependents=set(dependents),
        report=report,
        rewrite=not delta.full,
        resolver=resolver,
        journal=journal if delta.full else None,
        progress=progress,
        track_deps=not delta.full,
    )
    if delta.full:
        fill_deps(conn)
    else:
        store.keep_dear_names()  # what the listing carries to the next update (graph/program.py)
    for sql in indexes["edges"]:
        conn.execute(sql)
    report.changed = len(changed)
    report.dependents = len(dependents)
    report.dependent_paths = sorted(dependents)
    report.seconds = time.monotonic() - started
    _log_exhausted(report)
    return report


NAMES_BATCH = 500  # file keys per lookup of their nodes' names


def _node_names(conn: sqlite3.Connection, keys: list[int]) -> set[str]:
    """Every name a node of the files ``keys`` has in the store now."""
    names: set[str] = set()
    for start in range(0, len(keys), NAMES_BATCH):
        batch = keys[start : start + NAMES_BATCH]
        marks = ",".join("?" * len(batch))
        names.update(
            name
            for (name,) in conn.execute(f"SELECT DISTINCT name FROM nodes WHERE file_key IN ({marks})", batch)
            if name is not None
        )
    return names


def _resolve_targets(
    conn: sqlite3.Connection,
    store: FactStore,
    targets: list[str],
    *,
    files: dict[str, str],
    dependents: set[str],
    report: GraphReport,
    resolver: GraphResolver | None,
    journal: GraphJournal | None,
    progress: Callable[[int, int], None] | None,
    resolved_before: int = 0,
    track_deps: bool = False,
    rewrite: bool = False,
) -> None:
    """Resolve ``targets`` and write their edges and deps as the results arrive (a journal commits
    them every ``batch_files`` files); a target whose facts are gone loses its graph_files row.
    With ``track_deps`` (an incremental sync) each file's ``graph_deps`` rows follow its deps; a
    full build fills that table once at the end (:func:`fill_deps`). ``rewrite`` (an incremental
    sync): the targets' edges are in the store already and are replaced where they differ;
    otherwise (a full build, a resumed one) a dependent's are deleted first and every edge is
    inserted."""
    if resolver is not None:
        resolver.publish_facts()
        resolved = resolver.resolve_many(targets, files)
        report.resolve_workers = resolver.workers
    else:
        resolved = resolve_serially(store)(targets, files)
    written: set[str] = set()
    for done, result in enumerate(resolved, 1):
        if progress is not None:
            progress(done - 1, len(targets))
        path = result.path
        written.add(path)
        if rewrite:
            replace_file_edges(conn, file_key(path), result.edges)
        else:
            if path in dependents:
                conn.execute("DELETE FROM edges WHERE file_key=?", (file_key(path),))
            conn.executemany(INSERT_EDGE, result.edges)
        report.edges += len(result.edges)
        if result.exhausted:
            report.exhausted.append(path)
        deps = "\n".join(result.deps)
        if track_deps:
            old = conn.execute("SELECT deps FROM graph_files WHERE path=?", (path,)).fetchone()
            write_deps(conn, file_key(path), old[0] if old else None, deps)
        conn.execute("UPDATE graph_files SET deps=? WHERE path=?", (deps, path))
        if journal is not None and done % journal.batch_files == 0:
            journal.commit(resolved_before + done, resolved_before + len(targets))
    # by path: a scan of graph_files for pending deps would read every row (an edit at 100k files)
    unresolved = [path for path in targets if path not in written and path not in dependents]
    conn.executemany(
        "DELETE FROM graph_files WHERE path=? AND deps=?", [(p, PENDING_DEPS) for p in unresolved]
    )
    if rewrite:  # their edges were not deleted before resolution (update_graph)
        conn.executemany("DELETE FROM edges WHERE file_key=?", [(file_key(p),) for p in unresolved])
    if progress is not None:
        progress(len(targets), len(targets))
    if resolver is not None:
        resolver.resolved_all()


def _resume_graph(
    conn: sqlite3.Connection,
    resolver: GraphResolver | None,
    journal: GraphJournal,
    progress: Callable[[int, int], None] | None,
) -> GraphReport:
    """Continue a killed full build's graph: its description is committed, so resolve the files it
    had not resolved (deps still pending) and build the edge indexes. The store equals a clean
    build's: each file's resolution reads only facts and nodes, which are the same."""
    started = time.monotonic()
    report = GraphReport()
    files = {
        path: lang
        for path, lang in conn.execute(
            "SELECT path, lang FROM files WHERE status='indexed' AND lang IS NOT NULL"
        )
        if is_parsed_language(lang)
    }
    store = FactStore(conn, PathIndex(files))
    targets = [
        row[0]
        for row in conn.execute("SELECT path FROM graph_files WHERE deps=? ORDER BY path", (PENDING_DEPS,))
    ]
    total = conn.execute("SELECT count(*) FROM graph_files").fetchone()[0]
    report.nodes = conn.execute("SELECT count(*) FROM nodes WHERE file_key != ?", (MODULE_KEY,)).fetchone()[0]
    report.resumed_files = total - len(targets)
    logger.info("resuming graph resolution: %d of %d files left to resolve", len(targets), total)
    _resolve_targets(
        conn,
        store,
        targets,
        files=files,
        dependents=set(),
        report=report,
        resolver=resolver,
        journal=journal,
        progress=progress,
        resolved_before=report.resumed_files,
    )
    fill_deps(conn)
    existing = {
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='edges'")
    }
    for name, sql in index_statements("edges"):
        if name not in existing:
            conn.execute(sql)
    report.changed = len(files)
    report.seconds = time.monotonic() - started
    _log_exhausted(report)
    return report


def _log_exhausted(report: GraphReport) -> None:
    if report.exhausted:
        logger.info(
            "value-flow budget exhausted in %d file(s): %s", len(report.exhausted), report.exhausted[:5]
        )

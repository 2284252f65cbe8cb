"""Which definitions a ``symbol`` argument names (every operation that takes one asks here).

A name is looked up as written: a qualified name (``Session.request``), a module-qualified one
(``pkg.sessions.Session.request``), a name re-exported by a package (``django.db.models.QuerySet``,
defined in ``django/db/models/query.py`` and imported by the package's ``__init__``), else a suffix
of one, else a member the class inherits (``CharField.clean`` is ``Field.clean``). A call written
out (``QuerySet.filter()``, ``f(x, y)``, ``new Widget()``) names the function or class. The file a
symbol may carry (``path/file.py::Class::method``) is split off earlier, into ``relativePath``
(``requests.split_symbol_location``).
"""

from __future__ import annotations

import re

from lazy_intel.errors import InvalidArgument, NotFound
from lazy_intel.graph.model import file_key
from lazy_intel.graph.queries import definition_node, edges_out_of, has_graph, nodes_by_ids
from lazy_intel.store.reader import ReadView, SymbolRow

# Symbol kinds listed first when a name matches several definitions.
DEFINITION_KIND_ORDER = {
    "class": 0,
    "struct": 0,
    "interface": 0,
    "trait": 0,
    "enum": 0,
    "protocol": 0,
    "record": 0,
    "object": 0,
    "function": 1,
    "method": 1,
    "constructor": 1,
    "module": 2,
    "type": 2,
    "macro": 2,
}
PACKAGE_STEMS = ("__init__", "index", "mod")  # a package's own file: its module is the directory
INHERITANCE_DEPTH = 10  # base-class levels searched for an inherited member
REEXPORT_DEPTH = 3  # packages followed through their imports (`pkg` -> `pkg.sub` -> the definition)
MAX_REEXPORT_FILES = 20  # files of one module name read for re-exports (`models` names many)
# a call written out after a name: `()`, `(x, y)` (not C++'s `operator()`, which is a name)
CALL_SUFFIX = re.compile(r"(?<!operator)\([^()]*\)$")
NEW_PREFIX = re.compile(r"^new\s+")  # `new Widget()` (JavaScript, TypeScript, Java, C#) names the class


def module_of(path: str) -> str:
    """The module name a file path gives (``a/b/__init__.py``, ``a/b/index.ts``, ``a/b/mod.rs`` -> ``a.b``)."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    if stem.rsplit("/", 1)[-1] in PACKAGE_STEMS and "/" in stem:
        stem = stem.rsplit("/", 1)[0]
    return stem.replace("/", ".")


def _in_module(path: str, module: str) -> bool:
    own = module_of(path)
    return own == module or own.endswith("." + module)


# `#` between a name and a member name: `Class#method` for `Class.method`
INSTANCE_MEMBER_MARK = re.compile(r"(?<=[\w$?!=])#(?=[A-Za-z_$])")


def resolve_symbol(view: ReadView, name: str, path: str | None) -> list[SymbolRow]:
    """Definitions for ``name``, best first (module docstring).

    A bare name returns the definitions with exactly that qualified name first, then every other
    definition with that short name (methods too).
    """
    name = name.strip().replace("::", ".")
    if not name:
        raise InvalidArgument("symbol is empty")
    found = _resolve(view, name, path)
    if not found and CALL_SUFFIX.search(name):
        called = NEW_PREFIX.sub("", CALL_SUFFIX.sub("", name).strip())
        if called:
            found = _resolve(view, called, path)
    return found


def _resolve(view: ReadView, name: str, path: str | None) -> list[SymbolRow]:
    exact = view.symbols_by_qualified(name, path)
    if not exact and INSTANCE_MEMBER_MARK.search(name):
        # `Class#method` (Ruby's and JSDoc's notation) names `Class.method`; a `#` that is part of a
        # name (JavaScript's `Ky.#private`, Rust's `r#type`) is looked up as written first
        name = INSTANCE_MEMBER_MARK.sub(".", name)
        exact = view.symbols_by_qualified(name, path)
    if "." not in name:
        seen = {s.id for s in exact}
        others = [s for s in view.symbols_by_name(name, path) if s.id not in seen]
        return exact + _ordered(others)
    found = exact
    if not found:
        parts = name.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module, rest = ".".join(parts[:split]), ".".join(parts[split:])
            found = [s for s in view.symbols_by_qualified(rest, path) if _in_module(s.path, module)]
            if not found:
                found = _reexported(view, module, rest, path, REEXPORT_DEPTH)
            if found:
                break
    if not found:
        found = view.symbols_with_suffix(name)
        if path is not None:
            found = [s for s in found if s.path == path]
    if not found:
        found = _inherited(view, name, path)
    return _ordered(found)


def _inherited(view: ReadView, name: str, path: str | None) -> list[SymbolRow]:
    """``Class.member`` that ``Class`` inherits (``CharField.clean`` is ``Field.clean``): the nearest
    bases, by the graph's resolved ``INHERITS`` edges, that define ``member``; ``path`` is the class's
    file. Breadth first, at most :data:`INHERITANCE_DEPTH` levels."""
    owner, _, member = name.rpartition(".")
    if not owner or not has_graph(view.conn):
        return []
    classes = [r for r in _resolve(view, owner, path) if DEFINITION_KIND_ORDER.get(r.kind) == 0]
    level = [n for r in classes if (n := definition_node(view.conn, r.path, r.qualified_name, r.start_byte))]
    seen = {n.id for n in level}
    for _ in range(INHERITANCE_DEPTH):
        edges = edges_out_of(view.conn, [n.id for n in level], ("INHERITS",), resolved_only=True)
        ids = [e.dst for e in edges if e.dst is not None and e.dst not in seen]
        seen.update(ids)
        nodes = nodes_by_ids(view.conn, ids)
        bases = [nodes[i] for i in dict.fromkeys(ids) if i in nodes and nodes[i].path is not None]
        found = [
            row
            for base in bases
            for row in view.symbols_by_qualified(f"{base.qualified_name}.{member}", base.path)
        ]
        if found or not bases:
            return found
        level = bases
    return []


def _ordered(rows: list[SymbolRow]) -> list[SymbolRow]:
    return sorted(rows, key=lambda s: (DEFINITION_KIND_ORDER.get(s.kind, 3), s.path, s.start_byte))


def _module_patterns(module: str) -> list[str]:
    """SQL ``LIKE`` patterns of the files whose module may be ``module`` (checked by ``_in_module``)."""
    base = module.replace(".", "/")
    return [f"%{base}.%", *(f"%{base}/{stem}.%" for stem in PACKAGE_STEMS)]


def _reexported(view: ReadView, module: str, rest: str, path: str | None, depth: int) -> list[SymbolRow]:
    """``module.rest`` where a file of ``module`` imports the first name of ``rest`` from where it is
    defined (a package's ``__init__`` re-exporting ``from .query import QuerySet``): the graph's
    resolved ``IMPORTS`` edges out of that file, followed through further packages up to ``depth``.
    At most :data:`MAX_REEXPORT_FILES` importing files are read (``models`` names many)."""
    if depth <= 0 or not has_graph(view.conn):
        return []
    head, _, tail = rest.partition(".")
    patterns = _module_patterns(module)
    imported = sorted(
        set(
            view.conn.execute(
                "SELECT e.path, n.qualified_name, n.path, n.kind FROM edges e JOIN nodes n ON n.id = e.dst "
                "WHERE e.type = 'IMPORTS' AND n.name = ? AND n.path IS NOT NULL AND ("
                + " OR ".join("e.path LIKE ?" for _ in patterns)
                + ")",
                (head, *patterns),
            ).fetchall()
        ),
        key=lambda row: (len(row[0]), row),
    )
    files: list[str] = []
    found: dict[int, SymbolRow] = {}
    for file, qualified, where, kind in imported:
        if kind == "file" or not _in_module(file, module):
            continue
        if file not in files:
            if len(files) == MAX_REEXPORT_FILES:
                break
            files.append(file)
        wanted = f"{qualified}.{tail}" if tail else qualified
        rows = view.symbols_by_qualified(wanted, where)
        if not rows and where != file:  # imported from a package that imports it in turn
            rows = _reexported(view, module_of(where), rest, None, depth - 1)
        found.update((r.id, r) for r in rows if path is None or r.path == path)
    if not found:
        for module_path in _wildcard_sources(view, module):
            rows = view.symbols_by_qualified(rest, module_path)
            if not rows:
                rows = _reexported(view, module_of(module_path), rest, None, depth - 1)
            found.update((r.id, r) for r in rows if path is None or r.path == path)
    return list(found.values())


def _wildcard_sources(view: ReadView, module: str) -> list[str]:
    """The files a package file of ``module`` imports every public name of (``from .fields import *``
    in ``django/forms/__init__.py``): resolved ``IMPORTS`` edges to a file node with no imported
    name. Package files (``__init__``, ``index``, ``mod``) first, at most :data:`MAX_REEXPORT_FILES`."""
    patterns = _module_patterns(module)
    rows = view.conn.execute(
        "SELECT path FROM files WHERE status='indexed' AND ("
        + " OR ".join("path LIKE ?" for _ in patterns)
        + ")",
        patterns,
    ).fetchall()
    files = sorted(
        (p for (p,) in rows if _in_module(p, module)),
        key=lambda p: (p.rsplit("/", 1)[-1].split(".")[0] not in PACKAGE_STEMS, len(p), p),
    )[:MAX_REEXPORT_FILES]
    sources: list[str] = []
    for file in files:
        for (target,) in view.conn.execute(
            "SELECT n.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.file_key = ? AND e.path = ? "
            "AND e.type = 'IMPORTS' AND n.kind = 'file' AND n.path IS NOT NULL "
            "AND json_extract(e.properties, '$.name') IS NULL ORDER BY n.path",
            (file_key(file), file),
        ):
            if target != file and target not in sources:
                sources.append(target)
    return sources


def symbol_not_found(view: ReadView, symbol: str, path: str | None) -> NotFound:
    """The ``NOT_FOUND`` of a symbol no definition has; a file path given as the symbol says so."""
    where = f" in {path}" if path else ""
    next_step = "try operation=search with the name, or check the spelling"
    if view.file(symbol.strip().removeprefix("./")) is not None:
        next_step = (
            "that is a file: pass it as relativePath (impact, symbol with a name), or ask "
            "operation=auto with query=<the path> for its definitions"
        )
    return NotFound(
        f"symbol {symbol!r} is not defined{where} in generation {view.generation}", next_step=next_step
    )

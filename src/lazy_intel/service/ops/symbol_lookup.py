"""Which definitions a ``symbol`` argument names (every operation that takes one asks here).

A name is looked up as written: a qualified name (``Session.request``), a module-qualified one
(``pkg.sessions.Session.request``; in Go, Java, Kotlin and Scala the package is the directory:
``render.JSON``, ``com.acme.Parser``), a name re-exported by a package (``django.db.models.QuerySet``,
defined in ``django/db/models/query.py`` and imported by the package's ``__init__``), else a suffix
of one, else a member the class inherits (``CharField.clean`` is ``Field.clean``), else an extension
method by the type it extends (C#'s ``Builder.AddRetry`` for ``AddRetry(this Builder b)``). A call written
out (``QuerySet.filter()``, ``f(x, y)``, ``new Widget()``) names the function or class. The file a
symbol may carry (``path/file.py::Class::method``) is split off earlier, into ``relativePath``
(``requests.split_symbol_location``).
"""

from __future__ import annotations

import json
import re

from lazy_intel.errors import InvalidArgument, NotFound
from lazy_intel.graph.model import HEADER_SUFFIXES, file_key
from lazy_intel.graph.queries import definition_node, edges_out_of, has_graph, nodes_by_ids
from lazy_intel.graph.rows import EXTENSION_CANDIDATES
from lazy_intel.parse.languages import C_LANGUAGES, language_for_path
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
RUST_ROOT_STEMS = ("lib", "main")  # a Rust crate's root file (`src/lib.rs`): its module is the directory
RUST_PATH_ROOTS = ("crate.", "self.", "super.")  # `crate::flags::HiArgs`: a module path from a crate root
INHERITANCE_DEPTH = 10  # base-class levels searched for an inherited member
REEXPORT_DEPTH = 3  # packages followed through their imports (`pkg` -> `pkg.sub` -> the definition)
MAX_REEXPORT_FILES = 20  # files of one module name read for re-exports (`models` names many)
MAX_ALIAS_SITES = 400  # import sites binding one local name read (`z` is bound in hundreds of tests)
# a call written out after a name: `()`, `(x, y)` (not C++'s `operator()`, which is a name)
CALL_SUFFIX = re.compile(r"(?<!operator)\([^()]*\)$")
NEW_PREFIX = re.compile(r"^new\s+")  # `new Widget()` (JavaScript, TypeScript, Java, C#) names the class


def module_of(path: str) -> str:
    """The module name a file path gives (``a/b/__init__.py``, ``a/b/index.ts``, ``a/b/mod.rs``,
    ``a/b/lib.rs`` -> ``a.b``)."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    own = stem.rsplit("/", 1)[-1]
    if "/" in stem and (own in PACKAGE_STEMS or (own in RUST_ROOT_STEMS and path.endswith(".rs"))):
        stem = stem.rsplit("/", 1)[0]
    return stem.replace("/", ".")


# languages whose package is the directory: every file of `render/` is package `render` (Go), of
# `com/acme/` package `com.acme` (Java, Kotlin, Scala), so `render.JSON` is `JSON` of `render/json.go`
DIRECTORY_PACKAGES = frozenset({"go", "java", "kotlin", "scala"})


def _go_module_roots(view: ReadView, name: str) -> set[str]:
    """The directories of the go.mod files whose module path ends with the package ``name``: a Go
    package at a module's root is named by its module path (``gin.Context`` is ``Context`` of
    ``context.go`` at the root of ``github.com/gin-gonic/gin``), not by a directory."""
    from lazy_intel.graph.program import read_go_modules

    return {
        directory
        for directory, module in read_go_modules(view.conn).items()
        if module.rsplit("/", 1)[-1] == name
    }


def _in_module(path: str, module: str) -> bool:
    own = module_of(path)
    if own == module or own.endswith("." + module):
        return True
    language = language_for_path(path)
    if "/" not in path or (language not in DIRECTORY_PACKAGES and language not in C_LANGUAGES):
        return False
    package = path.rsplit("/", 1)[0].replace("/", ".")
    if language in C_LANGUAGES:
        # a namespace a macro opens (fmt's `FMT_BEGIN_NAMESPACE`) is not in the index, but a project's
        # headers sit under a directory of its name: `fmt::basic_memory_buffer` is in `include/fmt/`
        return f".{module}." in f".{package}."
    return package == module or package.endswith("." + module)


def _in_php_namespace(view: ReadView, namespace: str, symbol: SymbolRow) -> bool:
    """Whether ``symbol``'s class (or function) is ``namespace``'s by the file it lives in: under a
    PSR-4 prefix's directory as the name maps there, else by the path's trailing segments."""
    from lazy_intel.graph.php_autoload import candidate_paths
    from lazy_intel.graph.program import read_php_autoload

    head = symbol.qualified_name.split(".")[0]
    parts = [*namespace.split("."), head]
    stems = candidate_paths("\\".join(parts), read_php_autoload(view.conn))
    if stems:
        return symbol.path.removesuffix(".php") in stems
    tail = "/".join(parts[-2:]) + ".php"  # the namespace's last segment is the directory
    return symbol.path == tail or symbol.path.endswith("/" + tail)


# `#` between a name and a member name: `Class#method` for `Class.method`
INSTANCE_MEMBER_MARK = re.compile(r"(?<=[\w$?!=])#(?=[A-Za-z_$])")


def resolve_symbol(view: ReadView, name: str, path: str | None) -> list[SymbolRow]:
    """Definitions for ``name``, best first (module docstring).

    A bare name returns the definitions with exactly that qualified name first, then every other
    definition with that short name (methods too).
    """
    name = name.strip().lstrip("\\").replace("::", ".").replace("\\", ".")  # PHP's `A\\B\\C` too
    while name.startswith(RUST_PATH_ROOTS) and name.partition(".")[2]:
        name = name.partition(".")[2]  # `crate::flags::HiArgs` is `flags.HiArgs` of some crate
    if not name:
        raise InvalidArgument("symbol is empty")
    found = _resolve(view, name, path)
    if not found and CALL_SUFFIX.search(name):
        called = NEW_PREFIX.sub("", CALL_SUFFIX.sub("", name).strip())
        if called:
            found = _resolve(view, called, path)
    return found


def _resolve(view: ReadView, name: str, path: str | None, *, crates: bool = True) -> list[SymbolRow]:
    """:func:`resolve_symbol` of a cleaned name; ``crates``: may read a Rust crate's name (not
    again inside that reading: a crate whose root module starts with its own name would loop)."""
    exact = view.symbols_by_qualified(name, path)
    if not exact and INSTANCE_MEMBER_MARK.search(name):
        # `Class#method` (Ruby's and JSDoc's notation) names `Class.method`; a `#` that is part of a
        # name (JavaScript's `Ky.#private`, Rust's `r#type`) is looked up as written first
        name = INSTANCE_MEMBER_MARK.sub(".", name)
        exact = view.symbols_by_qualified(name, path)
    if "." not in name:
        seen = {s.id for s in exact}
        others = [s for s in view.symbols_by_name(name, path) if s.id not in seen]
        return _ordered(exact) + _ordered(others)
    found = exact
    if not found:
        parts = name.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module, rest = ".".join(parts[:split]), ".".join(parts[split:])
            candidates = view.symbols_by_qualified(rest, path)
            found = [s for s in candidates if _in_module(s.path, module)]
            go = [s for s in candidates if s.path.endswith(".go") and s not in found] if split == 1 else []
            if go:  # a Go module's root package is named by its module path, not a directory
                roots = _go_module_roots(view, module)
                found += [s for s in go if s.path.rpartition("/")[0] in roots]
            php = [s for s in candidates if s.path.endswith(".php") and s not in found]
            if php:  # a PHP namespace maps to directories (composer.json's PSR-4 prefixes)
                found += [s for s in php if _in_php_namespace(view, module, s)]
            if not found:
                found = _reexported(view, module, rest, path, REEXPORT_DEPTH)
            if not found and split == 1:
                found = _through_alias(view, module, rest, path)
            if not found and split == 1 and crates:
                found = _in_crate(view, module, rest, path)
            if found:
                break
    if not found:
        found = view.symbols_with_suffix(name)
        if path is not None:
            found = [s for s in found if s.path == path]
    if not found:
        found = _inherited(view, name, path, crates=crates)
    if not found:
        found = _extension(view, name, path)
    return _ordered(found)


def _extension(view: ReadView, name: str, path: str | None) -> list[SymbolRow]:
    """``Type.Member`` where ``Member`` extends ``Type`` from another class: C#'s ``static …
    AddRetry(this ResiliencePipelineBuilder b)`` in ``RetryResiliencePipelineBuilderExtensions``,
    found by its ``receiver`` parameter's declared type (Kotlin's ``fun Buffer.f()`` is qualified
    ``Buffer.f`` already). The type is matched by its last name; a name of more than
    ``graph.rows.EXTENSION_CANDIDATES`` methods is not looked through (the resolver's bound)."""
    owner, _, member = name.rpartition(".")
    if not owner or not member:
        return []
    type_name = owner.rpartition(".")[2]
    methods = [s for s in view.symbols_by_name(member, path) if s.kind == "method"]
    if len(methods) > EXTENSION_CANDIDATES:
        return []
    return [s for s in methods if type_name in _extended_types(view, s)]


def _extended_types(view: ReadView, method: SymbolRow) -> set[str]:
    """The last names of the types ``method``'s receiver parameters declare, read as the resolver
    reads them (``graph.annotations.declared_parts``: ``Builder``, ``ns.Builder``, ``Builder<T>``)."""
    # imported here: the annotation reader costs ~25 ms of every CLI start, and only this rare
    # fallback of a failed lookup needs it
    from lazy_intel.graph.annotations import declared_parts
    from lazy_intel.graph.values import last_name

    return {
        name
        for annotation in view.receiver_annotations(method)
        for expr in declared_parts(json.loads(annotation), lang=method.lang or "")[0]
        if (name := last_name(expr))
    }


def _inherited(view: ReadView, name: str, path: str | None, *, crates: bool = True) -> list[SymbolRow]:
    """``Class.member`` that ``Class`` inherits (``CharField.clean`` is ``Field.clean``): the nearest
    bases, by the graph's resolved ``INHERITS`` edges, that define ``member``; ``path`` is the class's
    file. Breadth first, at most :data:`INHERITANCE_DEPTH` levels."""
    owner, _, member = name.rpartition(".")
    if not owner or not has_graph(view.conn):
        return []
    classes = [
        r for r in _resolve(view, owner, path, crates=crates) if DEFINITION_KIND_ORDER.get(r.kind) == 0
    ]
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
    """Types, then functions, then the rest; a C/C++ header's function or method (a declaration,
    mostly) after the source files' (`jv_parse` is defined in `src/jv_parse.c` and declared in
    `src/jv.h`; `Shape::area` defined in `shape.cpp`, declared in its class in `shape.hpp`)."""
    return sorted(
        rows,
        key=lambda s: (
            DEFINITION_KIND_ORDER.get(s.kind, 3),
            s.kind in ("function", "method") and s.path.endswith(HEADER_SUFFIXES),
            s.path,
            s.start_byte,
        ),
    )


def _module_patterns(module: str) -> list[str]:
    """SQL ``LIKE`` patterns of the files whose module may be ``module`` (checked by ``_in_module``)."""
    base = module.replace(".", "/")
    return [f"%{base}.%", *(f"%{base}/{stem}.%" for stem in PACKAGE_STEMS + RUST_ROOT_STEMS)]


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
        found.update(
            (r.id, r) for r in _in_modules(view, _wildcard_sources(view, module), rest, path, depth - 1)
        )
    if not found and tail:  # `export * as coerce from "./coerce"`: `pkg.coerce.string`
        targets = _alias_targets(view, head, _module_files(view, module))
        found.update((r.id, r) for r in _in_modules(view, targets, tail, path, depth - 1))
    return list(found.values())


def _in_crate(view: ReadView, crate: str, rest: str, path: str | None) -> list[SymbolRow]:
    """``crate.rest`` where ``crate`` is a Rust package of the tree by the name its ``Cargo.toml``
    declares (``grep_searcher::searcher::Searcher``): ``rest`` as a module path below the crate's
    root files (``crates/searcher/src/lib.rs`` is module ``crates.searcher.src``)."""
    from lazy_intel.graph.program import read_rust_crates

    found: dict[int, SymbolRow] = {}
    for root in read_rust_crates(view.conn).get(crate, []):
        if view.file(root) is None:
            continue
        module = module_of(root)
        rows = _resolve(view, f"{module}.{rest}", path, crates=False) if module else []
        found.update((r.id, r) for r in rows)
    return list(found.values())


def _through_alias(view: ReadView, alias: str, rest: str, path: str | None) -> list[SymbolRow]:
    """``alias.rest`` where ``alias`` is the local name some file binds a project module to
    (``import * as z from "./v4/classic/external.js"``, ``import pkg.deep as dp``, ``from pkg import
    helpers as hp``, ``const u = require("./u")``): ``rest`` in the files the graph resolved those
    imports to (:func:`_in_modules`)."""
    if not has_graph(view.conn):
        return []
    return _in_modules(view, _alias_targets(view, alias, None), rest, path, REEXPORT_DEPTH)


def _in_modules(
    view: ReadView, modules: list[str], rest: str, path: str | None, depth: int
) -> list[SymbolRow]:
    """``rest`` defined in each of the files ``modules``, or re-exported by it (:func:`_reexported`)."""
    found: dict[int, SymbolRow] = {}
    for module_path in modules[:MAX_REEXPORT_FILES]:
        rows = view.symbols_by_qualified(rest, module_path)
        if not rows:
            rows = _reexported(view, module_of(module_path), rest, None, depth)
        found.update((r.id, r) for r in rows if path is None or r.path == path)
    return list(found.values())


def _alias_targets(view: ReadView, alias: str, files: list[str] | None) -> list[str]:
    """The files the graph resolved imports binding a module to the local name ``alias`` to (in
    ``files`` only, when given; at most :data:`MAX_ALIAS_SITES` import sites read). Imports of a
    name under an alias (their edge goes to a definition, not a file) and unresolved ones are not
    followed; neither is a wildcard import (it binds no name)."""
    where, params = "", [alias]
    if files is not None:
        if not files:
            return []
        where = " AND f.path IN (" + ", ".join("?" for _ in files) + ")"
        params.extend(files)
    sites = view.conn.execute(
        "SELECT f.path, i.start_byte FROM imports i JOIN files f ON f.id = i.file_id "
        f"WHERE i.alias = ? AND i.wildcard = 0{where} ORDER BY f.path, i.start_byte LIMIT ?",
        (*params, MAX_ALIAS_SITES),
    ).fetchall()
    targets: list[str] = []
    for site, start in sites:
        for (target,) in view.conn.execute(
            "SELECT n.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.file_key = ? AND e.path = ? "
            "AND e.start_byte = ? AND e.type = 'IMPORTS' AND n.kind = 'file' AND n.path IS NOT NULL",
            (file_key(site), site, start),
        ):
            if target not in targets and target != site:
                targets.append(target)
    return targets


def _module_files(view: ReadView, module: str) -> list[str]:
    """The indexed files whose module is ``module``: package files (``__init__``, ``index``, ``mod``)
    first, at most :data:`MAX_REEXPORT_FILES`."""
    patterns = _module_patterns(module)
    rows = view.conn.execute(
        "SELECT path FROM files WHERE status='indexed' AND ("
        + " OR ".join("path LIKE ?" for _ in patterns)
        + ")",
        patterns,
    ).fetchall()
    return sorted(
        (p for (p,) in rows if _in_module(p, module)),
        key=lambda p: (p.rsplit("/", 1)[-1].split(".")[0] not in PACKAGE_STEMS, len(p), p),
    )[:MAX_REEXPORT_FILES]


def _wildcard_sources(view: ReadView, module: str) -> list[str]:
    """The files a package file of ``module`` imports every public name of (``from .fields import *``
    in ``django/forms/__init__.py``, ``export * from "./schemas"``): resolved ``IMPORTS`` edges to a
    file node from a wildcard import (a module bound to a name, ``export * as coerce from
    "./coerce"`` or ``import pkg.sub``, exports nothing into the package's names), read from the
    module's files as :func:`_module_files` orders them."""
    sources: list[str] = []
    for file in _module_files(view, module):
        for (target,) in view.conn.execute(
            "SELECT n.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.file_key = ? AND e.path = ? "
            "AND e.type = 'IMPORTS' AND n.kind = 'file' AND n.path IS NOT NULL "
            "AND json_extract(e.properties, '$.name') IS NULL AND e.start_byte IN ("
            "SELECT i.start_byte FROM imports i JOIN files f ON f.id = i.file_id WHERE f.path = ? AND i.wildcard = 1"
            ") ORDER BY n.path",
            (file_key(file), file, file),
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

"""All edges one file owns: calls, references, inheritance, overrides, imports, data flow, routes, tests.

:func:`resolve_file` is a pure function of the file's facts and of what it reads from other files'
interfaces (recorded as dependency tokens); the build decides when to call it.
"""

from __future__ import annotations

import posixpath
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.graph.analysis import Analysis
from lazy_intel.graph.calls import (
    CALLABLE_KINDS,
    Resolution,
    call_targets,
    classify,
    defined_at,
    render,
    type_targets,
)
from lazy_intel.graph.doc_links import doc_link_edges
from lazy_intel.graph.implicit import implicit_edges
from lazy_intel.graph.imports import import_bound_names
from lazy_intel.graph.model import (
    CALLABLE_LABELS,
    TYPE_LABELS,
    FileModel,
    Import,
    Symbol,
    file_node_id,
    module_node_id,
)
from lazy_intel.graph.namespaces import ARITY_LANGS
from lazy_intel.graph.nodes import (
    CALLABLE_SCOPE_KINDS,
    defines_edges,
    is_test_path,
    local_node_id,
    numbered_routes,
)
from lazy_intel.graph.program import FactStore, Program
from lazy_intel.graph.rows import CONFIDENCE, DIRECT_STRATEGIES, EdgeRow, props
from lazy_intel.graph.traits import traits_of
from lazy_intel.graph.values import last_name, ordered, pattern_names

# The interpreter's recursion limit while resolving: MAX_DEMAND_DEPTH (graph/evaluate.py) nested demand
# computations of ~10 Python frames each, with room to spare (Python 3.11 keeps Python-to-Python calls
# off the C stack)
RESOLVE_RECURSION_LIMIT = 8000
TEST_PREFIX = re.compile(r"^(?:test_?|Test)")


@dataclass
class FileGraph:
    edges: list[EdgeRow] = field(default_factory=list)
    deps: set[str] = field(default_factory=set)
    exhausted: bool = False


def resolve_file(store: FactStore, model: FileModel) -> FileGraph:
    """The edges and dependency tokens of one file, read from the facts of ``store``."""
    with _deep_recursion:
        return _resolve(store, model)


class _RecursionRoom:
    """RESOLVE_RECURSION_LIMIT while any thread of the process resolves; afterwards the rest of the
    process (a test runner, serve's other work) has its own limit again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._outer = 0

    def __enter__(self) -> None:
        with self._lock:
            if self._inside == 0:
                self._outer = sys.getrecursionlimit()
                sys.setrecursionlimit(max(self._outer, RESOLVE_RECURSION_LIMIT))
            self._inside += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0:
                sys.setrecursionlimit(self._outer)


_deep_recursion = _RecursionRoom()


def _resolve(store: FactStore, model: FileModel) -> FileGraph:
    program = Program(store, model)
    an = Analysis(program)
    an.run()
    out = FileGraph(exhausted=an.exhausted)
    out.edges.extend(defines_edges(model))
    calls = _call_edges(an, model)
    out.edges.extend(calls)
    out.edges.extend(_type_edges(an, model))
    out.edges.extend(_override_edges(an, model))
    imports = _import_edges(an, model)
    out.edges.extend(imports)
    out.edges.extend(_value_reference_edges(an, model))
    out.edges.extend(_receiver_reference_edges(an, model))
    out.edges.extend(doc_link_edges(an, model, scope_node))
    out.edges.extend(implicit_edges(an, model, scope_node))
    out.edges.extend(_assigned_from_edges(an, model))
    out.edges.extend(_handles_edges(an, model))
    out.edges.extend(_tests_edges(an, model, calls, imports))
    # a changed file is always re-resolved: its own tokens are not kept
    own = (f"r:{model.path}:", f"o:{model.path}:")
    out.deps = {t for t in program.deps.tokens if t != "f:" + model.path and not t.startswith(own)}
    # the analysis refers to itself (its work items) and to the program, which refers back to it:
    # without these cycles the resolution's temporaries are freed when it returns, not when the
    # cyclic garbage collector next runs (index workers run it rarely, lazy_intel/allocator.py)
    an.items.clear()
    program.on_focus_read = _nothing
    return out


def _nothing() -> None:
    pass


def scope_node(model: FileModel, scope: str, position: int | None = None) -> int:
    """The node of the definition code at ``position`` in ``scope`` runs in (of overloads sharing the
    name, the one that holds it)."""
    if not scope:
        return file_node_id(model.path)
    symbol = model.scope_symbol(scope, position)
    return symbol.node_id if symbol is not None else file_node_id(model.path)


def _edge(
    model: FileModel, kind: str, src: int, r: Any, site: Any, *, extra: dict[str, Any] | None = None
) -> EdgeRow:
    """An edge from ``src`` for resolution ``r`` at ``site`` (anything with start/end byte and line)."""
    merged = dict(r.extra or {})
    merged.update(extra or {})
    return EdgeRow(
        model.key,
        kind,
        src,
        r.dst,
        r.strategy,
        r.confidence,
        r.target,
        model.path,
        site.start_byte,
        site.end_byte,
        site.line,
        props(merged),
    )


def _call_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    out = []
    decorators = {id(r) for refs in model.header_refs.values() for r in refs}
    for ref in model.refs:
        if ref.kind not in ("call", "instantiate"):
            continue
        scope = model.scope_of(ref.scope, ref.start_byte)
        site = f"{model.path}:{ref.start_byte}"
        src = scope_node(model, scope, ref.start_byte)
        callee = ref.callee()
        explicit_new = ref.kind == "instantiate" and callee[0] == "a" and callee[2] == "new"
        if explicit_new:  # Ruby's `Greeter.new`: a call of the class, with or without parentheses
            callee = callee[1]
        elif ref.kind == "instantiate" and ref.args_json is None:  # a struct literal: a use of the type
            for r in type_targets(an, model, scope, callee, site):
                out.append(_edge(model, "REFERENCES", src, r, ref))
            continue
        extra = {"instantiate": True} if ref.kind == "instantiate" else None
        for r in call_targets(
            an,
            model,
            scope,
            callee,
            site,
            kind=ref.kind,
            call_syntax=explicit_new or ref.args_json is not None,
            argc=len(ref.args()) if ref.args_json is not None and model.lang in ARITY_LANGS else None,
        ):
            out.append(_edge(model, "CALLS", src, r, ref, extra=extra))
        if ref.args_json is not None and id(ref) in decorators:
            # `@make_decorator(args)`: the decorator it returns is called with the definition
            for r in call_targets(an, model, scope, Analysis.decorator_expr(ref), site, kind="call"):
                if r.dst is not None:
                    out.append(_edge(model, "CALLS", src, r, ref, extra={"implicit": "decorator"}))
    for flow in model.flows:
        if flow.kind != "iterate" or flow.value is None:
            continue
        scope = model.flow_scope(flow)
        values = an.eval(model, scope, flow.value, f"{model.path}:{flow.start_byte}")
        methods = sorted({m for v in values if v[0] == "inst" for m, _ in an.iteration(v)})
        for method in methods:
            entry = an.p.symbol(method)
            if entry is not None:
                r = Resolution(method, "member", CONFIDENCE["member"], entry[1].qualified)
                out.append(
                    _edge(model, "CALLS", scope_node(model, scope), r, flow, extra={"implicit": "iteration"})
                )
    return out


def _type_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    out = []
    for ref in model.refs:
        site = f"{model.path}:{ref.start_byte}"
        if ref.kind == "type":
            scope = model.scope_of(ref.scope, ref.start_byte)
            for r in type_targets(an, model, scope, ref.callee(), site):
                out.append(_edge(model, "REFERENCES", scope_node(model, scope, ref.start_byte), r, ref))
        elif ref.kind in ("inherit", "implement") and ref.scope:
            cls = model.by_qualified.get(ref.scope)
            if cls is None:
                continue
            kind = "IMPLEMENTS" if ref.kind == "implement" else "INHERITS"
            mixin = ref.kind == "implement" and model.lang == "ruby"  # `include Helpers`: a module,
            where = model.scope_of(cls.qualified if mixin else cls.parent)  # named in the class body
            for r in type_targets(an, model, where, ref.callee(), site, modules=mixin):
                if r.dst != cls.node_id:
                    out.append(_edge(model, kind, cls.node_id, r, ref))
    return out


def _override_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    out = []
    for symbol in model.symbols:
        if symbol.kind not in ("method", "constructor") or not symbol.parent:
            continue
        cls = model.by_qualified.get(symbol.parent)
        if cls is None or cls.label not in TYPE_LABELS:
            continue
        for ancestor, depth in an.mro(cls.node_id):
            if depth == 0:
                continue
            found = sorted(v[1] for v in an.class_member(ancestor, symbol.name, False) if v[0] == "def")
            targets = [
                t for t in found if (e := an.p.symbol(t)) is not None and e[1].label in CALLABLE_LABELS
            ]
            if targets and model.lang in ARITY_LANGS:
                # an overload of another arity is a method of its own, not the one overridden
                own = an.arity(model, symbol)
                targets = [t for t in targets if (e := an.p.symbol(t)) is not None and an.arity(*e) == own]
            if targets:
                out.append(
                    EdgeRow(
                        model.key,
                        "OVERRIDES",
                        symbol.node_id,
                        targets[0],
                        "inheritance",
                        CONFIDENCE["inheritance"],
                        symbol.name,
                        model.path,
                        symbol.start_byte,
                        symbol.end_byte,
                        symbol.start_line,
                        props({"depth": depth}),
                    )
                )
                break
    return out


def _value_node(an: Analysis, value: tuple[Any, ...]) -> int | None:
    if value[0] == "mod":
        return file_node_id(value[1])
    if value[0] == "pkg":
        return module_node_id(value[1])
    if value[0] in ("def", "bm"):
        return int(value[1])
    return None


# packages an imported name is followed through to the variable that defines it (`from django.urls
# import path` -> `django/urls/__init__.py` `from .conf import path` -> `path = partial(…)`)
IMPORT_REEXPORT_DEPTH = 3


def _imported_definitions(an: Analysis, model: Any, imp: Import, depth: int) -> set[int]:
    """The definitions an import statement names when what they hold is no definition: a module-level
    variable or constant (`from django.conf import settings`, `settings = LazySettings()`, whose value
    is an instance; `DEFAULT_DB_ALIAS = "default"`) — the imported module's top-level declarations of
    the name, and through its own imports of it up to ``depth`` modules. Read through the module's
    declared names, so the importer depends on that name's facet only."""
    out: set[int] = set()
    for module in an.import_module_values(model, imp):
        if module[0] != "mod":
            continue
        target = an.model_at(module[1], full_allowed=False)
        if target is None:
            continue
        for entry in an.declared(target).get("", {}).get(imp.name) or ():
            if isinstance(entry, Symbol) and not entry.parent:
                out.add(entry.node_id)
            elif isinstance(entry, Import) and depth > 1 and entry.name is not None and not entry.wildcard:
                out |= _imported_definitions(an, target, entry, depth - 1)
    return out


def _import_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    out = []
    src = file_node_id(model.path)
    for imp in model.imports:
        if imp.name is None or imp.wildcard:
            values = an.import_module_values(model, imp)
        else:
            bound = import_bound_names(imp, model.lang)
            values = an.import_values(model, imp, bound[0]) if bound else set()
        targets = sorted({n for v in values if (n := _value_node(an, v)) is not None})
        if not targets and imp.name is not None and not imp.wildcard:
            targets = sorted(_imported_definitions(an, model, imp, IMPORT_REEXPORT_DEPTH))
        text = imp.module + (f".{imp.name}" if imp.name else "")
        extra = {"module": imp.module, **({"name": imp.name} if imp.name else {})}
        if not targets:
            relative = imp.module.startswith(".")
            strategy = "unresolved" if relative else "external"
            out.append(
                EdgeRow(
                    model.key,
                    "IMPORTS",
                    src,
                    None,
                    strategy,
                    0.0,
                    text,
                    model.path,
                    imp.start_byte,
                    imp.end_byte,
                    imp.line,
                    props(extra),
                )
            )
            continue
        for dst in targets:
            out.append(
                EdgeRow(
                    model.key,
                    "IMPORTS",
                    src,
                    dst,
                    "import",
                    CONFIDENCE["import"],
                    text,
                    model.path,
                    imp.start_byte,
                    imp.end_byte,
                    imp.line,
                    props(extra),
                )
            )
    return out


def _named_values(expr: Any) -> list[Any]:
    """Sub-expressions that name something (``f``, ``mod.f``, ``self.handler``) inside a value."""
    if not expr:
        return []
    tag = expr[0]
    if tag in ("n", "a"):
        return [expr]
    if tag in ("t", "u"):
        return [e for item in expr[1] for e in _named_values(item)]
    if tag == "d":
        return [e for pair in expr[1] for e in _named_values(pair[1])]
    if tag in ("kw", "*"):
        return _named_values(expr[-1])
    if tag == "as":  # a cast: its operand
        return _named_values(expr[1])
    return []


def _value_reference_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    """REFERENCES for definitions used as values: passed as arguments, stored, returned, a
    parameter's default (``def g(factory=Box)``); for the names a module exports (``__all__``,
    ``export { a }``, ``export default Box``: ``use: "export"``, each at its name) and a value a type
    reads (``typeof handler``: ``use: "value"``)."""
    out = []
    sites: list[tuple[str, Any, int, int, int]] = []
    for ref in model.refs:
        if ref.kind in ("export", "value") and ref.name:
            site, span = f"{model.path}:{ref.start_byte}", (ref.start_byte, ref.end_byte, ref.line)
            scope = model.scope_of(ref.scope, ref.start_byte)
            out += _definition_uses(an, model, scope, ref.callee(), site=site, span=span, use=ref.kind)
        elif ref.kind in ("call", "instantiate") and ref.args_json is not None:
            scope = model.scope_of(ref.scope, ref.start_byte)
            sites += [(scope, arg, ref.start_byte, ref.end_byte, ref.line) for arg in ref.args()]
    exported = {ref.start_byte for ref in model.refs if ref.kind == "export"}
    for flow in model.flows:
        if flow.kind in ("assign", "enter", "return", "yield", "parameter") and flow.value is not None:
            if flow.start_byte in exported:  # `export { a as b }`: the export reference names `a`
                continue
            sites.append((model.flow_scope(flow), flow.value, flow.start_byte, flow.end_byte, flow.line))
    for scope, value, start, end, line in sites:
        for expr in _named_values(value):
            site = f"{model.path}:{start}"
            out += _definition_uses(an, model, scope, expr, site=site, span=(start, end, line), use="value")
    return out


# the reference kinds whose receiver (`Outer` of `Outer.Inner`, `Box` of `Box.create()`) is itself a use
RECEIVER_REFERENCE_KINDS = frozenset({"call", "read", "type", "inherit", "implement", "instantiate"})


def _receiver_reference_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    """REFERENCES for a definition named as the receiver of a member access: ``Box`` in
    ``Box.create()``, ``Box.size``, ``handler.calls = 0``, a nested type's outer one (``Outer`` in a
    type, base or instantiation written ``Outer.Inner``) (``use: "receiver"``), what a type checker
    lists among the references of ``Box``. The receiver's last name must be the definition's own
    name: ``cls.create()`` and ``self.x`` name a parameter, not the class."""
    out = []
    self_names = traits_of(model.lang).self_names
    for ref in model.refs:
        if ref.kind not in RECEIVER_REFERENCE_KINDS:
            continue
        callee = ref.callee()
        if not callee or callee[0] != "a":
            continue
        receiver = callee[1]
        name = last_name(receiver)  # None unless the receiver is a name or an attribute
        if name is None or name in self_names:
            continue
        scope = model.scope_of(ref.scope, ref.start_byte)
        site = f"{model.path}:{ref.start_byte}:receiver"
        span = (ref.start_byte, ref.end_byte, ref.line)
        out += _definition_uses(
            an, model, scope, receiver, site=site, span=span, use="receiver", bound=("def",), named=name
        )
    return out


def _definition_uses(
    an: Analysis,
    model: FileModel,
    scope: str,
    expr: Any,
    *,
    site: str,
    span: tuple[int, int, int],
    use: str,
    bound: tuple[str, ...] = ("def", "bm"),
    named: str | None = None,
) -> list[EdgeRow]:
    """REFERENCES from ``scope`` to each function, method or type ``expr`` resolves to through
    scopes, imports or members (no name-only guess), at ``span`` (start byte, end byte, line), marked
    ``use``; with ``named``, only to a definition of that name."""
    found, _ = classify(an, model, scope, expr, site, called=False)
    out: list[EdgeRow] = []
    seen: set[int] = set()
    for v, strategy in found:
        if v[0] not in bound or strategy not in DIRECT_STRATEGIES or v[1] in seen:
            continue
        entry = an.p.symbol(v[1])
        if entry is None or entry[1].label not in CALLABLE_LABELS | TYPE_LABELS:
            continue
        if named is not None and entry[1].name != named:
            continue
        seen.add(v[1])
        start, end, line = span
        out.append(
            EdgeRow(
                model.key,
                "REFERENCES",
                scope_node(model, scope, start),
                defined_at(an, model, entry),
                strategy,
                CONFIDENCE[strategy],
                render(expr),
                model.path,
                start,
                end,
                line,
                props({"use": use}),
            )
        )
    return out


def _sources(expr: Any, via: str) -> list[tuple[str, str]]:
    if not expr:
        return []
    tag = expr[0]
    if tag == "n":
        return [(expr[1], via)]
    if tag == "c":  # the callee's result, computed from the arguments
        args = expr[2] if len(expr) > 2 else []
        return _sources(expr[1], "call") + [s for arg in args for s in _sources(arg, "argument")]
    if tag == "a":
        return _sources(expr[1], "attribute" if via == "value" else via)
    if tag == "k":
        return _sources(expr[1], "element")
    if tag in ("t", "u"):
        return [s for item in expr[1] for s in _sources(item, via)]
    if tag == "o":
        return [s for item in expr[1] for s in _sources(item, "operand")]
    if tag == "d":
        return [s for pair in expr[1] for s in _sources(pair[1], via)]
    if tag in ("kw", "*"):
        return _sources(expr[-1], via)
    if tag == "as":  # a cast: its operand
        return _sources(expr[1], via)
    return []


def _assigned_from_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    """Intra-procedural data flow: each assigned name <- the names its value was computed from."""
    out = []
    declared = an.declared(model)
    for flow in model.flows:
        if flow.kind not in ("assign", "iterate", "enter") or flow.value is None:
            continue
        scope = model.flow_scope(flow)
        owner = model.by_qualified.get(scope)
        in_function = owner is not None and owner.kind in CALLABLE_SCOPE_KINDS
        targets = []
        for name in pattern_names(flow.target):
            if in_function:
                targets.append(local_node_id(model.path, scope, name))
            else:
                symbol = next(
                    (
                        s
                        for s in declared.get(scope, {}).get(name, ())
                        if not isinstance(s, str) and hasattr(s, "node_id")
                    ),
                    None,
                )
                if symbol is not None:
                    targets.append(symbol.node_id)
        if not targets:
            continue
        sources: dict[int, tuple[str, str, float]] = {}
        for name, via in _sources(flow.value, "element" if flow.kind == "iterate" else "value"):
            if in_function and "var" in declared.get(scope, {}).get(name, ()):
                sources.setdefault(local_node_id(model.path, scope, name), (name, via, 1.0))
                continue
            values, how = an.lookup(model, scope, name)
            if how in DIRECT_STRATEGIES:
                for v in ordered(values):
                    if v[0] == "def":
                        sources.setdefault(int(v[1]), (name, via, CONFIDENCE[how]))
        extra = {"condition_path": list(flow.condition_path)} if flow.condition_path else {}
        for dst, (name, via, confidence) in sorted(sources.items()):
            for src in targets:
                if src != dst:
                    out.append(
                        EdgeRow(
                            model.key,
                            "ASSIGNED_FROM",
                            src,
                            dst,
                            "local",
                            confidence,
                            name,
                            model.path,
                            flow.start_byte,
                            flow.end_byte,
                            flow.line,
                            props({**extra, "via": via}),
                        )
                    )
    return out


def _handles_edges(an: Analysis, model: FileModel) -> list[EdgeRow]:
    out = []
    for site, route_id in numbered_routes(model):
        if site.handler_symbol is not None:
            symbol = model.by_qualified.get(site.handler_symbol)
            if symbol is not None:
                out.append(
                    EdgeRow(
                        model.key,
                        "HANDLES",
                        route_id,
                        symbol.node_id,
                        "local",
                        CONFIDENCE["local"],
                        symbol.name,
                        model.path,
                        site.start_byte,
                        site.end_byte,
                        site.line,
                        None,
                    )
                )
            continue
        if site.handler_expr is None:
            continue
        expr = site.handler_expr
        if expr[0] == "c" and expr[1][0] == "a" and expr[1][2] == "as_view":  # Django class-based views
            expr = expr[1][1]
        if expr[0] == "l":
            continue  # an inline function: the route's own span holds it
        found, _ = classify(an, model, site.scope, expr, f"{model.path}:{site.start_byte}")
        for value, strategy in found:
            if value[0] in ("def", "bm"):
                out.append(
                    EdgeRow(
                        model.key,
                        "HANDLES",
                        route_id,
                        value[1],
                        strategy,
                        CONFIDENCE.get(strategy, 0.5),
                        render(expr),
                        model.path,
                        site.start_byte,
                        site.end_byte,
                        site.line,
                        None,
                    )
                )
    return out


def _subject_names(name: str) -> list[str]:
    stripped = TEST_PREFIX.sub("", name).lstrip("_")
    if not stripped:
        return []
    names = [stripped]
    if "_" in stripped:
        names.append(stripped.split("_")[0])
    if stripped[:1].isupper():
        names.append(stripped[:1].lower() + stripped[1:])
    return list(dict.fromkeys(names))


SUBJECT_FILE = (
    (re.compile(r"^test_(.+)(\.pyi?)$"), r"\1\2"),
    (re.compile(r"^(.+)_test(\.[a-z]+)$"), r"\1\2"),
    (re.compile(r"^(.+)\.(?:test|spec)(\.[a-z]+)$"), r"\1\2"),
    (re.compile(r"^(.+?)Tests?(\.[a-z]+)$"), r"\1\2"),
)


def _tests_edges(
    an: Analysis, model: FileModel, calls: list[EdgeRow], imports: list[EdgeRow]
) -> list[EdgeRow]:
    if not is_test_path(model.path):
        return []
    out = []
    file_id = file_node_id(model.path)
    imported_files = {e.dst for e in imports if e.dst is not None}
    for edge in imports:  # `from m import f`: the edge points at f, the evidence is m's file
        entry = an.p.symbol(edge.dst) if edge.dst is not None else None
        if entry is not None:
            imported_files.add(file_node_id(entry[0].path))
    base = posixpath.basename(model.path)
    for pattern, replacement in SUBJECT_FILE:
        if not pattern.match(base):
            continue
        subject = pattern.sub(replacement, base)
        candidates = an.p.index.with_suffix(subject, an.p.deps)
        candidates = [c for c in candidates if c != model.path and not is_test_path(c)]
        chosen = [c for c in candidates if file_node_id(c) in imported_files]
        strategy = "import" if chosen else "naming"
        if not chosen:
            same_dir = [c for c in candidates if posixpath.dirname(c) == posixpath.dirname(model.path)]
            chosen = same_dir or (candidates if len(candidates) == 1 else [])
        for path in chosen:
            out.append(
                EdgeRow(
                    model.key,
                    "TESTS",
                    file_id,
                    file_node_id(path),
                    strategy,
                    CONFIDENCE[strategy],
                    path,
                    model.path,
                    0,
                    0,
                    1,
                    None,
                )
            )
        break
    callees_of: dict[int, dict[int, tuple[str, float]]] = {}
    for edge in calls:
        if edge.dst is not None:
            callees_of.setdefault(edge.src, {}).setdefault(edge.dst, (edge.strategy, edge.confidence))
    for symbol in model.symbols:
        if symbol.kind not in CALLABLE_KINDS or not TEST_PREFIX.match(symbol.name):
            continue
        targets: dict[int, tuple[str, float, str]] = {}
        for name in _subject_names(symbol.name):
            values, how = an.lookup(model, "", name)
            if how in DIRECT_STRATEGIES:
                for value in ordered(values):
                    entry = an.p.symbol(value[1]) if value[0] == "def" else None
                    if entry is not None and not is_test_path(entry[0].path):
                        targets.setdefault(int(value[1]), ("naming", CONFIDENCE["naming"], "naming"))
        for dst, (strategy, confidence) in sorted(callees_of.get(symbol.node_id, {}).items()):
            entry = an.p.symbol(dst)
            if entry is not None and not is_test_path(entry[0].path):
                targets.setdefault(dst, (strategy, confidence, "call"))
        for dst, (strategy, confidence, evidence) in sorted(targets.items()):
            out.append(
                EdgeRow(
                    model.key,
                    "TESTS",
                    symbol.node_id,
                    dst,
                    strategy,
                    confidence,
                    symbol.name,
                    model.path,
                    symbol.start_byte,
                    symbol.end_byte,
                    symbol.start_line,
                    props({"evidence": evidence}),
                )
            )
    return out

"""What resolution works on: one file's facts as loaded from the store, with stable node ids.

A node id is a hash of what the node *is* (its path, qualified name and occurrence), never a row id,
so an edge from an unchanged file into a re-parsed one stays valid as long as its target still
exists. :meth:`FileModel.interface` is the part of a file other files may read while resolving
their own references (definitions, imports, bases, decorators, module/class-level values, returns);
its digest decides whether a change to this file can change anybody else's edges.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lazy_intel.parse.expressions import Expr, loads
from lazy_intel.parse.languages import is_parsed_language

if TYPE_CHECKING:
    from lazy_intel.parse.facts import FactRows

# symbol kind -> node label
LABEL_OF_KIND: dict[str, str] = {
    "class": "Class",
    "struct": "Class",
    "record": "Class",
    "object": "Class",
    "union": "Class",
    "enum": "Class",
    "interface": "Interface",
    "trait": "Interface",
    "protocol": "Interface",
    "function": "Function",
    "lambda": "Function",
    "macro": "Function",
    "method": "Method",
    "constructor": "Method",
    "variable": "Variable",
    "constant": "Variable",
    "field": "Variable",
    "property": "Variable",
    "module": "Module",
    "type": "Type",
}
CALLABLE_LABELS = frozenset({"Function", "Method"})
TYPE_LABELS = frozenset({"Class", "Interface", "Type"})
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
# definitions that hold a value rather than run code
VALUE_KINDS = frozenset({"variable", "constant", "field", "property"})
SCOPE_KINDS = frozenset(
    {"function", "method", "constructor", "macro", "lambda"}
    | {k for k, v in LABEL_OF_KIND.items() if v in TYPE_LABELS}
) | {"module"}


def stable_id(*parts: str) -> int:
    """A positive 63-bit id derived from ``parts`` (never 0, which marks "no owner file")."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") & 0x7FFF_FFFF_FFFF_FFFF) or 1


# C and C++ headers: their functions are declarations when a source file defines the same name
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")


def file_key(path: str) -> int:
    return stable_id("file", path)


def file_node_id(path: str) -> int:
    return stable_id("file-node", path)


def module_node_id(directory: str) -> int:
    return stable_id("module", directory)


def label_of(kind: str) -> str:
    return LABEL_OF_KIND.get(kind, "Symbol")


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    qualified: str
    kind: str
    parent: str | None
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    name_start: int
    node_id: int

    @property
    def label(self) -> str:
        return label_of(self.kind)


_UNDECODED: Any = object()  # an expression not decoded from its JSON text yet


class Ref:
    """A reference site. ``callee()`` is the stored callee expression, else ``receiver.name``."""

    __slots__ = (
        "_args",
        "_callee",
        "args_json",
        "callee_json",
        "end_byte",
        "kind",
        "line",
        "name",
        "receiver",
        "scope",
        "start_byte",
    )

    def __init__(
        self,
        row: tuple[Any, ...],
        callee: Expr | None = None,
        args: list[Expr] | None = None,
        *,
        decode: bool = True,
    ) -> None:
        (
            self.name,
            self.kind,
            self.start_byte,
            self.end_byte,
            self.line,
            self.scope,
            self.receiver,
            self.callee_json,
            self.args_json,
        ) = row
        if not decode:  # decoded from the JSON text on first use
            self._callee: Expr | None = _UNDECODED
            self._args: list[Expr] = _UNDECODED
            return
        if callee is None and self.callee_json is not None:
            callee = loads(self.callee_json)
        if args is None and self.args_json is not None:
            args = loads(self.args_json)
        self._callee = callee
        self._args = args or []

    def callee(self) -> Expr:
        callee = self._callee
        if callee is _UNDECODED:
            callee = self._callee = loads(self.callee_json)
        if callee is None:
            if self.receiver is None:
                callee = self._callee = ["n", self.name]
            else:
                callee = self._callee = ["a", receiver_expr(self.receiver), self.name]
        return callee

    def args(self) -> list[Expr]:
        if self._args is _UNDECODED:
            self._args = (loads(self.args_json) if self.args_json is not None else None) or []
        return self._args


def receiver_expr(text: str) -> Expr:
    """``a.b`` / ``a::b`` / ``a->b`` as an attribute chain; anything else is unknown."""
    parts = text.replace("::", ".").replace("->", ".").split(".")
    if not all(p and (p.replace("_", "a").replace("$", "a").isalnum()) for p in parts):
        return ["x"]
    expr: Expr = ["n", parts[0]]
    for part in parts[1:]:
        expr = ["a", expr, part]
    return expr


@dataclass(frozen=True, slots=True)
class Import:
    module: str
    name: str | None
    alias: str | None
    start_byte: int
    end_byte: int
    line: int
    scope: str | None
    wildcard: bool


class Flow:
    """A flow fact (see :class:`lazy_intel.parse.facts.FlowFact`). Its expressions are decoded from
    their JSON text on first use (most flows of a file read through its interface never are), or
    up front when ``parsed`` is given."""

    __slots__ = (
        "_annotation",
        "_target",
        "_value",
        "condition_path",
        "end_byte",
        "index",
        "kind",
        "line",
        "raw",
        "scope",
        "start_byte",
    )

    def __init__(self, row: tuple[Any, ...], parsed: list[Any] | None = None) -> None:
        kind, scope, target, value, annotation, index, start, end, line, condition = row
        self.kind: str = kind
        self.scope: str | None = scope
        self.raw = (target, value, annotation)
        if parsed is None:
            self._target = self._value = self._annotation = _UNDECODED
        else:
            self._target, self._value, self._annotation = parsed
        self.index: int = index
        self.start_byte: int = start
        self.end_byte: int = end
        self.line: int = line
        self.condition_path: tuple[str, ...] = tuple(condition.split()) if condition else ()

    @property
    def target(self) -> Expr | None:
        if self._target is _UNDECODED:
            self._target = loads(self.raw[0])
        return self._target

    @property
    def value(self) -> Expr | None:
        if self._value is _UNDECODED:
            self._value = loads(self.raw[1])
        return self._value

    @property
    def annotation(self) -> Expr | None:
        if self._annotation is _UNDECODED:
            self._annotation = loads(self.raw[2])
        return self._annotation

    def identity(self) -> str:
        """Everything but the position, as text (what the interface digest hashes)."""
        target, value, annotation = self.raw
        return f"{self.kind}\x1f{self.scope}\x1f{target}\x1f{value}\x1f{annotation}\x1f{self.index}"


@dataclass
class FileModel:
    """One file's facts. ``full`` is False for an :meth:`interface` projection."""

    path: str
    lang: str
    sha256: str
    symbols: list[Symbol]
    refs: list[Ref]
    imports: list[Import]
    flows: list[Flow]
    full: bool = True
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def key(self) -> int:
        return file_key(self.path)

    @cached_property
    def by_id(self) -> dict[int, Symbol]:
        return {s.node_id: s for s in self.symbols}

    @cached_property
    def lambdas(self) -> dict[int, Symbol]:
        """Anonymous functions that are definitions (Python), by start byte."""
        return {s.start_byte: s for s in self.symbols if s.kind == "lambda"}

    def lambda_at(self, start_byte: int) -> Symbol | None:
        return self.lambdas.get(start_byte)

    @cached_property
    def by_qualified(self) -> dict[str, Symbol]:
        out: dict[str, Symbol] = {}
        for s in self.symbols:
            out.setdefault(s.qualified, s)
        return out

    @cached_property
    def _same_qualified(self) -> dict[str, list[Symbol]]:
        """The qualified names several definitions share (a property's getter and setter, overloads,
        a function defined in both branches of an ``if``), each with every one of them."""
        out: dict[str, list[Symbol]] = {}
        for s in self.symbols:
            out.setdefault(s.qualified, []).append(s)
        return {q: found for q, found in out.items() if len(found) > 1}

    def symbol_at(self, qualified: str, position: int | None) -> Symbol | None:
        """The definition named ``qualified`` whose span holds ``position`` (the first one when none
        does, or without a position): ``@size.setter`` belongs to the setter, not the getter."""
        first = self.by_qualified.get(qualified)
        if first is None or position is None or qualified not in self._same_qualified:
            return first
        for s in self._same_qualified[qualified]:
            if s.start_byte <= position < s.end_byte:
                return s
        return first

    def scope_symbol(self, qualified: str, position: int | None = None) -> Symbol | None:
        """The definition named ``qualified`` that code at ``position`` belongs to: of several, the one
        whose span holds it (a scope before a value when both do), else a scope before a value (Java's
        method ``data()`` before its field ``data``)."""
        first = self.by_qualified.get(qualified)
        if first is None or qualified not in self._same_qualified:
            return first
        named = self._same_qualified[qualified]
        if position is not None:
            holding = [s for s in named if s.start_byte <= position < s.end_byte]
            if holding:
                return next((s for s in holding if s.kind in SCOPE_KINDS), holding[0])
        return next((s for s in named if s.kind in SCOPE_KINDS), first)

    def flow_scope(self, flow: Flow) -> str:
        """The scope a flow fact runs in (of definitions sharing its scope's name, the one holding it:
        a field's own declaration is the class's, not its same-named method's)."""
        shared = flow.scope in self._same_qualified
        return self.scope_of(flow.scope, flow.start_byte if shared else None)

    @cached_property
    def children(self) -> dict[str | None, list[Symbol]]:
        out: dict[str | None, list[Symbol]] = {}
        for s in self.symbols:
            out.setdefault(s.parent, []).append(s)
        return out

    @cached_property
    def _children_by_name(self) -> dict[tuple[str | None, str], list[Symbol]]:
        out: dict[tuple[str | None, str], list[Symbol]] = {}
        for s in self.symbols:
            out.setdefault((s.parent, s.name), []).append(s)
        return out

    def children_named(self, parent: str | None, name: str) -> list[Symbol]:
        """``[c for c in children.get(parent, ()) if c.name == name]``, without the scan (a member
        lookup asks this of every class in a hierarchy, for every attribute it resolves)."""
        return self._children_by_name.get((parent, name), [])

    def scope_of(self, scope: str | None, position: int | None = None) -> str:
        """The scope code at ``position`` runs in: ``""`` for the module, else a callable or type.

        A value definition (``x = f()``) is not a scope; code in a definition's header (decorators,
        defaults) before its name runs in the enclosing scope.
        """
        current = scope
        while current:
            symbol = self.by_qualified.get(current)
            if symbol is None:
                return current
            if current in self._same_qualified:
                symbol = self.scope_symbol(current, position) or symbol
            if symbol.kind in SCOPE_KINDS and (position is None or position >= symbol.name_start):
                return current
            current = symbol.parent
        return ""

    @cached_property
    def header_refs(self) -> dict[str, list[Ref]]:
        """Decorators/annotations: the outermost call refs in a definition's span before its name."""
        out: dict[str, list[Ref]] = {}
        for ref in self.refs:
            if ref.kind != "call" or not ref.scope:
                continue
            symbol = self.symbol_at(ref.scope, ref.start_byte)
            if symbol is None or not (symbol.start_byte <= ref.start_byte < symbol.name_start):
                continue
            chosen = out.setdefault(symbol.qualified, [])
            if chosen and chosen[-1].start_byte <= ref.start_byte and ref.end_byte <= chosen[-1].end_byte:
                continue  # nested inside the previous decorator (its arguments)
            chosen.append(ref)
        return out

    @cached_property
    def bases(self) -> dict[str, list[Ref]]:
        out: dict[str, list[Ref]] = {}
        for ref in self.refs:
            if ref.kind in ("inherit", "implement") and ref.scope:
                out.setdefault(ref.scope, []).append(ref)
        return out

    @cached_property
    def flows_by_scope(self) -> dict[str, list[Flow]]:
        out: dict[str, list[Flow]] = {}
        for flow in self.flows:
            out.setdefault(self.flow_scope(flow), []).append(flow)
        return out

    def interface(self) -> FileModel:
        """What other files may read: everything but call sites and local values of non-returning code."""
        returning = {self.flow_scope(f) for f in self.flows if f.kind in ("return", "yield")}
        keep_flows = [
            f
            for f in self.flows
            if f.kind not in ("assign", "enter")
            or self.flow_scope(f) in returning
            or self._is_type_level(self.flow_scope(f))
            or (f.target is not None and f.target[0] == "a")
        ]
        headers = {id(r) for refs in self.header_refs.values() for r in refs}
        keep_refs = [r for r in self.refs if r.kind in ("inherit", "implement") or id(r) in headers]
        return FileModel(
            self.path, self.lang, self.sha256, self.symbols, keep_refs, self.imports, keep_flows, False
        )

    def body_facet(self, scope: str | None) -> str | None:
        """The outermost callable enclosing ``scope`` (or ``scope`` itself): whose body a lookup there
        reads. ``None`` at module and class level, which belong to the file's outline."""
        memo = self._memo.setdefault("facets", {})
        if scope in memo:
            return memo[scope]
        facet = None
        current = scope
        while current:
            symbol = self.by_qualified.get(current)
            if symbol is None:
                break
            if symbol.kind in CALLABLE_KINDS:
                facet = symbol.qualified
            current = symbol.parent
        memo[scope] = facet
        return facet

    def flow_body(self, flow: Flow) -> str | None:
        """The body a flow belongs to; an attribute store (``self.x = …``) is the class's outline."""
        if flow.kind == "assign" and flow.target is not None and flow.target[0] == "a":
            return None
        return self.body_facet(self.flow_scope(flow))

    def body_digests(self) -> dict[str, str]:
        """Per callable body (see :meth:`body_facet`): a digest of its flow facts without positions.

        Other files read a body only by evaluating inside it (a return value, a local variable, an
        attribute stored by a method); those reads record ``r:<path>:<callable>`` tokens, so a change
        that only moves one body's digest re-resolves only the files that evaluated that body.
        """
        hashes: dict[str, Any] = {}
        for flow in self.flows:
            facet = self.flow_body(flow)
            if facet is not None:
                h = hashes.get(facet)
                if h is None:
                    h = hashes[facet] = hashlib.sha256()
                h.update(f"F{flow.identity()}\x00".encode())
        return {facet: h.hexdigest()[:16] for facet, h in sorted(hashes.items())}

    def outline_digest(self) -> str:
        """The digest of what other files may read without evaluating inside a callable body."""
        return self.digest(skip_bodies=True)

    def interface_record(self) -> str:
        """What ``graph_files.interface_sha`` keeps, of the :meth:`interface` projection (what other
        files can read): the outline digest, then ``o<TAB>facet<TAB>digest`` per outline facet
        (:func:`lazy_intel.graph.interface_view.facet_digests`) and ``r<TAB>callable<TAB>digest`` per
        callable body."""
        from lazy_intel.graph.imports import import_bound_names
        from lazy_intel.graph.interface_view import facet_digests
        from lazy_intel.graph.values import pattern_names

        projection = self.interface()
        lines = [projection.outline_digest()]
        facets = facet_digests(projection, import_bound_names, pattern_names)
        lines += [f"o\t{facet}\t{digest}" for facet, digest in facets.items()]
        lines += [f"r\t{facet}\t{digest}" for facet, digest in projection.body_digests().items()]
        return "\n".join(lines)

    # ---- name-keyed reads (an InterfaceView records the facet of each)
    def wildcard_imports(self) -> list[Import]:
        """Module-level ``from m import *`` / ``export * from`` / ``use m::*`` imports, in order."""
        return [i for i in self.imports if i.wildcard and self.scope_of(i.scope) == ""]

    def includes(self) -> list[Import]:
        """A C or C++ file's ``#include``s, in order (its other imports, C++'s ``using``, name a
        namespace or a member, or are wildcards: ``using namespace std``)."""
        return [i for i in self.imports if i.name is None and not i.wildcard]

    def flows_binding(self, scope: str, name: str) -> list[Flow]:
        """The flows of ``scope`` whose target binds ``name`` (parameters and assignments)."""
        from lazy_intel.graph.values import pattern_names

        return [f for f in self.flows_by_scope.get(scope, ()) if name in pattern_names(f.target)]

    def flows_with_top(self, facet: str) -> list[Flow]:
        """The flows whose scope lies under the top-level definition ``facet``."""
        by_top = self._memo.get("flows_by_top")
        if by_top is None:
            by_top = {}
            for flow in self.flows:
                scope = self.flow_scope(flow)
                if scope:
                    by_top.setdefault(scope.split(".", 1)[0], []).append(flow)
            self._memo["flows_by_top"] = by_top
        return by_top.get(facet, [])

    def _is_type_level(self, scope: str) -> bool:
        if not scope:
            return True
        symbol = self.by_qualified.get(scope)
        return symbol is not None and symbol.label in TYPE_LABELS

    def digest(self, *, skip_bodies: bool = False) -> str:
        """Digest of this model's content without positions (so moving code does not change it);
        ``skip_bodies``: without the flows of callable bodies (:meth:`body_digests` has those)."""
        h = hashlib.sha256()
        h.update(f"{self.path}\x00{self.lang}\x00".encode())
        for s in self.symbols:
            h.update(f"S{s.name}\x1f{s.qualified}\x1f{s.kind}\x1f{s.parent}\x00".encode())
        for i in self.imports:
            h.update(f"I{i.module}\x1f{i.name}\x1f{i.alias}\x1f{i.scope}\x1f{i.wildcard}\x00".encode())
        for r in self.refs:
            h.update(
                f"R{r.name}\x1f{r.kind}\x1f{r.scope}\x1f{r.receiver}\x1f{r.callee_json}\x1f{r.args_json}\x00".encode()
            )
        for f in self.flows:
            if skip_bodies and self.flow_body(f) is not None:
                continue
            h.update(f"F{f.identity()}\x00".encode())

        return h.hexdigest()


def symbols_with_ids(path: str, rows: list[tuple[Any, ...]]) -> list[Symbol]:
    """Symbols from ``(name, qualified, kind, parent, start, end, start_line, end_line, name_start)`` rows."""
    seen: dict[str, int] = {}
    out = []
    for name, qualified, kind, parent, start, end, start_line, end_line, name_start in rows:
        occurrence = seen.get(qualified, 0)
        seen[qualified] = occurrence + 1
        node_id = stable_id("symbol", path, qualified, str(occurrence))
        out.append(
            Symbol(name, qualified, kind, parent, start, end, start_line, end_line, name_start, node_id)
        )
    return out


# Refs an interface can keep (see FileModel.interface): bases, and calls inside a definition's header
# (decorators) — a superset, which the projection then narrows exactly as it narrows a full model.
INTERFACE_REFS = (
    " AND (kind IN ('inherit', 'implement') OR (kind = 'call' AND scope_name IS NOT NULL AND EXISTS ("
    "SELECT 1 FROM symbols s WHERE s.file_id = refs.file_id AND s.qualified_name = refs.scope_name "
    "AND refs.start_byte >= s.start_byte AND refs.start_byte < s.name_start_byte)))"
)


def load_interface(conn: sqlite3.Connection, path: str) -> FileModel | None:
    """``load_model(conn, path).interface()`` without reading the call sites an interface drops."""
    model = load_model(conn, path, refs_filter=INTERFACE_REFS, decode=False)
    return model.interface() if model is not None else None


def load_model(
    conn: sqlite3.Connection, path: str, *, refs_filter: str = "", decode: bool = True
) -> FileModel | None:
    """The facts of ``path`` in the store, or ``None`` when it has none (not parsed, or gone).

    ``decode=False`` leaves each expression of a reference or a flow as JSON text until it is used
    (a model read for its interface or its outline decodes few of them)."""
    row = conn.execute(
        "SELECT id, lang, sha256 FROM files WHERE path=? AND status='indexed' AND lang IS NOT NULL", (path,)
    ).fetchone()
    if row is None:
        return None
    file_id, lang, sha = row
    if not is_parsed_language(lang):
        return None
    q = conn.execute
    symbol_rows = q(
        "SELECT name, qualified_name, kind, parent_name, start_byte, end_byte, start_line, end_line, "
        "name_start_byte FROM symbols WHERE file_id=? ORDER BY ordinal",
        (file_id,),
    ).fetchall()
    ref_rows = q(
        "SELECT name, kind, start_byte, end_byte, line, scope_name, receiver, callee, args FROM refs "
        "WHERE file_id=?" + refs_filter + " ORDER BY start_byte, name_start_byte, kind",
        (file_id,),
    ).fetchall()
    if decode:  # one JSON parse per file, not one per expression
        parsed_refs = json.loads(
            "[" + ",".join(f"[{r[7] or 'null'},{r[8] or 'null'}]" for r in ref_rows) + "]"
        )
        refs = [Ref(r, c, a) for r, (c, a) in zip(ref_rows, parsed_refs, strict=True)]
    else:
        refs = [Ref(r, decode=False) for r in ref_rows]
    imports = [
        Import(m, n, a, s, e, line, scope, bool(w))
        for m, n, a, s, e, line, scope, w in q(
            "SELECT module, name, alias, start_byte, end_byte, line, scope_name, wildcard FROM imports "
            "WHERE file_id=? ORDER BY start_byte, module, name, alias",
            (file_id,),
        )
    ]
    flow_rows = q(
        "SELECT kind, scope_name, target, value, annotation, position, start_byte, end_byte, line, "
        "condition_path FROM flows WHERE file_id=? ORDER BY start_byte, end_byte, kind",
        (file_id,),
    ).fetchall()
    if decode:
        parsed_flows = json.loads(
            "[" + ",".join(f"[{r[2] or 'null'},{r[3] or 'null'},{r[4] or 'null'}]" for r in flow_rows) + "]"
        )
        flows = [Flow(r, parsed) for r, parsed in zip(flow_rows, parsed_flows, strict=True)]
    else:  # each expression decoded when first used
        flows = [Flow(r) for r in flow_rows]
    return FileModel(path, lang, sha, symbols_with_ids(path, symbol_rows), refs, imports, flows)


def model_from_rows(path: str, lang: str, sha: str, rows: FactRows) -> FileModel | None:
    """The model :func:`load_model` (``decode=False``) reads back once ``rows`` are stored: built where
    the file was parsed (a parse worker), without the store. The store's orders are the same (every
    sort here is stable over the rows' insertion order, as SQLite reads them by ``file_id`` in rowid
    order); ``tests/graph/test_model_from_rows.py`` compares the two."""
    if not is_parsed_language(lang):
        return None
    symbols = symbols_with_ids(
        path,
        [(r[0], r[1], r[2], r[11], r[3], r[4], r[5], r[6], r[7]) for r in rows.symbols],
    )
    ref_rows = sorted(rows.references, key=_ref_order)
    refs = [Ref((r[0], r[1], r[2], r[3], r[4], r[7], r[8], r[9], r[10]), decode=False) for r in ref_rows]
    imports = [
        Import(m, n, a, s, e, line, scope, bool(w))
        for m, n, a, s, e, line, scope, w in sorted(rows.imports, key=_import_order)
    ]
    flows = [Flow(r) for r in sorted(rows.flows, key=_flow_order)]
    return FileModel(path, lang, sha, symbols, refs, imports, flows)


def _ref_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return row[2], row[5], row[1]  # start_byte, name_start_byte, kind


def _nulls_first(value: str | None) -> tuple[bool, str]:
    return (value is not None, value or "")  # SQLite orders NULL before any text


def _import_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return row[3], row[0], _nulls_first(row[1]), _nulls_first(row[2])  # start_byte, module, name, alias


def _flow_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return row[6], row[7], row[0]  # start_byte, end_byte, kind


def own_header_refs(model: Any, symbol: Symbol) -> list[Ref]:
    """``symbol``'s header refs, not those of another definition of its name (the ``@size.setter``
    of a property's setter is not the getter's). ``model`` is a :class:`FileModel` or a view of one
    (``interface_view``): read through its ``header_refs``, so a view records the facet it read."""
    refs = model.header_refs.get(symbol.qualified, ())
    return [r for r in refs if symbol.start_byte <= r.start_byte < symbol.name_start]

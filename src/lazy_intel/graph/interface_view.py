"""Another file's interface as one resolution sees it, recording *which part* of it each read used.

A file's interface is partitioned into facets (:func:`facet_digests`): one per top-level name (the
definitions under it, the imports and module-level values that bind it, its classes' members,
bases, decorators and attribute stores), ``*`` for what no name owns (wildcard imports, module-level
stores that bind no name), and one per callable body (``r:`` tokens, :mod:`lazy_intel.graph.model`).
A resolution reads another file only through an :class:`InterfaceView`, whose name-keyed accessors
record ``o:<path>:<facet>``; any other access records the whole-file token ``f:<path>`` (so a read
this module does not know about is never missed, only coarser). When a file changes, only the facets
whose digest moved are invalidated: adding a definition re-resolves the files that looked that name
up, not every file that imported something else from the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lazy_intel.graph.model import FileModel, Flow, Import, Symbol
    from lazy_intel.graph.modules import Deps

NO_NAME = "*"  # the facet of interface parts no top-level name owns


def top(qualified: str) -> str:
    return qualified.split(".", 1)[0]


def scope_facet(scope: str, name: str) -> str:
    """The facet holding what ``name`` is bound to in ``scope``."""
    return name if not scope else top(scope)


class _Recorded(Mapping[Any, Any]):
    """A read-only mapping whose keyed reads record the key's facet (anything else: the whole file)."""

    __slots__ = ("_data", "_deps", "_facet", "_path")

    def __init__(self, data: Mapping[Any, Any], deps: Deps, path: str, facet: Any) -> None:
        self._data = data
        self._deps = deps
        self._path = path
        self._facet = facet

    def _note(self, key: Any) -> None:
        facet = self._facet(key)
        self._deps.add(f"o:{self._path}:{facet}" if facet is not None else "f:" + self._path)

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return self._data.get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        self._deps.add("f:" + self._path)
        return iter(self._data)

    def __len__(self) -> int:
        self._deps.add("f:" + self._path)
        return len(self._data)


def _qualified_facet(key: Any) -> str | None:
    return top(key) if isinstance(key, str) and key else None


class DeclaredView:
    """``declared(model)`` of another file: ``.get(scope, {}).get(name)`` records ``scope_facet``."""

    __slots__ = ("_data", "_deps", "_path")

    def __init__(self, data: dict[str, dict[str, list[Any]]], deps: Deps, path: str) -> None:
        self._data = data
        self._deps = deps
        self._path = path

    def get(self, scope: str, default: Any = None) -> _Recorded:
        names = self._data.get(scope) or {}
        return _Recorded(names, self._deps, self._path, lambda name: scope_facet(scope, name))


class InterfaceView:
    """A :class:`FileModel` interface seen by one resolution (reads recorded into ``deps``)."""

    def __init__(self, raw: FileModel, deps: Deps) -> None:
        self.raw = raw
        self.path = raw.path
        self.lang = raw.lang
        self.full = False
        self._deps = deps
        path = raw.path
        self.by_qualified = _Recorded(raw.by_qualified, deps, path, _qualified_facet)
        self.children = _Recorded(raw.children, deps, path, _qualified_facet)
        self.flows_by_scope = _Recorded(raw.flows_by_scope, deps, path, _qualified_facet)
        self.header_refs = _Recorded(raw.header_refs, deps, path, _qualified_facet)
        self.bases = _Recorded(raw.bases, deps, path, _qualified_facet)

    def __getattr__(self, name: str) -> Any:
        # an access this view does not know (symbols, imports, flows, refs, …): the whole file
        self._deps.add("f:" + self.raw.path)
        return getattr(self.raw, name)

    @property
    def key(self) -> int:
        return self.raw.key

    def note(self, facet: str | None) -> None:
        self._deps.add(f"o:{self.path}:{facet}" if facet is not None else "f:" + self.path)

    def scope_of(self, scope: str | None, position: int | None = None) -> str:
        if scope:
            self.note(top(scope))
        return self.raw.scope_of(scope, position)

    def flow_scope(self, flow: Any) -> str:
        if flow.scope:
            self.note(top(flow.scope))
        return self.raw.flow_scope(flow)

    def body_facet(self, scope: str | None) -> str | None:
        return self.raw.body_facet(scope)  # only names a token; reads nothing a result depends on

    def children_named(self, parent: str | None, name: str) -> list[Symbol]:
        self.note(_qualified_facet(parent))  # what ``children.get(parent)`` records
        return self.raw.children_named(parent, name)

    def wildcard_imports(self) -> list[Import]:
        self.note(NO_NAME)
        return self.raw.wildcard_imports()

    def includes(self) -> list[Import]:
        self.note(NO_NAME)  # an include binds no name: its facet is the nameless one
        return self.raw.includes()

    def flows_binding(self, scope: str, name: str) -> list[Flow]:
        self.note(scope_facet(scope, name))
        return self.raw.flows_binding(scope, name)

    def flows_with_top(self, facet: str) -> list[Flow]:
        self.note(facet)
        return self.raw.flows_with_top(facet)

    def symbol_by_id(self, node_id: int) -> Symbol | None:
        symbol = self.raw.by_id.get(node_id)
        self.note(top(symbol.qualified) if symbol is not None else None)
        return symbol

    def lambda_at(self, start_byte: int) -> Symbol | None:
        """The lambda defined at ``start_byte`` (a position read from a flow of one of this file's
        bodies, whose ``r:`` token the reader already holds): its facet is its top-level name's, as
        for :meth:`symbol_by_id` (the whole file when none is there)."""
        symbol = self.raw.lambda_at(start_byte)
        self.note(top(symbol.qualified) if symbol is not None else None)
        return symbol


def _symbol_facets(symbol: Symbol) -> set[str]:
    facets = {top(symbol.qualified)}
    if not symbol.parent:
        facets.add(symbol.name)
    return facets


def facet_digests(model: FileModel, bound_names: Any, pattern_names: Any) -> dict[str, str]:
    """Digest per outline facet of an interface projection (body flows excluded: see
    :meth:`FileModel.body_digests`). ``bound_names(imp, lang)`` and ``pattern_names(target)`` are the
    resolver's own (what an import / an assignment target binds)."""
    hashes: dict[str, Any] = {}

    def add(facets: Iterable[str], text: str) -> None:
        for facet in facets:
            h = hashes.get(facet)
            if h is None:
                h = hashes[facet] = hashlib.sha256()
            h.update(text.encode())

    for s in model.symbols:
        add(_symbol_facets(s), f"S{s.name}\x1f{s.qualified}\x1f{s.kind}\x1f{s.parent}\x00")
    for i in model.imports:
        scope = model.scope_of(i.scope)
        if scope:
            facets: set[str] = {top(scope)}
        elif i.wildcard:
            facets = {NO_NAME}
        else:
            facets = set(bound_names(i, model.lang)) or {NO_NAME}
        add(facets, f"I{i.module}\x1f{i.name}\x1f{i.alias}\x1f{i.scope}\x1f{i.wildcard}\x00")
    for r in model.refs:
        add(
            {top(r.scope)} if r.scope else {NO_NAME},
            f"R{r.name}\x1f{r.kind}\x1f{r.scope}\x1f{r.receiver}\x1f{r.callee_json}\x1f{r.args_json}\x00",
        )
    for f in model.flows:
        if model.flow_body(f) is not None:
            continue
        scope = model.flow_scope(f)
        facets = {top(scope)} if scope else (set(pattern_names(f.target)) or {NO_NAME})
        add(facets, f"F{f.identity()}\x00")
    return {facet: h.hexdigest()[:16] for facet, h in sorted(hashes.items())}

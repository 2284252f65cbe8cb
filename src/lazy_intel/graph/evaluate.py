"""What a name, member, call or subscript may hold (abstract values, see :mod:`.values`).

The file being resolved (``program.focus``) is evaluated in *full* mode: its variables come from
the fixpoint of :mod:`lazy_intel.graph.analysis` (a subclass), which re-runs readers when a
variable grows. Other files are evaluated *on demand* from their interfaces through
:meth:`Evaluator.demand`, which memoises per resolution and shares results across resolutions of
one build when they are pure: computed without meeting a cycle or the focus file's changing
state. A shared result carries the dependency tokens its computation recorded, so reusing it
records the same tokens. Either way the edges are a deterministic function of the facts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lazy_intel.graph.builtin_calls import (
    ALLOCATORS,
    CALL_METHOD,
    CLASS_OF,
    MEMBER_BY_NAME,
    SAME_AS_FIRST,
    class_of,
    literal_name,
)
from lazy_intel.graph.builtin_names import TEST_RUNNER_GLOBALS
from lazy_intel.graph.classes import ClassMixin
from lazy_intel.graph.declared_types import DeclaredTypeMixin
from lazy_intel.graph.ecma_functions import is_constructor_function, member_assignments
from lazy_intel.graph.imports import ImportMixin, import_bound_names
from lazy_intel.graph.interface_view import DeclaredView, InterfaceView, top
from lazy_intel.graph.model import (
    SCOPE_KINDS,
    TYPE_LABELS,
    VALUE_KINDS,
    FileModel,
    Import,
    Symbol,
    own_header_refs,
)
from lazy_intel.graph.namespaces import in_namespace, namespace_of
from lazy_intel.graph.program import Program
from lazy_intel.graph.protocols import ProtocolMixin
from lazy_intel.graph.traits import (
    PYTHON_BUILTIN_TYPES,
    TRANSPARENT_DECORATORS,
    TYPE_CASTS,
    TYPE_VARIABLE_FACTORIES,
    generic_alias,
    traits_of,
)
from lazy_intel.graph.values import Value, bounded, iterated_target, ordered, pattern_names
from lazy_intel.parse.languages import C_LANGUAGES
from lazy_intel.text.paths import is_test_path

# How many demand computations may nest (`a()` returns `b() + 1`, which returns `c() + 1`, …): a chain
# of calls through other functions' results, each a few Python frames deep. Past it the value is
# unknown (as in a cycle) instead of a RecursionError that would stop the whole index; resolve.py
# raises the interpreter's recursion limit to fit it (RESOLVE_RECURSION_LIMIT). A chain this deep is
# not a case where the answer may depend on what the worker resolved before: every result keeps its
# height (how many demands it nested, itself included), and a result computed elsewhere, or earlier in
# this resolution, is taken only where computing it would not have reached the bound (depth + height
# <= MAX_DEMAND_DEPTH); deeper, it is computed again and cut as it would have been.
MAX_DEMAND_DEPTH = 200
# methods of a container (a list, dict or set literal, a declared collection) that return one of its
# elements; the methods that store elements are analysis.py's STORE_METHODS / MERGE_METHODS
ELEMENT_METHODS = frozenset(
    {"pop", "get", "setdefault", "popleft", "first", "last", "find", "findLast", "at", "shift"}
)
# methods of a container that return a container (or a stream, an iterator) of some of its elements:
# for us, the container (Python's `sort` and `reverse` return None)
SAME_ELEMENTS_METHODS = frozenset(
    {
        *("filter", "slice", "sort", "reverse", "toSorted", "toReversed", "copy"),
        *("stream", "parallelStream", "iter", "iter_mut", "into_iter", "asSequence", "AsEnumerable"),
    }
)
NOT_SAME_ELEMENTS = {"python": frozenset({"sort", "reverse"})}
EMPTY: frozenset[Value] = frozenset()


# what a class allocates its instances with: `object.__new__(cls)` is an instance of `cls`
ALLOCATE_METHOD = "__new__"
# Python methods whose first parameter is the class without a `@classmethod` (`__new__` is static
# and takes the class; the other two are implicit class methods)
IMPLICIT_CLASS_METHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


class Evaluator(ClassMixin, ImportMixin, ProtocolMixin, DeclaredTypeMixin):
    def __init__(self, program: Program) -> None:
        self.p = program
        self.focus = program.focus
        self.active_lambdas: set[Value] = set()  # lambdas being evaluated: a recursive one yields nothing
        self.vars: dict[tuple[Any, ...], set[Value]] = {}
        # key -> (value, tokens, tainted, height)
        self.memo: dict[tuple[Any, ...], tuple[Any, frozenset[str], bool, int]] = {}
        self.busy: set[tuple[Any, ...]] = set()
        self.stack: list[tuple[Any, ...]] = []
        self.heights: list[int] = []  # per computation under way: the greatest height below it so far
        self.tainted: set[tuple[Any, ...]] = set()
        self._static: dict[tuple[str, str], tuple[frozenset[Value], str, frozenset[str]]] = {}
        program.on_focus_read = self._focus_read

    def _focus_read(self) -> None:
        if self.stack:
            self.taint()

    # ---- memoised demand computations
    def demand(self, key: tuple[Any, ...], compute: Callable[[], Any], empty: Any = EMPTY) -> Any:
        """``compute()`` once per resolution (and once per build when pure); ``empty`` in a cycle.

        A result is the same whoever computed it first: one that would have been cut by
        MAX_DEMAND_DEPTH had it been computed here is computed here instead (depth + height)."""
        depth = len(self.stack)
        memo = self.memo.get(key)
        if memo is not None:
            value, tokens, tainted, height = memo
            if tainted or depth + height <= MAX_DEMAND_DEPTH:
                self.p.deps.extend(tokens)
                if tainted:
                    self.taint()
                self._nested(height)
                return value
        else:
            shared = self.p.store.shared.get(key)
            # a result that read the focus file was computed through its interface; computed here it
            # reads the file in full and may differ: taking it would make the edges depend on which
            # files this process resolved before (django/contrib/gis/measure.py: a decorated base class)
            if (
                shared is not None
                and self.focus.path not in shared[2]
                and depth + shared[3] <= MAX_DEMAND_DEPTH
            ):
                value, tokens, _, height = shared
                self.p.deps.extend(tokens)
                self.memo[key] = (value, tokens, False, height)
                self._nested(height)
                return value
        if key in self.busy or depth >= MAX_DEMAND_DEPTH:
            self.taint()  # a cycle, or a chain deeper than any the resolver follows: nothing known
            return empty
        self.busy.add(key)
        self.stack.append(key)
        self.heights.append(0)
        self.p.deps.push()
        try:
            value = compute()
        finally:
            tokens = frozenset(self.p.deps.pop())
            self.stack.pop()
            height = self.heights.pop() + 1
            self.busy.discard(key)
        self._nested(height)
        tainted = key in self.tainted
        if memo is None:  # a complete result kept is not replaced by this depth's cut one
            self.memo[key] = (value, tokens, tainted, height)
            if not tainted:
                self.p.store.share(key, value, tokens, height)
        return value

    def _nested(self, height: int) -> None:
        """The computation under way (if any) nests a result of ``height`` demands."""
        if self.heights and self.heights[-1] < height:
            self.heights[-1] = height

    def taint(self) -> None:
        """The computations under way depend on a cycle or on the focus file's changing state."""
        self.tainted.update(self.stack)

    # ---- variables of the focus file (the analysis tracks readers)
    def read(self, key: tuple[Any, ...]) -> set[Value]:
        if self.stack:
            self.taint()
        return self.vars.get(key, set())

    def write(self, key: tuple[Any, ...], values: set[Value]) -> None:
        if values:
            current = self.vars.setdefault(key, set())
            current |= values
            if len(current) > len(bounded(current)):
                self.vars[key] = bounded(current)

    def is_full(self, model: FileModel) -> bool:
        return model is self.focus

    def model_at(self, path: str, full_allowed: bool) -> FileModel | None:
        if path == self.focus.path and not full_allowed:
            return self.p.interface_view(path)
        return self.p.model(path)

    # ---- scopes and names
    def declared(self, model: FileModel) -> dict[str, dict[str, list[Any]]]:
        """Per scope: name -> what declares it there (definitions, imports, assigned variables).

        Computed once per file on the raw model; another file's is handed out as a view whose reads
        record the facet of each ``(scope, name)`` looked up."""
        if isinstance(model, InterfaceView):
            return DeclaredView(self.declared(model.raw), self.p.deps, model.path)  # type: ignore[return-value]
        memo = model._memo.get("declared")
        if memo is not None:
            return memo
        out: dict[str, dict[str, list[Any]]] = {}
        for symbol in model.symbols:
            parent = model.by_qualified.get(symbol.parent) if symbol.parent else None
            if symbol.parent and (parent is None or parent.kind not in SCOPE_KINDS):
                continue  # a member of a value (an object literal's method): not a lexical name
            if symbol.kind == "constructor" and parent is not None and symbol.name == parent.name:
                continue  # Java's, C#'s, C++'s `Outer()`: inside the class, `Outer` is still the class
            names = out.setdefault(symbol.parent or "", {})
            names.setdefault(symbol.name, []).append(symbol)
            if symbol.qualified in model.header_refs and symbol.kind not in VALUE_KINDS:
                names[symbol.name].append("var")  # decorated: the name holds the decorators' result
        for imp in model.imports:
            if not imp.wildcard:
                for name in import_bound_names(imp, model.lang):
                    out.setdefault(model.scope_of(imp.scope), {}).setdefault(name, []).append(imp)
        for flow in model.flows:
            if flow.kind in ("assign", "iterate", "enter", "parameter"):
                for name in pattern_names(flow.target):
                    out.setdefault(model.flow_scope(flow), {}).setdefault(name, []).append("var")
        model._memo["declared"] = out
        return out

    def scope_chain(self, model: FileModel, scope: str) -> list[str]:
        """Where a bare name is looked up from ``scope``: enclosing functions, then the module
        (class bodies are skipped, as in Python and JavaScript)."""
        if isinstance(model, InterfaceView):  # the chain lies inside the scope's top-level definition
            if scope:
                model.note(top(scope))
            return self.scope_chain(model.raw, scope)
        chains = model._memo.setdefault("chains", {})
        chain = chains.get(scope)
        if chain is not None:
            return chain
        chain = [scope]
        current = scope
        while current:
            symbol = model.by_qualified.get(current)
            parent = model.scope_of(symbol.parent) if symbol is not None else ""
            parent_symbol = model.by_qualified.get(parent)
            if not (parent_symbol is not None and parent_symbol.label in TYPE_LABELS):
                chain.append(parent)
            current = parent
        if chain[-1] != "":
            chain.append("")
        chains[scope] = chain
        return chain

    def assigned_members(self, model: FileModel) -> dict[Any, Any]:
        if isinstance(model, InterfaceView):
            model.note(None)  # reads every assignment of the file
            return member_assignments(model.raw)
        return member_assignments(model)

    def ecma_receiver(self, model: FileModel, scope: str) -> set[Value]:
        """``this`` in a JavaScript function that no class encloses: an instance of the constructor
        function whose prototype holds the method (``Router.prototype.handle = function``), the object
        literal that holds it (``const app = { listen() { this.close() } }``), or the object a
        function is assigned to (``res.send = function send() { this.end() }``: Express)."""
        current: str | None = scope
        symbol = None
        while current:
            symbol = model.by_qualified.get(current)
            if symbol is None or symbol.kind in ("method", "function", "constructor"):
                break
            current = symbol.parent
        if symbol is None or not current:
            return set()
        parent = model.by_qualified.get(symbol.parent) if symbol.parent else None
        if symbol.kind == "method" and parent is not None:
            if parent.kind == "function":
                return {("inst", parent.node_id)}
            return {("def", parent.node_id)} if parent.kind in VALUE_KINDS else set()
        owner = self.assigned_members(model).get(symbol.qualified)
        if owner is None:
            return set()
        outer = model.scope_of(symbol.parent)
        values = self.eval(model, outer, owner, f"{model.path}:{symbol.start_byte}:this")
        holder = model.by_qualified.get(owner[1]) if owner[0] == "n" and not outer else None
        if holder is not None and holder.kind in VALUE_KINDS:
            values = values | {("def", holder.node_id)}  # its members include the functions assigned
        return values

    def enclosing_class(self, model: FileModel, scope: str) -> Symbol | None:
        current: str | None = scope
        while current:
            symbol = model.by_qualified.get(current)
            if symbol is None:
                return None
            if symbol.label in TYPE_LABELS:
                return symbol
            current = symbol.parent
        return None

    def extension_receiver(self, model: FileModel, scope: str) -> set[Value]:
        """Inside a method whose class is declared elsewhere — Kotlin's ``fun Buffer.f()``, C++'s
        ``double Shape::area() {…}`` in a ``.cpp`` — ``this`` is an instance of each class the file
        binds the parent's name to (imports, package, types)."""
        current: str | None = scope
        while current:
            symbol = model.by_qualified.get(current)
            if symbol is None:
                return set()
            if symbol.kind == "method" and symbol.parent and model.by_qualified.get(symbol.parent) is None:
                values, _ = self.lookup(model, "", symbol.parent.rsplit(".", 1)[-1])
                return {("inst", v[1]) for v in values if self.is_class(v)}
            current = symbol.parent
        return set()

    def lookup(
        self, model: FileModel, scope: str, name: str, call: bool | None = None
    ) -> tuple[set[Value], str]:
        """Values of a bare ``name`` in ``scope`` and how it was bound: local, import, dataflow,
        package, self, builtin, unbound. ``call`` (only in a language whose methods have a namespace
        of their own, :func:`namespace_of`): the name is called (``True``: its methods) or read
        (``False``: anything else)."""
        if self.is_full(model):
            return self._focus_lookup(scope, name, call)
        values, how = self.demand(
            ("L", model.path, scope, name) if call is None else ("L", model.path, scope, name, call),
            lambda: self._lookup_frozen(model, scope, name, call),
            (EMPTY, "unbound"),
        )
        return set(values), how

    def _focus_lookup(self, scope: str, name: str, call: bool | None = None) -> tuple[set[Value], str]:
        """A lookup in the focus file; one that does not go through its variables is memoised."""
        key = (scope, name) if call is None else (scope, name, call)
        cached = self._static.get(key)
        if cached is not None:
            frozen, how, tokens = cached
            self.p.deps.extend(tokens)
            return set(frozen), how
        model = self.focus
        declared = self.declared(model)
        static = not any(
            "var" in declared.get(current, {}).get(name, ()) for current in self.scope_chain(model, scope)
        )
        self.p.deps.push()
        try:
            values, how = self._lookup_inner(model, scope, name, call)
        finally:
            tokens = frozenset(self.p.deps.pop())
        if static and how not in ("self", "dataflow"):
            self._static[key] = (frozenset(values), how, tokens)
        return values, how

    def read_body(self, model: FileModel, scope: str | None) -> None:
        """Evaluating inside a callable of another file reads its body: record ``r:<path>:<callable>``
        (the file's outline digest leaves bodies out, :meth:`FileModel.body_digests` has them)."""
        facet = model.body_facet(scope)
        if facet is not None:
            self.p.deps.add(f"r:{model.path}:{facet}")

    def _lookup_frozen(
        self, model: FileModel, scope: str, name: str, call: bool | None = None
    ) -> tuple[frozenset[Value], str]:
        self.read_body(model, scope)
        values, how = self._lookup_inner(model, scope, name, call)
        return frozenset(values), how

    def _lookup_inner(
        self, model: FileModel, scope: str, name: str, call: bool | None = None
    ) -> tuple[set[Value], str]:
        traits = traits_of(model.lang)
        declared = self.declared(model)
        for current in self.scope_chain(model, scope):
            entries = declared.get(current, {}).get(name)
            if entries and call is not None:
                entries = in_namespace(entries, call)
            if entries:
                return self._binding(model, current, name, entries)
        if name in traits.self_names:
            cls = self.enclosing_class(model, scope)
            if cls is not None:
                return {("inst", cls.node_id)}, "self"
            if traits.extension_members and (receiver := self.extension_receiver(model, scope)):
                return receiver, "self"
            if traits.module_system == "ecma":
                receiver = self.ecma_receiver(model, scope)
                if receiver:
                    return receiver, "dataflow"
        if name in traits.super_names and name not in traits.builtins:
            cls = self.enclosing_class(model, scope)
            if cls is not None:
                return {("super", cls.node_id)}, "self"
        # what a wildcard import brings comes after the package, the class's own members and the
        # tree's types (Java's on-demand imports are the last scope; C#'s `using System;` named every
        # unbound name `System.<name>`, a field `_p` too). A member before a type: a bare call is far
        # more often a method of the class (Polly's `Timeout(…)` overloads) than a type's name.
        if traits.package_scope:
            found = self.package_binding(model, name)
            if found:
                return found, "package"
        if traits.implicit_members:
            cls = self.enclosing_class(model, scope)
            receivers = {("inst", cls.node_id)} if cls is not None else set()
            if cls is None and traits.extension_members:
                receivers = self.extension_receiver(model, scope)
            members = [
                found for receiver in ordered(receivers) for found in self.member(receiver, name, call)
            ]
            if members:
                return {v for v, _ in members}, "self"
            if traits.outer_members and cls is not None:
                found = self.outer_member(model, cls, name, call)
                if found:
                    return found, "self"
        if model.lang in C_LANGUAGES:  # what an include declares, before a type found by name alone
            found = self.include_binding(model, name)
            if found:
                return found, "import"
        if traits.global_types:
            found = self.global_type(model, name)
            if found:
                return found, "global"
        found = self.wildcard_binding(model, name)
        if found:
            return found, "import"
        if name in traits.builtins and (
            # without imports to say which, a type of the tree's own (of the caller's languages) named
            # like a runtime one wins (Traits.builtins_yield_to_any_definition: any definition)
            traits.module_system != "none"
            or not self.family_types(
                model, name, modules=False, every_kind=traits.builtins_yield_to_any_definition
            )
        ):
            return {("ext", name)}, "builtin"
        if traits.module_system == "ecma" and name in TEST_RUNNER_GLOBALS and is_test_path(model.path):
            return {("ext", name)}, "external"  # `describe(…)`, `it(…)`: the test runner's
        return set(), "unbound"

    def outer_member(self, model: FileModel, cls: Symbol, name: str, call: bool | None) -> set[Value]:
        """``name`` as a member (its own or inherited) of a class around ``cls``, nearest first."""
        outer = model.by_qualified.get(cls.parent) if cls.parent else None
        while outer is not None and outer.label in TYPE_LABELS:
            found = self.member(("inst", outer.node_id), name, call)
            if found:
                return {v for v, _ in found}
            outer = model.by_qualified.get(outer.parent) if outer.parent else None
        return set()

    def _binding(self, model: FileModel, scope: str, name: str, entries: list[Any]) -> tuple[set[Value], str]:
        values: set[Value] = set()
        how = "dataflow"
        has_var = "var" in entries
        if has_var:
            values |= self.var_values(model, scope, name)
        for entry in entries:
            if isinstance(entry, Symbol):
                if entry.kind in VALUE_KINDS and has_var and values:
                    continue
                values.add(("def", entry.node_id))
                how = "local"
            elif isinstance(entry, Import):
                values |= self.import_values(model, entry, name)
                how = "import"
        return bounded(values), how

    def var_values(self, model: FileModel, scope: str, name: str) -> set[Value]:
        if self.is_full(model):
            return self.read(("v", scope, name))
        return set(self.demand(("V", model.path, scope, name), lambda: self._var_values(model, scope, name)))

    def _var_values(self, model: FileModel, scope: str, name: str) -> frozenset[Value]:
        self.read_body(model, scope)
        values: set[Value] = set()
        for entry in self.declared(model).get(scope, {}).get(name, ()):
            if isinstance(entry, Symbol) and entry.qualified in model.header_refs:
                values |= self.decorated(model, entry)
        for flow in model.flows_binding(scope, name):
            if flow.kind == "parameter" and flow.target[0] == "d":  # `({ scene }: Props) => …`
                site = f"{model.path}:{flow.start_byte}"
                given = self.parameter_values(model, scope, flow)
                values |= self.destructure(model, scope, flow.target, None, given, name=name, site=site)
            elif flow.kind == "parameter" and pattern_names(flow.target) == [name]:
                values |= self.parameter_values(model, scope, flow)
            elif flow.kind in ("assign", "iterate", "enter") and name in pattern_names(flow.target):
                site = f"{model.path}:{flow.start_byte}"
                assigned = self.eval(model, scope, flow.value, site) if flow.value else set()
                if flow.kind == "iterate":
                    assigned = self.elements(assigned)
                elif flow.kind == "enter":
                    assigned = self.entered(assigned)
                if flow.annotation is not None:
                    assigned |= self.declared_type(model, scope, flow.annotation, site)
                target = iterated_target(model.lang, flow.target) if flow.kind == "iterate" else flow.target
                values |= self.destructure(model, scope, target, flow.value, assigned, name=name, site=site)
        return frozenset(bounded(values))

    def destructure(
        self,
        model: FileModel,
        scope: str,
        target: Any,
        value: Any,
        values: set[Value],
        *,
        name: str,
        site: str,
    ) -> set[Value]:
        """The part of ``values`` that ``name`` receives in the pattern ``target``."""
        if target[0] == "n":
            return values if target[1] == name else set()
        if target[0] == "*":
            return self.destructure(model, scope, target[1], None, values, name=name, site=site)
        if target[0] == "d":
            out = set()
            for key, item in target[1]:
                if name in pattern_names(item):
                    members = self.pattern_member(model, values, key)
                    out |= self.destructure(model, scope, item, None, members, name=name, site=site)
            return out
        if target[0] != "t":
            return set()
        items = target[1]
        if value and value[0] == "t" and len(value[1]) == len(items):
            out: set[Value] = set()
            for index, (item, sub) in enumerate(zip(items, value[1], strict=True)):
                if name in pattern_names(item):
                    sub_site = f"{site}/{index}"
                    sub_values = self.eval(model, scope, sub, sub_site)
                    out |= self.destructure(model, scope, item, sub, sub_values, name=name, site=sub_site)
            return out
        return self.unpacked(model, values)

    def pattern_member(self, model: FileModel, values: set[Value], key: Any) -> set[Value]:
        """What the target of an object pattern's ``key`` receives from ``values``: the member the key
        names (``{ scene }`` of a ``Props`` reads ``Props.scene``); the rest (key ``None``) keeps
        the object, less members nobody reads through it; a computed key, nothing."""
        if key is None:
            return values
        if key[0] not in ("n", "s"):
            return set()
        read = namespace_of(model.lang, False)
        return bounded({v for value in values for v, _ in self.member(value, key[1], read)})

    def unpacked(self, model: FileModel, values: set[Value]) -> set[Value]:
        """What each name of an unpacking target may receive from ``values``: their elements; in Go
        (``x, err := f()``: several results, positions not kept) also an external function's result,
        which keeps its name as a single result does."""
        out = self.elements(values)
        if model.lang == "go":
            out |= {v for v in values if v[0] == "ext"}
        return out

    def decorated(self, model: FileModel, symbol: Symbol) -> set[Value]:
        """A decorated definition's name holds the definition and what its decorators return."""
        scope = model.scope_of(symbol.parent)
        current: set[Value] = {("def", symbol.node_id)}
        for ref in reversed(own_header_refs(model, symbol)):
            site = f"{model.path}:{ref.start_byte}"
            step: set[Value] = set()
            for value in self.eval(model, scope, self.decorator_expr(ref), site):
                if value[0] == "ext" and value[1] in TRANSPARENT_DECORATORS:
                    step |= current  # returns what it decorates (`@classmethod`, `@final`, `@wraps(f)`)
                    continue
                if self.is_full(model):
                    self.bind_call(value, [["x"]], [current])
                step |= self.call_result(model, scope, value, [], site)
            current = step or current
        # the name keeps the definition too: `f()` of a decorated `f` is reported as a call of `f`
        return bounded({("def", symbol.node_id)} | current)

    @staticmethod
    def decorator_expr(ref: Any) -> Any:
        """``@dec`` applies ``dec``; ``@dec(args)`` applies what ``dec(args)`` returns."""
        return ref.callee() if ref.args_json is None else ["c", ref.callee(), ref.args()]

    def bind_call(self, value: Value, args: list[Any], arg_values: list[set[Value]]) -> None:
        """Arguments flowing into parameters: only the analysis of the focus file tracks them."""

    def parameter_values(self, model: FileModel, scope: str, flow: Any) -> set[Value]:
        """What a parameter holds without call sites: self/cls, its default, its declared type."""
        values: set[Value] = set()
        site = f"{model.path}:{flow.start_byte}"
        if flow.index == 0 and traits_of(model.lang).first_param_is_self:
            values |= self.self_parameter(model, scope)
        if flow.value is not None:
            values |= self.eval(model, scope, flow.value, site)
        if flow.annotation is not None:
            values |= self.declared_type(model, scope, flow.annotation, site)
        if flow.value is None and model.lang == "python" and flow.target and flow.target[0] == "n":
            values |= self.fixture_values(model, scope, flow.target[1])  # pytest's: the fixture's value
        return values

    def self_parameter(self, model: FileModel, scope: str) -> set[Value]:
        symbol = model.by_qualified.get(scope)
        if symbol is None or symbol.kind not in ("method", "constructor") or not symbol.parent:
            return set()
        cls = model.by_qualified.get(symbol.parent)
        if cls is None or cls.label not in TYPE_LABELS:
            return set()
        decorators = {r.name for r in model.header_refs.get(scope, ())}
        if "staticmethod" in decorators:
            return set()
        implicit = symbol.name in IMPLICIT_CLASS_METHODS and model.lang == "python"
        return {("def", cls.node_id)} if "classmethod" in decorators or implicit else {("inst", cls.node_id)}

    def returns(self, node_id: int) -> set[Value]:
        entry = self.p.symbol(node_id)
        if entry is None:
            return set()
        model, symbol = entry
        if self.is_full(model):
            return self.read(("ret", symbol.qualified))
        return set(self.demand(("R", model.path, symbol.qualified), lambda: self._returns(model, symbol)))

    def _returns(self, model: FileModel, symbol: Symbol) -> frozenset[Value]:
        self.read_body(model, symbol.qualified)
        values: set[Value] = set()
        yielded: set[Value] = set()
        for flow in model.flows_by_scope.get(symbol.qualified, ()):
            if flow.kind not in ("return", "yield"):
                continue
            site = f"{model.path}:{flow.start_byte}"
            if flow.kind == "return" and flow.annotation is not None:  # a declared return type
                values |= self.declared_type(model, symbol.qualified, flow.annotation, site)
            if flow.value is not None:
                got = self.eval(model, symbol.qualified, flow.value, site)
                if flow.kind == "yield":
                    yielded |= got
                else:
                    values |= got
        if yielded:
            values.add(("cont", f"gen:{model.path}:{symbol.qualified}", frozenset(bounded(yielded))))
        return frozenset(bounded(values))

    # ---- expressions
    def eval(self, model: FileModel, scope: str, expr: Any, site: str) -> set[Value]:
        if not expr:
            return set()
        tag = expr[0]
        if tag == "n":
            return self.lookup(model, scope, expr[1], namespace_of(model.lang, False))[0]
        if tag == "a":
            if found := self.constant_path_values(model, expr):  # Ruby's `Rack::MockRequest`
                return found
            out: set[Value] = set()
            read = namespace_of(model.lang, False)
            for value in self.eval(model, scope, expr[1], site):
                out |= {v for v, _ in self.member(value, expr[2], read)}
            return bounded(out)
        if tag == "c":
            out = set()
            args = expr[2] if len(expr) > 2 else []
            callee = expr[1]
            if callee[0] == "a" and callee[2] in ELEMENT_METHODS:
                # `stack.pop()`, `registry.get(key)` of a container: one of its elements
                containers = {v for v in self.eval(model, scope, callee[1], site) if v[0] == "cont"}
                out |= self.elements(containers)
            if (
                callee[0] == "a"
                and callee[2] in SAME_ELEMENTS_METHODS
                and callee[2] not in NOT_SAME_ELEMENTS.get(model.lang, ())
            ):  # `xs.filter(…)`, `xs.iter()`: xs's elements
                out |= {v for v in self.eval(model, scope, callee[1], site) if v[0] == "cont"}
            if callee[0] == "a" and callee[2] == ALLOCATE_METHOD and args:
                # `object.__new__(cls)`, `super().__new__(cls)`: an instance of the class passed
                made = {
                    ("inst", v[1])
                    for v in self.eval(model, scope, args[0], f"{site}/0")
                    if v[0] == "def" and self.is_class(v)
                }
                if made:
                    return bounded(made)
            if model.lang == "ruby" and callee == ["a", ["n", "Class"], "new"]:
                # `Class.new(Rack::Request) do … end`: an anonymous subclass, read as its base (its
                # instances answer the base's methods); without a base, nothing known
                return (
                    {v for v in self.eval(model, scope, args[0], f"{site}/0") if self.is_class(v)}
                    if args
                    else set()
                )
            if callee[0] == "a" and callee[2] == "new" and model.lang == "ruby":
                # Ruby's `Greeter.new(…)`: an instance of the class (resolve.py links the call to it)
                made = {("inst", v[1]) for v in self.eval(model, scope, callee[1], site) if self.is_class(v)}
                if made:
                    return bounded(made)
            for value, receivers in self._callees(model, scope, callee, site):
                if receivers:  # a method called on instances (or class objects) of these classes
                    result = self.call_result(model, scope, value, args, site)
                    out |= self._as_receivers(value, receivers, result)
                    continue
                special = (
                    self._builtin_call(model, scope, value, callee=callee, args=args, site=site)
                    if value[0] == "ext"
                    else None
                )
                out |= special if special is not None else self.call_result(model, scope, value, args, site)
            return bounded(out)
        if tag == "k":
            owners = self.eval(model, scope, expr[1], site)
            if expr[2] == ["sl"]:  # a slice of a container is (for us) the container
                return {v for v in owners if v[0] == "cont"}
            # `MutableMapping[str, Any]` (a type alias's value): the generic alias names the same type
            aliases = {v for v in owners if v[0] == "ext" and generic_alias(v[1], expr[2])}
            return self.subscripted(owners - aliases) | aliases
        if tag in ("t", "d"):
            items = expr[1] if tag == "t" else [pair[1] for pair in expr[1]]
            elements: set[Value] = set()
            for index, item in enumerate(items):
                elements |= self.eval(model, scope, item, f"{site}/{index}")
            if self.is_full(model):
                self.write(("elt", site), elements)
                return {("cont", site)}
            return {("cont", site, frozenset(bounded(elements)))}
        if tag == "u":
            out = set()
            for index, option in enumerate(expr[1]):
                out |= self.eval(model, scope, option, f"{site}/{index}")
            return bounded(out)
        if tag == "as":  # a cast: the same object, an instance of the type it names
            out = self.eval(model, scope, expr[1], site)
            declared = self.declared_type(model, scope, expr[2], site) if len(expr) > 2 else set()
            if project := {d[1] for d in declared if d[0] == "inst"}:  # a downcast narrows
                out = {v for v in out if v[0] != "inst" or self.fits(v[1], project)}
            return bounded(out | declared)
        if tag in ("*", "kw"):
            return self.eval(model, scope, expr[-1], site)
        if tag == "o":
            operated = self.operation(model, scope, expr, site)  # `a + b` runs `a.__add__(b)`
            if operated is not None:
                return operated
            if len(expr[1]) == 1:  # `&x`, `*p`: the same object, for member lookup
                return self.eval(model, scope, expr[1][0], site)
        if tag == "l":
            defined = model.lambda_at(expr[3]) if len(expr) > 3 else None
            if defined is not None:  # a language whose lambdas are definitions (Python)
                return {("def", defined.node_id)}
            return {("lam", model.path, scope, json.dumps(expr, separators=(",", ":")))}
        if tag == "s":
            return {("ext", "str")}
        if tag == "i":
            return {("ext", "int")}
        return set()

    def _builtin_call(
        self, model: FileModel, scope: str, value: Value, *, callee: Any, args: list[Any], site: str
    ) -> set[Value] | None:
        """What a call of a builtin the evaluator reads for what it does (``builtin_calls``) gives, or
        None for any other call (its result is :meth:`call_result`'s)."""
        lang = model.lang
        if value in ALLOCATORS.get(lang, ()) and args:
            # Go's `new(T)` / `make(T, n)`: a value of the type its first argument names (a slice, map
            # or channel type names none: such a value has no methods to call)
            return self.declared_type(model, scope, args[0], site)
        if value in SAME_AS_FIRST.get(lang, ()) and args:
            return self.eval(model, scope, args[0], f"{site}/0")  # `append(s, x)` is an `s`
        head, _, method = value[1].rpartition(".")
        if lang == "python" and head in PYTHON_BUILTIN_TYPES and method in SAME_ELEMENTS_METHODS:
            return {("ext", head)}  # `xs.copy()` of a list is a list (not an outside `list.copy` value)
        if callee != ["n", value[1]]:  # the next ones only by the builtin's own name
            return None
        if value in MEMBER_BY_NAME.get(lang, ()) and len(args) >= 2 and (name := literal_name(args[1])):
            out: set[Value] = set()
            for owner in self.eval(model, scope, args[0], f"{site}/0"):  # `getattr(self, "visit_x")`
                out |= {v for v, _ in self.member(owner, name)}
            if len(args) > 2:  # the default
                out |= self.eval(model, scope, args[2], f"{site}/2")
            return out
        if value in CLASS_OF.get(lang, ()) and len(args) == 1:
            # `type(self)`: not a call of what a 3-argument `type(name, bases, attrs)` made, which is the
            # same outside value for us (and is not called by the name `type`)
            return class_of(self.eval(model, scope, args[0], f"{site}/0"))
        return None

    def _callees(
        self, model: FileModel, scope: str, callee: Any, site: str
    ) -> list[tuple[Value, frozenset[int]]]:
        """The values of a call's callee (as :meth:`eval` gives them), each with the classes of the
        receivers it was found on — an instance's, ``super()``'s or a class object's class — when it is a
        method (``sub.copy()`` of ``Base.copy``, ``super().m()`` in ``Sub``, ``Sub.create()``): the
        result of such a call is read against those classes (:meth:`_as_receivers`)."""
        call = namespace_of(model.lang, True)
        if callee[0] == "n" and call is not None:
            return [(v, frozenset()) for v in ordered(self.lookup(model, scope, callee[1], call)[0])]
        if callee[0] != "a":
            return [(v, frozenset()) for v in self.eval(model, scope, callee, site)]
        found: dict[Value, set[int]] = {}
        for owner in self.eval(model, scope, callee[1], site):
            classed = owner[0] in ("inst", "super") or (owner[0] == "def" and self.is_class(owner))
            for value, _ in self.member(owner, callee[2], call):
                found.setdefault(value, set())
                if classed:
                    found[value].add(owner[1])
        return [(v, frozenset(found[v])) for v in ordered(bounded(set(found)))]

    def _as_receivers(self, method: Value, receivers: frozenset[int], results: set[Value]) -> set[Value]:
        """A method's result read against the classes it was called on: an instance of the method's
        own class (``return self``, ``return type(self)(…)``, ``return cls()``) is one of each
        receiver's class (a subclass's, when the method is inherited)."""
        mine = self._owner_instance(method[1]) if method[0] in ("def", "bm") else None
        if mine is None or mine not in results or receivers == {mine[1]}:
            return results
        return (results - {mine}) | {("inst", r) for r in receivers}

    def _owner_instance(self, method_id: int) -> Value | None:
        """An instance of the class that defines the method ``method_id`` (what its ``self`` is)."""
        entry = self.p.symbol(method_id)
        cls = (
            self.enclosing_class(entry[0], entry[1].parent) if entry is not None and entry[1].parent else None
        )
        return ("inst", cls.node_id) if cls is not None else None

    def call_result(
        self, model: FileModel, scope: str, value: Value, args: list[Any], site: str
    ) -> set[Value]:
        kind = value[0]
        if kind in ("def", "bm"):
            entry = self.p.symbol(value[1])
            if entry is None:
                return set()
            if entry[1].label in TYPE_LABELS:
                return {("inst", value[1])}
            if is_constructor_function(entry[0], entry[1]):  # `new Router()` of a prototype's function
                return {("inst", value[1])} | self.returns(value[1])
            return self.returns(value[1])
        if kind == "ext" and value[1] == "super":
            cls = self.enclosing_class(model, scope)
            return {("super", cls.node_id)} if cls is not None else set()
        if kind == "ext" and value[1] in TYPE_VARIABLE_FACTORIES:
            return self.type_variable(model, scope, args, site) or {value}
        if kind == "ext" and value[1] in TYPE_CASTS and args:  # `cast(Foo, x)` is a `Foo`
            return self.declared_type(model, scope, args[0], site) or {value}
        if kind in ("ext", "super"):  # an external callable's result keeps its name (PyCG's convention)
            return {value}
        if kind == "lam":
            _, path, lam_scope, text = value
            lam_model = self.model_at(path, full_allowed=True)
            if lam_model is None or value in self.active_lambdas:
                return set()
            self.active_lambdas.add(value)
            try:
                return self.eval(lam_model, lam_scope, json.loads(text)[2], f"{site}/lambda")
            finally:
                self.active_lambdas.discard(value)
        if kind == "inst":
            return {
                r
                for v, _ in self.member(value, CALL_METHOD)
                for r in self.call_result(model, scope, v, args, site)
            }
        return set()

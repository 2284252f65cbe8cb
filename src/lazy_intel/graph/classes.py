"""Members of values: classes and their hierarchy (C3 order), instance attributes, constructors,
the iteration protocol, modules and packages. A mixin of :class:`lazy_intel.graph.evaluate.Evaluator`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lazy_intel.graph.annotations import declared_parts
from lazy_intel.graph.model import TYPE_LABELS, FileModel, Symbol
from lazy_intel.graph.modules import Target, python_submodule
from lazy_intel.graph.namespaces import ARITY_LANGS, visible
from lazy_intel.graph.nodes import is_getter
from lazy_intel.graph.rows import EXTENSION_CANDIDATES
from lazy_intel.graph.traits import ENUM_BASES, traits_of
from lazy_intel.graph.values import Value, bounded, c3_merge, ext_member, last_name, module_value, ordered
from lazy_intel.parse.languages import guess_family, language_for_path

if TYPE_CHECKING:
    from lazy_intel.graph.program import Program

MAX_MRO = 24

# Bases outside the tree that bring no members a call reads: ``object``, and the typing markers a
# generic class or a protocol lists (``class Box(Generic[T])``): ``box.size()`` of a class whose only
# outside base is ``Generic`` is not ``typing.Generic.size``.
GENERIC_MARKERS = frozenset(
    {"typing.Generic", "typing.Protocol", "typing_extensions.Generic", "typing_extensions.Protocol"}
)
MARKER_BASES = GENERIC_MARKERS | {"object"}


class ClassMixin:
    p: Program

    if TYPE_CHECKING:  # provided by the evaluator

        def demand(self, key: tuple[Any, ...], compute: Any, empty: Any = ...) -> Any: ...
        def eval(self, model: FileModel, scope: str, expr: Any, site: str) -> set[Value]: ...
        def read(self, key: tuple[Any, ...]) -> set[Value]: ...
        def is_full(self, model: FileModel) -> bool: ...
        def model_at(self, path: str, full_allowed: bool) -> FileModel | None: ...
        def declared(self, model: FileModel) -> dict[str, dict[str, list[Any]]]: ...
        def var_values(self, model: FileModel, scope: str, name: str) -> set[Value]: ...
        def returns(self, node_id: int) -> set[Value]: ...
        def module_binding(self, model: FileModel, name: str) -> set[Value]: ...
        def package_member(self, directory: str, name: str, exclude: str | None = None) -> set[Value]: ...
        def package_children(self, path: str, owner: str, name: str) -> list[Symbol]: ...
        def assigned_members(self, model: FileModel) -> dict[Any, Any]: ...
        def read_body(self, model: FileModel, scope: str | None) -> None: ...

    def is_class(self, value: Value) -> bool:
        if value[0] != "def":
            return False
        entry = self.p.symbol(value[1])
        return entry is not None and entry[1].label in TYPE_LABELS

    def member(self, value: Value, name: str, call: bool | None = None) -> list[tuple[Value, int]]:
        """``value.name``: each possible value with its depth in the class hierarchy (0 = own). With
        ``call`` (Java, :mod:`lazy_intel.graph.namespaces`): only the methods of that name (``True``)
        or only its fields and types (``False``), the nearest class that has one."""
        kind = value[0]
        if kind == "mod":
            model = self.model_at(value[1], full_allowed=False)
            found = self.module_binding(model, name) if model is not None else set()
            if not found and model is not None and model.lang == "python":
                sub = python_submodule(self.p.index, Target(value[1]), name, self.p.deps)
                found = {module_value(sub)} if sub is not None else set()
            return [(v, 0) for v in ordered(found)]
        if kind == "pkg":
            return [(v, 0) for v in ordered(self.package_member(value[1], name))]
        if kind == "ext":
            return [(ext_member(value[1], name), 0)]
        if kind == "def" and not self.is_class(value):
            entry = self.p.symbol(value[1])
            if entry is None:
                return []
            model, symbol = entry
            found = [
                (("def", c.node_id), 0)
                for c in model.children_named(symbol.qualified, name)
                if call is None or visible(c, call)
            ]
            if not found and not symbol.parent and traits_of(model.lang).module_system == "ecma":
                # `var res = …; res.send = function send() {…}`: the functions assigned to its members
                assigned = self.assigned_members(model).get((symbol.name, name), ())
                found = [(("def", f.node_id), 0) for f in assigned]
            return found
        if kind not in ("def", "inst", "super"):
            return []
        if kind == "inst" and name == "__class__" and self._is_python(value[1]):
            return [(("def", value[1]), 0)]  # `self.__class__(…)`: the instance's own class
        mro = self.mro(value[1])
        if kind == "super":
            mro = [(c, d) for c, d in mro if d > 0]
        out: list[tuple[Value, int]] = []
        defined = False  # a getter of the name whose value is unknown: the member is not inherited
        for class_id, depth in mro:
            found = self.class_member(class_id, name, kind != "def", call)
            if found:
                out = [(v, depth) for v in ordered(found)]
                break
            if kind != "def" and self._class_getters(class_id, name):
                defined = True
                break
        if kind == "inst" and not call:  # instance attributes live on the object: any class may set them
            seen = {v for v, _ in out}
            for class_id, depth in mro:
                entry = self.p.symbol(class_id)
                if entry is not None:
                    extra = self.attribute_values(entry[0], class_id, name) - seen
                    seen |= extra
                    out += [(v, depth) for v in ordered(extra)]
        if not out and not defined and kind == "inst":
            out = self.extension_members(mro, name)
        if not out and not defined:  # maybe inherited from a base outside the repository
            out = [(("ext", f"{base}.{name}"), 1) for base in self.external_bases(value[1])]
        return out

    def extension_members(self, mro: list[tuple[int, int]], name: str) -> list[tuple[Value, int]]:
        """Methods called ``name`` declared outside the classes of ``mro``, nearest class first:
        Kotlin's ``fun Buffer.f()`` in another file (its parent is ``Buffer``, but no class of its file
        is) and C#'s ``static … F(this Buffer b)`` (a ``receiver`` flow). Read through the name lookup
        (``n:<name>``: a new, changed or removed such method re-resolves) and, for the receiver, the
        method's facet of its file; a name of more than :data:`EXTENSION_CANDIDATES` methods is not
        looked through."""
        first = self.p.symbol(mro[0][0]) if mro else None
        if first is None or not traits_of(first[0].lang).extension_members:
            return []
        depths: dict[str, int] = {}
        for class_id, depth in mro:
            entry = self.p.symbol(class_id)
            if entry is not None:
                depths.setdefault(entry[1].name, depth)
        family = guess_family(first[0].lang)
        methods = [d for d in self.p.named(name) if d.kind == "method" and d.parent]
        if len(methods) > EXTENSION_CANDIDATES:
            return []
        found: list[tuple[Value, int]] = []
        for d in methods:
            if guess_family(language_for_path(d.path)) != family:
                continue
            model = self.model_at(d.path, full_allowed=False)
            if model is None:
                continue
            entry = self.p.symbol(d.node_id)
            span = (entry[1].start_byte, entry[1].end_byte) if entry is not None else (0, 0)
            depth = self._extended_depth(model, d.qualified, d.parent or "", depths, span)
            if depth is not None:
                found.append((("def", d.node_id), depth))
        nearest = min((depth for _, depth in found), default=0)
        return [(value, depth) for value, depth in found if depth == nearest]

    def _extended_depth(
        self, model: FileModel, qualified: str, parent: str, depths: dict[str, int], span: tuple[int, int]
    ) -> int | None:
        """The depth in ``depths`` of the type the method ``qualified`` of ``model`` (at ``span``: its
        overloads share the name) extends, if any."""
        owner = model.by_qualified.get(parent)
        if owner is None or owner.label not in TYPE_LABELS:  # Kotlin: `fun Buffer.f()`, parent Buffer
            return depths.get(parent.rsplit(".", 1)[-1])
        # a parameter is a fact of the method's body (its outline digest leaves it out): read so
        self.read_body(model, qualified)
        for flow in model.flows_by_scope.get(qualified, ()):
            if flow.kind == "receiver" and span[0] <= flow.start_byte < span[1]:  # C#: `this Buffer b`
                names, _ = declared_parts(flow.annotation, lang=model.lang)
                for type_name in names:
                    depth = depths.get(last_name(type_name) or "")
                    if depth is not None:
                        return depth
        return None

    def _is_python(self, class_id: int) -> bool:
        entry = self.p.symbol(class_id)
        return entry is not None and entry[0].lang == "python"

    def class_member(self, class_id: int, name: str, bind: bool, call: bool | None = None) -> set[Value]:
        """Methods and class-level values called ``name`` in the class itself (not its bases); with
        ``call``, only those a call (or a read) of the name sees."""
        entry = self.p.symbol(class_id)
        if entry is None:
            return set()
        model, cls = entry
        children = model.children_named(cls.qualified, name)
        if call is not None:
            children = [c for c in children if visible(c, call)]
        getters = _getters_among(model, children) if bind else []
        # `obj.size` of a `@property` (or `cached_property`) is what the getter returns, not the getter
        # (``getters`` finds it for the implicit property edge) nor the decorators' descriptor object
        out = {_member_value(child, bind) for child in children if child not in getters}
        for getter in getters:
            out |= self.returns(getter.node_id)
        declared = self.declared(model).get(cls.qualified, {}).get(name, ())
        if "var" in declared and not call and not (getters and _only_decorated(model, declared)):
            if self._enum_member(model, class_id, children, name):
                out.add(("inst", class_id))  # `Color.RED` is a `Color`, whatever `RED = 1` assigns
            else:
                out |= self.var_values(model, cls.qualified, name)
        if not out and model.lang == "go":  # a Go type's methods may be declared in any file of its package
            out = {_member_value(c, bind) for c in self.package_children(model.path, cls.qualified, name)}
        return out

    def _enum_member(self, model: FileModel, class_id: int, children: list[Symbol], name: str) -> bool:
        """Whether ``name``, assigned in the body of the class, is an enumeration member: a Python
        class with an outside enumeration base (``ENUM_BASES``) anywhere in its ancestry, and a
        public name assigned there (not a method, not ``_ignore_``-style)."""
        if model.lang != "python" or name.startswith("_"):
            return False
        if any(c.kind not in ("field", "variable") for c in children):
            return False
        return any(base in ENUM_BASES for base in self.external_bases(class_id))

    def getters(self, value: Value, name: str) -> list[tuple[Value, int]]:
        """The getter methods (``@property``, ``cached_property``) that ``value.name`` reads, with their
        depth in the class hierarchy: what :meth:`member` gives for them is the value they return."""
        if value[0] not in ("inst", "super"):
            return []
        for class_id, depth in self.mro(value[1]):
            if value[0] == "super" and depth == 0:
                continue
            entry = self.p.symbol(class_id)
            children = entry[0].children_named(entry[1].qualified, name) if entry is not None else []
            if children:  # the first class that defines the name: its getters, if it is one
                return [(("bm", c.node_id), depth) for c in _getters_among(entry[0], children)]
        return []

    def _class_getters(self, class_id: int, name: str) -> list[Symbol]:
        entry = self.p.symbol(class_id)
        if entry is None:
            return []
        return _getters_among(entry[0], entry[0].children_named(entry[1].qualified, name))

    def attribute_values(self, model: FileModel, class_id: int, name: str) -> set[Value]:
        """Values stored as ``self.name = …`` in the class's methods."""
        if self.is_full(model):
            return self.read(("attr", class_id, name))
        return set(self.demand(("A", class_id, name), lambda: self._attribute_values(model, class_id, name)))

    def _attribute_values(self, model: FileModel, class_id: int, name: str) -> frozenset[Value]:
        entry = self.p.symbol(class_id)
        values: set[Value] = set()
        if entry is None:
            return frozenset()
        prefix = entry[1].qualified + "."
        for flow in model.flows_with_top(prefix.split(".", 1)[0]):
            target = flow.target
            if flow.kind != "assign" or not target or target[0] != "a" or target[2] != name:
                continue
            scope = model.flow_scope(flow)
            if not scope.startswith(prefix) or flow.value is None:
                continue
            site = f"{model.path}:{flow.start_byte}"
            if ("inst", class_id) in self.eval(model, scope, target[1], site):
                values |= self.eval(model, scope, flow.value, site)
        return frozenset(bounded(values))

    def fits(self, class_id: int, declared: set[int]) -> bool:
        """Whether an instance of ``class_id`` can be one of the ``declared`` classes (a subclass);
        with none declared, whether an outside base (which may be the declared type) is among its
        ancestors."""
        ancestors = [a for a, _ in self.mro(class_id)]
        if declared:
            return any(a in declared for a in ancestors)
        return any(self.bases(a)[1] for a in ancestors)

    def mro(self, class_id: int) -> list[tuple[int, int]]:
        """The class and its ancestors in lookup order, with their depth (C3 where it exists)."""
        return list(self.demand(("O", class_id), lambda: self._mro(class_id), ((class_id, 0),)))

    def _mro(self, class_id: int) -> tuple[tuple[int, int], ...]:
        bases = self.bases(class_id)[0]
        parents = [self.mro(b) for b in bases]
        depth = {class_id: 0}
        for lineage in parents:
            for ancestor, d in lineage:
                depth[ancestor] = min(depth.get(ancestor, d + 1), d + 1)
        order = c3_merge([[c for c, _ in lineage] for lineage in parents] + [list(bases)])
        if order is None:  # an inconsistent hierarchy: depth first, left to right
            order = list(dict.fromkeys(c for lineage in parents for c, _ in lineage))
        rest = [(c, depth[c]) for c in order if c != class_id][: MAX_MRO - 1]
        return ((class_id, 0), *rest)

    def bases(self, class_id: int) -> tuple[tuple[int, ...], tuple[str, ...], int]:
        """The direct bases found in the repository, the names of those outside it, and how many
        base expressions gave neither (``class Manager(BaseManager.from_queryset(QuerySet))``)."""
        return self.demand(("BA", class_id), lambda: self._bases(class_id), ((), (), 0))

    def _bases(self, class_id: int) -> tuple[tuple[int, ...], tuple[str, ...], int]:
        entry = self.p.symbol(class_id)
        if entry is None:
            return (), (), 0
        model, cls = entry
        scope = model.scope_of(cls.parent)
        found: list[int] = []
        external: list[str] = []
        unresolved = 0
        for ref in model.bases.get(cls.qualified, ()):
            named = False
            expr = ref.callee()
            made = expr[0] == "c"  # `class M(make(Q))`: an outside call's result keeps the callee's
            # name (`type`, `collections.namedtuple`), which is not the class it returns
            mixin = model.lang == "ruby" and ref.kind == "implement"  # `include Helpers`: a module
            # (written in the class body: looked up from the class itself, which may nest the module)
            where = model.scope_of(cls.qualified) if mixin else scope
            for value in ordered(self.eval(model, where, expr, f"{model.path}:{ref.start_byte}")):
                if self.is_class(value) or (mixin and self._is_module(value)):
                    named = True  # (its own name: `class Foo(Foo)` rebinding an earlier Foo)
                    if value[1] not in found and value[1] != class_id:
                        found.append(value[1])
                elif value[0] == "ext" and not made:
                    named = True
                    if value[1] not in external:
                        external.append(value[1])
            unresolved += not named
        return tuple(found), tuple(external), unresolved

    def _is_module(self, value: Value) -> bool:
        entry = self.p.symbol(value[1]) if value[0] == "def" else None
        return entry is not None and entry[1].kind == "module"

    def unresolved_base(self, class_id: int) -> bool:
        """Whether the class or an ancestor has a base the index could not evaluate: a member
        missing from the classes found may come from it (Django's managers take their query
        methods from ``BaseManager.from_queryset(QuerySet)``, a class made at run time)."""
        return any(self.bases(ancestor)[2] for ancestor, _ in self.mro(class_id))

    def external_bases(self, class_id: int) -> list[str]:
        """Bases outside the repository anywhere in the class's ancestry (``object`` excluded)."""
        out: list[str] = []
        for ancestor, _ in self.mro(class_id):
            out += [b for b in self.bases(ancestor)[1] if b not in out and b not in MARKER_BASES]
        return out

    def class_subscripted(self, class_id: int) -> Value | None:
        """``Cls[…]``: for an enumeration (``Color["RED"]``) one of its members, an instance; for a
        generic class the class itself (an alias: ``Box[int](…)`` constructs a ``Box``); else None."""
        if any(base in ENUM_BASES for base in self.external_bases(class_id)):
            return ("inst", class_id)
        return ("def", class_id) if self.is_generic(class_id) else None

    def is_generic(self, class_id: int) -> bool:
        """Whether subscripting the class makes an alias of it (``Box[int]``): a ``Generic`` or
        ``Protocol`` base in its ancestry, or a ``__class_getitem__`` of its own or inherited."""
        for ancestor, _ in self.mro(class_id):
            if any(base in GENERIC_MARKERS for base in self.bases(ancestor)[1]):
                return True
            entry = self.p.symbol(ancestor)
            if entry is not None and entry[0].children_named(entry[1].qualified, "__class_getitem__"):
                return True
        return False

    def constructor(self, class_id: int, argc: int | None = None) -> int | None:
        """The constructor a call of the class runs, looked up through its bases; of a class's several
        (Java's overloads), the one that takes ``argc`` arguments when one does (:meth:`overloads`)."""
        for ancestor, _ in self.mro(class_id):
            entry = self.p.symbol(ancestor)
            if entry is None:
                continue
            names = traits_of(entry[0].lang).constructors
            found = [
                child.node_id
                for child in entry[0].children.get(entry[1].qualified, ())
                if child.kind == "constructor"
                or (child.name in names and child.kind in ("method", "function"))
            ]
            if found:
                return self.overloads(found, argc)[0]
        return None

    def overloads(self, node_ids: list[int], argc: int | None) -> list[int]:
        """Of the callables ``node_ids`` (overloads of one name), those a call with ``argc`` arguments
        can run, in a language that chooses an overload by its parameters (Java: no default values, so
        the count decides unless a variadic parameter takes the rest); all of them when none can or
        the count is unknown. Reads each one's parameters (a fact of its body)."""
        if argc is None or len(node_ids) < 2:
            return node_ids
        fixed, spread = [], []
        for node_id in node_ids:
            entry = self.p.symbol(node_id)
            if entry is None or entry[0].lang not in ARITY_LANGS:
                return node_ids
            count, variadic = self.arity(entry[0], entry[1])
            if argc == count and not variadic:
                fixed.append(node_id)
            elif variadic and argc >= count - 1:
                spread.append(node_id)
        # as Java chooses: a method of fixed arity before one that must spread the arguments
        return fixed or spread or node_ids

    def arity(self, model: FileModel, symbol: Symbol) -> tuple[int, bool]:
        """How many parameters a callable declares, and whether its last takes any number (``["*", …]``
        declared: Java's ``String... rest``)."""
        self.read_body(model, symbol.qualified)
        params = [
            flow
            for flow in model.flows_by_scope.get(symbol.qualified, ())
            if flow.kind == "parameter" and symbol.start_byte <= flow.start_byte < symbol.end_byte
        ]
        last = params[-1].annotation if params else None
        return len(params), bool(last) and last[0] == "*"

    def iteration(self, value: Value) -> list[tuple[int, set[Value]]]:
        """An instance's iteration protocol (``__iter__`` then ``__next__``): (method id, what it returns)."""
        entry = self.p.symbol(value[1])
        protocol = traits_of(entry[0].lang).iteration if entry is not None else ()
        steps: list[tuple[int, set[Value]]] = []
        current = {value}
        for method in protocol:
            produced: set[Value] = set()
            for owner in ordered(current):
                if owner[0] != "inst":
                    continue
                for found, _ in self.member(owner, method):
                    if found[0] in ("def", "bm"):
                        result = self.returns(found[1])
                        steps.append((found[1], result))
                        produced |= result
            current = produced
        return steps


def _getters_among(model: FileModel, children: list[Symbol]) -> list[Symbol]:
    """The methods of ``children`` with a getter decorator (``@property``, ``cached_property``)."""
    return [c for c in children if c.kind == "method" and is_getter(model, c.qualified)]


def _only_decorated(model: FileModel, declared: Any) -> bool:
    """Whether every variable mark of a class-level name comes from a decorated definition (no
    ``name = …`` in the class body): the decorators' result is then all the name holds besides the
    definitions (``evaluate.declared``)."""
    marks = sum(1 for entry in declared if entry == "var")
    decorated = sum(
        1 for entry in declared if isinstance(entry, Symbol) and entry.qualified in model.header_refs
    )
    return marks <= decorated


def _member_value(child: Symbol, bind: bool) -> Value:
    """A class member as a value: a method bound to the instance (``bind``), else the definition."""
    return ("bm" if bind and child.kind in ("method", "function") else "def", child.node_id)

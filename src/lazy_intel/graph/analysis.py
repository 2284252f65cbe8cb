"""The value-flow fixpoint of one file: assignments, arguments into parameters, returns, containers.

Every flow fact, every call site and every decorated definition of the focus file is a work item.
An item evaluates its expressions (recording which variables it read) and writes variables; when a
variable grows, the items that read it run again. Flow-insensitive and context-insensitive (one
value set per variable), bounded in values per variable and in total work.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from lazy_intel.graph.evaluate import Evaluator
from lazy_intel.graph.model import TYPE_LABELS, FileModel, Flow, Ref, Symbol
from lazy_intel.graph.program import Program
from lazy_intel.graph.traits import traits_of
from lazy_intel.graph.values import MAX_VALUES, Value, bounded, iterated_target, pattern_names

# container methods that store their argument / the elements of their argument
STORE_METHODS = frozenset({"append", "add", "insert", "appendleft", "push", "unshift", "put", "set"})
MERGE_METHODS = frozenset({"update", "extend"})
WORK_PER_ITEM = 12


# builtin types a project class is an instance of only by inheriting them (not structural)
CONCRETE_BUILTINS = frozenset(
    {
        "dict",
        "list",
        "set",
        "frozenset",
        "tuple",
        "str",
        "bytes",
        "bytearray",
        "int",
        "float",
        "bool",
        "complex",
    }
)


class Analysis(Evaluator):
    def __init__(self, program: Program) -> None:
        super().__init__(program)
        self.readers: dict[tuple[Any, ...], set[int]] = {}
        self.items: list[Callable[[], None]] = []
        self.queue: deque[int] = deque()
        self.queued: set[int] = set()
        self.current: int | None = None
        self.exhausted = False
        self._params: dict[str, list[Flow]] | None = None
        # member and focus-name lookups made outside any demand computation, memoised while no
        # variable grows (see :meth:`memoisable`): result and the variables it read
        self._version = 0  # how many times a variable grew
        self._members: dict[tuple[Value, str], tuple[int, tuple[tuple[Value, int], ...], frozenset[Any]]] = {}
        self._lookups: dict[tuple[str, str], tuple[int, frozenset[Value], str, frozenset[Any]]] = {}
        self._recording: list[set[Any]] = []  # the variables read by the memoised calls under way

    # ---- tracked variables
    def read(self, key: tuple[Any, ...]) -> set[Value]:
        if self.stack:
            self.taint()
        if self.current is not None:
            self.readers.setdefault(key, set()).add(self.current)
        if self._recording:
            self._recording[-1].add(key)
        return self.vars.get(key, set())

    def write(self, key: tuple[Any, ...], values: set[Value]) -> None:
        if not values:
            return
        current = self.vars.setdefault(key, set())
        if values <= current or len(current) >= MAX_VALUES:
            return
        self._version += 1  # what was memoised before may read this variable: stale
        current |= values
        if len(current) > MAX_VALUES:
            self.vars[key] = bounded(current)
        for item in sorted(self.readers.get(key, ())):
            if item not in self.queued:
                self.queued.add(item)
                self.queue.append(item)

    # ---- the fixpoint
    def run(self) -> None:
        model = self.focus
        for flow in model.flows:
            self.items.append(lambda flow=flow: self.flow_item(flow))
        for symbol in model.symbols:
            if symbol.qualified in model.header_refs and symbol.kind not in ("variable", "constant", "field"):
                self.items.append(lambda symbol=symbol: self.decorator_item(symbol))
        for ref in model.refs:
            if ref.kind in ("call", "instantiate") and ref.args_json is not None:
                self.items.append(lambda ref=ref: self.call_item(ref))
        self.queue.extend(range(len(self.items)))
        self.queued.update(range(len(self.items)))
        budget = WORK_PER_ITEM * len(self.items) + 100
        while self.queue:
            budget -= 1
            if budget < 0:
                self.exhausted = True
                break
            item = self.queue.popleft()
            self.queued.discard(item)
            self.current = item
            self.items[item]()
        self.current = None

    # ---- the same members and names are read many times (per work item, then by the edges)
    def memoisable(self) -> bool:
        """Whether a member or name computed now may be memoised: no demand computation is under
        way (none whose tokens or taint must be collected: every token goes straight into this
        resolution's set, where recording it again adds nothing) and no lambda is being evaluated
        (a recursive one yields nothing). The result is then a function of the variables, so it is
        reused while none grew (``_version``); a reuse inside the fixpoint makes the current work
        item a reader of the variables the computation read, as computing it again would."""
        return not self.stack and not self.p.deps.frames and not self.active_lambdas

    def _replay(self, read: frozenset[Any]) -> None:
        if self.current is not None:
            for key in read:
                self.readers.setdefault(key, set()).add(self.current)
        if self._recording:
            self._recording[-1] |= read

    def _record(self) -> tuple[int, set[Any]]:
        read: set[Any] = set()
        self._recording.append(read)
        return self._version, read

    def _recorded(self, read: set[Any]) -> frozenset[Any]:
        self._recording.pop()
        if self._recording:
            self._recording[-1] |= read
        return frozenset(read)

    def member(self, value: Value, name: str, call: bool | None = None) -> list[tuple[Value, int]]:
        if not self.memoisable():
            return super().member(value, name, call)
        key = (value, name) if call is None else (value, name, call)
        memo = self._members.get(key)
        if memo is not None and memo[0] == self._version:
            self._replay(memo[2])
            return list(memo[1])
        version, read = self._record()
        try:
            found = super().member(value, name, call)
        finally:
            recorded = self._recorded(read)
        if version == self._version:  # no variable grew while it was computed
            self._members[key] = (version, tuple(found), recorded)
        return found

    def _focus_lookup(self, scope: str, name: str, call: bool | None = None) -> tuple[set[Value], str]:
        if not self.memoisable():
            return super()._focus_lookup(scope, name, call)
        key = (scope, name) if call is None else (scope, name, call)
        memo = self._lookups.get(key)
        if memo is not None and memo[0] == self._version:
            self._replay(memo[3])
            return set(memo[1]), memo[2]
        version, read = self._record()
        try:
            values, how = super()._focus_lookup(scope, name, call)
        finally:
            recorded = self._recorded(read)
        if version == self._version:
            self._lookups[key] = (version, frozenset(values), how, recorded)
        return values, how

    def flow_item(self, flow: Flow) -> None:
        model = self.focus
        scope = model.flow_scope(flow)
        site = f"{model.path}:{flow.start_byte}"
        if flow.kind in ("assign", "iterate", "enter"):
            values = self.eval(model, scope, flow.value, site) if flow.value is not None else set()
            if flow.kind == "iterate":
                values = self.elements(values)
            elif flow.kind == "enter":
                values = self.entered(values)
            if flow.annotation is not None:
                values |= self.declared_type(model, scope, flow.annotation, site)
            if flow.target is not None:
                target = iterated_target(model.lang, flow.target) if flow.kind == "iterate" else flow.target
                self.assign(scope, target, flow.value if flow.kind == "assign" else None, values, site)
        elif flow.kind == "parameter":
            if flow.target and flow.target[0] == "d":  # `({ scene }: Props) => …`: members of the argument
                self.assign(scope, flow.target, None, self.parameter_values(model, scope, flow), site)
            elif len(names := pattern_names(flow.target)) == 1:
                self.write(("v", scope, names[0]), self.parameter_values(model, scope, flow))
        elif flow.kind == "return" and (flow.value is not None or flow.annotation is not None):
            returned = self.eval(model, scope, flow.value, site) if flow.value is not None else set()
            if flow.annotation is not None:  # a declared return type
                returned |= self.declared_type(model, scope, flow.annotation, site)
            self.write(("ret", scope), returned)
        elif flow.kind == "yield" and flow.value is not None:
            key = f"gen:{model.path}:{scope}"
            self.write(("elt", key), self.eval(model, scope, flow.value, site))
            self.write(("ret", scope), {("cont", key)})

    def assign(self, scope: str, target: Any, value: Any, values: set[Value], site: str) -> None:
        tag = target[0]
        if tag == "n":
            self.write(("v", scope, target[1]), values)
        elif tag == "*":
            self.write(("elt", site + "*"), values)
            self.assign(scope, target[1], None, {("cont", site + "*")}, site + "*")
        elif tag == "t":
            items = target[1]
            if value and value[0] == "t" and len(value[1]) == len(items) and all(i[0] != "*" for i in items):
                for index, (item, sub) in enumerate(zip(items, value[1], strict=True)):
                    sub_site = f"{site}/{index}"
                    self.assign(scope, item, sub, self.eval(self.focus, scope, sub, sub_site), sub_site)
            else:
                elements = self.unpacked(self.focus, values)
                for item in items:
                    self.assign(scope, item, None, elements, site)
        elif tag == "d":  # an object pattern: each target receives the member its key names
            for key, item in target[1]:
                self.assign(scope, item, None, self.pattern_member(self.focus, values, key), site)
        elif tag == "a":
            for owner in self.eval(self.focus, scope, target[1], site):
                if owner[0] == "inst" or self.is_class(owner):
                    self.write(("attr", owner[1], target[2]), values)
        elif tag == "k":
            for container in self.eval(self.focus, scope, target[1], site):
                if container[0] == "cont":
                    self.write(("elt", container[1]), values)

    def decorator_item(self, symbol: Symbol) -> None:
        scope = self.focus.scope_of(symbol.parent)
        self.write(("v", scope, symbol.name), self.decorated(self.focus, symbol))

    def call_item(self, ref: Ref) -> None:
        model = self.focus
        scope = model.scope_of(ref.scope, ref.start_byte)
        site = f"{model.path}:{ref.start_byte}"
        callee = ref.callee()
        args = ref.args()
        if not args:
            return  # nothing flows anywhere (the call's targets are classified later)
        arg_values: list[set[Value]] | None = None
        for value in self.eval(model, scope, callee, site):
            if self.binds_here(value):
                if arg_values is None:  # arguments are evaluated only when they flow somewhere
                    arg_values = [self.eval(model, scope, a, f"{site}:{i}") for i, a in enumerate(args)]
                self.bind_call(value, args, arg_values)
        if callee[0] == "a" and callee[2] in STORE_METHODS | MERGE_METHODS:
            containers = [c for c in self.eval(model, scope, callee[1], site) if c[0] == "cont"]
            if containers:
                if arg_values is None:
                    arg_values = [self.eval(model, scope, a, f"{site}:{i}") for i, a in enumerate(args)]
                stored = arg_values[-1] if callee[2] in STORE_METHODS else self.elements(arg_values[0])
                for container in containers:
                    self.write(("elt", container[1]), stored)

    def binds_here(self, value: Value) -> bool:
        """Whether calling ``value`` passes arguments to parameters of the focus file."""
        if value[0] not in ("def", "bm"):
            return False
        entry = self.p.symbol(value[1])
        if entry is None:
            return False
        if entry[1].label in TYPE_LABELS:
            constructor = self.constructor(value[1])
            entry = self.p.symbol(constructor) if constructor is not None else None
        return entry is not None and entry[0] is self.focus

    # ---- arguments into parameters
    def params(self, scope: str) -> list[Flow]:
        if self._params is None:
            self._params = {}
            for flow in self.focus.flows:
                if flow.kind == "parameter":
                    self._params.setdefault(self.focus.flow_scope(flow), []).append(flow)
            for flows in self._params.values():
                flows.sort(key=lambda f: f.index)
        return self._params.get(scope, [])

    def bind_call(self, value: Value, args: list[Any], arg_values: list[set[Value]]) -> None:
        if value[0] not in ("def", "bm"):
            return
        entry = self.p.symbol(value[1])
        if entry is None:
            return
        model, symbol = entry
        offset = 1 if value[0] == "bm" else 0
        if symbol.label in TYPE_LABELS:
            constructor = self.constructor(value[1])
            entry = self.p.symbol(constructor) if constructor is not None else None
            if entry is None:
                return
            model, symbol = entry
            offset = 1
        if model is not self.focus:
            return  # a callee in another file resolves its parameters from its own facts
        if not traits_of(model.lang).first_param_is_self:
            offset = 0
        params = self.params(symbol.qualified)
        by_name = {name: p for p in params for name in pattern_names(p.target)}
        position = offset
        for arg, values in zip(args, arg_values, strict=True):
            if arg[0] == "kw":
                param = by_name.get(arg[1])
            elif arg[0] == "*":
                continue
            else:
                param = params[position] if position < len(params) else None
                position += 1
            if param is not None and param.target is not None and param.target[0] in ("n", "d"):
                passed = (
                    values
                    if param.annotation is None
                    else self.fitting(model, symbol.qualified, param, values)
                )
                # a name, or an object pattern (`function f({ scene }: Props)`: members of the argument)
                self.assign(symbol.qualified, param.target, None, passed, f"{model.path}:{param.start_byte}")

    def fitting(self, model: FileModel, scope: str, param: Flow, values: set[Value]) -> set[Value]:
        """What a call site passes, less the instances of the project's classes a declared parameter
        type rules out (as a type checker reads it): with ``x: Base`` an instance of a class outside
        ``Base``'s descendants; with an outside type (``options: dict[str, t.Any]``) an instance of a
        class whose ancestry is the project's alone (for a concrete builtin: ``dict``, ``list``, ``str``;
        ``Iterable[T]``, ``Mapping`` and other outside types are structural or subclassed from outside). Flask's ``register(self, app, options)`` was also
        called with a blueprint in the file, so ``options.get(…)`` reached ``Scaffold.get``. Kept:
        anything else (functions, containers, outside values), everything when the declared type says
        nothing of the kind (``Any``, ``object``, a type variable, ``Callable[…]``) or is a protocol."""
        site = f"{model.path}:{param.start_byte}"
        declared = self.declared_type(model, scope, param.annotation, site)
        project = {d[1] for d in declared if d[0] == "inst"}
        concrete = any(d[0] == "ext" and d[1] in CONCRETE_BUILTINS for d in declared)
        if not project and not concrete:  # nothing declared, or structural (`Iterable[T]`, `Mapping`)
            return values
        if any(self.is_protocol(d) for d in project):
            return values
        return {v for v in values if v[0] != "inst" or self.fits(v[1], project)}

    def is_protocol(self, class_id: int) -> bool:
        return any(
            name.rsplit(".", 1)[-1] == "Protocol" for a, _ in self.mro(class_id) for name in self.bases(a)[1]
        )

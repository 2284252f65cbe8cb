"""Abstract values of expressions: what a name, member, call or subscript may hold.

Values are small tuples:

``("def", id)`` a definition (function, class, variable) — ``("bm", id)`` a method bound to an
instance — ``("inst", class_id)`` an instance — ``("mod", path)`` a module file — ``("pkg", dir)``
a package directory — ``("ext", dotted)`` something outside the repository — ``("cont", key)`` a
container literal (its elements are the variable ``("elt", key)``) — ``("super", class_id)`` —
``("lam", path, scope, expr)`` a lambda.

The file being resolved (``program.focus``) is evaluated in *full* mode: variable values come from
the analysis's fixpoint (:mod:`lazy_intel.graph.analysis`, which subclasses this) and every read
is recorded so a growing variable re-runs its readers. Other files are evaluated on demand from
their interfaces, memoised; a cycle yields what is known so far. Both are deterministic functions
of the facts, which is what keeps an incremental build equal to a clean one.
"""

from __future__ import annotations

import json
from typing import Any

from lazy_intel.graph.model import SCOPE_KINDS, TYPE_LABELS, FileModel, Import, Symbol
from lazy_intel.graph.modules import (
    ECMA_LANGS,
    Target,
    ecma_resolve,
    go_resolve,
    java_resolve,
    python_resolve,
    python_submodule,
    rust_resolve,
)
from lazy_intel.graph.program import Program
from lazy_intel.graph.traits import traits_of
from lazy_intel.parse.expressions import Expr

Value = tuple[Any, ...]
MAX_VALUES = 12
MAX_MRO = 24
VALUE_KINDS = frozenset({"variable", "constant", "field", "property"})


def bounded(values: set[Value]) -> set[Value]:
    if len(values) <= MAX_VALUES:
        return values
    return set(sorted(values, key=repr)[:MAX_VALUES])


def pattern_names(target: Expr | None) -> list[str]:
    """The plain names an assignment target binds (``a, (b, *c)`` -> a, b, c)."""
    if not target:
        return []
    tag = target[0]
    if tag == "n":
        return [target[1]]
    if tag == "t":
        return [n for item in target[1] for n in pattern_names(item)]
    if tag == "*":
        return pattern_names(target[1])
    return []


class Evaluator:
    def __init__(self, program: Program) -> None:
        self.p = program
        self.focus = program.focus
        self.vars: dict[tuple[Any, ...], set[Value]] = {}
        self.memo: dict[tuple[Any, ...], set[Value]] = {}
        self.busy: set[tuple[Any, ...]] = set()
        self._mro: dict[int, list[tuple[int, int]]] = {}
        self._external_bases: dict[int, list[str]] = {}

    # ---- variables (the analysis overrides read/write for the focus file)
    def read(self, key: tuple[Any, ...]) -> set[Value]:
        return self.vars.get(key, set())

    def write(self, key: tuple[Any, ...], values: set[Value]) -> None:
        if values:
            current = self.vars.setdefault(key, set())
            current |= values
            if len(current) > MAX_VALUES:
                self.vars[key] = bounded(current)

    def is_full(self, model: FileModel) -> bool:
        return model is self.focus

    def model_at(self, path: str, full_allowed: bool) -> FileModel | None:
        if path == self.focus.path and not full_allowed:
            return self.p.store.interface(path)
        return self.p.model(path)

    # ---- scopes and names
    def declared(self, model: FileModel) -> dict[str, dict[str, list[Any]]]:
        """Per scope: name -> what declares it there (definitions, imports, assigned variables)."""
        memo = model._memo.get("declared")
        if memo is not None:
            return memo
        out: dict[str, dict[str, list[Any]]] = {}
        for symbol in model.symbols:
            parent = model.by_qualified.get(symbol.parent) if symbol.parent else None
            if symbol.parent and (parent is None or parent.kind not in SCOPE_KINDS):
                continue  # a member of a value (an object literal's method): not a lexical name
            names = out.setdefault(symbol.parent or "", {})
            names.setdefault(symbol.name, []).append(symbol)
            if symbol.qualified in model.header_refs and symbol.kind not in VALUE_KINDS:
                names[symbol.name].append("var")  # decorated: the name holds the decorators' result
        for imp in model.imports:
            if not imp.wildcard:
                for name in import_bound_names(imp, model.lang):
                    out.setdefault(model.scope_of(imp.scope), {}).setdefault(name, []).append(imp)
        for flow in model.flows:
            if flow.kind in ("assign", "iterate", "parameter"):
                for name in pattern_names(flow.target):
                    out.setdefault(model.scope_of(flow.scope), {}).setdefault(name, []).append("var")
        model._memo["declared"] = out
        return out

    def scope_chain(self, model: FileModel, scope: str) -> list[str]:
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
        return chain

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

    def lookup(self, model: FileModel, scope: str, name: str) -> tuple[set[Value], str]:
        """Values of a bare ``name`` in ``scope`` and how it was bound: local, import, dataflow,
        package, self, builtin, unbound."""
        traits = traits_of(model.lang)
        declared = self.declared(model)
        for current in self.scope_chain(model, scope):
            entries = declared.get(current, {}).get(name)
            if entries:
                return self._binding(model, current, name, entries)
        if name in traits.self_names:
            cls = self.enclosing_class(model, scope)
            if cls is not None:
                return {("inst", cls.node_id)}, "self"
        if name in traits.super_names and name not in traits.builtins:
            cls = self.enclosing_class(model, scope)
            if cls is not None:
                return {("super", cls.node_id)}, "self"
        for imp in model.imports:
            if imp.wildcard and model.scope_of(imp.scope) == "":
                for module in self.import_module_values(model, imp):
                    found = self.member(module, name)
                    if found:
                        return {v for v, _ in found}, "import"
        if traits.package_scope:
            found = self.package_binding(model, name)
            if found:
                return found, "package"
        if traits.implicit_members:
            cls = self.enclosing_class(model, scope)
            if cls is not None:
                members = self.member(("inst", cls.node_id), name)
                if members:
                    return {v for v, _ in members}, "self"
        if name in traits.builtins:
            return {("ext", name)}, "builtin"
        return set(), "unbound"

    def _binding(self, model: FileModel, scope: str, name: str, entries: list[Any]) -> tuple[set[Value], str]:
        values: set[Value] = set()
        how = "dataflow"
        has_var = any(e == "var" for e in entries)
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
        key = ("V", model.path, scope, name)
        if key in self.memo:
            return self.memo[key]
        if key in self.busy:
            return set()
        self.busy.add(key)
        values: set[Value] = set()
        for entry in self.declared(model).get(scope, {}).get(name, ()):
            if isinstance(entry, Symbol) and entry.qualified in model.header_refs:
                values |= self.decorated(model, entry)
        for flow in model.flows_by_scope.get(scope, ()):
            if flow.kind == "parameter" and pattern_names(flow.target) == [name]:
                values |= self.parameter_values(model, scope, flow)
            elif flow.kind in ("assign", "iterate") and name in pattern_names(flow.target):
                site = f"{model.path}:{flow.start_byte}"
                assigned = self.eval(model, scope, flow.value, site) if flow.value else set()
                if flow.kind == "iterate":
                    assigned = self.elements(assigned)
                values |= self.destructure(
                    model, scope, flow.target, flow.value, assigned, name=name, site=site
                )
        self.busy.discard(key)
        self.memo[key] = bounded(values)
        return self.memo[key]

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
        if target[0] != "t":
            return set()
        items = target[1]
        if value and value[0] == "t" and len(value[1]) == len(items):
            out: set[Value] = set()
            for index, (item, sub) in enumerate(zip(items, value[1], strict=True)):
                if name in pattern_names(item):
                    sub_values = self.eval(model, scope, sub, f"{site}/{index}")
                    out |= self.destructure(
                        model, scope, item, sub, sub_values, name=name, site=f"{site}/{index}"
                    )
            return out
        return self.elements(values)

    def decorated(self, model: FileModel, symbol: Symbol) -> set[Value]:
        """A decorated definition's name holds the definition and what its decorators return."""
        scope = model.scope_of(symbol.parent)
        current: set[Value] = {("def", symbol.node_id)}
        for ref in reversed(model.header_refs.get(symbol.qualified, ())):
            site = f"{model.path}:{ref.start_byte}"
            step: set[Value] = set()
            for value in self.eval(model, scope, self.decorator_expr(ref), site):
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

    def constructor(self, class_id: int) -> int | None:
        """The constructor a call of the class runs, looked up through its bases."""
        for ancestor, _ in self.mro(class_id):
            entry = self.p.symbol(ancestor)
            if entry is None:
                continue
            names = traits_of(entry[0].lang).constructors
            for child in entry[0].children.get(entry[1].qualified, ()):
                if child.kind == "constructor" or (
                    child.name in names and child.kind in ("method", "function")
                ):
                    return child.node_id
        return None

    def parameter_values(self, model: FileModel, scope: str, flow: Any) -> set[Value]:
        """What a parameter holds without call sites: self/cls, its default, its declared type."""
        values: set[Value] = set()
        site = f"{model.path}:{flow.start_byte}"
        if flow.index == 0 and traits_of(model.lang).first_param_is_self:
            values |= self.self_parameter(model, scope)
        if flow.value is not None:
            values |= self.eval(model, scope, flow.value, site)
        if flow.annotation is not None:
            values |= {
                ("inst", v[1]) for v in self.eval(model, scope, flow.annotation, site) if self.is_class(v)
            }
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
        return {("def", cls.node_id)} if "classmethod" in decorators else {("inst", cls.node_id)}

    def returns(self, node_id: int) -> set[Value]:
        entry = self.p.symbol(node_id)
        if entry is None:
            return set()
        model, symbol = entry
        if self.is_full(model):
            return self.read(("ret", symbol.qualified))
        key = ("R", model.path, symbol.qualified)
        if key in self.memo:
            return self.memo[key]
        if key in self.busy:
            return set()
        self.busy.add(key)
        values: set[Value] = set()
        for flow in model.flows_by_scope.get(symbol.qualified, ()):
            if flow.kind in ("return", "yield") and flow.value is not None:
                site = f"{model.path}:{flow.start_byte}"
                got = self.eval(model, symbol.qualified, flow.value, site)
                if flow.kind == "yield":
                    key_elt = f"gen:{model.path}:{symbol.qualified}"
                    self.write(("elt", key_elt), got)
                    got = {("cont", key_elt)}
                values |= got
        self.busy.discard(key)
        self.memo[key] = bounded(values)
        return self.memo[key]

    # ---- expressions
    def eval(self, model: FileModel, scope: str, expr: Any, site: str) -> set[Value]:
        if not expr:
            return set()
        tag = expr[0]
        if tag == "n":
            return self.lookup(model, scope, expr[1])[0]
        if tag == "a":
            out: set[Value] = set()
            for value in self.eval(model, scope, expr[1], site):
                out |= {v for v, _ in self.member(value, expr[2])}
            return bounded(out)
        if tag == "c":
            out = set()
            for value in self.eval(model, scope, expr[1], site):
                out |= self.call_result(model, scope, value, expr[2] if len(expr) > 2 else [], site)
            return bounded(out)
        if tag == "k":
            owners = self.eval(model, scope, expr[1], site)
            if expr[2] == ["sl"]:  # a slice of a container is (for us) the container
                return {v for v in owners if v[0] == "cont"}
            return self.elements(owners)
        if tag in ("t", "d"):
            items = expr[1] if tag == "t" else [pair[1] for pair in expr[1]]
            elements: set[Value] = set()
            for index, item in enumerate(items):
                elements |= self.eval(model, scope, item, f"{site}/{index}")
            self.write(("elt", site), elements)
            return {("cont", site)}
        if tag == "u":
            out = set()
            for index, option in enumerate(expr[1]):
                out |= self.eval(model, scope, option, f"{site}/{index}")
            return bounded(out)
        if tag in ("*", "kw"):
            return self.eval(model, scope, expr[-1], site)
        if tag == "l":
            return {("lam", model.path, scope, json.dumps(expr, separators=(",", ":")))}
        if tag == "s":
            return {("ext", "str")}
        if tag == "i":
            return {("ext", "int")}
        return set()

    def elements(self, values: set[Value]) -> set[Value]:
        out: set[Value] = set()
        for value in values:
            if value[0] == "cont":
                out |= self.read(("elt", value[1]))
            elif value[0] == "inst":
                for _, produced in self.iteration(value):
                    out |= produced
        return out

    def iteration(self, value: Value) -> list[tuple[int, set[Value]]]:
        """An instance's iteration protocol (``__iter__`` then ``__next__``): (method id, what it returns)."""
        entry = self.p.symbol(value[1])
        protocol = traits_of(entry[0].lang).iteration if entry is not None else ()
        if not protocol:
            return []
        steps: list[tuple[int, set[Value]]] = []
        current = {value}
        for method in protocol:
            produced: set[Value] = set()
            for owner in sorted(current, key=repr):
                if owner[0] != "inst":
                    continue
                for found, _ in self.member(owner, method):
                    if found[0] in ("def", "bm"):
                        result = self.returns(found[1])
                        steps.append((found[1], result))
                        produced |= result
            current = produced
        return steps

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
            return self.returns(value[1])
        if kind == "ext" and value[1] == "super":
            cls = self.enclosing_class(model, scope)
            return {("super", cls.node_id)} if cls is not None else set()
        if kind == "ext":  # what an external callable returns keeps its name (PyCG's convention)
            return {value}
        if kind == "super":
            return {value}
        if kind == "lam":
            _, path, lam_scope, text = value
            lam = json.loads(text)
            lam_model = self.model_at(path, full_allowed=True)
            if lam_model is None:
                return set()
            return self.eval(lam_model, lam_scope, lam[2], f"{site}/lambda")
        if kind == "inst":
            return {
                r
                for v, _ in self.member(value, "__call__")
                for r in self.call_result(model, scope, v, args, site)
            }
        return set()

    # ---- members, classes and modules
    def is_class(self, value: Value) -> bool:
        if value[0] != "def":
            return False
        entry = self.p.symbol(value[1])
        return entry is not None and entry[1].label in TYPE_LABELS

    def member(self, value: Value, name: str) -> list[tuple[Value, int]]:
        """``value.name``: each possible value with its depth in the class hierarchy (0 = own)."""
        kind = value[0]
        if kind == "mod":
            model = self.model_at(value[1], full_allowed=False)
            found = self.module_binding(model, name) if model is not None else set()
            if not found and model is not None and model.lang == "python":
                sub = python_submodule(self.p.index, Target(value[1]), name, self.p.deps)
                found = {module_value(sub)} if sub is not None else set()
            return [(v, 0) for v in sorted(found, key=repr)]
        if kind == "pkg":
            return [(v, 0) for v in sorted(self.package_member(value[1], name), key=repr)]
        if kind == "ext":
            return [(("ext", f"{value[1]}.{name}"), 0)]
        if kind == "def" and not self.is_class(value):
            entry = self.p.symbol(value[1])
            if entry is None:
                return []
            children = entry[0].children.get(entry[1].qualified, ())
            return [(("def", c.node_id), 0) for c in children if c.name == name]
        if kind in ("def", "inst", "super"):
            mro = self.mro(value[1])
            if kind == "super":
                mro = [(c, d) for c, d in mro if d > 0]
            bind = kind != "def"
            out: list[tuple[Value, int]] = []
            for class_id, depth in mro:
                found = self.class_member(class_id, name, bind)
                if found:
                    out = [(v, depth) for v in sorted(found, key=repr)]
                    break
            if kind == "inst":  # instance attributes live on the object: any class of it may set them
                seen = {v for v, _ in out}
                for class_id, depth in mro:
                    entry = self.p.symbol(class_id)
                    if entry is not None:
                        extra = self.attribute_values(entry[0], class_id, name) - seen
                        seen |= extra
                        out += [(v, depth) for v in sorted(extra, key=repr)]
            if not out:  # maybe inherited from a base outside the repository
                out = [(("ext", f"{base}.{name}"), 1) for base in self.external_bases(value[1])]
            return out
        return []

    def class_member(self, class_id: int, name: str, bind: bool) -> set[Value]:
        entry = self.p.symbol(class_id)
        if entry is None:
            return set()
        model, cls = entry
        out: set[Value] = set()
        for child in model.children.get(cls.qualified, ()):
            if child.name == name:
                bound = bind and child.kind in ("method", "function")
                out.add(("bm" if bound else "def", child.node_id))
        if "var" in self.declared(model).get(cls.qualified, {}).get(name, ()):
            out |= self.var_values(model, cls.qualified, name)
        return out

    def attribute_values(self, model: FileModel, class_id: int, name: str) -> set[Value]:
        """Values stored as ``self.name = …`` in the class's methods."""
        if self.is_full(model):
            return self.read(("attr", class_id, name))
        key = ("A", class_id, name)
        if key in self.memo:
            return self.memo[key]
        if key in self.busy:
            return set()
        self.busy.add(key)
        entry = self.p.symbol(class_id)
        values: set[Value] = set()
        if entry is not None:
            cls = entry[1]
            for flow in model.flows:
                target = flow.target
                if flow.kind != "assign" or not target or target[0] != "a" or target[2] != name:
                    continue
                scope = model.scope_of(flow.scope)
                if not scope.startswith(cls.qualified + ".") or flow.value is None:
                    continue
                owners = self.eval(model, scope, target[1], "")
                if ("inst", class_id) in owners:
                    values |= self.eval(model, scope, flow.value, f"{model.path}:{flow.start_byte}")
        self.busy.discard(key)
        self.memo[key] = bounded(values)
        return self.memo[key]

    def mro(self, class_id: int) -> list[tuple[int, int]]:
        """The class and its ancestors in lookup order, with their depth (C3 where it exists)."""
        if class_id in self._mro:
            return self._mro[class_id]
        self._mro[class_id] = [(class_id, 0)]  # guards cycles
        bases = self.bases(class_id)
        parents = [self.mro(b) for b in bases]
        depth = {class_id: 0}
        for lineage in parents:
            for ancestor, d in lineage:
                depth[ancestor] = min(depth.get(ancestor, d + 1), d + 1)
        order = c3_merge([[c for c, _ in lineage] for lineage in parents] + [bases])
        if order is None:  # inconsistent hierarchy: depth first, left to right
            order = list(dict.fromkeys(c for lineage in parents for c, _ in lineage))
        out = [(class_id, 0), *[(c, depth[c]) for c in order if c != class_id][: MAX_MRO - 1]]
        self._mro[class_id] = out
        return out

    def bases(self, class_id: int) -> list[int]:
        entry = self.p.symbol(class_id)
        if entry is None:
            return []
        model, cls = entry
        scope = model.scope_of(cls.parent)
        out: list[int] = []
        external: list[str] = []
        for ref in model.bases.get(cls.qualified, ()):
            for value in sorted(self.eval(model, scope, ref.callee(), ""), key=repr):
                if self.is_class(value) and value[1] not in out and value[1] != class_id:
                    out.append(value[1])
                elif value[0] == "ext" and value[1] not in external:
                    external.append(value[1])
        self._external_bases[class_id] = external
        return out

    def external_bases(self, class_id: int) -> list[str]:
        """Bases outside the repository anywhere in the class's ancestry (``object`` excluded)."""
        out: list[str] = []
        for ancestor, _ in self.mro(class_id):
            out += [b for b in self._external_bases.get(ancestor, ()) if b not in out and b != "object"]
        return out

    def module_binding(self, model: FileModel, name: str) -> set[Value]:
        entries = self.declared(model).get("", {}).get(name)
        if entries:
            return self._binding(model, "", name, entries)[0]
        for imp in model.imports:
            if imp.wildcard and model.scope_of(imp.scope) == "":
                for module in self.import_module_values(model, imp):
                    if module != ("mod", model.path):
                        found = self.member(module, name)
                        if found:
                            return {v for v, _ in found}
        return set()

    def package_binding(self, model: FileModel, name: str) -> set[Value]:
        """A top-level name defined by a sibling file of the same package (Go)."""
        directory = model.path.rsplit("/", 1)[0] if "/" in model.path else ""
        return self.package_member(directory, name, exclude=model.path)

    def package_member(self, directory: str, name: str, exclude: str | None = None) -> set[Value]:
        out: set[Value] = set()
        for path in self.p.index.dir_files(directory, self.p.deps):
            if path == exclude:
                continue
            model = self.model_at(path, full_allowed=False)
            if model is None:
                continue
            for symbol in model.children.get(None, ()):
                if symbol.name == name:
                    out.add(("def", symbol.node_id))
            if not out and model.lang == "python":
                sub = python_submodule(self.p.index, Target(directory, is_dir=True), name, self.p.deps)
                if sub is not None:
                    out.add(module_value(sub))
        return out

    # ---- imports
    def import_module_values(self, model: FileModel, imp: Import) -> set[Value]:
        """The module (or package) an import statement names."""
        key = ("M", model.path, imp.module, imp.start_byte)
        if key in self.memo:
            return self.memo[key]
        target = resolve_import(self.p, model, imp)
        values = {module_value(target)} if target is not None else {("ext", imp.module)}
        self.memo[key] = values
        return values

    def import_values(self, model: FileModel, imp: Import, bound: str) -> set[Value]:
        """What ``bound`` (a name the import statement introduces) holds."""
        system = traits_of(model.lang).module_system
        if system == "python" and imp.name is None:
            if imp.alias is None:  # `import a.b.c` binds `a`
                head = imp.module.split(".")[0]
                resolved = python_resolve(self.p.index, model.path, head, self.p.deps)
                return {module_value(resolved)} if resolved else {("ext", head)}
            return self.import_module_values(model, imp)
        if system == "rust":
            return self.rust_import(model, imp)
        if system == "java" and imp.name is not None:
            found = java_resolve(self.p.index, model.path, imp.module, imp.name, self.p.deps)
            if found is None:
                return {("ext", f"{imp.module}.{imp.name}")}
            target, member = found
            values = {v for v, _ in self.member(module_value(target), member or imp.name)}
            return values or {module_value(target)}
        modules = self.import_module_values(model, imp)
        if imp.name is None:
            if model.lang in ECMA_LANGS and imp.alias is not None:  # a default import
                named = {v for m in modules for v, _ in self.member(m, imp.alias) if m[0] == "mod"}
                return (named | modules) if named else modules
            return modules
        out: set[Value] = set()
        for module in modules:
            out |= {v for v, _ in self.member(module, imp.name)}
        return out

    def rust_import(self, model: FileModel, imp: Import) -> set[Value]:
        path = imp.module if imp.name is None else f"{imp.module}::{imp.name}"
        found = rust_resolve(self.p.index, model.path, path, self.p.deps)
        if found is None:
            return {("ext", path.replace("::", "."))}
        target, rest = found
        values = {module_value(target)}
        for part in rest:
            values = {v for value in values for v, _ in self.member(value, part)}
        return values


def c3_merge(sequences: list[list[int]]) -> list[int] | None:
    """C3 linearization of the parents' lineages; ``None`` when they cannot be merged."""
    pending = [list(s) for s in sequences if s]
    out: list[int] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            return None
        out.append(head)
        pending = [[c for c in s if c != head] for s in pending]
        pending = [s for s in pending if s]
    return out


def module_value(target: Target) -> Value:
    return ("pkg", target.path) if target.is_dir else ("mod", target.path)


def import_bound_names(imp: Import, lang: str) -> list[str]:
    """The names an import statement introduces in its scope."""
    if imp.alias:
        return [imp.alias]
    if imp.name:
        return [imp.name.split("::")[-1].split(".")[-1]]
    module = imp.module.strip("./")
    if not module:
        return []
    system = traits_of(lang).module_system
    if system == "python":
        return [module.split(".")[0]]
    if system == "go":
        return [module.rsplit("/", 1)[-1]]
    if system in ("rust", "java"):
        return [module.replace("::", ".").rsplit(".", 1)[-1]]
    return []


def resolve_import(program: Program, model: FileModel, imp: Import) -> Target | None:
    index, deps, module = program.index, program.deps, imp.module
    system = traits_of(model.lang).module_system
    if system == "python":
        return python_resolve(index, model.path, module, deps)
    if system == "ecma":
        return ecma_resolve(index, model.path, module, deps)
    if system == "go":
        return go_resolve(index, model.path, module, deps)
    if system == "java":
        found = java_resolve(index, model.path, module, None, deps)
        return found[0] if found else None
    if system == "rust":
        found = rust_resolve(index, model.path, module, deps)
        return found[0] if found else None
    return None

"""What a declared type gives a value: an instance of the class it names, a collection of them, the
classes a type variable is bound to. A mixin of :class:`lazy_intel.graph.evaluate.Evaluator`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lazy_intel.graph.annotations import TS_LANGS, declared_parts
from lazy_intel.graph.model import TYPE_LABELS, FileModel
from lazy_intel.graph.traits import GO_BUILTIN_TYPES, TYPED_OUTSIDE_LANGS, outside_type
from lazy_intel.graph.values import Value, bounded
from lazy_intel.parse.expressions import ARRAY_BASE

if TYPE_CHECKING:
    from lazy_intel.graph.program import Program


class DeclaredTypeMixin:
    p: Program

    if TYPE_CHECKING:  # provided by the evaluator

        def eval(self, model: FileModel, scope: str, expr: Any, site: str) -> set[Value]: ...
        def is_class(self, value: Value) -> bool: ...
        def member(self, value: Value, name: str, call: bool | None = None) -> list[tuple[Value, int]]: ...

    def declared_type(self, model: FileModel, scope: str, annotation: Any, site: str) -> set[Value]:
        """An instance of the class a declared type names (``x: Foo``, ``Foo x``, ``x *Foo``,
        ``Optional[Foo]``, ``"Foo | None"``), or a collection of them (``list[Foo]``):
        ``graph/annotations.py``."""
        names, elements = declared_parts(annotation, lang=model.lang)
        out: set[Value] = set()
        for name in names:
            found = self.type_named(model, scope, name, site)
            classes = {("inst", v[1]) for v in found if self.is_class(v)}
            if not classes and model.lang in TYPED_OUTSIDE_LANGS:
                # a type from outside the project (`t *testing.T`, `p: Path`) or predeclared (`err
                # error`, `s: str`): its methods are not the project's, so no guess among those;
                # Python's `Any`, `object` and the typing module's forms say nothing of the kind
                classes = {("ext", t) for v in found if v[0] == "ext" and (t := outside_type(v[1]))}
                if model.lang == "go" and name[0] == "n" and name[1] in GO_BUILTIN_TYPES:
                    classes.add(("ext", name[1]))
            if not classes and name[0] == "a" and model.lang in TS_LANGS:
                classes = self.member_type(model, scope, name, site)
            out |= classes | self.named_collection(found, site)
        if elements:
            items = {
                ("inst", v[1])
                for n in elements
                for v in self.type_named(model, scope, n, site)
                if self.is_class(v)
            }
            if items:
                out.add(("cont", f"{site}:declared", frozenset(bounded(items))))
        return out

    def member_type(self, model: FileModel, scope: str, path: Any, site: str) -> set[Value]:
        """TypeScript's indexed access type ``App["scene"]`` (read as the path ``App.scene``): what
        the member holds in an instance of the type (``scene: Scene`` declared in ``App``)."""
        owners = self.declared_type(model, scope, path[1], site)
        return bounded({v for owner in owners for v, _ in self.member(owner, path[2])})

    def named_collection(self, found: set[Value], site: str) -> set[Value]:
        """The collection a named slice or array type declares (Go's ``type errorMsgs []*Error``, its
        declaration's flow in ``go.scm``), for the type definitions among ``found``."""
        out: set[Value] = set()
        for value in found:
            entry = self.p.symbol(value[1]) if value[0] == "def" else None
            if entry is None or entry[1].kind != "type":
                continue
            model, symbol = entry
            scope = model.scope_of(symbol.parent)
            for flow in model.flows_binding(symbol.qualified, symbol.name):
                declared = flow.annotation
                if (
                    flow.kind == "assign"
                    and declared
                    and declared[0] == "k"
                    and declared[1] == ["n", ARRAY_BASE]
                ):
                    out |= self.declared_type(model, scope, declared, f"{site}/{symbol.name}")
        return out

    def type_variable(self, model: FileModel, scope: str, args: list[Any], site: str) -> set[Value]:
        """``TypeVar("T", bound="Base")`` / ``TypeVar("T", A, B)``: the classes of the project its bound
        or its constraints name, so that a value declared ``x: T`` is an instance of them (empty: an
        unbounded type variable, which says nothing of a value's kind)."""
        kinds = [a[2] for a in args if a and a[0] == "kw" and a[1] == "bound"]
        kinds += [a for a in args[1:] if a and a[0] != "kw"]
        out: set[Value] = set()
        for kind in kinds:
            names, _ = declared_parts(kind, lang=model.lang)
            for name in names:
                out |= {("def", v[1]) for v in self.type_named(model, scope, name, site) if self.is_class(v)}
        return bounded(out)

    def type_named(self, model: FileModel, scope: str, name: Any, site: str) -> set[Value]:
        """What the type expression ``name`` names in ``scope``. In a class body a member that is no
        type (a field) does not hide the enclosing scope's type of that name: Go's `Params Params`,
        `Logger *Logger`; a nested class (Java's `B b;` of an inner `B`) still names itself."""
        found = self.eval(model, scope, name, site)
        owner = model.by_qualified.get(scope) if scope else None
        if owner is not None and owner.label in TYPE_LABELS and not any(self.is_class(v) for v in found):
            found = self.eval(model, model.scope_of(owner.parent), name, site)
        return found

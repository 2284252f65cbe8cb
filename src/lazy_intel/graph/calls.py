"""From a site's callee expression to target nodes, with the strategy that found them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lazy_intel.graph.analysis import Analysis
from lazy_intel.graph.builtin_calls import CALL_METHOD
from lazy_intel.graph.model import CALLABLE_LABELS, HEADER_SUFFIXES, TYPE_LABELS, FileModel, Symbol
from lazy_intel.graph.modules import IMPORT_AWARE, rust_crate_dir
from lazy_intel.graph.namespaces import namespace_of
from lazy_intel.graph.rows import CONFIDENCE, MAX_AMBIGUOUS
from lazy_intel.graph.traits import (
    CONTAINER_METHODS,
    GO_BUILTIN_TYPES,
    PYTHON_BUILTIN_TYPES,
    SHARED_CONTAINER_METHODS,
    Traits,
    traits_of,
)
from lazy_intel.graph.values import Value, last_name, ordered
from lazy_intel.parse.languages import C_LANGUAGES, guess_family, language_for_path

if TYPE_CHECKING:
    from lazy_intel.graph.program import NamedDefinition

HOW_TO_STRATEGY = {
    "local": "local",
    "import": "import",
    "dataflow": "dataflow",
    "package": "package",
    "self": "self",
    "builtin": "builtin",
    "external": "external",
    "unbound": "unresolved",
    "global": "unique-name",  # a type found by its name alone (``Traits.global_types``)
}
# When one site reaches targets by several routes, the edge reports the most direct one.
STRATEGY_ORDER = ("local", "self", "import", "package", "member", "inheritance", "dataflow")
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
MACRO_KINDS = frozenset({"macro"})
TYPE_KINDS = frozenset(
    {"class", "struct", "interface", "trait", "enum", "record", "object", "type", "protocol", "union"}
)
# ``self.m()`` where neither the enclosing class, its bases in the tree nor a base outside it has
# ``m``: the class is a mixin whose subclasses bring ``m`` (``class ListMixin: ... self.get_queryset()``
# beside ``class BookList(ListMixin, View)``), so the site is guessed by name among the tree's methods,
# as an unknown receiver's is (:func:`by_unique_name`, low confidence). Not for a class whose lookup
# is dynamic (these names in its ancestry): the member may be made up at run time.
SELF_MEMBER_NOT_FOUND = "self-member-not-found"
# (a tuple: the lookups stop at the first found, and each records a dependency token, so the order
# they run in has to be the same in every process)
DYNAMIC_LOOKUP = ("__getattr__", "__getattribute__", "__call", "__index", "method_missing")
# ``errors.append(e)`` where ``errors = []`` (a list, dict, set or tuple literal, a comprehension, a
# declared collection: the container values of graph/evaluate.py) in a language whose containers are
# builtin types: the call is the builtin type's method (``builtin``, named ``list.append``), not an
# unresolved site. The container's kind is not kept, so the method's name says which type it is;
# a name several container types have (``pop``, ``copy``, ``count``) is ``builtin`` named as written.
BUILTIN_CONTAINER = "builtin-container"
# a macro invocation whose name reaches no macro (of the tree or the language's): guessed by name
# among the tree's macros only, reported ``unresolved`` when none has it
MACRO_NOT_FOUND = "macro-not-found"
# ``proxy.m()`` where ``m`` is nowhere in the class of ``proxy`` but the class makes members up at run
# time (a ``__getattr__`` of the tree in its ancestry, ``DYNAMIC_LOOKUP``): the site stays unresolved
# with this reason, not ``member-not-found`` (nothing is missing; the member is computed).
DYNAMIC_MEMBER = "dynamic-member"
# ``Book.objects.using(…)`` where no class of the instance's ancestry has ``using`` but one of them
# has a base the index could not evaluate (``class Manager(BaseManager.from_queryset(QuerySet))``,
# ``class Wrapper(pdb_cls)``): the member may come from that base, so the site is guessed by name
# among the tree's methods as an unknown receiver's is (low confidence), and is reported
# ``unresolved-base`` when no guess is left, not ``member-not-found``.
UNRESOLVED_BASE = "unresolved-base"


@dataclass(frozen=True)
class Resolution:
    """One target of a site: a node id (``None`` when unresolved) with how it was found."""

    dst: int | None
    strategy: str
    confidence: float
    target: str
    extra: dict[str, Any] | None = None


def render(expr: Any) -> str:
    """A short text for an expression, as written (``self.client.send``, ``handlers[…]()``)."""
    if not expr:
        return "…"
    tag = expr[0]
    if tag == "n":
        return str(expr[1])
    if tag == "a":
        return f"{render(expr[1])}.{expr[2]}"
    if tag == "c":
        return f"{render(expr[1])}()"
    if tag == "k":
        return f"{render(expr[1])}[…]"
    if tag == "s":
        return repr(expr[1])[:40]
    if tag == "l":
        return "<lambda>"
    if tag == "m":
        return render(expr[1])
    return "…"


def classify(
    an: Analysis,
    model: FileModel,
    scope: str,
    expr: Any,
    site: str,
    *,
    getters: bool = False,
    called: bool = True,
) -> tuple[list[tuple[Value, str]], str]:
    """Values of a callee expression, each with its strategy, and the reason when there are none.
    With ``getters``, an attribute's values are the getter methods its read calls (``Box.size`` for
    ``b.size``), not what they return. ``called=False``: the expression is read, not called (a type's
    name, a value stored): where methods have a namespace of their own (Java) it sees no method."""
    tag = expr[0]
    call = None if getters else namespace_of(model.lang, called)
    if tag == "n":
        values, how = an.lookup(model, scope, expr[1], call)
        strategy = HOW_TO_STRATEGY[how]
        return [(v, strategy) for v in ordered(values)], strategy
    if tag == "a":
        if constant := an.constant_path_values(model, expr):  # `Rack::MockRequest`: a namespace's member
            return [(v, "member") for v in ordered(constant)], "member"
        owners = an.eval(model, scope, expr[1], site)
        if not owners:
            return [], "unknown-receiver"
        enclosing = an.enclosing_class(model, scope)
        out: list[tuple[Value, str]] = []
        for owner in ordered(owners):
            found = an.getters(owner, expr[2]) if getters else an.member(owner, expr[2], call)
            for value, depth in found:
                if owner[0] in ("mod", "pkg"):
                    strategy = "import"
                elif owner[0] == "ext":
                    strategy = "external"
                elif depth > 0 or owner[0] == "super":
                    strategy = "inheritance"
                elif enclosing is not None and owner == ("inst", enclosing.node_id) and expr[1][0] == "n":
                    strategy = "self"
                else:
                    strategy = "member"
                out.append((value, strategy))
        if not out and _mixin_self(an, model, expr, owners, enclosing):
            through = _subclass_members(an, model, enclosing.node_id, expr[2])
            if through:
                return [(v, "inheritance") for v in through], "member"
            return out, SELF_MEMBER_NOT_FOUND
        if not out and all(o[0] == "cont" for o in owners) and _container_method(model, expr[2]):
            return out, BUILTIN_CONTAINER
        if not out and _dynamic_instances(an, owners):
            return out, DYNAMIC_MEMBER
        if not out and _beside_unresolved_base(an, owners):
            return out, UNRESOLVED_BASE
        if not out and _assigned_member(an, owners, expr[2]):
            return out, "member"  # `self.app = app` of an untyped `app`: the member's value is unknown
        return out, ("member-not-found" if not out else "member")
    if tag == "m":
        return _macro(an, model, scope, expr[1], site)
    values = an.eval(model, scope, expr, site)
    return [(v, "dataflow") for v in ordered(values)], "dataflow"


def _macro(
    an: Analysis, model: FileModel, scope: str, name: Any, site: str
) -> tuple[list[tuple[Value, str]], str]:
    """A macro invocation's targets (``["m", name]``): the macros its name or path reaches, or an
    outside crate's name it was imported as (a function of the tree with the same name is not one:
    Rust keeps macros and functions apart), else a builtin macro (``format!``, ``std::println!``),
    else ``MACRO_NOT_FOUND`` (guessed by name among the tree's macros)."""
    found, _ = classify(an, model, scope, name, site) if name and name[0] in ("n", "a") else ([], "")
    macros = [(v, s) for v, s in found if _is_macro(an, v) or v[0] == "ext"]  # `use anyhow::bail;`
    if macros:
        return macros, macros[0][1]
    last = last_name(name)
    if last and last in traits_of(model.lang).builtins:
        return [(("ext", last), "builtin")], "builtin"
    return [], MACRO_NOT_FOUND


def _is_macro(an: Analysis, value: Value) -> bool:
    entry = an.p.symbol(value[1]) if value[0] == "def" else None
    return entry is not None and entry[1].kind == "macro"


def _reported(reason: str) -> str:
    """The reason an unresolved edge records: the internal ones (a mixin's member, a container's
    method of no known type) are ``member-not-found`` to readers, a macro nothing names ``unresolved``."""
    if reason == MACRO_NOT_FOUND:
        return "unresolved"
    return "member-not-found" if reason in (SELF_MEMBER_NOT_FOUND, BUILTIN_CONTAINER) else reason


# Globals whose members are the program's own objects, not the runtime's API (``require('x').use``,
# ``module.exports``, ``window.myApp``)
ECMA_OWNED_GLOBALS = frozenset({"require", "module", "exports", "global", "globalThis", "window"})


def _runtime_member(traits: Traits, target: str) -> bool:
    """Whether ``target`` (an outside value's name) is a member of an ECMAScript runtime global
    (``Object.keys``, ``JSON.parse``, ``Promise.all``, ``console.log``): the runtime's API, like
    Python's ``str.upper``. Only a direct member: what ``Object.create(…)`` returns is the program's."""
    head, _, member = target.partition(".")
    return (
        traits.module_system == "ecma"
        and bool(member)
        and "." not in member
        and head in traits.builtins
        and head not in ECMA_OWNED_GLOBALS
    )


def _container_type(model: FileModel, name: str) -> str | None:
    """The builtin container type whose method ``name`` is (``CONTAINER_METHODS``), if one is."""
    table = CONTAINER_METHODS.get("ecma" if traits_of(model.lang).module_system == "ecma" else model.lang, {})
    return table.get(name)


def _container_method(model: FileModel, name: str) -> bool:
    """Whether ``name`` is a method of the language's builtin containers (of one kind, or shared)."""
    return _container_type(model, name) is not None or name in SHARED_CONTAINER_METHODS.get(model.lang, ())


def _mixin_self(an: Analysis, model: FileModel, expr: Any, owners: set[Value], enclosing: Any) -> bool:
    """Whether ``expr`` (``self.m``, no member found) reads a member of the enclosing class's own
    instance, where nothing in the class's ancestry could hold ``m``: every base resolves to a class
    of the tree (none outside it, none left unresolved: ``class M(superclass)``), none assigns or
    declares ``self.m``, none looks members up dynamically (``DYNAMIC_LOOKUP``)."""
    receiver, name = expr[1], expr[2]
    if enclosing is None or receiver[0] != "n" or receiver[1] not in traits_of(model.lang).self_names:
        return False
    if owners != {("inst", enclosing.node_id)}:
        return False
    for class_id, _ in an.mro(enclosing.node_id):
        entry = an.p.symbol(class_id)
        if entry is None:
            return False
        owner, cls = entry
        found, outside, unresolved = an.bases(class_id)
        if outside or unresolved or len(owner.bases.get(cls.qualified, ())) > len(found):
            return False  # a base outside the tree, or one not resolved: it may bring the member
        if name in an.declared(owner).get(cls.qualified, {}) or _assigns_attribute(
            owner, cls.qualified, name
        ):
            return False
    return not _looks_up_dynamically(an, enclosing.node_id)


def _subclass_members(an: Analysis, model: FileModel, mixin_id: int, name: str) -> list[Value]:
    """``self.name`` of a mixin, through the classes of its own file that have it among their
    ancestors (``class ThingTests(CheckMixin, TestCase)``): the members those classes' lookups find,
    in file order (a member outside the tree is an ``ext`` value). Only the mixin's file is read for
    subclasses, so the answer depends on nothing a reverse index of bases would have to track; a
    mixin used only from other files keeps the guess by name (``SELF_MEMBER_NOT_FOUND``)."""
    found: dict[Value, None] = {}
    for qualified in model.bases:
        cls = model.by_qualified.get(qualified)
        if cls is None or cls.node_id == mixin_id:
            continue
        if any(ancestor == mixin_id for ancestor, _ in an.mro(cls.node_id)):
            for value, _ in an.member(("inst", cls.node_id), name):
                found.setdefault(value, None)
    return list(found)


def _beside_unresolved_base(an: Analysis, owners: set[Value]) -> bool:
    """Whether the owners hold instances or classes, and every one of them has a base the index could
    not evaluate in its ancestry (the other owners, a class attribute's own field node, have no
    members to miss)."""
    # in one order in every process: the lookups stop at the first answer, and each records tokens
    typed = [o for o in ordered(owners) if o[0] in ("inst", "super") or (o[0] == "def" and an.is_class(o))]
    return bool(typed) and all(an.unresolved_base(o[1]) for o in typed)


def _dynamic_instances(an: Analysis, owners: set[Value]) -> bool:
    """Whether every owner is an instance of a class whose ancestry defines a ``DYNAMIC_LOOKUP``
    method in the tree (``class ConnectionProxy: def __getattr__(self, item): …``)."""
    return bool(owners) and all(
        owner[0] == "inst" and _looks_up_dynamically(an, owner[1]) for owner in ordered(owners)
    )


def _looks_up_dynamically(an: Analysis, class_id: int) -> bool:
    """Whether the class or a base of the tree defines a ``DYNAMIC_LOOKUP`` method."""
    return any(v[0] == "def" for n in DYNAMIC_LOOKUP for v, _ in an.member(("def", class_id), n))


def _assigned_member(an: Analysis, owners: set[Value], name: str) -> bool:
    """Whether some owner is an instance of a class whose ancestry in the tree assigns or declares the
    attribute ``name`` (``self.app = app``): the member is there, only its value is not known."""
    for owner in ordered(owners):  # the first found ends the lookups, which record tokens
        if owner[0] != "inst":
            continue
        for class_id, _ in an.mro(owner[1]):
            entry = an.p.symbol(class_id)
            if entry is None:
                continue
            model, cls = entry
            if name in an.declared(model).get(cls.qualified, {}) or _assigns_attribute(
                model, cls.qualified, name
            ):
                return True
    return False


def _assigns_attribute(model: FileModel, qualified: str, name: str) -> bool:
    """Whether a method of the class ``qualified`` assigns ``<something>.name`` (``self.name = …``)."""
    return name in _assigned_attributes(model, qualified)


def _assigned_attributes(model: FileModel, qualified: str) -> frozenset[str]:
    """The attributes the methods of the class ``qualified`` assign, read once per class and model
    (each member missing from an instance asked again: 18k times over a quarter of Django). What a
    view records is recorded on every call: the class's top-level facet, which its flows lie under."""
    facet = qualified.split(".", 1)[0]
    flows = model.flows_with_top(facet)  # records the facet's token on a view
    raw = getattr(model, "raw", model)
    memo = raw._memo.setdefault("assigned_attributes", {})
    found = memo.get(qualified)
    if found is None:
        prefix = qualified + "."
        found = frozenset(
            flow.target[2]
            for flow in flows
            if flow.kind == "assign"
            and flow.target
            and flow.target[0] == "a"
            and raw.flow_scope(flow).startswith(prefix)
        )
        memo[qualified] = found
    return found


def call_targets(
    an: Analysis,
    model: FileModel,
    scope: str,
    expr: Any,
    site: str,
    *,
    kind: str,
    call_syntax: bool = True,
    argc: int | None = None,
) -> list[Resolution]:
    """The targets of a call (or instantiation) site; an unresolved site yields one ``dst=None``.

    An out-of-repository target is reported (``external``/``builtin``, no ``dst``); ``[]`` only for a
    builtin reached without call syntax (``raise ValueError``). ``argc``: how many arguments the site
    passes, which picks among overloads where the language does (Java, ``ClassMixin.overloads``).
    """
    text = render(expr)
    found, reason = classify(an, model, scope, expr, site)
    traits = traits_of(model.lang)
    out: dict[int, Resolution] = {}
    unresolved: Resolution | None = None
    also: list[Resolution] = []
    for value, strategy in found:
        if value[0] in ("def", "bm"):
            entry = an.p.symbol(value[1])
            if entry is None:
                continue
            symbol = entry[1]
            extra = None
            dst = value[1]
            if symbol.label in TYPE_LABELS:
                constructor = an.constructor(value[1], argc)
                extra = {"instantiates": symbol.qualified}
                if constructor is not None:
                    dst = constructor
                elif external := an.external_bases(value[1]):  # its constructor is inherited from outside
                    also.append(Resolution(None, "external", 0.0, f"{external[0]}.__init__", extra))
            elif symbol.label not in CALLABLE_LABELS:
                continue  # a variable whose value is unknown: reported unresolved below
            elif symbol.kind == "macro" and expr[0] != "m" and model.lang == "rust":
                continue  # `check(…)` is never the macro `check!` (Rust keeps their names apart; a C
                # function-like macro is called as a function is)
            else:
                dst = defined_at(an, model, entry)
            _keep_most_direct(out, dst, Resolution(dst, strategy, CONFIDENCE.get(strategy, 0.5), text, extra))
        elif value[0] == "ext":
            if strategy == "builtin" and not call_syntax:
                continue  # `raise ValueError`: nothing of ours runs
            head = value[1].split(".")[0]
            builtin = (
                strategy == "builtin"
                or head in ("str", "int")
                or (model.lang == "python" and head in PYTHON_BUILTIN_TYPES)  # `set().add`, `dict(…).update`
                or (model.lang == "go" and head in GO_BUILTIN_TYPES)  # `err.Error()` of `err error`
                or _runtime_member(traits, value[1])  # `Object.keys`, `JSON.parse`, `console.log`
            )
            unresolved = Resolution(None, "builtin" if builtin else "external", 0.0, value[1])
        elif value[0] == "lam" and unresolved is None:
            unresolved = Resolution(None, "lambda", 0.0, text)
        elif value[0] == "inst":  # `skip(…)` of `skip = _Skip()`: the class's `__call__` runs
            for method, _ in an.member(value, CALL_METHOD):
                entry = an.p.symbol(method[1]) if method[0] in ("def", "bm") else None
                if entry is not None and entry[1].label in CALLABLE_LABELS:
                    confidence = CONFIDENCE.get(strategy, 0.5)
                    found_call = Resolution(method[1], strategy, confidence, text, {"calls": CALL_METHOD})
                    _keep_most_direct(out, method[1], found_call)
                elif method[0] == "ext" and unresolved is None:  # inherited from a class outside the tree
                    unresolved = Resolution(None, "external", 0.0, method[1])
    if not out and unresolved is None and found and all(v[0] == "ext" for v, _ in found):
        return []
    if len(out) > 1 and argc is not None:
        kept = set(an.overloads(sorted(out), argc))
        out = {dst: r for dst, r in out.items() if dst in kept}
    if out:
        resolved = sorted(out.values(), key=lambda r: r.dst or 0)
        if len(resolved) > 1:
            resolved = [
                Resolution(r.dst, r.strategy, round(r.confidence * 0.8, 4), r.target, r.extra)
                for r in resolved
            ]
        return resolved
    if unresolved is not None:
        return [unresolved]
    if reason == BUILTIN_CONTAINER:
        kind = _container_type(model, expr[2])  # none for a name several kinds share: as written
        return [Resolution(None, "builtin", 0.0, f"{kind}.{expr[2]}" if kind else text)]
    if reason == MACRO_NOT_FOUND and (name := last_name(expr[1])):
        # a `macro_rules!` macro is seen in its own crate (unless exported and imported, which the
        # name lookup finds): ripgrep's printer and searcher crates each define `assert_eq_printed!`
        within = rust_crate_dir(an.p.index, model.path, an.p.deps) if model.lang == "rust" else None
        fallback = by_unique_name(an, model, name, MACRO_KINDS, member=False, within=within)
        if fallback:
            return [Resolution(r.dst, r.strategy, r.confidence, text, r.extra) for r in fallback]
    if reason in ("unresolved", "unknown-receiver", SELF_MEMBER_NOT_FOUND, UNRESOLVED_BASE):
        name = last_name(expr)
        member = expr[0] == "a"
        if member and reason in ("unknown-receiver", UNRESOLVED_BASE) and name in traits.builtin_methods:
            name = None  # `line.strip()`: a builtin value's method, not a guess among the project's
        if name:
            kinds = CALLABLE_KINDS if member and kind != "instantiate" else CALLABLE_KINDS | TYPE_KINDS
            fallback = by_unique_name(an, model, name, kinds, member=member)
            if fallback:
                return [Resolution(r.dst, r.strategy, r.confidence, text, r.extra) for r in fallback]
    return [Resolution(None, "unresolved", 0.0, text, {"reason": _reported(reason)})]


# The name-table filters of :func:`by_unique_name` (kinds, member: a definition with a parent), each
# with the code of its over-the-cap dependency ``c:<code>:<name>``
UNIQUE_NAME_FILTERS: dict[str, tuple[frozenset[str], bool]] = {
    "call": (CALLABLE_KINDS, False),
    "call.m": (CALLABLE_KINDS, True),
    "any": (CALLABLE_KINDS | TYPE_KINDS, False),
    "any.m": (CALLABLE_KINDS | TYPE_KINDS, True),
    "type": (TYPE_KINDS, False),
    "type.m": (TYPE_KINDS, True),
    "macro": (MACRO_KINDS, False),
}
_FILTER_CODES = {kept: code for code, kept in UNIQUE_NAME_FILTERS.items()}


def by_unique_name(
    an: Analysis,
    model: FileModel,
    name: str,
    kinds: frozenset[str],
    *,
    member: bool,
    within: str | None = None,
) -> list[Resolution]:
    """The unique-name strategy: one definition with this name (and kind) anywhere, else ambiguous.

    More than :data:`MAX_AMBIGUOUS` candidates resolve nothing whatever they are, so that answer
    records ``c:<filter>:<name>`` (invalidated only when the name's count under this filter crosses
    the cap: graph/invalidation.py ``crossed_caps``), not ``n:<name>``: a new method ``get`` does not
    re-resolve every file that calls ``x.get()`` on something it cannot type."""
    candidates = [d for d in an.p.named(name, token=None) if d.kind in kinds and (not member or d.parent)]
    if len(candidates) > MAX_AMBIGUOUS:
        an.p.deps.add(f"c:{_FILTER_CODES[(kinds, member)]}:{name}")
        return [
            Resolution(
                None, "unresolved", 0.0, name, {"reason": "ambiguous", "candidates_over": MAX_AMBIGUOUS}
            )
        ]
    an.p.deps.add("n:" + name)  # which candidates, and whether any: every definition of the name
    family = guess_family(model.lang)
    caller = traits_of(model.lang)
    candidates = [
        d
        for d in candidates
        if guess_family(lang := language_for_path(d.path)) == family
        and _reachable_by_guess(d, lang, member=member, caller=caller)
    ]
    if within is not None:  # the candidates under ``within`` when there are any
        prefix = within + "/" if within else ""
        candidates = [d for d in candidates if d.path.startswith(prefix)] or candidates
    if not candidates:
        return []
    base = CONFIDENCE["unique-name"]
    if model.lang in IMPORT_AWARE and not member:
        base -= 0.1  # an import-aware language should have found it through scopes or imports
    declared: dict[str, Any] = {}  # the header declarations dropped (C, C++), said on the edge
    if model.lang in C_LANGUAGES and len(candidates) > 1:
        candidates, dropped = _without_header_prototypes(candidates)
        declared = {"header_declarations": dropped} if dropped else {}
    if len(candidates) == 1:
        return [Resolution(candidates[0].node_id, "unique-name", base, name, declared or None)]
    share = round(CONFIDENCE["ambiguous"] / len(candidates), 4)
    return [
        Resolution(
            c.node_id,
            "ambiguous",
            share,
            name,
            {"candidates": len(candidates), **declared},
        )
        for c in candidates
    ]


METHOD_KINDS = frozenset({"method", "constructor"})


def _reachable_by_guess(
    definition: NamedDefinition, lang: str | None, *, member: bool, caller: Traits
) -> bool:
    """Whether a call by name alone can run ``definition`` at all, by the languages' rules. A member
    call ``x.f()`` is no `function` with a parent where members are `method`s (a function nested in a
    function, a Rust module's: ``x.get()`` is not a test's local ``def get``). A bare call ``f()`` is
    no method where a member needs its receiver (``self.f()``, ``this.f()``: the caller's language
    has no implicit members), and no Python function nested in another function (visible only
    there, where scope finds it)."""
    if not definition.parent:
        return True
    own = traits_of(lang)  # the definition's own language
    if member:
        return definition.kind != "function" or not own.parented_functions_not_members
    if definition.kind in METHOD_KINDS:
        return caller.implicit_members
    return definition.kind != "function" or not own.nested_functions_local


# C and C++: a function declared in a header (a prototype, `int add(int, int);`) and defined in a
# source file is one function, not two candidates; so is a method declared in its class in a header
# (`double area() const;`) and defined out of line (`double Shape::area() const {…}` in a .cpp). The
# tag queries capture both as definitions, so a call by name had two "ambiguous" edges at half
# confidence each (jq: every call of `jv_free`, 583 edges to `src/jv.h` beside the 651 to
# `src/jv.c`). A header's function or method is dropped from the candidates when a source file
# defines one with the same qualified name (an inline definition in the header could not coexist
# with it in one program); others of the name (`Circle::area` defined inline) stay.
DECLARED_KINDS = frozenset({"function", "method"})


def defined_at(an: Analysis, model: FileModel, entry: tuple[FileModel, Symbol]) -> int:
    """The node a use of the definition ``entry`` (its file's model, the symbol) lands on: in C and
    C++, a function a header declares is its source file's definition when exactly one has it."""
    owner, symbol = entry
    if model.lang in C_LANGUAGES and owner.path.endswith(HEADER_SUFFIXES):
        return _defined_out_of_line(an, symbol) or symbol.node_id
    return symbol.node_id


def _defined_out_of_line(an: Analysis, symbol: Symbol) -> int | None:
    """The source file's definition of a function or method a header declares (``void scale(double
    k);`` in its class, ``void Shape::scale(double k) {…}`` in a .cpp): a call the receiver's type
    leads to the declaration runs that definition (the one, if exactly one source file has it)."""
    if symbol.kind not in DECLARED_KINDS:
        return None
    found = [
        d.node_id
        for d in an.p.named(symbol.name)
        if d.qualified == symbol.qualified
        and d.kind in DECLARED_KINDS
        and not d.path.endswith(HEADER_SUFFIXES)
    ]
    return found[0] if len(found) == 1 else None


def _without_header_prototypes(candidates: list[NamedDefinition]) -> tuple[list[NamedDefinition], int]:
    """(the candidates without the header declarations a source file defines, how many were dropped)."""
    defined = {
        c.qualified for c in candidates if c.kind in DECLARED_KINDS and not c.path.endswith(HEADER_SUFFIXES)
    }
    kept = [
        c
        for c in candidates
        if not (c.kind in DECLARED_KINDS and c.path.endswith(HEADER_SUFFIXES) and c.qualified in defined)
    ]
    return kept, len(candidates) - len(kept)


def type_targets(
    an: Analysis, model: FileModel, scope: str, expr: Any, site: str, *, modules: bool = False
) -> list[Resolution]:
    """The type (class, interface, alias) a type use, base class or implemented interface names; with
    ``modules``, a module too (Ruby's ``include Helpers`` mixes a module in)."""
    labels = TYPE_LABELS | {"Type", "Module"} if modules else TYPE_LABELS | {"Type"}
    text = render(expr)
    found, reason = classify(an, model, scope, expr, site, called=False)
    out: dict[int, Resolution] = {}
    external: Resolution | None = None
    for found_value, strategy in found:
        # `Self` / `this` as a type: the enclosing type
        value = ("def", found_value[1]) if found_value[0] == "inst" and strategy == "self" else found_value
        if value[0] == "def":
            entry = an.p.symbol(value[1])
            if entry is not None and entry[1].label in labels:
                out.setdefault(value[1], Resolution(value[1], strategy, CONFIDENCE.get(strategy, 0.5), text))
        elif value[0] == "ext" and external is None and expr[0] != "c":
            # (an outside call's result keeps the callee's name: not the class `class M(make(Q))` gets)
            external = Resolution(None, "builtin" if strategy == "builtin" else "external", 0.0, value[1])
    # a decorated class holds the class and what its decorators return (`@dataclass` is external):
    # the class of the repository is what a base or annotation names
    if out:
        return sorted(out.values(), key=lambda r: r.dst or 0)
    if external is not None:
        return [external]
    name = last_name(expr)
    if name and reason in ("unresolved", "unknown-receiver", "member"):
        fallback = by_unique_name(an, model, name, TYPE_KINDS, member=False)
        if fallback:
            return [Resolution(r.dst, r.strategy, r.confidence, text, r.extra) for r in fallback]
    return [Resolution(None, "unresolved", 0.0, text, {"reason": _reported(reason)})]


def _keep_most_direct(out: dict[int, Resolution], dst: int, found: Resolution) -> None:
    """Keep ``found`` for ``dst`` unless a more direct route (``STRATEGY_ORDER``) already reached it."""
    previous = out.get(dst)
    if previous is None or _rank(found.strategy) < _rank(previous.strategy):
        out[dst] = found


def _rank(strategy: str) -> int:
    return STRATEGY_ORDER.index(strategy) if strategy in STRATEGY_ORDER else len(STRATEGY_ORDER)

"""How each language's names behave, as far as resolution needs to know (one row per language).

Parsing stays language-agnostic (the ``.scm`` files); binding rules are semantics, and they differ:
whether a bare name inside a method means a member (Java) or not (Python), what ``self`` is called,
which module system resolves imports, what the constructor is called.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lazy_intel.graph import builtin_methods
from lazy_intel.graph.builtin_names import (
    C_STANDARD,
    CPP_STANDARD,
    CSHARP_SYSTEM,
    ECMA_GLOBALS,
    GO_BUILTINS,
    JAVA_LANG,
    KOTLIN_BUILTINS,
    PYTHON_BUILTINS,
    RUBY_KERNEL,
    RUST_BUILTINS,
    TYPESCRIPT_TYPE_GLOBALS,
)

# Go's predeclared types with methods or none: a value declared with one is not a project type
# (`err error`: `err.Error()` is the builtin interface's method, not a guess among the project's)
# Languages whose values declared with a type from outside the project (or a builtin one) hold that
# type: their calls are external/builtin, not guesses among the project's same-named methods.
TYPED_OUTSIDE_LANGS = frozenset({"go", "python"})
# Declared types that say nothing of a value's kind: Python's `Any`, `object`, `type` (a class, not an
# instance of `type` whose methods it calls), callables, the typing module's forms and type variables
# (`T = TypeVar("T")` holds the call's result, `typing.TypeVar`)
OPAQUE_TYPE_PREFIXES = ("typing.", "typing_extensions.")
OPAQUE_TYPES = frozenset({"object", "Any", "type", "collections.abc.Callable"})
# The typing module's names of concrete builtin and standard-library types, and of the collections
# ABCs: a value declared with one (`m: Dict[str, int]`, `scope: MutableMapping[str, Any]`, `xs:
# List[Box]`) holds that type, so `m.get(…)` is `dict.get`, not a guess among the tree's `get`s.
TYPING_CONCRETE = {
    **{f"typing.{n.capitalize()}": n for n in ("list", "dict", "set", "tuple")},
    "typing.FrozenSet": "frozenset",
    "typing.Text": "str",
    "typing.DefaultDict": "collections.defaultdict",
    "typing.OrderedDict": "collections.OrderedDict",
    "typing.Counter": "collections.Counter",
    "typing.Deque": "collections.deque",
    "typing.ChainMap": "collections.ChainMap",
    "typing.Pattern": "re.Pattern",
    "typing.Match": "re.Match",
    "typing.AbstractSet": "collections.abc.Set",
}
TYPING_ABCS = frozenset(
    {
        *("Mapping", "MutableMapping", "Sequence", "MutableSequence", "MutableSet", "Collection"),
        *("Iterable", "Iterator", "Reversible", "Container", "Sized", "Hashable", "Generator"),
        *("AsyncIterable", "AsyncIterator", "AsyncGenerator", "Awaitable", "Coroutine"),
        *("KeysView", "ValuesView", "ItemsView", "MappingView"),
    }
)


# The methods of a language's builtin containers, by the type each name says (graph/calls.py: a call of
# one on a list/dict/set literal or a comprehension is that type's builtin method, ``list.append``;
# names several container types share — ``pop``, ``copy``, ``count`` — are not listed)
CONTAINER_METHODS: dict[str, dict[str, str]] = {
    "python": {
        **dict.fromkeys(("append", "extend", "insert", "sort", "reverse", "remove"), "list"),
        **dict.fromkeys(("keys", "values", "items", "update", "get", "setdefault", "popitem"), "dict"),
        **dict.fromkeys(
            ("add", "discard", "union", "intersection", "difference", "issubset", "issuperset", "isdisjoint"),
            "set",
        ),
    },
    "ecma": dict.fromkeys(
        (
            *("push", "pop", "shift", "unshift", "map", "filter", "forEach", "reduce", "slice", "splice"),
            *("concat", "join", "indexOf", "includes", "find", "findIndex", "some", "every", "flatMap"),
        ),
        "Array",
    ),
}
# The methods several kinds of a language's builtin containers share, and those of its generators (a
# generator function's result is a container of what it yields): a call of one on a container is
# ``builtin``, named as written (``stack.pop``), not a member missing from it
SHARED_CONTAINER_METHODS: dict[str, frozenset[str]] = {
    "python": frozenset(
        {
            *("pop", "clear", "copy", "count", "index", "__len__", "__contains__", "__iter__"),
            *("__getitem__", "__setitem__", "__delitem__", "__next__", "send", "throw", "close"),
            *("__aiter__", "__anext__", "asend", "athrow", "aclose"),
        }
    ),
}
# Python's builtin types: a method of a value of one (``set().add``) is ``builtin``, not ``external``
PYTHON_BUILTIN_TYPES = frozenset(
    {
        *("str", "int", "float", "bool", "bytes", "bytearray", "complex"),
        *("list", "dict", "set", "frozenset", "tuple"),
    }
)

# Python's enumeration bases: a public name assigned in the body of a class deriving from one is an
# instance of that class (``Color.RED.label()`` calls ``Color.label``), not the value it is assigned
ENUM_BASES = frozenset(
    {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag", "enum.ReprEnum"}
)
# Python's type variable factories: ``T = TypeVar("T", bound="Base")`` holds the classes its bound or
# constraints name (graph/evaluate.py ``type_variable``), so ``x: T`` is typed like ``x: Base``
TYPE_VARIABLE_FACTORIES = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})
# ``typing.cast(Foo, x)`` returns ``x`` declared as a ``Foo``: an instance of what its first argument
# names (graph/evaluate.py ``call_result``), not the outside ``typing.cast`` result
TYPE_CASTS = frozenset({"typing.cast", "typing_extensions.cast"})


def opaque_type(name: str) -> bool:
    return name in OPAQUE_TYPES or name.startswith(OPAQUE_TYPE_PREFIXES)


def typing_alias(name: str) -> str | None:
    """The type a typing-module name stands for (``typing.Dict`` -> ``dict``, ``typing.Mapping`` ->
    ``collections.abc.Mapping``; ``typing_extensions`` alike), or None for any other name."""
    if not name.startswith(OPAQUE_TYPE_PREFIXES):
        return None
    short = "typing." + name.split(".", 1)[1]
    if short in TYPING_CONCRETE:
        return TYPING_CONCRETE[short]
    tail = short[len("typing.") :]
    return f"collections.abc.{tail}" if tail in TYPING_ABCS else None


def generic_alias(name: str, key: Any) -> bool:
    """Whether ``name[key]`` (``name`` an outside value) is a generic alias of the type ``name``
    rather than an element of a value: a typing-module name subscripted (``MutableMapping[str, Any]``),
    or a collections ABC or builtin collection subscripted with type arguments (``dict[str, Any]``;
    ``d[k]`` and ``d["k"]`` are elements). A value and its class are one outside value for us, so the
    key decides."""
    if typing_alias(name):
        return True
    abstract = name.startswith("collections.abc.") and name.rsplit(".", 1)[1] in TYPING_ABCS
    if not abstract and name not in ("list", "dict", "set", "frozenset", "tuple", "type"):
        return False
    items = key[1] if key and key[0] == "t" else [key]
    return bool(items) and all(_type_argument(item) for item in items)


def _type_argument(expr: Any) -> bool:
    """A type written as a subscript's argument: a class-like name (``Box``, ``pkg.Box``), a builtin
    type, ``None``, ``...``, or a generic of one (``list[Box]``)."""
    if not expr:
        return False
    tag = expr[0]
    if tag == "n":
        return str(expr[1])[:1].isupper() or expr[1] in PYTHON_BUILTIN_TYPES or expr[1] == "None"
    if tag == "a":
        return str(expr[2])[:1].isupper()
    if tag == "k":
        return _type_argument(expr[1])
    if tag == "t":  # `Callable[[A, B], C]`'s argument list
        return all(_type_argument(item) for item in expr[1])
    return tag == "x"


def outside_type(name: str) -> str | None:
    """The outside type a value declared ``name`` holds (a typing alias read as what it names), or
    None when the declaration says nothing of the value's kind (:func:`opaque_type`)."""
    name = typing_alias(name) or name
    return None if opaque_type(name) else name


# Decorators from outside the project that return what they decorate, or a wrapper called like it
# (Python): a decorated name holds its definition only, not the decorator's result as an outside value
# (`@final class MarkGenerator` made `mark.parametrize` a call of `typing.final.parametrize`). Not
# `functools.lru_cache`/`cache`/`singledispatch`: their wrappers have members of their own
# (`f.cache_clear()`, `f.register`), which the outside value names.
TRANSPARENT_DECORATORS = frozenset(
    {
        "classmethod",
        "staticmethod",
        "abc.abstractmethod",
        "typing.final",
        "typing.overload",
        "typing.override",
        "typing.no_type_check",
        "typing.runtime_checkable",
        "typing_extensions.final",
        "typing_extensions.overload",
        "typing_extensions.override",
        "typing_extensions.runtime_checkable",
        "functools.total_ordering",
        "functools.wraps",
        "dataclasses.dataclass",
        "enum.unique",
        "atexit.register",
        # `@size.setter` on a property: the setter (the name keeps the getter's `property` value, so
        # the result of one accessor decorator no longer feeds the next: `property.setter.setter…`)
        "property.setter",
        "property.getter",
        "property.deleter",
    }
)

GO_BUILTIN_TYPES = frozenset(
    [
        "error",
        "string",
        "bool",
        "byte",
        "rune",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)


@dataclass(frozen=True)
class Traits:
    module_system: str  # python | ecma | go | java | rust | none
    self_names: frozenset[str] = frozenset({"this"})
    first_param_is_self: bool = False  # Python: a method's first parameter is the instance
    implicit_members: bool = False  # a bare name in a method may be a member of its class
    # ... or of a class around that class: Java's, C#'s, Kotlin's, Scala's, C++'s and Swift's nested
    # classes see their enclosing classes' members (a nested enum, a static method, a sibling type)
    outer_members: bool = False
    package_scope: bool = False  # names of sibling files in the same directory are visible (Go)
    constructors: frozenset[str] = frozenset()
    builtins: frozenset[str] = frozenset()
    super_names: frozenset[str] = frozenset({"super"})
    iteration: tuple[str, ...] = ()  # methods a for loop calls on an object (Python: __iter__, __next__)
    subscript: str | None = None  # the method ``obj[key]`` calls on an object (Python: __getitem__)
    builtin_methods: frozenset[str] = frozenset()  # not guessed by name on an unknown receiver
    global_types: bool = False  # the tree's types are seen without an import (C#, Ruby, Swift, Scala, C++)
    extension_members: bool = False  # Kotlin's `fun Buffer.f()`, C#'s `F(this Buffer b)` are Buffer's members
    # A `function` with a parent (not a `method`: its container is no class) is no member of anything:
    # Python's `def` in a `def`, Rust's `fn` in a `fn` or a `mod`, so `x.f()` is never guessed to one
    # (calls.by_unique_name). Not JavaScript: `obj.f = function …` inside a function is such a
    # definition and is `obj`'s member; nor Kotlin (an anonymous object's `fun`) and the rest unchecked.
    parented_functions_not_members: bool = False
    # A function nested in a function is visible only inside it (Python: no other container makes a
    # `def` a `function` with a parent), so no name guess from elsewhere lands on one either. (A bare
    # call is no method in any language without ``implicit_members``: calls._reachable_by_guess.)
    nested_functions_local: bool = False
    # Without imports to say which, a definition of the tree named like a builtin wins over it: a type
    # in every language whose module system is "none"; in C, C++ and Ruby any definition (a project's
    # own `assert` macro, its own `abort`, a test helper's `context`), as no import says whose a bare
    # name is
    builtins_yield_to_any_definition: bool = False


ECMA_TRAITS = Traits(
    "ecma",
    constructors=frozenset({"constructor"}),
    builtins=ECMA_GLOBALS,
    builtin_methods=builtin_methods.ECMA,
)
TYPESCRIPT_TRAITS = replace(ECMA_TRAITS, builtins=ECMA_GLOBALS | TYPESCRIPT_TYPE_GLOBALS)
TRAITS: dict[str, Traits] = {
    "python": Traits(
        "python",
        self_names=frozenset({"self", "cls"}),
        first_param_is_self=True,
        constructors=frozenset({"__init__"}),
        builtins=PYTHON_BUILTINS,
        iteration=("__iter__", "__next__"),
        subscript="__getitem__",
        builtin_methods=builtin_methods.PYTHON,
        parented_functions_not_members=True,
        nested_functions_local=True,
    ),
    "javascript": ECMA_TRAITS,
    "typescript": TYPESCRIPT_TRAITS,
    "tsx": TYPESCRIPT_TRAITS,
    "go": Traits(
        "go",
        self_names=frozenset(),
        package_scope=True,
        builtins=GO_BUILTINS | GO_BUILTIN_TYPES,  # `string(b)`, `int64(n)`: conversions
        parented_functions_not_members=True,
    ),
    # a Java package is a directory: its other classes are visible without an import
    "java": Traits(
        "java",
        implicit_members=True,
        outer_members=True,
        package_scope=True,
        builtins=JAVA_LANG,
        builtin_methods=builtin_methods.JAVA,
    ),
    "rust": Traits(
        "rust",
        self_names=frozenset({"self", "Self"}),
        builtins=RUST_BUILTINS,
        builtin_methods=builtin_methods.RUST,
        parented_functions_not_members=True,
    ),
    "c": Traits("none", self_names=frozenset(), builtins=C_STANDARD, builtins_yield_to_any_definition=True),
    # a method defined out of line (`double Shape::area() {…}` in a .cpp) is its class's: inside it
    # `this` and bare names are the class's, found by name (extension_receiver)
    "cpp": Traits(
        "none",
        implicit_members=True,
        outer_members=True,
        global_types=True,
        extension_members=True,
        builtins=CPP_STANDARD,
        builtins_yield_to_any_definition=True,
    ),
    "csharp": Traits(
        "none",
        implicit_members=True,
        outer_members=True,
        super_names=frozenset({"base"}),
        global_types=True,
        builtins=CSHARP_SYSTEM,
        builtin_methods=builtin_methods.CSHARP,
        extension_members=True,  # `static … F(this T x)`: a `receiver` flow
    ),
    "ruby": Traits(
        "none",
        self_names=frozenset({"self"}),
        implicit_members=True,
        constructors=frozenset({"initialize"}),
        global_types=True,
        builtins=RUBY_KERNEL,
        builtin_methods=builtin_methods.RUBY,
        # a test DSL name the tree defines (sinatra's `def self.context`, `Sinatra::Base.before`) is
        # the tree's, not the test runner's
        builtins_yield_to_any_definition=True,
    ),
    # a PHP namespace is a directory (PSR-4, graph/php_autoload.py)
    "php": Traits(
        "php",
        self_names=frozenset({"$this", "this", "self", "static"}),
        constructors=frozenset({"__construct"}),
        super_names=frozenset({"parent"}),
        package_scope=True,
        builtins=builtin_methods.PHP_FUNCTIONS,
    ),
    # a Kotlin package is a directory too (graph/modules.py `kotlin_resolve`)
    "kotlin": Traits(
        "kotlin",
        implicit_members=True,
        outer_members=True,
        package_scope=True,
        builtins=KOTLIN_BUILTINS | JAVA_LANG,  # java.lang is imported on the JVM
        builtin_methods=builtin_methods.KOTLIN,
        extension_members=True,
    ),
    "swift": Traits(
        "none",
        self_names=frozenset({"self"}),
        implicit_members=True,
        outer_members=True,
        constructors=frozenset({"init"}),
        global_types=True,
        builtin_methods=builtin_methods.SWIFT,
    ),
    "scala": Traits("none", implicit_members=True, outer_members=True, global_types=True),
}
DEFAULT_TRAITS = Traits("none")


def traits_of(lang: str | None) -> Traits:
    return TRAITS.get(lang or "", DEFAULT_TRAITS)

"""Declared types read off annotation expressions (pure): what a type annotation says a value is.

An annotation arrives as a compact expression (``parse/expressions.py``). Most name one class
(``x: Foo``, ``Foo x``, ``x *Foo``, ``-> Foo``); Python's also wrap it (``Optional[Foo]``,
``Foo | None``, ``Union[Foo, Bar]``, ``Annotated[Foo, …]``, ``Final[Foo]``), quote it as a forward
reference (``"Foo"``, ``"Foo | None"``), or name a collection of it (``list[Foo]``,
``Iterable[Foo]``: iterating gives ``Foo`` instances). :func:`declared_parts` reduces an annotation
to the expressions naming the classes the value is an instance of, and those naming the classes of
its elements; the resolver evaluates them (``Evaluator.declared_type``). A generic class of the
project (``QuerySet[Model]``) is an instance of that class; a Python collection or mapping
(``list[Foo]``, ``Dict[str, Foo]``: its last argument) is also an instance of the collection type
itself (``xs.pop()`` is ``list.pop``; the typing module's names are read as what they name,
``traits.typing_alias``); several declared results (Go's
``(*Foo, error)``) are a tuple the caller unpacks (its elements); Rust's ``Option<Foo>``,
``Result<Foo, E>``, ``Box<Foo>`` hold a ``Foo`` (in Rust only: elsewhere a class called ``Result`` is
the project's own); anything else is read as before: the whole expression names the class.
"""

from __future__ import annotations

import re
from typing import Any

from lazy_intel.graph.values import last_name
from lazy_intel.parse.expressions import ARRAY_BASE

Expr = list[Any]

# wrappers whose (first) argument is the declared type itself
TRANSPARENT = frozenset(
    {"Optional", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly", "Annotated", "TypeGuard"}
)
UNION = frozenset({"Union"})
# TypeScript's utility types of one object type: `Partial<Props>`, `Readonly<AppState>`, `Pick<T, K>`,
# `Omit<T, K>` hold (some of) the members of their first argument, so member lookup reads that type
TS_TRANSPARENT = frozenset({"Partial", "Readonly", "Required", "NonNullable", "Pick", "Omit", "Awaited"})
TS_LANGS = frozenset({"typescript", "tsx"})
# `type[Foo]`: the class itself (or a subclass), not an instance of it: read as naming nothing
CLASS_OF = frozenset({"type", "Type"})
# Rust's wrappers of one value: `Option<T>`, `Box<T>`, `Result<T, E>` (`x?` is the `T`) hold a `T`
RUST_TRANSPARENT = frozenset({"Option", "Box", "Rc", "Arc", "Result", "Cow"})
# C++'s owners and wrappers of one value: `p->m()` of a `std::unique_ptr<T>` is `T::m`
CPP_TRANSPARENT = frozenset({"unique_ptr", "shared_ptr", "optional", "reference_wrapper"})
# C++'s sequences: `for (auto& x : v)` of a `std::vector<T>` iterates `T`s
CPP_COLLECTIONS = frozenset(
    {"vector", "deque", "list", "forward_list", "set", "multiset", "unordered_set", "span"}
)
# collections whose arguments are the types of their elements
COLLECTIONS = frozenset(
    {
        ARRAY_BASE,  # a declared array or slice type: `[]*Foo`, `Foo[]`
        "list",
        "List",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "tuple",
        "Tuple",
        "deque",
        "Deque",
        "Sequence",
        "MutableSequence",
        "AbstractSet",
        "MutableSet",
        "Collection",
        "Iterable",
        "Iterator",
        "AsyncIterable",
        "AsyncIterator",
        "Generator",
        "AsyncGenerator",
        "Array",  # TypeScript
        "ReadonlyArray",
        "Vec",  # Rust
        "VecDeque",
        "HashSet",
        "BTreeSet",
        "ArrayList",  # Java
        "LinkedList",
    }
)
# Python mappings whose last argument is the type of their values (`dict[str, Box]`: `d[k]` is a Box)
MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict", "ChainMap"}
)
MAX_ANNOTATION_CHARS = 200  # a longer quoted annotation is not read
_TOKEN = re.compile(r"\s*(?:([A-Za-z_][\w.]*)|(\.\.\.)|([\[\],|]))")


def declared_parts(annotation: Expr, depth: int = 0, lang: str = "") -> tuple[list[Expr], list[Expr]]:
    """(expressions naming the value's classes, expressions naming its elements' classes)."""
    if not annotation or depth > 8:
        return [], []
    tag = annotation[0]
    if tag == "s":
        parsed = parse_annotation(str(annotation[1]))
        return declared_parts(parsed, depth + 1, lang) if parsed is not None else ([], [])
    if tag == "o":  # `Foo | None`
        return _union([declared_parts(part, depth + 1, lang) for part in annotation[1]])
    if tag == "t":  # several declared results (Go's `(*Foo, error)`): a tuple the caller unpacks
        return [], _union([declared_parts(item, depth + 1, lang) for item in annotation[1]])[0]
    if tag == "k":
        base, key = annotation[1], annotation[2]
        items = key[1] if key and key[0] == "t" else [key]
        name = last_name(base)
        if (
            name in TRANSPARENT
            or (lang == "rust" and name in RUST_TRANSPARENT)
            or (lang == "cpp" and name in CPP_TRANSPARENT)
            or (lang in TS_LANGS and name in TS_TRANSPARENT)
        ):
            return declared_parts(items[0], depth + 1, lang) if items else ([], [])
        if name in UNION:
            return _union([declared_parts(item, depth + 1, lang) for item in items])
        if name in CLASS_OF and lang == "python":
            return [], []
        if (
            name in COLLECTIONS
            or (lang == "python" and name in MAPPINGS)
            or (lang == "cpp" and name in CPP_COLLECTIONS)
        ):
            held = items[-1:] if name in MAPPINGS else items
            classes = _union([declared_parts(item, depth + 1, lang) for item in held])[0]
            # Python's: also an instance of the collection type itself (`xs.pop()` is `list.pop`)
            return ([base] if lang == "python" else []), classes
        return [base], []  # a generic class: an instance of the class itself
    return [annotation], []


def _union(parts: list[tuple[list[Expr], list[Expr]]]) -> tuple[list[Expr], list[Expr]]:
    names: list[Expr] = []
    elements: list[Expr] = []
    for own, inner in parts:
        names += [n for n in own if n not in names]
        elements += [e for e in inner if e not in elements]
    return names, elements


def parse_annotation(text: str) -> Expr | None:
    """A quoted annotation (``"Foo"``, ``"pkg.Foo | None"``, ``"Optional[list[Foo]]"``) as the
    expression the same annotation unquoted reads as; ``None`` when it is not one of those shapes."""
    if len(text) > MAX_ANNOTATION_CHARS:
        return None
    tokens: list[str] = []
    position = 0
    stripped = text.strip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            return None
        tokens.append(match.group(match.lastindex or 0))
        position = match.end()
    parser = _Parser(tokens)
    expr = parser.union()
    return expr if expr is not None and parser.done() else None


class _Parser:
    """``union := primary ('|' primary)*``; ``primary := dotted ('[' union (',' union)* ']')?``."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.at = tokens, 0

    def done(self) -> bool:
        return self.at == len(self.tokens)

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def union(self) -> Expr | None:
        parts = [self.primary()]
        while self._peek() == "|":
            self.at += 1
            parts.append(self.primary())
        if any(p is None for p in parts):
            return None
        return parts[0] if len(parts) == 1 else ["o", parts]

    def primary(self) -> Expr | None:
        token = self._peek()
        if token is None or token in "[],|":
            return None
        self.at += 1
        if token == "...":
            return ["x"]
        words = token.split(".")
        if not all(words):
            return None
        expr: Expr = ["n", words[0]]
        for word in words[1:]:
            expr = ["a", expr, word]
        if self._peek() != "[":
            return expr
        self.at += 1
        items = [self.union()]
        while self._peek() == ",":
            self.at += 1
            items.append(self.union())
        if self._peek() != "]" or any(i is None for i in items):
            return None
        self.at += 1
        return ["k", expr, items[0] if len(items) == 1 else ["t", items]]

"""What one parse of one file yields: definitions, references, imports (frozen, picklable), and
the same facts as store rows (:class:`FactRows`, what crosses from a parse worker to the writer)."""

from __future__ import annotations

from dataclasses import dataclass

# Kinds that own a chunk of their own: callables and type-like containers.
CALLABLE_KINDS: frozenset[str] = frozenset({"function", "method", "constructor", "macro"})
CONTAINER_KINDS: frozenset[str] = frozenset(
    {
        "class",
        "struct",
        "interface",
        "trait",
        "enum",
        "module",
        "object",
        "impl",
        "union",
        "record",
        "protocol",
    }
)


@dataclass(frozen=True)
class SymbolFact:
    """One definition. Spans are UTF-8 byte offsets (end exclusive) and 1-based inclusive lines."""

    name: str
    qualified_name: str
    kind: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    name_start_byte: int
    name_end_byte: int
    signature: str
    doc: str | None
    parent: str | None  # qualified name of the enclosing definition, when there is one


# what a ``@reference.<kind>`` capture may say (``with``: a context manager's __enter__/__exit__ run;
# ``read``: an attribute read that is not a call, which runs a property's getter; ``export``: a name a
# module lists as its public interface, Python's ``__all__ = ["Box", …]``, ECMAScript's ``export { a }``;
# ``value``: a name read as a value where nothing calls it, TypeScript's ``typeof handler``;
# ``operator``: an operation that runs a method of its operand, Python's ``a + b``, named ``__add__``;
# ``doc``: a member a Javadoc comment links to, ``{@link Box#open(int)}``: parse/javadoc.py)
REFERENCE_KINDS: frozenset[str] = frozenset(
    {
        "call",
        "type",
        "inherit",
        "implement",
        "instantiate",
        "with",
        "read",
        "export",
        "value",
        "operator",
        "doc",
    }
)


@dataclass(frozen=True)
class ReferenceFact:
    """A use of a name: a call, a type use, a base class, an instantiation.

    ``start_byte``/``end_byte`` span the whole site (e.g. the call); ``name_*`` the referenced name.
    ``scope`` is the qualified name of the innermost enclosing definition (``None`` at file level).
    ``receiver`` is the text of the object a member is reached through (``self`` in ``self.f()``).
    For calls, ``callee`` is the called expression when it is more than ``name`` or ``receiver.name``
    (``d["a"]()``, ``f()()``), and ``args`` the arguments (``None`` when the site is not call syntax,
    e.g. a decorator name); both are compact expressions (JSON text, see
    :mod:`lazy_intel.parse.expressions`).
    """

    name: str
    kind: str
    start_byte: int
    end_byte: int
    line: int
    name_start_byte: int
    name_end_byte: int
    scope: str | None
    receiver: str | None
    callee: str | None = None
    args: str | None = None


@dataclass(frozen=True)
class ImportFact:
    """One imported module or name. ``module`` is as written (``.`` prefixes for relative imports)."""

    module: str
    name: str | None
    alias: str | None
    start_byte: int
    end_byte: int
    line: int
    scope: str | None
    wildcard: bool = False


# ``receiver``: C#'s ``this T x`` parameter of an extension method (the method is a member of T); the
# same parameter is also a ``parameter`` flow
FLOW_KINDS: frozenset[str] = frozenset(
    {"assign", "iterate", "enter", "parameter", "return", "yield", "receiver"}
)


@dataclass(frozen=True)
class FlowFact:
    """A value flowing into a name (the raw material of ASSIGNED_FROM and call resolution).

    ``kind``: ``assign`` (``target = value``), ``iterate`` (``for target in value``), ``enter``
    (``with value as target``: what ``value.__enter__()`` returns), ``parameter``
    (``target`` is the parameter, ``value`` its default, ``index`` its position), ``return`` and
    ``yield`` (``value`` leaves ``scope``). ``target``, ``value`` and ``annotation`` (a declared
    type) are compact expressions (JSON text). ``condition_path`` lists the control-flow nodes
    (``if_statement``, ``for_statement``, ``try_statement``, …) between the fact and its scope,
    outermost first.
    """

    kind: str
    scope: str | None
    target: str | None
    value: str | None
    annotation: str | None
    index: int
    start_byte: int
    end_byte: int
    line: int
    condition_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileFacts:
    path: str
    lang: str
    symbols: tuple[SymbolFact, ...] = ()
    references: tuple[ReferenceFact, ...] = ()
    imports: tuple[ImportFact, ...] = ()
    flows: tuple[FlowFact, ...] = ()
    syntax_errors: int = 0
    error: str | None = None  # set when the file could not be parsed at all


Row = tuple[object, ...]


@dataclass(frozen=True)
class FactRows:
    """One file's facts as the store's rows: per table, the columns after ``file_id`` in the order
    :class:`lazy_intel.store.writer.StoreWriter` inserts them (symbols without their ordinal and
    parent id, which the writer assigns). This is what a parse worker sends the writer: plain tuples
    pickle and unpickle several times faster than the fact dataclasses (one object per reference
    or flow), and the writer binds them as they are."""

    symbols: tuple[Row, ...] = ()
    references: tuple[Row, ...] = ()
    flows: tuple[Row, ...] = ()
    imports: tuple[Row, ...] = ()


def fact_rows(facts: FileFacts) -> FactRows:
    """The store rows of ``facts`` (see :class:`FactRows`)."""
    return FactRows(
        symbols=tuple(
            (
                s.name,
                s.qualified_name,
                s.kind,
                s.start_byte,
                s.end_byte,
                s.start_line,
                s.end_line,
                s.name_start_byte,
                s.name_end_byte,
                s.signature,
                s.doc,
                s.parent,
            )
            for s in facts.symbols
        ),
        references=tuple(
            (
                r.name,
                r.kind,
                r.start_byte,
                r.end_byte,
                r.line,
                r.name_start_byte,
                r.name_end_byte,
                r.scope,
                r.receiver,
                r.callee,
                r.args,
            )
            for r in facts.references
        ),
        flows=tuple(
            (
                f.kind,
                f.scope,
                f.target,
                f.value,
                f.annotation,
                f.index,
                f.start_byte,
                f.end_byte,
                f.line,
                " ".join(f.condition_path),
            )
            for f in facts.flows
        ),
        imports=tuple(
            (i.module, i.name, i.alias, i.start_byte, i.end_byte, i.line, i.scope, int(i.wildcard))
            for i in facts.imports
        ),
    )

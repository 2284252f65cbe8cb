"""Languages whose methods have a namespace of their own: Java.

In Java a field, a local variable and a method may share a name (``boolean hasBody;`` beside
``boolean hasBody()``, a field ``URL url`` in a class whose base declares ``url()``), and the syntax says
which one a use means: ``hasBody()`` and ``x.url(…)`` call a method, ``return hasBody;`` and
``req.url`` read a field. A lookup that does not know which stops at whatever of the name it meets
first — the field shadows the base's method, so the call resolved to nothing, or ``return hasBody;``
referenced the method. A lookup here says ``call``: ``True`` sees methods (and types, which ``new T()``
calls) but no variables, ``False`` sees everything but methods, ``None`` (every other language, where
one name is one binding) everything.
"""

from __future__ import annotations

from typing import Any

from lazy_intel.graph.model import CALLABLE_KINDS, VALUE_KINDS, Symbol

METHOD_NAMESPACE_LANGS = frozenset({"java"})
# Languages whose overloads a call's argument count picks among (``ClassMixin.overloads``): Java has
# no default parameter values, so a call of ``f(a)`` never runs ``f(a, b)``
ARITY_LANGS = frozenset({"java"})


def namespace_of(lang: str, call: bool) -> bool | None:
    """``call`` in a language whose methods have their own namespace, else ``None`` (no filter)."""
    return call if lang in METHOD_NAMESPACE_LANGS else None


def visible(symbol: Symbol, call: bool) -> bool:
    """Whether a definition is seen by a call (``True``) or a read (``False``) of its name."""
    if call:
        return symbol.kind not in VALUE_KINDS
    return symbol.kind not in CALLABLE_KINDS


def in_namespace(entries: list[Any], call: bool) -> list[Any]:
    """The declarations of a name (definitions, imports, ``"var"`` for an assigned variable) that a
    call or a read sees. An import is kept (a static import may bring either)."""
    out = []
    for entry in entries:
        if isinstance(entry, Symbol):
            if visible(entry, call):
                out.append(entry)
        elif entry == "var":
            if not call:
                out.append(entry)
        else:
            out.append(entry)
    return out

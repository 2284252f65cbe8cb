"""Operators that call a method of their operand (pure tables): Python's ``a + b`` runs
``type(a).__add__(a, b)`` (and, when that is missing, ``type(b).__radd__(b, a)``), ``-a`` runs
``__neg__``. The extractor names an operator site by the method it runs (a ``@reference.operator``
in ``python.scm``, named ``__add__``); the resolver evaluates the operation as that method's result
(``graph/evaluate.py`` ``operation``) and adds a CALLS edge to a method of the tree it reaches
(``graph/implicit.py``, ``implicit: "operator"``).

Only Python for now: the other languages with operator methods (Kotlin's ``operator fun plus``,
Rust's ``impl Add``, C++'s ``operator+``, Ruby's ``def +``) name them differently and are not read.
"""

from __future__ import annotations

# (operator as written, number of operands) -> the method it runs on the first operand
PYTHON_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    ("+", 2): "__add__",
    ("-", 2): "__sub__",
    ("*", 2): "__mul__",
    ("/", 2): "__truediv__",
    ("//", 2): "__floordiv__",
    ("%", 2): "__mod__",
    ("**", 2): "__pow__",
    ("@", 2): "__matmul__",
    ("<<", 2): "__lshift__",
    (">>", 2): "__rshift__",
    ("&", 2): "__and__",
    ("|", 2): "__or__",
    ("^", 2): "__xor__",
    ("-", 1): "__neg__",
    ("+", 1): "__pos__",
    ("~", 1): "__invert__",
}

OPERATOR_METHODS: dict[str, dict[tuple[str, int], str]] = {"python": PYTHON_OPERATOR_METHODS}


def operator_method(lang: str, operator: str, operands: int) -> str | None:
    """The method ``operator`` with ``operands`` operands runs on its first operand in ``lang``."""
    return OPERATOR_METHODS.get(lang, {}).get((operator, operands))


def reflected(method: str) -> str:
    """The method the second operand runs when the first has none (``__add__`` -> ``__radd__``)."""
    return "__r" + method[2:]

"""Operators that call a method of their operand (pure tables): Python's ``a + b`` runs
``type(a).__add__(a, b)`` (and, when that is missing, ``type(b).__radd__(b, a)``), ``-a`` runs
``__neg__``. The extractor names an operator site by the method it runs (a ``@reference.operator``
in the language's ``.scm``, named ``__add__``); the resolver evaluates the operation as that
method's result (``graph/protocols.py`` ``operation``) and adds a CALLS edge to a method of the
tree it reaches (``graph/implicit.py``, ``implicit: "operator"``).

The other languages with operator methods name them their own way, and only Python reflects to
the second operand: Rust's ``a + b`` runs ``Add::add`` (``impl Add for V { fn add(...) }``), C++'s
runs a member ``operator+``, Ruby's a method named ``+`` (unary minus ``-@``), Kotlin's an
``operator fun plus``. Comparisons and equality run methods too (Rust ``eq``/``lt``, Kotlin
``equals``/``compareTo``).

A compound assignment runs a method as well (a site of its own; its value is still the assignment's
right-hand side): Python's ``a += b`` runs ``__iadd__``, else ``__add__``, else ``b.__radd__``;
Rust's ``AddAssign::add_assign``; C++'s member ``operator+=``; Kotlin's ``plusAssign``, else
``plus``; Ruby's ``a += b`` is ``a = a + b`` and runs ``+``. Not read: C++ free-function operators
(``operator+(a, b)``, not a member). A language without a table makes no operator site.
"""

from __future__ import annotations

_PYTHON_BINARY = {
    "+": "__add__",
    "-": "__sub__",
    "*": "__mul__",
    "/": "__truediv__",
    "//": "__floordiv__",
    "%": "__mod__",
    "**": "__pow__",
    "@": "__matmul__",
    "<<": "__lshift__",
    ">>": "__rshift__",
    "&": "__and__",
    "|": "__or__",
    "^": "__xor__",
}
# (operator as written, number of operands) -> the method it runs on the first operand
PYTHON_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): method for op, method in _PYTHON_BINARY.items()},
    **{(op + "=", 2): "__i" + method[2:] for op, method in _PYTHON_BINARY.items()},
    ("-", 1): "__neg__",
    ("+", 1): "__pos__",
    ("~", 1): "__invert__",
}

_RUST_ARITHMETIC = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "%": "rem",
    "&": "bitand",
    "|": "bitor",
    "^": "bitxor",
    "<<": "shl",
    ">>": "shr",
}
_RUST_COMPARISON = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
RUST_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): method for op, method in (_RUST_ARITHMETIC | _RUST_COMPARISON).items()},
    **{(op + "=", 2): method + "_assign" for op, method in _RUST_ARITHMETIC.items()},
    ("-", 1): "neg",
    ("!", 1): "not",
}

_CPP_ARITHMETIC = ("+", "-", "*", "/", "%", "^", "&", "|", "<<", ">>")
_CPP_COMPARISON = ("==", "!=", "<", ">", "<=", ">=", "<=>")
CPP_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): "operator" + op for op in (*_CPP_ARITHMETIC, *_CPP_COMPARISON)},
    **{(op + "=", 2): "operator" + op + "=" for op in _CPP_ARITHMETIC},
    **{(op, 1): "operator" + op for op in ("-", "+", "!", "~")},
}

_RUBY_ARITHMETIC = ("+", "-", "*", "/", "%", "**", "<<", ">>", "&", "|", "^")
_RUBY_COMPARISON = ("==", "!=", "<", ">", "<=", ">=", "<=>", "=~", "===")
RUBY_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): op for op in (*_RUBY_ARITHMETIC, *_RUBY_COMPARISON)},
    **{(op + "=", 2): op for op in _RUBY_ARITHMETIC},  # `a += b` is `a = a + b`
    ("-", 1): "-@",
    ("+", 1): "+@",
    ("!", 1): "!",
    ("~", 1): "~",
}

_KOTLIN_ARITHMETIC = {"+": "plus", "-": "minus", "*": "times", "/": "div", "%": "rem"}
KOTLIN_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): method for op, method in _KOTLIN_ARITHMETIC.items()},
    **{(op + "=", 2): method + "Assign" for op, method in _KOTLIN_ARITHMETIC.items()},
    **{(op, 2): "compareTo" for op in ("<", ">", "<=", ">=")},
    ("==", 2): "equals",
    ("!=", 2): "equals",
    ("-", 1): "unaryMinus",
    ("+", 1): "unaryPlus",
    ("!", 1): "not",
}

OPERATOR_METHODS: dict[str, dict[tuple[str, int], str]] = {
    "python": PYTHON_OPERATOR_METHODS,
    "rust": RUST_OPERATOR_METHODS,
    "cpp": CPP_OPERATOR_METHODS,
    "ruby": RUBY_OPERATOR_METHODS,
    "kotlin": KOTLIN_OPERATOR_METHODS,
}
# a compound assignment's method -> the plain operation's, tried next on the same operand
IN_PLACE_FALLBACKS: dict[str, dict[str, str]] = {
    "python": {"__i" + method[2:]: method for method in _PYTHON_BINARY.values()},
    "kotlin": {method + "Assign": method for method in _KOTLIN_ARITHMETIC.values()},
}
# methods whose result is not a value of their operand's type (an outside operand gives nothing)
COMPARISON_METHODS = frozenset(
    {*_RUST_COMPARISON.values(), "equals", "compareTo", *_RUBY_COMPARISON}
    | {"operator" + op for op in _CPP_COMPARISON}
)
# languages whose binary operator falls back to the second operand's reflected method
REFLECTING = frozenset({"python"})


def operator_method(lang: str, operator: str, operands: int) -> str | None:
    """The method ``operator`` with ``operands`` operands runs on its first operand in ``lang``."""
    return OPERATOR_METHODS.get(lang, {}).get((operator, operands))


def reflected(lang: str, method: str) -> str | None:
    """The method the second operand runs when the first has none (Python: ``__add__`` ->
    ``__radd__``); ``None`` in a language that does not reflect."""
    return "__r" + method[2:] if lang in REFLECTING else None


def operand_methods(lang: str, method: str, operands: int) -> list[tuple[int, str]]:
    """(operand index, method) in the order the language tries them for one operation: Python's
    ``a += b`` ``a.__iadd__``, ``a.__add__``, ``b.__radd__``; Kotlin's ``plusAssign``, ``plus``."""
    chain = [(0, method)]
    plain = IN_PLACE_FALLBACKS.get(lang, {}).get(method)
    if plain is not None:
        chain.append((0, plain))
    second = reflected(lang, plain or method) if operands > 1 else None
    if second is not None:
        chain.append((1, second))
    return chain

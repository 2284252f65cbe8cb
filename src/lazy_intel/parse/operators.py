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
``equals``/``compareTo``). Not read: compound assignments (Rust ``add_assign``, C++ ``operator+=``,
Kotlin ``plusAssign``; an assignment's value is its right-hand side), C++ free-function operators
(``operator+(a, b)``, not a member). A language without a table makes no operator site.
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

RUST_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{
        (op, 2): method
        for op, method in (
            ("+", "add"),
            ("-", "sub"),
            ("*", "mul"),
            ("/", "div"),
            ("%", "rem"),
            ("&", "bitand"),
            ("|", "bitor"),
            ("^", "bitxor"),
            ("<<", "shl"),
            (">>", "shr"),
            ("==", "eq"),
            ("!=", "ne"),
            ("<", "lt"),
            ("<=", "le"),
            (">", "gt"),
            (">=", "ge"),
        )
    },
    ("-", 1): "neg",
    ("!", 1): "not",
}

_CPP_BINARY = ("+", "-", "*", "/", "%", "^", "&", "|", "<<", ">>", "==", "!=", "<", ">", "<=", ">=", "<=>")
CPP_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): "operator" + op for op in _CPP_BINARY},
    **{(op, 1): "operator" + op for op in ("-", "+", "!", "~")},
}

_RUBY_BINARY = ("+", "-", "*", "/", "%", "**", "==", "!=", "<", ">", "<=", ">=", "<=>", "<<", ">>")
RUBY_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): op for op in (*_RUBY_BINARY, "&", "|", "^", "=~", "===")},
    ("-", 1): "-@",
    ("+", 1): "+@",
    ("!", 1): "!",
    ("~", 1): "~",
}

_KOTLIN_ARITHMETIC = (("+", "plus"), ("-", "minus"), ("*", "times"), ("/", "div"), ("%", "rem"))
KOTLIN_OPERATOR_METHODS: dict[tuple[str, int], str] = {
    **{(op, 2): method for op, method in _KOTLIN_ARITHMETIC},
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
# methods whose result is not a value of their operand's type (an outside operand gives nothing)
COMPARISON_METHODS = frozenset(
    {
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "equals",
        "compareTo",
        "==",
        "!=",
        "<",
        ">",
        "<=",
        ">=",
        "<=>",
        "=~",
        "===",
    }
    | {"operator" + op for op in ("==", "!=", "<", ">", "<=", ">=", "<=>")}
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
    """(operand index, method) in the order the language tries them for one operation."""
    second = reflected(lang, method) if operands > 1 else None
    return [(0, method)] if second is None else [(0, method), (1, second)]

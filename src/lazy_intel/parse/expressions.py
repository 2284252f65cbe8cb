"""Compact expressions: the shape of a value, read off the syntax tree without evaluating it.

The graph's resolver follows values through assignments, arguments and returns; it needs only
each expression's shape, as small JSON lists (stored as text):

``["n", name]``                 a name (``self``/``this`` included)
``["a", object, attribute]``    member access: ``a.b``, ``a->b``, ``a::b``
``["c", callee, [args…]]``      a call or instantiation; an argument may be ``["kw", name, expr]``
``["k", object, key]``          subscript: ``d["a"]``, ``xs[0]``; a generic type ``Optional[Foo]``
``["s", text]`` / ``["i", text]`` a string / number literal (text without quotes)
``["t", [items…]]``             tuple, list, set or array (also an unpacking target)
``["d", [[key, value]…]]``      dict / object literal; as a target, an object pattern (``{ a, b: c, ...r }``:
                                each target receives the member its key names; ``null`` for the rest)
``["l", [params…], body]``      a lambda or anonymous function (``body`` is an expression or ``["x"]``)
``["u", [options…]]``           one of several values (``a if c else b``, ``a or b``, ``c ? a : b``)
``["*", expr]``                 a spread / star expression
``["o", [operands…], op?]``     an arithmetic/logical operation: computed from its operands (``op``
                                as written, when the grammar names it: ``"+"``)
``["sl"]``                      a slice (``xs[1:3]`` keeps the container)
``["as", expr, type]``          a cast or type assertion (``x as T``, ``(T) x``, ``x.(T)``): the same
                                object, read also as an instance of the type it names
``["m", name]``                 a macro invocation (Rust ``format!(…)``): its name (a name or a path),
                                looked up among macros, which do not share names with functions
``["x"]``                       anything else

Node types are grouped across grammars (the union, not one branch per language): a grammar whose
node type is not listed simply yields ``["x"]`` for it.
"""

from __future__ import annotations

import json
import json.encoder
import json.scanner
from typing import Any

import tree_sitter

MAX_DEPTH = 6
MAX_ITEMS = 16
MAX_LITERAL_CHARS = 200

Expr = list[Any]
UNKNOWN: Expr = ["x"]

SELF_TYPES = frozenset(
    {"this", "self", "super", "base", "variable_name", "simple_identifier", "constant", "self_expression"}
)
ATTRIBUTE_TYPES = frozenset(
    {
        "attribute",
        "member_expression",
        "selector_expression",
        "field_expression",
        "field_access",
        "member_access_expression",
        "scoped_identifier",
        "navigation_expression",
        "member_access",
        "qualified_type",
        "nested_identifier",
        "scope_resolution",
        "scoped_type_identifier",  # Java's `Retrofit.Builder`: a member class of Retrofit
    }
)
OBJECT_FIELDS = (
    "object",
    "operand",
    "value",
    "expression",
    "receiver",
    "argument",
    "path",
    "scope",
    "package",
    "target",  # Swift's navigation_expression
)
MEMBER_FIELDS = ("attribute", "property", "field", "name", "method", "suffix")
CALL_TYPES = frozenset(
    {
        "call",
        "call_expression",
        "method_invocation",
        "invocation_expression",
        "function_call_expression",
        "member_call_expression",
        "scoped_call_expression",
        "new_expression",
        "object_creation_expression",
        "composite_literal",
        "struct_expression",
    }
)
CALLEE_FIELDS = ("function", "constructor", "type", "callee")
SUBSCRIPT_TYPES = frozenset(
    {
        "subscript",
        "subscript_expression",
        "index_expression",
        "element_access_expression",
        "element_reference",
    }
)
SUBSCRIPT_KEY_FIELDS = ("subscript", "index", "field")
STRING_TYPES = frozenset(
    {
        "string",
        "string_literal",
        "interpreted_string_literal",
        "raw_string_literal",
        "template_string",
        "encapsed_string",
        "line_string_literal",
        "concatenated_string",
    }
)
NUMBER_TYPES = frozenset(
    {
        "integer",
        "float",
        "number",
        "int_literal",
        "float_literal",
        "integer_literal",
        "decimal_integer_literal",
        "number_literal",
    }
)
SEQUENCE_TYPES = frozenset(
    {
        "tuple",
        "list",
        "set",
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "expression_list",
        "array",
        "array_pattern",
        "array_expression",
        "tuple_expression",
        "list_comprehension",
        "set_comprehension",
        "generator_expression",
    }
)
MAP_TYPES = frozenset({"dictionary", "object", "dictionary_comprehension"})
# ECMAScript's `{ scene, a: b, c = 1, ...rest }`, written as the literal it mirrors (["d", …])
OBJECT_PATTERN_TYPES = frozenset({"object_pattern"})
# a declared array or slice type reads as a subscript of this name (no language's identifier), which
# graph/annotations.py counts among the collections: its elements are instances of the element type
ARRAY_TYPES = frozenset({"slice_type", "array_type"})
ARRAY_BASE = "[]"
PAIR_TYPES = frozenset({"pair"})
LAMBDA_TYPES = frozenset(
    {
        "lambda",
        "arrow_function",
        "function_expression",
        "func_literal",
        "closure_expression",
        "lambda_expression",
        "anonymous_function",
    }
)
UNION_TYPES = frozenset({"conditional_expression", "ternary_expression", "boolean_operator"})
STATEMENT_GROUP_TYPES = frozenset({"parenthesized_statements"})
WRAPPER_TYPES = frozenset(
    {
        "parenthesized_expression",
        "await",
        "await_expression",
        "as_pattern_target",
        "non_null_expression",
        "type_projection",  # Kotlin's `<Box>` argument
        "nullable_type",  # Kotlin's `Box?`
        "argument",
        "named_type",
        "optional_type",
        "user_type",
        "try_expression",
        "expression_statement",
        "type",
        "pointer_type",
        "reference_type",
    }
)
SPLAT_TYPES = frozenset(
    {
        "list_splat",
        "list_splat_pattern",
        "dictionary_splat",
        "dictionary_splat_pattern",
        "spread_element",
        "rest_pattern",
    }
)
# a cast or a type assertion: the same object at run time, and (for member lookup) an instance of
# the type it names; TypeScript's `x as T`, `x satisfies T`, `<T>x`; Java's, C#'s, C's and C++'s
# `(T) x`; C#'s, Kotlin's and Swift's `x as T` / `as?` / `as!`; Go's `x.(T)`; Rust's `x as T`
CAST_TYPES = frozenset(
    {
        "as_expression",
        "satisfies_expression",
        "type_assertion",
        "cast_expression",
        "type_assertion_expression",
        "type_cast_expression",
    }
)
CAST_OPERAND_FIELDS = ("value", "operand", "left", "expr")
NAMED_CASTS = frozenset({"static_cast", "dynamic_cast", "reinterpret_cast", "const_cast"})  # C++'s
CAST_TYPE_FIELDS = ("type", "right", "name")
# a name qualified by namespaces or classes (PHP, C#, C++), and the generic forms whose own name is
# their first part (`vector<Shape>`, C#'s `List<T>`)
QUALIFIED_TYPES = frozenset({"qualified_name", "qualified_identifier"})
TEMPLATE_TYPES = frozenset({"template_type", "template_function", "generic_name"})
# leaf names that are identifiers: PHP's `name` (`$x` is `variable_name` holding a `name`), its
# `self::` / `parent::` scope
NAME_TYPES = frozenset({"name", "relative_scope", "implicit_parameter"})  # (C#'s `x => …` parameter)
KEYWORD_TYPES = frozenset({"keyword_argument", "named_argument"})
# the argument lists of a call whose node has no fields (Kotlin's `value_arguments`, PHP's `new`
# arguments, Swift's `call_suffix` that holds `value_arguments`)
POSITIONAL_ARGUMENT_TYPES = frozenset({"value_arguments", "call_suffix", "arguments"})
# `a = b = f` and `(a := f)`: the value of an assignment expression is its right-hand side
ASSIGNMENT_TYPES = frozenset({"assignment", "named_expression", "assignment_expression"})
SLICE_TYPES = frozenset({"slice", "range_expression"})
# `union_type`: a declared `A[T] | None` (Python parses `Box | None` as a binary operator but a union
# with a generic in it as a union type; TypeScript's `Foo | null`): read as the union of its members
# (Ruby's operations are `binary` and `unary`. A compound assignment is not one of them: its value is
# its right-hand side, and only its operator site reads it as an operation, operation_expression)
OPERATOR_TYPES = frozenset(
    {"binary_operator", "binary_expression", "unary_operator", "unary_expression", "union_type"}
    | {"binary", "unary"}
)
UNARY_TYPES = frozenset({"unary_operator", "unary_expression", "unary"})
COMPREHENSION_BODY_TYPES = frozenset({"list_comprehension", "set_comprehension", "generator_expression"})
# A control-flow node between an assignment and its definition: one of these words in its type.
CONTROL_WORDS = frozenset(
    {
        "if",
        "elif",
        "else",
        "for",
        "foreach",
        "while",
        "do",
        "loop",
        "try",
        "except",
        "catch",
        "finally",
        "with",
        "switch",
        "case",
        "match",
        "when",
        "select",
        "conditional",
        "ternary",
        "guard",
        "rescue",
        "unless",
        "until",
    }
)


def operation_expression(source: bytes, node: tree_sitter.Node, memo: ExpressionMemo) -> Any:
    """An operator site's expression: the operation, or the one a compound assignment runs
    (``a += b``: ``["o", [a, b], "+="]``; the assignment's own value stays its right-hand side)."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node.child_by_field_name("operator")
    if node.type in OPERATOR_TYPES or left is None or right is None or operator is None:
        return expression(source, node, 0, memo)
    operands = [expression(source, left, 1, memo), expression(source, right, 1, memo)]
    return ["o", operands, _text(source, operator)]


def operator_node(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The operator token of an operation: its ``operator`` field, or the leading token of a unary
    operation whose grammar gives it no field (Rust's ``-a``, ``!a``, ``*p``)."""
    operator = node.child_by_field_name("operator")
    if operator is None and node.type in UNARY_TYPES and node.child_count > 1:
        first = node.children[0]
        return None if first.is_named else first
    return operator


def _text(source: bytes, node: tree_sitter.Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _cast_parts(
    node: tree_sitter.Node, named: list[tree_sitter.Node]
) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
    """(the operand, the type) of a cast (``CAST_TYPES``): by field where the grammar names them,
    else TypeScript's order (``x as T``: operand first; ``<T>x``: the type's arguments first)."""
    operand = _field(node, CAST_OPERAND_FIELDS)
    type_node = _field(node, CAST_TYPE_FIELDS)
    if operand is None:
        operand = named[-1] if node.type == "type_assertion" else named[0]
    if type_node is None and len(named) > 1:
        type_node = named[0] if node.type == "type_assertion" else named[-1]
    if type_node is not None and type_node.type in ("type_arguments", "type_descriptor"):
        # `<T>x`'s `<T>`; C/C++'s `(Foo *) p`: the type the descriptor wraps
        inner = type_node.child_by_field_name("type") or next(iter(_named(type_node)), None)
        type_node = inner
    return operand, type_node


def _named_cast(source: bytes, node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """(the operand, the type) of C++'s ``static_cast<T>(x)`` and its kin (``NAMED_CASTS``), else None."""
    function = node.child_by_field_name("function")
    if function is None or function.type != "template_function":
        return None
    name = function.child_by_field_name("name")
    if name is None or _text(source, name) not in NAMED_CASTS:
        return None
    arguments = function.child_by_field_name("arguments")
    values = node.child_by_field_name("arguments")
    types = _named(arguments) if arguments is not None else []
    operands = _named(values) if values is not None else []
    if len(types) != 1 or len(operands) != 1:
        return None
    type_node = types[0]
    if type_node.type == "type_descriptor":
        type_node = type_node.child_by_field_name("type") or type_node
    return operands[0], type_node


def _named(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [c for c in node.named_children if "comment" not in c.type]


def _path_parts(source: bytes, node: tree_sitter.Node) -> list[str]:
    """The names of a qualified name in order (``std::vector<Shape>`` -> std, vector: a template's or
    generic's own name, not its arguments)."""
    if node.type in QUALIFIED_TYPES or node.type == "namespace_name":
        return [part for child in _named(node) for part in _path_parts(source, child)]
    if node.type in TEMPLATE_TYPES:
        name = node.child_by_field_name("name") or (_named(node) or [None])[0]
        return _path_parts(source, name) if name is not None else []
    if not node.named_child_count and (node.type in NAME_TYPES or node.type.endswith("identifier")):
        return [_text(source, node)]
    return []


def _pattern_pair(
    source: bytes, node: tree_sitter.Node, depth: int, memo: ExpressionMemo | None
) -> list[Any] | None:
    """One entry of an object pattern: ``[key, target]``; a default (``c = 1``, ``a: b = 1``) is left
    out; the rest (``...rest``) has the key ``None``."""
    kind = node.type
    if kind == "object_assignment_pattern":  # `c = 1`: the shorthand with a default
        left = node.child_by_field_name("left")
        return _pattern_pair(source, left, depth, memo) if left is not None else None
    if kind == "shorthand_property_identifier_pattern":
        name = ["n", _text(source, node)]
        return [name, name]
    if kind == "pair_pattern":
        key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
        if key is None or value is None:
            return None
        if value.type == "assignment_pattern":  # `a: b = 1`
            value = value.child_by_field_name("left") or value
        return [expression(source, key, depth + 1, memo), expression(source, value, depth + 1, memo)]
    if kind == "rest_pattern":
        inner = node.named_children[0] if node.named_child_count else None
        return [None, expression(source, inner, depth + 1, memo)] if inner is not None else None
    return None


def _field(node: tree_sitter.Node, names: tuple[str, ...]) -> tree_sitter.Node | None:
    for name in names:
        child = node.child_by_field_name(name)
        if child is not None:
            return child
    return None


def _literal(source: bytes, node: tree_sitter.Node) -> str:
    text = _text(source, node)
    start = 0
    while start < len(text) and text[start].isalpha() and start < 3:  # f"…", r'…', b"…"
        start += 1
    body = text[start:]
    for quote in ('"""', "'''", '"', "'", "`"):
        if len(body) >= 2 * len(quote) and body.startswith(quote) and body.endswith(quote):
            body = body[len(quote) : -len(quote)]
            break
    return body[:MAX_LITERAL_CHARS]


class ExpressionMemo:
    """The expressions of one syntax tree already read, by node id: a node is read again as part of
    each enclosing expression (``f(g(x))`` holds ``g(x)``, and the call of ``g`` is a reference of
    its own; ``y = f(x)`` is a flow and a call). Use one per tree, while the tree is alive.

    An expression depends on the depth it is read at only where :data:`MAX_DEPTH` cut it, so each
    result keeps how deep below its node the reading went and whether it was cut: one that was not
    cut is the same at any depth that leaves it room; one that was, only at its own depth."""

    __slots__ = ("deepest", "results", "truncated")

    def __init__(self) -> None:
        # node id -> (expression, depth reached below the node, whether cut, depth read at)
        self.results: dict[int, tuple[Expr, int, bool, int]] = {}
        self.deepest = 0  # the deepest depth a node was read at, in the reading under way
        self.truncated = False  # whether MAX_DEPTH cut the reading under way


def expression(
    source: bytes, node: tree_sitter.Node | None, depth: int = 0, memo: ExpressionMemo | None = None
) -> Expr:
    """The compact expression of ``node`` (``["x"]`` for what is not modelled); with ``memo``, a node
    read before (in the same tree) is not read again."""
    if node is None:
        return UNKNOWN
    if depth > MAX_DEPTH:
        if memo is not None:
            memo.truncated = True
        return UNKNOWN
    if memo is None:
        return _read(source, node, depth, None)
    key = node.id
    known = memo.results.get(key)
    if known is not None:
        expr, height, truncated, at = known
        if depth == at or (not truncated and depth + height <= MAX_DEPTH):
            memo.deepest = max(memo.deepest, depth + height)
            memo.truncated = memo.truncated or truncated
            return expr
    outer_deepest, outer_truncated = memo.deepest, memo.truncated
    memo.deepest, memo.truncated = depth, False
    expr = _read(source, node, depth, memo)
    height, truncated = memo.deepest - depth, memo.truncated
    memo.results[key] = (expr, height, truncated, depth)
    memo.deepest = max(outer_deepest, memo.deepest)
    memo.truncated = outer_truncated or truncated
    return expr


def _read(source: bytes, node: tree_sitter.Node, depth: int, memo: ExpressionMemo | None) -> Expr:
    kind = node.type
    named = _named(node) if node.named_child_count else []  # most nodes here are leaves
    if not named and (kind.endswith("identifier") or kind in SELF_TYPES or kind in NAME_TYPES):
        return ["n", _text(source, node)]
    if kind == "this_expression":  # Kotlin `this`, `this@Outer` (the receiver a label names: this too)
        return ["n", "this"]
    if kind in QUALIFIED_TYPES and named:  # PHP `Psr7\Utils`, C# `A.B`, C++ `fmt::buffer`: a path
        parts = _path_parts(source, node)
        if parts:
            path: Expr = ["n", parts[0]]
            for part in parts[1:]:
                path = ["a", path, part]
            # C++'s `std::unique_ptr<Stack>`: the path subscripted by the template's arguments, as
            # `unique_ptr<Stack>` is (not where it is made: `new a::Box<T>()` makes a Box)
            inner = node.child_by_field_name("name")
            while inner is not None and inner.type in QUALIFIED_TYPES:
                inner = inner.child_by_field_name("name")
            parent = node.parent
            if (
                inner is not None
                and inner.type == "template_type"
                and not (
                    parent is not None and parent.type in CALL_TYPES and _field(parent, CALLEE_FIELDS) == node
                )
                and (arguments := inner.child_by_field_name("arguments")) is not None
            ):
                items = [expression(source, c, depth + 1, memo) for c in _named(arguments)[:MAX_ITEMS]]
                return ["k", path, items[0] if len(items) == 1 else ["t", items]]
            return path
    if kind in STRING_TYPES:
        return ["s", _literal(source, node)]
    if kind in NUMBER_TYPES:
        return ["i", _text(source, node)[:MAX_LITERAL_CHARS]]
    if kind == "reference_expression":  # Rust `&x` / `&mut x`: the same object
        return expression(source, node.child_by_field_name("value"), depth + 1, memo)
    if kind == "value_argument":  # Kotlin `x = 1`, Swift `configuration: .default`: the value is last
        return expression(source, named[-1], depth + 1, memo) if named else UNKNOWN
    if kind == "user_type" and len(named) == 2 and named[1].type == "type_arguments":
        # Kotlin's `List<Box>`: a generic type, the subscript of its base (as Java's `generic_type`)
        items = [expression(source, c, depth + 1, memo) for c in _named(named[1])[:MAX_ITEMS]]
        return [
            "k",
            expression(source, named[0], depth + 1, memo),
            items[0] if len(items) == 1 else ["t", items],
        ]
    if kind == "type_descriptor":  # a C++ template's argument (`Stack`, `const Foo*`): its type
        inner = node.child_by_field_name("type")
        return expression(source, inner, depth + 1, memo) if inner is not None else UNKNOWN
    if kind in WRAPPER_TYPES or (kind in SELF_TYPES and len(named) == 1):
        return expression(source, named[0], depth + 1, memo) if named else UNKNOWN
    if kind in STATEMENT_GROUP_TYPES:  # Ruby's `(a + b)`: the value of its last statement
        return expression(source, named[-1], depth + 1, memo) if named else UNKNOWN
    if kind in CALL_TYPES:
        cast = _named_cast(source, node)
        if cast is not None:  # C++'s `static_cast<Foo*>(p)`: a cast, not a call
            operand, type_node = cast
            return [
                "as",
                expression(source, operand, depth + 1, memo),
                expression(source, type_node, depth + 1, memo),
            ]
        callee, args = call_parts(source, node, depth, memo)
        return ["c", callee, args or []]
    if kind in CAST_TYPES and named:
        operand, type_node = _cast_parts(node, named)
        return [
            "as",
            expression(source, operand, depth + 1, memo),
            expression(source, type_node, depth + 1, memo),
        ]
    if kind == "macro_invocation":  # Rust `format!(…)`: macros have names of their own
        macro = node.child_by_field_name("macro")
        return ["m", expression(source, macro, depth + 1, memo)] if macro is not None else UNKNOWN
    if kind in ATTRIBUTE_TYPES:
        obj = _field(node, OBJECT_FIELDS)
        member = _field(node, MEMBER_FIELDS)
        if member is not None and member.type == "navigation_suffix":  # Swift `.name`: the name
            member = member.child_by_field_name("suffix")
        if member is None and len(named) >= 2:
            obj, member = named[0], named[-1]
        if member is None:
            return UNKNOWN
        return ["a", expression(source, obj, depth + 1, memo), _text(source, member)]
    if kind in SUBSCRIPT_TYPES:
        obj = _field(node, OBJECT_FIELDS) or (named[0] if named else None)
        key = _field(node, SUBSCRIPT_KEY_FIELDS) or (named[1] if len(named) > 1 else None)
        return ["k", expression(source, obj, depth + 1, memo), expression(source, key, depth + 1, memo)]
    if kind in COMPREHENSION_BODY_TYPES:
        return ["t", [expression(source, node.child_by_field_name("body"), depth + 1, memo)]]
    if kind == "tuple_expression" and len(named) == 1 and node.child_by_field_name("value") is not None:
        # Swift's `(x)`: parentheses (a Swift tuple has two or more elements; Rust's `(x,)` has no
        # `value` field)
        return expression(source, named[0], depth + 1, memo)
    if kind in SEQUENCE_TYPES:
        return ["t", [expression(source, c, depth + 1, memo) for c in named[:MAX_ITEMS]]]
    if kind == "lookup_type" and len(named) == 2:
        # TypeScript's `App["scene"]`: the type of App's member `scene`, read as that member (the graph
        # reads a declared type written as a member path as the type of the member); another key, unknown
        key = named[1].named_children[0] if named[1].named_child_count else None
        if named[1].type == "literal_type" and key is not None and key.type == "string":
            return ["a", expression(source, named[0], depth + 1, memo), _literal(source, key)]
        return UNKNOWN
    if kind in OBJECT_PATTERN_TYPES:
        pairs = (_pattern_pair(source, c, depth, memo) for c in named[:MAX_ITEMS])
        return ["d", [pair for pair in pairs if pair is not None]]
    # Go's `[]*Foo` / `[4]Foo`, Java's `Foo[]`, TypeScript's `Foo[]`, Rust's `[Foo; 4]`
    if kind in ARRAY_TYPES:
        element = node.child_by_field_name("element") or (named[0] if named else None)
        return ["k", ["n", ARRAY_BASE], expression(source, element, depth + 1, memo)]
    if kind == "map_type":  # Go's `map[string]*Box`: read as a collection of its values (`m[k]`, `range`)
        value_type = node.child_by_field_name("value")
        return ["k", ["n", ARRAY_BASE], expression(source, value_type, depth + 1, memo)]
    if kind == "generic_type":  # `Optional[Foo]`, `List<Foo>`, `Repo[T]`: a subscript of the base type
        base = node.child_by_field_name("type") or (named[0] if named else None)
        parent = node.parent
        if (
            base is not None
            and parent is not None
            and parent.type in CALL_TYPES
            and _field(parent, CALLEE_FIELDS) == node
        ):
            return expression(source, base, depth + 1, memo)  # `new AtomicReference<>()` makes one
        arguments = next((c for c in named if c.type in ("type_parameter", "type_arguments")), None)
        items = (
            [expression(source, c, depth + 1, memo) for c in _named(arguments)[:MAX_ITEMS]]
            if arguments
            else []
        )
        key = items[0] if len(items) == 1 else ["t", items]
        return ["k", expression(source, base, depth + 1, memo), key]
    # C#'s `List<Foo>` / `B<T>` (generic_name), C++'s `vector<Shape>` / `make<int>` (template_type,
    # template_function): a type is the subscript of its base, as `generic_type`; a call's callee
    # (`Make<T>(x)`, `make<int>(1)`, `new Registry<T>()`) is the function or class itself
    if kind in TEMPLATE_TYPES and named:
        base = expression(source, node.child_by_field_name("name") or named[0], depth + 1, memo)
        parent = node.parent
        if kind == "template_function" or (
            parent is not None and parent.type in CALL_TYPES and _field(parent, CALLEE_FIELDS) == node
        ):
            return base  # `new Registry<string>()` makes a Registry
        arguments = node.child_by_field_name("arguments") or (named[1] if len(named) > 1 else None)
        items = (
            [expression(source, c, depth + 1, memo) for c in _named(arguments)[:MAX_ITEMS]]
            if arguments is not None
            else []
        )
        return ["k", base, items[0] if len(items) == 1 else ["t", items]]
    if kind == "parameter_list":  # Go's results: named, their names (a bare `return`); else their types
        names = [n for c in named for n in c.children_by_field_name("name")]
        if names:
            return ["t", [["n", _text(source, n)] for n in names[:MAX_ITEMS]]]
        types = [c.child_by_field_name("type") for c in named]
        return ["t", [expression(source, t, depth + 1, memo) for t in types[:MAX_ITEMS] if t is not None]]
    if kind in MAP_TYPES:
        pairs = []
        for child in named[:MAX_ITEMS]:
            if child.type in PAIR_TYPES:
                pairs.append(
                    [
                        expression(source, child.child_by_field_name("key"), depth + 1, memo),
                        expression(source, child.child_by_field_name("value"), depth + 1, memo),
                    ]
                )
        return ["d", pairs]
    if kind in LAMBDA_TYPES:
        params = node.child_by_field_name("parameters")
        names = []
        if params is not None:
            names = [_text(source, p) for p in _named(params) if p.type.endswith("identifier")]
        elif (single := node.child_by_field_name("parameter")) is not None:
            names = [_text(source, single)]
        body = node.child_by_field_name("body")
        body_expr = UNKNOWN if body is None or body.type in ("block", "statement_block") else None
        # the start byte names the lambda's own definition where the language has one (Python)
        return [
            "l",
            names[:MAX_ITEMS],
            body_expr or expression(source, body, depth + 1, memo),
            node.start_byte,
        ]
    if kind in UNION_TYPES:
        options = [node.child_by_field_name(f) for f in ("consequence", "alternative", "left", "right")]
        picked = [o for o in options if o is not None]
        if not picked and named:  # Python `a if cond else b`: the first and the last child
            picked = [named[0], named[-1]]
        return ["u", [expression(source, o, depth + 1, memo) for o in picked[:MAX_ITEMS]]]
    if kind in SPLAT_TYPES:
        return ["*", expression(source, named[0], depth + 1, memo)] if named else UNKNOWN
    if kind in ASSIGNMENT_TYPES:
        return expression(source, _field(node, ("right", "value")), depth + 1, memo)
    if kind in SLICE_TYPES:
        return ["sl"]
    if kind in OPERATOR_TYPES:
        operands = [expression(source, c, depth + 1, memo) for c in named[:MAX_ITEMS]]
        operator = operator_node(node)
        if operator is None:
            return ["o", operands]
        return ["o", operands, _text(source, operator)]  # the operator's method: parse/operators.py
    if kind in KEYWORD_TYPES:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        return [
            "kw",
            _text(source, name) if name is not None else "",
            expression(source, value, depth + 1, memo),
        ]
    return UNKNOWN


def call_parts(
    source: bytes, node: tree_sitter.Node, depth: int = 0, memo: ExpressionMemo | None = None
) -> tuple[Expr, list[Expr] | None]:
    """``(callee, args)`` of a call-like node; ``args`` is ``None`` when the node has no argument list."""
    callee_node = _field(node, CALLEE_FIELDS)
    member = _field(node, ("name", "method"))
    positional: list[tree_sitter.Node] | None = None  # the argument lists of a call without fields
    if callee_node is None and member is None:
        named = _named(node)
        if named and named[0].type not in POSITIONAL_ARGUMENT_TYPES:
            # Kotlin's and Swift's calls have no fields: the callee, then its arguments
            callee_node = named[0]
            lists = [c for c in named[1:] if c.type in POSITIONAL_ARGUMENT_TYPES]
            positional = [n for c in lists for n in (_named(c) if c.type == "call_suffix" else [c])]
    if callee_node is not None:
        # a method chain's spine (`q.filter().order_by().first()`): a call and the attribute it calls
        # cost one level together, so fluent chains keep their receivers (seaborn's
        # `Plot().pair().scale().plot()` was cut at MAX_DEPTH); arguments still cost one each
        spine = depth if callee_node.type in ATTRIBUTE_TYPES else depth + 1
        callee = expression(source, callee_node, spine, memo)
    else:
        obj = _field(node, ("object", "receiver", "scope"))
        if member is None:
            callee = UNKNOWN
        elif obj is None:
            callee = ["n", _text(source, member)]
        else:
            callee = ["a", expression(source, obj, depth + 1, memo), _text(source, member)]
    if positional is not None:
        args = [a for c in positional if c.type in POSITIONAL_ARGUMENT_TYPES for a in _named(c)]
        return callee, [expression(source, a, depth + 1, memo) for a in args[:MAX_ITEMS]]
    args_node = node.child_by_field_name("arguments")
    if args_node is None:
        return callee, None
    if args_node.type in COMPREHENSION_BODY_TYPES:  # f(x for x in y)
        return callee, [expression(source, args_node, depth + 1, memo)]
    return callee, [expression(source, a, depth + 1, memo) for a in _named(args_node)[:MAX_ITEMS]]


def condition_path(node: tree_sitter.Node, stops: set[tuple[int, int]]) -> tuple[str, ...]:
    """Control-flow node types enclosing ``node`` up to the first ancestor whose span is in ``stops``."""
    path: list[str] = []
    own = node.type
    current = node.parent
    while current is not None and (current.start_byte, current.end_byte) not in stops:
        kind = current.type
        control = _CONTROL_TYPES.get(kind)
        if control is None:
            control = _CONTROL_TYPES[kind] = not CONTROL_WORDS.isdisjoint(kind.split("_"))
        if control and kind != own:
            path.append(kind)
        current = current.parent
    path.reverse()
    return tuple(path)


# node type -> whether it is a control-flow node (one of CONTROL_WORDS in it); grammars have a few
# hundred node types, each looked up for every ancestor of every flow
_CONTROL_TYPES: dict[str, bool] = {}


# one encoder for every expression: json.dumps with arguments builds a new encoder per call
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# and JSONEncoder.encode builds a new C encoder per call: this one is built once (the same text,
# ~40% less per expression; an expression is a tree, so the cycle check has nothing to find)
_C_ENCODE = (
    json.encoder.c_make_encoder(
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )
    if json.encoder.c_make_encoder is not None
    else None
)


def dumps(expr: Expr | None) -> str | None:
    if expr is None:
        return None
    if _C_ENCODE is None:
        return _ENCODER.encode(expr)
    return "".join(_C_ENCODE(expr, 0))


# json.loads wraps the C scanner in two regex matches and a decoder call: a stored expression is
# compact JSON, so the scanner alone reads it (3-7x less per expression); anything it does not
# read to the end (whitespace, junk) goes through json.loads, which decides as before
_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # the C scanner where _json exists


def loads(text: str | None) -> Expr | None:
    if text is None:
        return None
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return json.loads(text)
    return value if end == len(text) else json.loads(text)

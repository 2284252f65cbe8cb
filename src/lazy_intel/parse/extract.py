"""One parse and one query pass per file -> :class:`FileFacts`.

The language knowledge lives in ``queries/<lang>.scm``; this module only understands the standard
capture names:

``@definition.<kind>`` + ``@name``
    a definition (function, method, class, struct, interface, trait, enum, module, type, field,
    variable, constant, macro, constructor, object, protocol, …). ``@parent`` optionally names the
    parent type explicitly (a Go receiver, a C++ ``Foo::bar`` out-of-line method uses ``::`` in its
    name instead).
``@scope`` + ``@name``
    a node that qualifies the definitions inside it without being one (a Rust ``impl`` block, a
    Swift ``extension``).
``@doc`` + ``@doc.owner``
    a docstring belonging to the definition whose node, name node, or name node's parent is the
    node captured as ``@doc.owner``. Without one, the
    comments immediately above a definition become its doc.
``@reference.<kind>`` + ``@name`` (+ ``@receiver``)
    a use of a name: ``call``, ``type``, ``inherit``, ``implement``, ``instantiate``. A call whose
    callee is computed (``d["a"]()``, ``f()()``) captures ``@callee`` instead of ``@name`` and gets an
    empty name. For ``call`` and ``instantiate`` the engine also records the callee and the
    arguments as compact expressions (:mod:`lazy_intel.parse.expressions`), read from the
    captured node's ``function``/``arguments`` fields (or ``object`` + ``name``).
``@reference.operator``
    an operation that runs a method of its operand (Python's ``a + b`` runs ``__add__``;
    :mod:`lazy_intel.parse.operators`): a reference named by that method, its callee the operation's
    expression. An operator of no method (``and``) or of a language without the table makes none.
``@reference.none``
    a node that is no reference (the name part of a dotted type name read whole): no reference is
    made at it. Nor at a definition's own name node.
``@binding.name`` + ``@binding.scope``
    a name the scope node binds (a type parameter, ``<T>``): no ``type`` reference of that bare name
    is made inside the scope.
``@reference.annotation``
    a type expression (an annotation): every name it refers to, at any depth, is a ``type``
    reference (:mod:`lazy_intel.parse.type_names`; Python's grammar).
``@flow.<kind>`` + ``@flow.target`` / ``@flow.value`` / ``@flow.type``
    a value flowing into a name: ``assign`` (``target = value``, ``type`` a declared type),
    ``iterate`` (``for target in value``), ``parameter`` (capture the parameter node itself;
    ``value`` is its default), ``return`` and ``yield`` (``value`` only). The engine adds the
    enclosing control-flow path (see :mod:`lazy_intel.parse.flows`).
``@import`` + ``@import.module`` / ``@import.name`` / ``@import.alias`` / ``@import.wildcard``
    an import statement. ``@import.path`` is a dotted ``a.b.C`` whose last part is the imported name
    and the rest its module (Kotlin keeps the path in one node); a module captured as several nodes
    (Scala's ``path: (identifier)`` children) is the text from the first to the last.
    ``@import.tree`` is a Rust use tree read whole (``use crate::{a::{B, C}, d::E as F}``): every
    path it names at any depth (:func:`_use_tree`).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

import tree_sitter

from lazy_intel.parse.c_macros import blank_attribute_macros, macro_prefix_start
from lazy_intel.parse.encoding import for_parsing, remap_offsets
from lazy_intel.parse.expressions import (
    CALL_TYPES,
    UNKNOWN,
    ExpressionMemo,
    call_parts,
    dumps,
    expression,
    operation_expression,
    operator_node,
)
from lazy_intel.parse.facts import (
    CALLABLE_KINDS,
    CONTAINER_KINDS,
    FileFacts,
    ImportFact,
    ReferenceFact,
    SymbolFact,
)
from lazy_intel.parse.flows import RawFlow, collect_flows, flow_kind
from lazy_intel.parse.javadoc import link_references
from lazy_intel.parse.jsdoc import doc_type_references
from lazy_intel.parse.languages import C_LANGUAGES, ECMA_LANGUAGES, grammar, symbol_query, tag_query
from lazy_intel.parse.operators import operator_method
from lazy_intel.parse.type_names import type_names

logger = logging.getLogger(__name__)

MAX_SIGNATURE_CHARS = 240
MAX_DOC_CHARS = 1200
MAX_RECEIVER_CHARS = 200

# When one node is captured as several kinds, the most specific wins.
LAMBDA_NAME = "<lambda>"
KIND_PRIORITY: dict[str, int] = {
    "constructor": 9,
    "method": 8,
    "protocol": 7,
    "trait": 7,
    "interface": 7,
    "enum": 7,
    "struct": 7,
    "record": 7,
    "union": 7,
    "object": 6,
    "class": 6,
    "module": 5,
    "macro": 5,
    "function": 4,
    "lambda": 4,
    "type": 3,
    "property": 2,
    "field": 2,
    "constant": 3,
    "variable": 1,
}
# A function directly inside one of these is a method (a function in a module/namespace stays one).
METHOD_CONTAINER_KINDS = (CONTAINER_KINDS - {"module"}) | {"scope"}
QUALIFIER_SPLIT = re.compile(r"::|\\")
# `Foo<T>` in `Foo<T>::bar` (innermost first); `operator<=>` is a name, not arguments.
TEMPLATE_ARGS = re.compile(r"(?<=\w)(?<!operator)<[^<>]*>")
# A definition that is the first or last named child of a node is wrapped by it (export, decorators,
# template, a single-declarator ``const f = () => …``) unless that node is a body: the ``body`` field
# of its parent or one of these.
BODY_NODE_TYPES = frozenset(
    {
        "block",
        "class_body",
        "declaration_list",
        "field_declaration_list",
        "program",
        "module",
        "source_file",
        "translation_unit",
        "compilation_unit",
    }
)
# Sibling nodes that sit between a definition and its leading comment (Rust ``#[derive(..)]``).
ATTACHED_NODE_TYPES = frozenset({"attribute_item"})
COMMENT_MARKERS = re.compile(r"^\s*(?:/\*\*?|\*/|\*(?!\*)|///?!?|//!|#+|--|%+)\s?")


@functools.cache
def _parser(lang: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(grammar(lang))


def _text(source: bytes, node: tree_sitter.Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _end_line(node: tree_sitter.Node) -> int:
    row, column = node.end_point
    if column == 0 and row > node.start_point[0]:
        return row
    return row + 1


@dataclass
class _Def:
    kind: str
    node: tree_sitter.Node
    name: str
    name_node: tree_sitter.Node
    explicit_parent: str | None
    is_scope: bool = False
    doc: str | None = None
    qualified: str = ""
    parent_qualified: str | None = None
    container_kind: str | None = None


def _signature(source: bytes, node: tree_sitter.Node, name_node: tree_sitter.Node) -> str:
    """The definition's header: everything before its body, comments excluded; else its first line.

    The header is taken from the innermost node around the name that has a ``body`` field, so a
    decorated or exported definition reports ``def f(x):`` rather than its decorator line.
    """
    header_node = node
    probe = name_node.parent
    while probe is not None and node.start_byte <= probe.start_byte and probe.end_byte <= node.end_byte:
        if probe.child_by_field_name("body") is not None:
            header_node = probe
            break
        if probe == node:
            break
        probe = probe.parent
    body = header_node.child_by_field_name("body")
    if body is None:  # grammars without a `body` field (Kotlin): a trailing `*body` child
        body = next((c for c in reversed(header_node.named_children) if c.type.endswith("body")), None)
    end = header_node.end_byte
    if body is not None and body.start_byte > header_node.start_byte:
        end = header_node.start_byte
        for child in header_node.children:
            if child.start_byte >= body.start_byte:
                break
            if "comment" not in child.type:
                end = child.end_byte
    head = source[header_node.start_byte : end].decode("utf-8", "replace")
    if body is None:
        head = head.split("\n", 1)[0]
    head = " ".join(head.split())
    head = head.removesuffix(" =")  # `def f(): Int = …` (Scala, Kotlin expression bodies)
    return head[:MAX_SIGNATURE_CHARS]


def _clean_doc(raw: str) -> str | None:
    text = raw.strip()
    for quote in ('"""', "'''", '"', "'"):
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            text = text[len(quote) : -len(quote)]
            break
    if text[:1] in "rRbBuU" and text[1:4] in ('"""', "'''"):
        text = text[4:-3]
    lines = [COMMENT_MARKERS.sub("", line).rstrip() for line in text.splitlines()]
    lines = [line.rstrip("*/").rstrip() for line in lines]
    cleaned = "\n".join(lines).strip()
    return cleaned[:MAX_DOC_CHARS] or None


def _leading_comments(source: bytes, node: tree_sitter.Node) -> str | None:
    current = node
    for _ in range(3):
        pieces: list[str] = []
        expected_row = current.start_point[0]
        sibling = current.prev_sibling
        while sibling is not None and ("comment" in sibling.type or sibling.type in ATTACHED_NODE_TYPES):
            if sibling.end_point[0] < expected_row - 1:
                break
            if "comment" in sibling.type:
                pieces.append(_text(source, sibling))
            elif pieces:
                break
            expected_row = sibling.start_point[0]
            sibling = sibling.prev_sibling
        if pieces:
            return _clean_doc("\n".join(reversed(pieces)))
        parent = current.parent
        wrapper = (
            parent is not None
            and parent.parent is not None
            and parent.named_child_count > 0
            and current in (parent.named_children[0], parent.named_children[-1])
            and parent.type not in BODY_NODE_TYPES
            and parent.parent.child_by_field_name("body") != parent
        )
        if not wrapper or parent is None:
            return None
        current = parent
    return None


def _name_part(part: str) -> str:
    stripped = part.strip()
    if len(stripped) > 2 and stripped[0] == stripped[-1] == "`":
        return stripped[1:-1]  # a quoted identifier (Kotlin's ``fun `with space`()``, Scala, Swift)
    if len(stripped) > 1 and stripped[0] == ":" and stripped[1] != ":":
        return stripped[1:]  # a Ruby symbol naming a definition (`attr_reader :name`)
    words = part.split()
    if words[0] == "operator":
        return "".join(words)
    # Names hold no whitespace: where a macro confused the parse (`DECL T f(…)` read as `T::f`
    # with a missing `::`), a part keeps its last word.
    return words[-1]


def _split_name(raw: str) -> tuple[list[str], str]:
    """``a::B<T>::c`` -> (["a", "B"], "c"): template/generic arguments are not part of a name."""
    if "<" not in raw and "::" not in raw and "\\" not in raw:  # most names: nothing to split
        return ([], _name_part(raw)) if raw.strip() else ([], raw.strip())
    previous = None
    while previous != raw:
        previous, raw = raw, TEMPLATE_ARGS.sub("", raw)
    parts = [_name_part(p) for p in QUALIFIER_SPLIT.split(raw) if p.strip()]
    if not parts:
        return [], raw.strip()
    return parts[:-1], parts[-1]


def _first(caps: dict[str, list[tree_sitter.Node]], key: str) -> tree_sitter.Node | None:
    nodes = caps.get(key)
    return nodes[0] if nodes else None


def _strip_module(text: str) -> str:
    return text.strip().strip("\"'`<>").strip()


def _is_call_function(node: tree_sitter.Node) -> bool:
    """Whether ``node`` is what a call calls (``obj.m`` in ``obj.m()``), what a ``new`` makes
    (``new ns.Box()``) or a decorator's expression."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "decorator":
        return True
    function = parent.child_by_field_name("function") or parent.child_by_field_name("constructor")
    return function is not None and function.id == node.id


# the captures a symbols-only pass reads (:func:`extract_symbols`): definitions and what names them
SYMBOL_CAPTURES = frozenset({"scope", "doc", "doc.owner", "name", "parent", "callee"})


class _Collector:
    def __init__(self, source: bytes, lang: str, *, symbols_only: bool = False) -> None:
        self.source = source
        self.lang = lang
        self.symbols_only = symbols_only
        self.defs: dict[tuple[int, int, bool], _Def] = {}
        self.docs: dict[tuple[int, int], str] = {}
        self.refs: list[tuple[str, tree_sitter.Node, tree_sitter.Node, tree_sitter.Node | None]] = []
        self.imports: list[tuple[tree_sitter.Node, dict[str, list[tree_sitter.Node]]]] = []
        self.flows: list[RawFlow] = []
        self.computed: set[tuple[int, int]] = set()  # name node spans of calls with a computed callee
        self.bindings: set[tuple[int, int]] = set()  # name node spans that are no references
        self.scoped_bindings: list[tuple[str, int, int]] = []  # (name, scope start, scope end)
        self.operators: dict[int, str] = {}  # start byte of an operator site -> the method it runs
        # `/** … */` comments: span, line (Java's: parse/javadoc.py; JavaScript's and TypeScript's: parse/jsdoc.py)
        self.doc_comments: list[tuple[int, int, int]] = []

    def _operator_method(self, node: tree_sitter.Node) -> str | None:
        operator = operator_node(node)
        if operator is None:
            return None
        operands = len(node.named_children)
        return operator_method(self.lang, _text(self.source, operator), operands)

    def add_match(self, caps: dict[str, list[tree_sitter.Node]]) -> None:
        name_node = _first(caps, "name")
        if name_node is not None and not _text(self.source, name_node).strip():
            name_node = None  # a MISSING node inserted by error recovery names nothing
        if name_node is None and "callee" in caps:
            name_node = caps["callee"][0]
            self.computed.add((name_node.start_byte, name_node.end_byte))
        for capture, nodes in caps.items():
            if self.symbols_only and capture not in SYMBOL_CAPTURES and not capture.startswith("definition."):
                continue  # a reference, import or flow: not read for the definitions alone
            if capture == "definition.lambda":  # an anonymous function: named `<lambda>`
                self._add_def("lambda", nodes[0], nodes[0], None, name=LAMBDA_NAME)
            elif capture == "reference.with" and (value := _first(caps, "receiver")) is not None:
                # `with x as y:` calls x.__enter__() and x.__exit__(): the value is the receiver
                if value.type == "as_pattern" and value.named_children:
                    value = value.named_children[0]
                self.refs.append(("with", nodes[0], value, None))
            elif capture == "reference.operator":
                # `a + b` runs a method of `a` (parse/operators.py): a site named by that method
                if (method := self._operator_method(nodes[0])) is not None:
                    self.refs.append(("operator", nodes[0], nodes[0], None))
                    self.operators[nodes[0].start_byte] = method
            elif capture.startswith("definition.") and name_node is not None:
                self._add_def(capture.split(".", 1)[1], nodes[0], name_node, _first(caps, "parent"))
            elif capture == "scope" and name_node is not None:
                key = (nodes[0].start_byte, nodes[0].end_byte, True)
                if key not in self.defs:
                    name = _text(self.source, name_node)
                    self.defs[key] = _Def("scope", nodes[0], name, name_node, None, is_scope=True)
            elif capture == "doc":
                owner = _first(caps, "doc.owner")
                if owner is not None:
                    self.docs.setdefault((owner.start_byte, owner.end_byte), _text(self.source, nodes[0]))
            elif capture == "doc.comment":
                self.doc_comments.append((nodes[0].start_byte, nodes[0].end_byte, nodes[0].start_point[0]))
            elif capture == "reference.none":  # a name a declaration binds: never a reference
                self.bindings.add((nodes[0].start_byte, nodes[0].end_byte))
            elif capture == "binding.name" and (scope := _first(caps, "binding.scope")) is not None:
                name = _text(self.source, nodes[0])
                self.scoped_bindings.append((name, scope.start_byte, scope.end_byte))
            elif capture == "reference.annotation":  # a type expression: every name it refers to
                for name in type_names(self.source, nodes[0]):
                    self.refs.append(("type", name, name, None))
            elif capture == "reference.read" and _is_call_function(nodes[0]):
                continue  # `obj.m()`: the call's own reference covers the attribute
            elif capture.startswith("reference.") and name_node is not None:
                self.refs.append((capture.split(".", 1)[1], nodes[0], name_node, _first(caps, "receiver")))
            elif capture == "import":
                self.imports.append((nodes[0], caps))
            elif (kind := flow_kind(capture)) is not None:
                self.flows.append((kind, nodes[0], caps))

    def _add_def(
        self,
        kind: str,
        node: tree_sitter.Node,
        name_node: tree_sitter.Node,
        parent_node: tree_sitter.Node | None,
        *,
        name: str | None = None,
    ) -> None:
        """One definition per name node: the more specific kind wins, then the larger node.

        The larger node wins so that a pattern capturing a wrapper (a decorated definition, an
        export statement, a template) takes the wrapper's span.
        """
        key = (name_node.start_byte, name_node.end_byte, False)
        existing = self.defs.get(key)
        if existing is not None:
            old_rank = (
                KIND_PRIORITY.get(existing.kind, 0),
                existing.node.end_byte - existing.node.start_byte,
            )
            new_rank = (KIND_PRIORITY.get(kind, 0), node.end_byte - node.start_byte)
            if old_rank >= new_rank:
                return
        name = name if name is not None else _text(self.source, name_node)
        parent = _text(self.source, parent_node) if parent_node is not None else None
        self.defs[key] = _Def(kind, node, name, name_node, parent)


def _bound_in_scope(
    source: bytes,
    ref: tuple[str, tree_sitter.Node, tree_sitter.Node, tree_sitter.Node | None],
    scoped: list[tuple[str, int, int]],
) -> bool:
    """Whether a bare type name lies inside a declaration that binds it (a type parameter)."""
    if not scoped or ref[0] != "type":
        return False
    node = ref[2]
    name = _text(source, node)
    return any(n == name and start <= node.start_byte < end for n, start, end in scoped)


def _qualify(defs: list[_Def]) -> None:
    """Give every definition its qualified name from the containers that enclose it."""
    stack: list[_Def] = []
    for d in defs:
        while stack and not (
            stack[-1].node.start_byte <= d.node.start_byte and d.node.end_byte <= stack[-1].node.end_byte
        ):
            stack.pop()
        qualifiers, name = _split_name(d.name)
        d.name = name
        enclosing = stack[-1] if stack else None
        if d.explicit_parent:
            _, parent_name = _split_name(d.explicit_parent.lstrip("*&"))
            prefix = parent_name
            d.container_kind = "struct"
        elif enclosing is not None:
            prefix = enclosing.qualified
            d.container_kind = enclosing.kind
        else:
            prefix = ""
        if qualifiers:
            prefix = ".".join([p for p in (prefix, *qualifiers) if p])
            d.container_kind = d.container_kind or "class"
        d.qualified = f"{prefix}.{name}" if prefix else name
        d.parent_qualified = prefix or None
        if d.kind == "function" and (
            d.explicit_parent or qualifiers or (d.container_kind in METHOD_CONTAINER_KINDS)
        ):
            d.kind = "method"
        stack.append(d)


def _sweep_scopes(defs: list[_Def], positions: Iterable[int]) -> list[str | None]:
    """For each byte position (in any order), the qualified name of the innermost enclosing
    definition; ``defs`` sorted by start (then the larger first).

    A ``@scope`` node counts too: the trait in ``impl Trait for X`` is used in the scope ``X``.
    Definition nodes are tree nodes, so they nest or are disjoint: one stack sweep over the positions
    in ascending order suffices. (Swept in the order given, a call whose name follows a body —
    ``new Adapter() {…}.nullSafe()``, ``p.then(function () {…}).catch(…)`` — left the definitions of
    that body behind, and the references after it in the body fell to the enclosing scope.)
    """
    given = list(positions)
    order = sorted(range(len(given)), key=given.__getitem__)
    out: list[str | None] = [None] * len(given)
    stack: list[_Def] = []
    index = 0
    for slot in order:
        pos = given[slot]
        while index < len(defs) and defs[index].node.start_byte <= pos:
            new = defs[index]
            while stack and stack[-1].node.end_byte <= new.node.start_byte:
                stack.pop()
            stack.append(new)
            index += 1
        while stack and not (stack[-1].node.start_byte <= pos < stack[-1].node.end_byte):
            stack.pop()
        out[slot] = stack[-1].qualified if stack else None
    return out


def extract_facts(path: str, lang: str, source: bytes) -> FileFacts:
    """Parse ``source`` and extract its facts; never raises for bad input (the error is recorded)."""
    return _extract_safely(path, lang, source, symbols_only=False)


def extract_symbols(path: str, lang: str, source: bytes) -> FileFacts:
    """The same parse's definitions only (no references, imports or flows; the symbols are the ones
    :func:`extract_facts` gives): for readers of many old versions of a file, the history's symbol
    diff, where building every reference's and flow's expressions cost ~20x the definitions."""
    return _extract_safely(path, lang, source, symbols_only=True)


def _extract_safely(path: str, lang: str, source: bytes, *, symbols_only: bool) -> FileFacts:
    try:
        # the grammars read UTF-8: a file in another encoding is parsed transcoded, and its offsets
        # are mapped back, so names keep their letters and anchors stay bytes of the file
        readable = for_parsing(source)
        return remap_offsets(_extract(path, lang, readable.utf8, symbols_only=symbols_only), readable)
    except Exception as exc:  # a grammar or query bug must not stop the index
        logger.warning("parse of %s failed: %s", path, exc)
        return FileFacts(path=path, lang=lang, error=f"{type(exc).__name__}: {exc}")


def _extract(path: str, lang: str, source: bytes, *, symbols_only: bool = False) -> FileFacts:
    # tree-sitter parses in linear time and files are capped at LAZY_INTEL_MAX_FILE_BYTES, so the
    # bytes are parsed directly (a read callback that could enforce a deadline costs ~2x); C and C++
    # are parsed with their attribute-like macros blanked (same offsets; names are read from `source`)
    parsed = blank_attribute_macros(source) if lang in C_LANGUAGES else source
    tree = _parser(lang).parse(parsed)
    root = tree.root_node
    collector = _Collector(source, lang, symbols_only=symbols_only)
    query = symbol_query(lang) if symbols_only else tag_query(lang)
    for _pattern, caps in tree_sitter.QueryCursor(query).matches(root):
        collector.add_match(caps)

    defs = sorted(
        collector.defs.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte, not d.is_scope)
    )
    _qualify(defs)
    symbols: list[SymbolFact] = []
    for d in defs:
        if d.is_scope:
            continue
        raw_doc = collector.docs.get((d.node.start_byte, d.node.end_byte))
        if raw_doc is None:
            raw_doc = collector.docs.get((d.name_node.start_byte, d.name_node.end_byte))
        if raw_doc is None:
            parent = d.name_node.parent
            if parent is not None:
                raw_doc = collector.docs.get((parent.start_byte, parent.end_byte))
        doc = _clean_doc(raw_doc) if raw_doc is not None else _leading_comments(source, d.node)
        # `Foo::bar` and `Foo<T>::bar` name bar: the name span is that part only.
        name_start, name_end = d.name_node.start_byte, d.name_node.end_byte
        at = source.rfind(d.name.encode(), name_start, name_end)
        if at >= 0:
            name_start, name_end = at, at + len(d.name.encode())
        start, signature = d.node.start_byte, _signature(source, d.node, d.name_node)
        if parsed is not source:  # a hidden macro before it on its line is part of it (`FMT_API void f()`)
            start = macro_prefix_start(source, parsed, start)
            if start < d.node.start_byte:
                signature = (
                    f"{source[start : d.node.start_byte].decode('utf-8', 'replace').strip()} {signature}"
                )
        symbols.append(
            SymbolFact(
                name=d.name,
                qualified_name=d.qualified,
                kind=d.kind,
                start_byte=start,
                end_byte=d.node.end_byte,
                start_line=d.node.start_point[0] + 1,
                end_line=_end_line(d.node),
                name_start_byte=name_start,
                name_end_byte=name_end,
                signature=signature,
                doc=doc,
                parent=d.parent_qualified,
            )
        )

    if symbols_only:
        return FileFacts(
            path=path, lang=lang, symbols=tuple(symbols), syntax_errors=1 if root.has_error else 0
        )
    # a definition's own name (`class Foo`, `type Foo = …`) and a captured binding are no references
    bound = collector.bindings | {
        (d.name_node.start_byte, d.name_node.end_byte) for d in defs if not d.is_scope
    }
    refs_kept = [
        r
        for r in collector.refs
        if (r[2].start_byte, r[2].end_byte) not in bound
        and not _bound_in_scope(source, r, collector.scoped_bindings)
    ]
    refs_sorted = sorted(refs_kept, key=lambda r: (r[1].start_byte, r[2].start_byte, r[0]))
    # a catch-all `type` or `value` reference where a reference of another kind names the same node
    # (`new T` instantiates T, `: public T` inherits it, `FOO(x)` calls the macro) is that one: a
    # query's catch-all names do not double them
    other_kinds = {(r[2].start_byte, r[2].end_byte) for r in refs_sorted if r[0] not in CATCH_ALL_KINDS}
    seen_refs: set[tuple[str, int, int]] = set()
    unique_refs = []
    for ref in refs_sorted:
        key = (ref[0], ref[2].start_byte, ref[2].end_byte)
        if key not in seen_refs and not (ref[0] in CATCH_ALL_KINDS and key[1:] in other_kinds):
            seen_refs.add(key)
            unique_refs.append(ref)
    ref_scopes = _sweep_scopes(defs, [r[2].start_byte for r in unique_refs])
    references = []
    memo = ExpressionMemo()  # references and flows read many of the same nodes
    for (kind, node, name_node, receiver_node), scope in zip(unique_refs, ref_scopes, strict=True):
        if kind in ("with", "operator"):
            # a site named by the method it runs, its callee the value: `with x:` runs the context
            # manager's methods, `a + b` its operand's (resolved as members, graph.implicit); an
            # operation is its own name node
            name = "__enter__" if kind == "with" else collector.operators[node.start_byte]
            references.append(
                ReferenceFact(
                    name=name,
                    kind=kind,
                    start_byte=node.start_byte,
                    end_byte=node.end_byte,
                    line=name_node.start_point[0] + 1,
                    name_start_byte=name_node.start_byte,
                    name_end_byte=name_node.end_byte,
                    scope=scope,
                    receiver=None,
                    callee=dumps(
                        operation_expression(source, name_node, memo)
                        if kind == "operator"
                        else expression(source, name_node, 0, memo)
                    ),
                )
            )
            continue
        made = kind == "inherit" and name_node.type in CALL_TYPES  # `class M(make_base(Q))`
        if (name_node.start_byte, name_node.end_byte) in collector.computed:
            qualifiers, name = [], ""
        else:
            named = name_node.child_by_field_name("function") if made else name_node
            qualifiers, name = _split_name(_text(source, named or name_node).replace(".", "::"))
        receiver = _text(source, receiver_node)[:MAX_RECEIVER_CHARS] if receiver_node is not None else None
        if receiver is None and qualifiers:
            receiver = ".".join(qualifiers)
        callee = args = None
        if kind == "read" or made:  # a base made by a call is what the call returns
            callee = dumps(expression(source, node, 0, memo))
        if kind in ("call", "instantiate"):
            # args is None when the site is not call syntax (a decorator name, a struct literal)
            if node.type in CALL_TYPES:
                callee_expr, args_list = call_parts(source, node, 0, memo)
            else:
                callee_expr, args_list = expression(source, node, 0, memo), None
            simple = ["n", name] if receiver is None else ["a", ["n", receiver], name]
            callee = dumps(callee_expr) if callee_expr not in (simple, UNKNOWN) else None
            args = dumps(args_list) if args_list is not None else None
        references.append(
            ReferenceFact(
                name=name,
                kind=kind,
                start_byte=node.start_byte,
                end_byte=node.end_byte,
                line=name_node.start_point[0] + 1,
                name_start_byte=name_node.start_byte,
                name_end_byte=name_node.end_byte,
                scope=scope,
                receiver=receiver,
                callee=callee,
                args=args,
            )
        )

    if collector.doc_comments:  # the names its doc comments use (`{@link Type#member}`, `@param {Foo} x`)
        read_doc = doc_type_references if lang in ECMA_LANGUAGES else link_references
        references += read_doc(source, collector.doc_comments, lambda p: _sweep_scopes(defs, p))
        references.sort(key=lambda r: (r.start_byte, r.name_start_byte, r.kind))
    imports = _imports(source, defs, collector.imports)
    flows = collect_flows(
        source,
        collector.flows,
        lambda positions: _sweep_scopes(defs, positions),
        {(d.node.start_byte, d.node.end_byte) for d in defs},
        memo,
    )
    return FileFacts(
        path=path,
        lang=lang,
        symbols=tuple(symbols),
        references=tuple(references),
        imports=imports,
        flows=flows,
        syntax_errors=1 if root.has_error else 0,
    )


MAX_USE_TREE_LEAVES = 256  # leaves read of one Rust use tree


def _use_tree(
    source: bytes, node: tree_sitter.Node, prefix: str
) -> list[tuple[str, str | None, str | None, bool]]:
    """(module, name, alias, wildcard) of every leaf of a Rust use tree under the path ``prefix``:
    ``crate::{lines::{LineIter, LineStep}, searcher::Searcher as S, sink::*}``."""
    out: list[tuple[str, str | None, str | None, bool]] = []

    def joined(path: str) -> str:
        return f"{prefix}::{path}" if prefix and path else prefix or path

    def leaf(path: str, alias: str | None) -> None:
        module, _, name = joined(path).rpartition("::")
        if name == "self":  # `a::{self}` imports the module `a`
            out.append((module, None, alias, False))
        elif module:
            out.append((module, name, alias, False))
        else:
            out.append((name, None, alias, False))

    kind = node.type
    if kind in ("identifier", "scoped_identifier", "self", "crate", "super"):
        leaf(_text(source, node), None)
    elif kind == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        if path is not None:
            leaf(_text(source, path), _text(source, alias) if alias is not None else None)
    elif kind == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        out.append((joined(_text(source, inner) if inner is not None else ""), None, None, True))
    elif kind == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        if items is not None:
            out += _use_tree(source, items, joined(_text(source, path)) if path is not None else prefix)
    elif kind == "use_list":
        for child in node.named_children:
            out += _use_tree(source, child, prefix)
            if len(out) >= MAX_USE_TREE_LEAVES:
                break
    return out[:MAX_USE_TREE_LEAVES]


CATCH_ALL_KINDS = frozenset({"type", "value"})  # kinds a query may capture broadly (see above)


def _imports(
    source: bytes, defs: list[_Def], raw: list[tuple[tree_sitter.Node, dict[str, list[tree_sitter.Node]]]]
) -> tuple[ImportFact, ...]:
    rows: list[tuple[tree_sitter.Node, str, str | None, str | None, bool]] = []
    for node, caps in raw:
        module_nodes = caps.get("import.module") or []
        module = ""
        if module_nodes:  # a path captured as several nodes (Scala `a.b.C`) spans first to last
            start = min(n.start_byte for n in module_nodes)
            end = max(n.end_byte for n in module_nodes)
            module = _strip_module(source[start:end].decode("utf-8", "replace"))
        alias_node = _first(caps, "import.alias")
        alias = _text(source, alias_node) if alias_node is not None else None
        wildcard = "import.wildcard" in caps
        names = [_text(source, n) for n in caps.get("import.name") or []]
        tree_node = _first(caps, "import.tree")
        if tree_node is not None:  # a nested Rust use tree: every leaf, module and name apart
            for module, name, alias, wildcard in _use_tree(source, tree_node, ""):
                rows.append((node, module, name, alias, wildcard))
            continue
        path_node = _first(caps, "import.path")
        if path_node is not None:  # `a.b.C`: module `a.b`, name `C`
            module, _, last = _strip_module(_text(source, path_node)).rpartition(".")
            names = [last]
        if not names:
            rows.append((node, module, None, alias, wildcard))
        for name in names:
            rows.append((node, module, name, alias if len(names) == 1 else None, wildcard))
    rows.sort(key=lambda r: (r[0].start_byte, r[1], r[2] or "", r[3] or ""))
    unique: list[tuple[tree_sitter.Node, str, str | None, str | None, bool]] = []
    seen: set[tuple[int, str, str | None, str | None]] = set()
    for row in rows:
        key = (row[0].start_byte, row[1], row[2], row[3])
        if key not in seen and (row[1] or row[2]):
            seen.add(key)
            unique.append(row)
    scopes = _sweep_scopes(defs, [r[0].start_byte for r in unique])
    return tuple(
        ImportFact(
            module=module,
            name=name,
            alias=alias,
            start_byte=node.start_byte,
            end_byte=node.end_byte,
            line=node.start_point[0] + 1,
            scope=scope,
            wildcard=wildcard,
        )
        for (node, module, name, alias, wildcard), scope in zip(unique, scopes, strict=True)
    )


__all__ = ["CALLABLE_KINDS", "extract_facts"]

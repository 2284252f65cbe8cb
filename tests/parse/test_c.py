from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""#include <stdio.h>
#include "util/buf.h"

#define MAX_LEN 64
#define SQUARE(x) ((x) * (x))

/* A growable buffer. */
typedef struct buffer {
    char *data;
    size_t len;
} buffer_t;

struct node { int value; struct node *next; };

enum color { RED, GREEN = 2 };

typedef int (*handler_fn)(int);

static int counter = 0;

// Creates a buffer.
buffer_t *buffer_new(size_t cap) {
    buffer_t *b = malloc(sizeof(buffer_t));
    b->data = calloc(cap, 1);
    b->ops->init(b);
    return b;
}

int buffer_len(const buffer_t *b);
"""


def facts() -> FileFacts:
    result = extract_facts("src/buffer.c", "c", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_c_definitions() -> None:
    f = facts()
    assert_symbol(SOURCE, f, "MAX_LEN", "macro", "#define MAX_LEN 64\n")
    assert_symbol(SOURCE, f, "SQUARE", "macro", "#define SQUARE(x) ((x) * (x))\n")
    buffer = assert_symbol(
        SOURCE, f, "buffer_t", "struct", snippet_between(SOURCE, "typedef struct buffer", "} buffer_t;")
    )
    assert buffer.doc == "A growable buffer."
    assert_symbol(SOURCE, f, "buffer_t.data", "field", "char *data;")
    assert_symbol(SOURCE, f, "buffer_t.len", "field", "size_t len;")
    assert_symbol(SOURCE, f, "node", "struct", "struct node { int value; struct node *next; }")
    next_field = assert_symbol(SOURCE, f, "node.next", "field", "struct node *next;")
    assert next_field.parent == "node"
    assert_symbol(SOURCE, f, "color", "enum", "enum color { RED, GREEN = 2 }")
    assert_symbol(SOURCE, f, "color.GREEN", "constant", "GREEN = 2")
    assert_symbol(SOURCE, f, "handler_fn", "type", "typedef int (*handler_fn)(int);")
    assert_symbol(SOURCE, f, "counter", "variable", "static int counter = 0;")
    new = assert_symbol(
        SOURCE, f, "buffer_new", "function", snippet_between(SOURCE, "buffer_t *buffer_new", "return b;\n}")
    )
    assert new.doc == "Creates a buffer."
    assert new.signature == "buffer_t *buffer_new(size_t cap)"
    assert_symbol(SOURCE, f, "buffer_len", "function", "int buffer_len(const buffer_t *b);")
    assert "buffer" not in {s.qualified_name for s in f.symbols}  # the typedef names the struct


def test_c_references() -> None:
    refs = references(facts())
    assert ("malloc", "call", "buffer_new", None) in refs
    assert ("calloc", "call", "buffer_new", None) in refs
    assert ("init", "call", "buffer_new", "b->ops") in refs
    assert ("buffer_t", "type", "buffer_new", None) in refs
    assert ("buffer_t", "type", "buffer_len", None) in refs
    assert ("node", "type", "node.next", None) in refs


def test_c_imports() -> None:
    assert imports(facts()) == {("stdio.h", None, None, False), ("util/buf.h", None, None, False)}


def test_a_c_function_named_in_parentheses_is_a_definition() -> None:
    """`int (lua_gettop) (lua_State *L)`: the parentheses keep a function-like macro of the same name
    from expanding (lua declares and defines its whole API so); the prototype and the definition are
    definitions like any other, behind an attribute-like macro or not (session 52)."""
    source = (
        b"LUA_API int (lua_gettop) (lua_State *L);\n"
        b"LUA_API const char *(lua_pushstring) (lua_State *L, const char *s);\n"
        b"int (lua_gettop) (lua_State *L) {\n  return 0;\n}\n"
        b"static const char *(name_of) (int x) {\n  return 0;\n}\n"
    )
    facts = extract_facts("lapi.c", "c", source)
    found = sorted((s.name, s.kind, s.start_line) for s in facts.symbols)
    assert found == [
        ("lua_gettop", "function", 1),
        ("lua_gettop", "function", 3),
        ("lua_pushstring", "function", 2),
        ("name_of", "function", 6),
    ]


VALUES = b"""#include "ops.h"
#if HAVE_POLL && defined(USE_FAST)
#endif
#ifdef WITH_DEBUG
#endif
static const reg funcs[] = {{"assert", base_assert}, {NULL, NULL}};
struct ops o = { .read = my_read };
char buf[MAX_LEN];

int f(struct ev *e, int x, int n) {
  e->add = add_read;
  int (*g)(int) = &other;
  if ((e->state & DELETED) || x > n)
    return CODE_ERR;
  switch (x) { case KIND_A: break; }
  CHECK(x);
  return helper;
}
"""


def test_c_values_a_function_or_macro_is_used_as() -> None:
    """A function stored, initialised, returned or taken the address of, and a capitals name where an
    operand stands or in a preprocessor condition, are `value` references (session 52: clangd lists
    them, the index did not); a lower-case operand (a local, `x > n`) is not, and a macro called as a
    function is one `call` reference, not also a value."""
    refs = extract_facts("v.c", "c", VALUES).references
    values = {(r.name, r.scope) for r in refs if r.kind == "value"}
    assert values == {
        ("HAVE_POLL", None),
        ("USE_FAST", None),
        ("WITH_DEBUG", None),
        ("base_assert", "funcs"),  # inside the variable it initialises
        ("my_read", "o"),
        ("MAX_LEN", "buf"),
        ("add_read", "f"),
        ("other", "f"),
        ("DELETED", "f"),
        ("CODE_ERR", "f"),
        ("KIND_A", "f"),
        ("helper", "f"),
    }
    at_check = [r.kind for r in refs if r.name == "CHECK"]
    assert at_check == ["call"]


def test_an_include_guard_tests_no_macro() -> None:
    """`#ifndef X` whose body defines X (an include guard, a default value) refers to no definition of
    X: none exists where it is tested (clangd lists no reference there); `#ifdef OTHER` and a use after
    the definition do refer (session 52)."""
    source = (
        b"#ifndef GUARD_H\n#define GUARD_H\n#ifdef OTHER\n#endif\n#ifndef DEFAULT_N\n#define DEFAULT_N 4\n"
        b"#endif\n#ifndef F\n#define F(x) x\n#endif\nint a[DEFAULT_N];\n#endif\n"
    )
    refs = extract_facts("g.h", "c", source).references
    assert sorted((r.name, r.line) for r in refs) == [("DEFAULT_N", 11), ("OTHER", 3)]

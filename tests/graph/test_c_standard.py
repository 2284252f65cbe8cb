"""C's standard library and C++'s named casts are builtins (session 48).

jq's 365 `assert(…)`, 179 `printf(…)`, `strcmp`, `memcpy` … calls were `unresolved`: C and C++ had no
builtin names, so every call of the standard library counted among what the index could not tell. A
definition of the tree by such a name (a project's own `assert` macro, its own `xmalloc` named
`malloc`) still wins, in any file of the C family."""

from __future__ import annotations

import pytest

from tests.graph.helpers import build_graph

C_FILES = {
    "src/util.c": (
        "#include <stdio.h>\n#include <string.h>\n#include <assert.h>\n\n"
        'int same(const char *a, const char *b) {\n  assert(a && b);\n  printf("%s", a);\n'
        "  return strcmp(a, b) == 0 && fatal(a);\n}\n"
    ),
    # the project's own `fatal`, and an `abort` of its own in another file: the tree's wins
    "src/fatal.c": "int fatal(const char *m) {\n  return abort(m);\n}\n",
    "src/mine.c": "int abort(const char *m) {\n  return 0;\n}\n",
    "src/shape.cpp": (
        "class Base { public: virtual ~Base() {} };\n"
        "class Circle : public Base { public: double area() { return 3.14; } };\n"
        "class Square : public Base { public: double area() { return 1.0; } };\n"
        'double go(Base* b) {\n  return static_cast<Circle*>(b)->area() + strlen("x");\n}\n'
    ),
}


@pytest.fixture(scope="module")
def c_graph(tmp_path_factory):
    """The fixture repository, indexed once for the module's tests."""
    return build_graph(tmp_path_factory.mktemp("c_graph"), C_FILES)


def test_the_c_standard_library_is_builtin_unless_the_tree_defines_the_name(c_graph) -> None:
    graph = c_graph
    same = {e.target: (e.dst, e.strategy) for e in graph.of("CALLS", "src/util.c::same")}
    assert same["assert"] == same["printf"] == same["strcmp"] == (None, "builtin")
    assert same["fatal"] == ("src/fatal.c::fatal", "unique-name")
    fatal = {e.target: (e.dst, e.strategy) for e in graph.of("CALLS", "src/fatal.c::fatal")}
    assert fatal["abort"] == ("src/mine.c::abort", "unique-name")  # the tree's own `abort`


def test_a_cpp_named_cast_is_a_cast(c_graph) -> None:
    graph = c_graph
    go = {(e.target, e.dst, e.strategy) for e in graph.of("CALLS", "src/shape.cpp::go")}
    assert go == {
        ("static_cast", None, "builtin"),
        ("….area", "src/shape.cpp::Circle.area", "member"),  # not Square's: the cast names Circle
        ("strlen", None, "builtin"),
    }

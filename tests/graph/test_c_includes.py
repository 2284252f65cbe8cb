"""C and C++ names seen through `#include` (session 52).

Before, C and C++ had no import resolution: every call of a function defined in another file was a
unique-name guess (or "ambiguous" between same-named definitions), which `references` leaves out as
a candidate. Measured against clangd on lua (`bench/references_accuracy.py --language c`), the
index's references had 9.8% recall. An include now resolves to the tree's file (beside the includer,
else by path suffix, the nearest), and a name the file does not declare is looked up in what it
includes, transitively: the call is an `import` edge to the definition (a header's prototype leads
to its source file's definition). A function-like macro called as a function is the macro."""

from __future__ import annotations

import pytest

from tests.graph.helpers import build_graph

FILES = {
    # a header under include/, found by its name from src/ (an -I directory the build would name)
    "lib/include/util.h": (
        '#include "inner/deep.h"\n\nint util_len(const char *s);\n#define TWICE(x) ((x) * 2)\n'
        "#define UTIL_FLAG 1\n"
    ),
    # a function and a macro used as values (stored, tested), seen through the include
    "lib/src/hooks.c": (
        '#include "util.h"\n\nstruct hooks { int (*len)(const char *); };\n\n'
        "static struct hooks table = { .len = util_len };\n\n"
        "int flagged(struct hooks *h) {\n#if UTIL_FLAG\n  h->len = util_len;\n#endif\n  return UTIL_FLAG | 0;\n}\n"
    ),
    "lib/include/inner/deep.h": "#include <stdio.h>\n\nint deep(int x);\nstruct node { int v; };\n",
    "lib/src/util.c": '#include "util.h"\n\nint util_len(const char *s) {\n  return s ? 1 : 0;\n}\n',
    "lib/src/deep.c": '#include "inner/deep.h"\n\nint deep(int x) {\n  return x;\n}\n',
    "lib/src/use.c": (
        '#include "util.h"\n#include <string.h>\n\n'
        'int use(struct node *n) {\n  return util_len("x") + deep(TWICE(1)) + (int)strlen("y") + later(n->v);\n}\n'
    ),
    # the same header name elsewhere: the includer's nearest wins
    "tests/util.h": "int util_len(const char *s);\nint only_tests(void);\n",
    "tests/t.c": '#include "util.h"\n\nint t(void) {\n  return util_len("z") + only_tests();\n}\n',
    # declared where `use.c` does not include it: still a guess by the unique name
    "other/later.h": "int later(int v);\n",
    "other/later.c": '#include "later.h"\n\nint later(int v) {\n  return v;\n}\n',
    # an include cycle (guards in the real world) ends and still finds the name
    "cyc/a.h": '#include "b.h"\nint from_a(void);\n',
    "cyc/b.h": '#include "a.h"\nint from_b(void);\n',
    "cyc/use.c": '#include "a.h"\n\nint go(void) {\n  return from_a() + from_b();\n}\n',
    "cyc/defs.c": '#include "a.h"\n\nint from_a(void) { return 1; }\nint from_b(void) { return 2; }\n',
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return build_graph(tmp_path_factory.mktemp("c_includes"), FILES)


def test_a_call_through_an_include_is_the_definition_s(graph) -> None:
    targets = graph.call_targets
    assert targets("lib/src/use.c::use", "util_len") == [("lib/src/util.c::util_len", "import")]
    # through util.h's own include of inner/deep.h (a path relative to util.h's directory)
    assert targets("lib/src/use.c::use", "deep") == [("lib/src/deep.c::deep", "import")]
    assert targets("lib/src/use.c::use", "TWICE") == [("lib/include/util.h::TWICE", "import")]
    assert targets("lib/src/use.c::use", "strlen") == [(None, "builtin")]
    # `later` is declared only in a header use.c does not include: a guess, as before
    assert targets("lib/src/use.c::use", "later") == [("other/later.c::later", "unique-name")]


def test_an_include_resolves_to_the_nearest_file_of_the_tree(graph) -> None:
    imports = {(e.src, e.target): (e.dst, e.strategy) for e in graph.edges if e.type == "IMPORTS"}
    assert imports[("lib/src/use.c", "util.h")] == ("lib/include/util.h", "import")
    assert imports[("tests/t.c", "util.h")] == ("tests/util.h", "import")  # beside the includer
    assert imports[("lib/include/util.h", "inner/deep.h")] == ("lib/include/inner/deep.h", "import")
    assert imports[("lib/src/use.c", "string.h")] == (None, "external")
    # tests/util.h's prototype has the one source definition too; only_tests has none
    assert graph.call_targets("tests/t.c::t", "util_len") == [("lib/src/util.c::util_len", "import")]
    assert graph.call_targets("tests/t.c::t", "only_tests") == [("tests/util.h::only_tests", "import")]


def test_a_type_through_an_include_and_an_include_cycle(graph) -> None:
    types = {
        (e.target, e.dst, e.strategy)
        for e in graph.edges
        if e.type == "REFERENCES" and e.src == "lib/src/use.c::use"
    }
    assert ("node", "lib/include/inner/deep.h::node", "import") in types
    assert graph.call_targets("cyc/use.c::go", "from_a") == [("cyc/defs.c::from_a", "import")]
    assert graph.call_targets("cyc/use.c::go", "from_b") == [("cyc/defs.c::from_b", "import")]


def test_a_function_and_a_macro_used_as_values_through_an_include(graph) -> None:
    uses = sorted(
        (e.src, e.target, e.dst, e.strategy, e.props.get("use"))
        for e in graph.edges
        if e.type == "REFERENCES" and e.src.startswith("lib/src/hooks.c")
    )
    # an initializer of a file-level variable is the file's use
    assert ("lib/src/hooks.c", "util_len", "lib/src/util.c::util_len", "import", "value") in uses
    assert ("lib/src/hooks.c::flagged", "util_len", "lib/src/util.c::util_len", "import", "value") in uses
    flags = [u for u in uses if u[1] == "UTIL_FLAG"]
    assert (
        flags
        == [("lib/src/hooks.c::flagged", "UTIL_FLAG", "lib/include/util.h::UTIL_FLAG", "import", "value")] * 2
    )  # `#if UTIL_FLAG` and `UTIL_FLAG | 0`

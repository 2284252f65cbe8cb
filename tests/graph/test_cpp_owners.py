"""C++ members through the standard library's owners and sequences (session 52).

`m_stack->Push(1)` of a `std::unique_ptr<Stack> m_stack;` was unresolved and `for (auto& s : v)` over
a `std::vector<Stack>` a unique-name guess: a scoped template's arguments were dropped from its type
(`std::unique_ptr<Stack>` read as `std::unique_ptr`), a template argument was no type at all, and no
C++ wrapper was transparent. `unique_ptr`, `shared_ptr`, `optional` and `reference_wrapper` hold one
value of their argument; `vector`, `deque`, `list`, `set` and their kin iterate it."""

from __future__ import annotations

from tests.graph.helpers import build_graph

FILES = {
    "src/stack.h": "namespace Y {\nclass Stack {\n public:\n  void Push(int t);\n  int Top() const;\n};\n}\n",
    "src/stack.cpp": '#include "stack.h"\nnamespace Y {\nvoid Stack::Push(int t) {}\nint Stack::Top() const { return 0; }\n}\n',
    "src/other.h": "namespace Z {\nclass Other {\n public:\n  void Push(int t) {}\n  int Top() const { return 1; }\n};\n}\n",
    "src/parser.h": (
        '#include <memory>\n#include <vector>\n#include "stack.h"\nnamespace Y {\nclass Parser {\n public:\n'
        "  void Go();\n private:\n  std::unique_ptr<Stack> m_stack;\n  std::vector<Stack> m_all;\n};\n}\n"
    ),
    "src/parser.cpp": (
        '#include "parser.h"\nnamespace Y {\nvoid Parser::Go() {\n  m_stack->Push(1);\n'
        "  for (auto& s : m_all) { s.Top(); }\n  std::shared_ptr<Stack> p = std::make_shared<Stack>();\n"
        "  p->Top();\n}\n}\n"
    ),
}


def test_members_through_an_owner_and_a_sequence(tmp_path) -> None:
    graph = build_graph(tmp_path, FILES)
    targets = graph.call_targets
    go = "src/parser.cpp::Y.Parser.Go"
    assert targets(go, "m_stack.Push") == [("src/stack.cpp::Y.Stack.Push", "member")]
    assert targets(go, "s.Top") == [("src/stack.cpp::Y.Stack.Top", "member")]
    assert targets(go, "p.Top") == [("src/stack.cpp::Y.Stack.Top", "member")]
    # the namespace `std` is C++'s standard library: outside the tree, not unresolved
    assert targets(go, "std.make_shared") == [(None, "external")]


def test_a_namespace_s_type_through_an_include_is_no_guess(tmp_path) -> None:
    """`Stack` in parser.h names the `Y::Stack` stack.h declares, which parser.h includes: an `import`
    reference, not a type found by its name alone (a unique-name guess, which `references` leaves out);
    `Other`, declared in a header nothing here includes, is still found by its name alone."""
    files = {
        **FILES,
        "src/use_other.cpp": '#include "stack.h"\nnamespace Z {\nvoid f(Other* o) { o->Top(); }\n}\n',
    }
    graph = build_graph(tmp_path, files)
    types = {
        (e.src, e.dst, e.strategy)
        for e in graph.edges
        if e.type == "REFERENCES" and e.target in ("Stack", "Other")
    }
    assert ("src/parser.h::Y.Parser", "src/stack.h::Y.Stack", "import") in types  # the field's type
    assert ("src/use_other.cpp::Z.f", "src/other.h::Z.Other", "unique-name") in types

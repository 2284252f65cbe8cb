"""A `.h` header's language from its bytes: C++ constructs make it C++, anything C may spell stays C."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.parse.header_language import is_cplusplus_header
from lazy_intel.parse.languages import language_for_content

CPLUSPLUS = [
    "namespace fmt {\nint f();\n}\n",
    "namespace {\nint hidden;\n}\n",
    "inline namespace v11 {\n}\n",
    "template <typename T>\nT max(T a, T b);\n",
    "class FMT_API buffer {\n  int size_;\n};\n",
    "class Leaf final : Base {};\n",
    "struct Node : public Base {\n};\n",
    "class Shape {\n public:\n  double area() const;\n};\n",
    "#include <vector>\nint n;\n",
    "#  include <cstdio>\n",
    "using namespace std;\n",
    "int f() noexcept;\n",
    "auto g() -> decltype(1);\n",
    "bool operator==(const A&, const A&);\n",
    "std::string name();\n",
    "int x = ::global;\n",
    "A::~A();\n",
]
C = [
    "#include <stdio.h>\n#include <sys/types.h>\nint f(void);\n",
    "struct s { int new; int class; char *this; int virtual; const char *typename; };\n",
    '#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n#endif\n',
    "[[gnu::pure]] int f(void);\n",  # a C23 attribute
    "constexpr int N = 3;\nstatic_assert(N == 3);\nvoid *p = nullptr;\n",  # C23
    "int private_count;\nint public_api(void);\n",
    "typedef enum { A, B } kind;\nint x = a ? b : c;\n",
]
MARKERS = ["namespace a {", "class A {", "template <class T>", "std::vector v;", "#include <vector>"]


@pytest.mark.parametrize("text", CPLUSPLUS)
def test_cplusplus_constructs(text: str) -> None:
    assert is_cplusplus_header(text.encode())
    assert language_for_content("include/x.h", text.encode()) == "cpp"


@pytest.mark.parametrize("text", C)
def test_c_constructs_and_names(text: str) -> None:
    assert not is_cplusplus_header(text.encode())
    assert language_for_content("src/x.H", text.encode()) == "c"


@given(
    marker=st.sampled_from(MARKERS),
    hiding=st.sampled_from(["// {}\n", "/* {}\n */", '"{}"', "#define M(x) \\\n  {}\n", "/* {}"]),
    before=st.sampled_from(["", "int a;\n", "#include <stdio.h>\n"]),
    after=st.sampled_from(["", "\nint b(void);\n", "\n#define N 1\n"]),
)
def test_a_marker_in_a_comment_literal_or_macro_body_does_not_count(
    marker: str, hiding: str, before: str, after: str
) -> None:
    """Comments, literals and `#define` bodies are removed before the markers are looked for (a doc
    comment saying `class Foo {` is no class); the same marker outside them is C++."""
    assert not is_cplusplus_header((before + hiding.format(marker) + after).encode())
    assert is_cplusplus_header((before + marker + "\n" + after).encode())


def test_only_h_headers_are_decided_by_content() -> None:
    cpp = b"namespace a {\n}\n"
    assert language_for_content("a.c", cpp) == "c"  # a .c file is C whatever it holds
    assert language_for_content("a.hpp", b"int f(void);\n") == "cpp"
    assert language_for_content("a.py", cpp) == "python"

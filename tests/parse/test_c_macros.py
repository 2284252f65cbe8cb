"""Attribute-like macros hidden from the C/C++ grammar: where they stand, what they never touch."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.parse.c_macros import blank_attribute_macros
from lazy_intel.parse.extract import extract_facts

BLANKED = [
    ("FMT_CONSTEXPR void set(T* p) noexcept {}", "FMT_CONSTEXPR"),
    ("FMT_API FMT_INLINE auto f() -> int;", "FMT_API FMT_INLINE"),
    ("class FMT_API format_error : public std::runtime_error {};", "FMT_API"),
    ("struct GTEST_API_ ConstCharPtr {\n};", "GTEST_API_"),
    ("class buffer {\n FMT_CONSTEXPR20 buffer(int g) : g_(g) {}\n};", "FMT_CONSTEXPR20"),
    ("class buffer {\n FMT_CONSTEXPR20 ~buffer();\n};", "FMT_CONSTEXPR20"),
    ("FMT_API std::string vformat(string_view f);", "FMT_API"),
    ("GTEST_API_ ::std::string FormatFileLocation(const char* file);", "GTEST_API_"),
    ("FMT_BEGIN_NAMESPACE\nnamespace detail {\n}\n", "FMT_BEGIN_NAMESPACE"),
    ("class W {\n  Q_OBJECT\npublic:\n  W();\n};", "Q_OBJECT"),
    ("void f() FMT_NOEXCEPT {\n}", "FMT_NOEXCEPT"),
    ("int f(void)\n    _ASN1_GCC_ATTR_DEPRECATED;\n", "_ASN1_GCC_ATTR_DEPRECATED"),
    ("virtual void f() const FOO_OVERRIDE = 0;", "FOO_OVERRIDE"),
    ("extern LZMA_API int lzma_code(void);", "LZMA_API"),
    # lua: after `const`, and before a name kept in parentheses from a function-like macro
    ("LUA_API const char *(lua_pushstring) (lua_State *L, const char *s);", "LUA_API"),
    ("LUA_API lua_Number (lua_tonumberx) (lua_State *L, int idx, int *isnum);", "LUA_API"),
    ("LUAI_FUNC const TValue *luaH_getint (Table *t, lua_Integer key);", "LUAI_FUNC"),
]
KEPT = [
    '#define FMT_API __attribute__((visibility("default")))\n#define X \\\n  FMT_API void\n',
    "x = (size_t) SIZE_MAX;",
    "if (x) BREAK;",
    "enum {\n  A,\n  LAST_NP\n#if X\n  , B\n#endif\n};",
    "enum { RED,\n  GREEN,\n  BLUE\n};",
    "FILE const *f;",
    "DWORD GetValue(void);",
    "LPCSTR WINAPI GetName(int);",  # two candidates: neither is known to be the macro
    "struct FOO_T x;",
    "x = MAX_LEN * count;",
    'return FMT_ASSERT(x, "");',
    "a.FOO_BAR void; p->FOO_BAR; ns::FOO_BAR void;",
    "template <typename T, typename U> T f(U u);",
]


@pytest.mark.parametrize(("text", "macros"), BLANKED)
def test_blanked_where_a_type_cannot_stand(text: str, macros: str) -> None:
    out = blank_attribute_macros(text.encode()).decode()
    expected = text
    for macro in macros.split():
        expected = expected.replace(macro, " " * len(macro), 1)
    assert out == expected


@pytest.mark.parametrize("text", KEPT)
def test_kept_where_it_may_be_code(text: str) -> None:
    assert blank_attribute_macros(text.encode()) == text.encode()


_WORDS = ["FMT_API", "A_B_C", "_X_Y", "NULL", "void", "int", "class", "Foo", "foo", "x", "T", "std::string"]
_PUNCT = [
    " ",
    "  ",
    "\n",
    "\n#define M ",
    "\\\n",
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    "::",
    "->",
    "= 0",
    "// c\n",
    "/* c */",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_WORDS + _PUNCT), max_size=40))
def test_only_whole_capital_words_become_spaces(parts: list[str]) -> None:
    """Whatever the input: the length is kept, every changed byte is a space standing where a whole
    candidate word stood, preprocessor lines are untouched, and a second pass changes nothing more
    than the first did on what is left."""
    source = "".join(parts).encode()
    out = blank_attribute_macros(source)
    assert len(out) == len(source)
    words = [m.span() for m in re.finditer(rb"(?<![\w])_*[A-Z][A-Z0-9_]{2,}(?!\w)", source)]
    for index, (before, after) in enumerate(zip(source, out, strict=True)):
        if before != after:
            assert after == ord(" ")
            span = next(s for s in words if s[0] <= index < s[1])
            assert out[span[0] : span[1]] == b" " * (span[1] - span[0])  # the whole word goes
    for line_in, line_out in zip(source.split(b"\n"), out.split(b"\n"), strict=True):
        if line_in.lstrip().startswith(b"#"):
            assert line_in == line_out


def test_long_runs_of_capitals_stay_linear() -> None:
    """A pattern with two ways to match a word backtracked exponentially over runs of capitals
    (curses.h's `NCURSES_EXPORT_VAR` lines hung the parse): these finish only if it does not."""
    run = " ".join(["AAAAAAAAAA_BBBBBBBBBB"] * 40)
    for tail in ("", " x", " (", " {", " ;"):
        source = (run + tail).encode() * 4
        assert len(blank_attribute_macros(source)) == len(source)


HEADER = b"""#define FMT_CONSTEXPR constexpr
#define FMT_API __attribute__((visibility("default")))
FMT_BEGIN_NAMESPACE
namespace detail {
template <typename T> class buffer {
 protected:
  FMT_CONSTEXPR buffer(int grow, int sz) noexcept : size_(sz), grow_(grow) {}
 public:
  FMT_CONSTEXPR void push_back(const T& value) {}
  FMT_CONSTEXPR20 ~buffer() = default;
 private:
  int size_;
  int grow_;
};
}  // namespace detail
class FMT_API format_error {
 public:
  FMT_API const char* what() const noexcept;
};
FMT_END_NAMESPACE
"""


def test_a_macro_laden_header_keeps_its_classes() -> None:
    """fmt's `buffer`: before, the constructor's macro ended the class at its initializer list and
    `detail.buffer` was no definition; its members were top-level functions."""
    facts = extract_facts("include/fmt/base.h", "cpp", HEADER)
    names = {s.qualified_name: s for s in facts.symbols}
    assert {"detail.buffer", "detail.buffer.push_back", "detail.buffer.~buffer", "format_error.what"} <= set(
        names
    )
    assert names["detail.buffer"].kind == "class"
    # read from the file as written: a definition starts at the macros on its line, as at `static`
    push_back = names["detail.buffer.push_back"]
    assert push_back.signature == "FMT_CONSTEXPR void push_back(const T& value)"
    assert push_back.start_byte == HEADER.index(b"FMT_CONSTEXPR void push_back")
    assert names["format_error.what"].signature.startswith("FMT_API const char* what()")

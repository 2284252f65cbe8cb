"""A call guessed by name lands only on a definition its language can run that way.

Found on Django and fastapi: `x._meta.get_field(…)` (716 calls) and `err.get("loc")` were shared
among the project's methods *and* a test's local helper (`def test_…(): def get_field(…)`), a
function nested in a function that nothing outside it can call; ripgrep's `s.replace(…)` had 48 guessed
edges to `fn replace` of a `mod tests`. A `function` with a parent is no member in Python, Rust and
Go (their members are `method`s), and Python's is visible only inside its function. JavaScript's
`obj.f = function …` inside a function is such a definition too and stays a member there.
"""

from __future__ import annotations

from lazy_intel.graph.traits import TRAITS
from tests.graph.helpers import build_graph

NESTED = {
    "pkg/__init__.py": "",
    "pkg/models.py": "class Options:\n    def get_field(self, name):\n        return name\n",
    "pkg/tests.py": (
        "def test_local():\n    def get_field(name):\n        return name\n    return get_field('a')\n"
    ),
    "pkg/use.py": (
        "def go(model):\n    model._meta.get_field('x')\n    return get_field('y')\n\n"
        "def only_nested(x):\n    return x.helper_only_nested()\n\n"
        "def outer():\n    def helper_only_nested():\n        return 1\n    return helper_only_nested()\n"
    ),
    "src/lib.rs": (
        "pub struct Text;\nimpl Text {\n    pub fn replace(&self) -> u8 { 1 }\n}\n"
        "pub fn go(t: u8, s: &str) -> u8 {\n    s.replace(t)\n}\n"
        "mod tests {\n    fn replace() {}\n    fn only_here() {}\n"
        "    fn use_it(s: &str) { s.only_here(); only_here(); }\n}\n"
    ),
    "web/lib.js": (
        "export function makeApp(app) {\n  app.handle = function handle(req) { return req; };\n"
        "  function local() { return 1; }\n  return local();\n}\n"
        "export function use(server, thing) {\n  server.handle(1);\n  return thing.local();\n}\n"
    ),
}


def test_a_name_guess_never_lands_on_a_nested_or_module_function_as_a_member(tmp_path) -> None:
    graph = build_graph(tmp_path, NESTED)
    calls = graph.resolved("CALLS")
    # Python: the member call is the methods' only, the bare call no guess at all
    go = graph.of("CALLS", "pkg/use.py::go")
    assert {(e.target, e.dst) for e in go} == {
        ("model._meta.get_field", "pkg/models.py::Options.get_field"),
        ("get_field", None),  # a bare name is no method either (below)
    }
    assert not {dst for src, dst in calls if src == "pkg/use.py::only_nested"}
    # each nested function is still what its own function calls, by scope
    assert calls[("pkg/tests.py::test_local", "pkg/tests.py::test_local.get_field")] == "local"
    assert calls[("pkg/use.py::outer", "pkg/use.py::outer.helper_only_nested")] == "local"
    # Rust: `s.replace(…)` is the impl's method only, a `mod` function no member
    assert {dst for src, dst in calls if src == "src/lib.rs::go"} == {"src/lib.rs::Text.replace"}
    use_it = {dst for src, dst in calls if src == "src/lib.rs::tests.use_it"}
    assert use_it == {"src/lib.rs::tests.only_here"}  # the bare call, by its module's scope
    # JavaScript: a member function assigned inside a function stays a member (its nested
    # `function local` is guessed too: the extraction does not tell the two apart, a known limit)
    js = {dst for src, dst in calls if src == "web/lib.js::use"}
    assert "web/lib.js::makeApp.handle" in js


def test_the_languages_that_say_so_are_those_whose_members_are_methods() -> None:
    """The two flags are set where the extraction makes every member a `method` (the container kinds
    of parse/extract.py), and not for JavaScript, whose member assignments are functions."""
    assert {lang for lang, t in TRAITS.items() if t.parented_functions_not_members} == {
        "python",
        "rust",
        "go",
    }
    assert {lang for lang, t in TRAITS.items() if t.nested_functions_local} == {"python"}


# A method, and a call of its name bare from outside any class: one file per language.
BARE = {
    "python": (
        "py",
        "class T:\n    def lonely_m(self):\n        return 1\n\ndef use():\n    return lonely_m()\n",
    ),
    "javascript": (
        "js",
        "class T {\n  lonelyM() { return 1; }\n}\nexport function use() {\n  return lonelyM();\n}\n",
    ),
    "typescript": (
        "ts",
        "class T {\n  lonelyM(): number { return 1; }\n}\nexport function use() {\n  return lonelyM();\n}\n",
    ),
    "go": (
        "go",
        "package p\n\ntype T struct{}\n\nfunc (t T) LonelyM() int { return 1 }\n\nfunc Use() int { return LonelyM() }\n",
    ),
    "rust": (
        "rs",
        "pub struct T;\nimpl T {\n    pub fn lonely_m(&self) -> u8 { 1 }\n}\npub fn use_it() -> u8 { lonely_m() }\n",
    ),
    "php": (
        "php",
        "<?php\nclass T {\n    function lonelyM() { return 1; }\n}\nfunction useIt() { return lonelyM(); }\n",
    ),
    # members need no receiver here: a bare name in a method may be an inherited member, so guessed
    "ruby": (
        "rb",
        "class T\n  def lonely_m\n    1\n  end\nend\n\nclass U\n  def use\n    lonely_m()\n  end\nend\n",
    ),
    "java": (
        "java",
        "class T {\n  int lonelyM() { return 1; }\n}\nclass U {\n  int use() { return lonelyM(); }\n}\n",
    ),
}


def test_a_bare_call_is_guessed_to_a_method_only_where_members_need_no_receiver(tmp_path) -> None:
    """`lonely_m()` from outside any class: in Python, JavaScript, TypeScript, Go, Rust and PHP a
    method is called through its receiver (`self.`, `this.`, `t.`, `$this->`), so a bare call is never
    one; in Ruby and Java a bare name in a method may be a member (inherited from a class the index
    cannot see), so the guess stays."""
    files = {f"{lang}/m.{ext}": text for lang, (ext, text) in BARE.items()}
    graph = build_graph(tmp_path, files)
    for lang, (ext, _) in BARE.items():
        path = f"{lang}/m.{ext}"
        guessed = {
            e.dst for e in graph.edges if e.type == "CALLS" and e.src.startswith(path + "::") and e.dst
        }
        if TRAITS[lang].implicit_members:
            assert guessed == {f"{path}::T." + ("lonely_m" if lang == "ruby" else "lonelyM")}, lang
        else:
            assert not guessed, (lang, guessed)


CRATE_MACROS = {
    "crates/printer/src/lib.rs": "#[macro_use]\nmod macros;\nmod standard;\n",
    "crates/printer/src/macros.rs": "macro_rules! assert_eq_printed {\n    ($a:expr) => { $a };\n}\n",
    "crates/printer/src/standard.rs": "fn check() {\n    assert_eq_printed!(1);\n}\n",
    "crates/searcher/src/lib.rs": "#[macro_use]\nmod macros;\nmod search;\n",
    "crates/searcher/src/macros.rs": "macro_rules! assert_eq_printed {\n    ($a:expr) => { $a };\n}\n",
    "crates/searcher/src/search.rs": "fn check() {\n    assert_eq_printed!(2);\n}\n",
    "crates/other/src/lib.rs": "fn check() {\n    assert_eq_printed!(3);\n}\n",
}


def test_a_rust_macro_is_guessed_in_its_own_crate_first(tmp_path) -> None:
    """ripgrep's printer and searcher crates each define `assert_eq_printed!` (188 guessed edges, every
    call shared between the two): a `macro_rules!` macro is seen in its own crate, so the caller's
    crate's is the guess; a crate with none keeps every candidate."""
    graph = build_graph(tmp_path, CRATE_MACROS)
    calls = graph.resolved("CALLS")
    for crate, caller in (("printer", "standard"), ("searcher", "search")):
        own = {dst for src, dst in calls if src == f"crates/{crate}/src/{caller}.rs::check"}
        assert own == {f"crates/{crate}/src/macros.rs::assert_eq_printed"}, crate
    other = {dst for src, dst in calls if src == "crates/other/src/lib.rs::check"}
    assert len(other) == 2

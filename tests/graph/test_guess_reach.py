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
    go = {dst for src, dst in calls if src == "pkg/use.py::go"}
    assert go == {"pkg/models.py::Options.get_field"}
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

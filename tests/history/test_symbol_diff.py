"""Definition-level diffs of two versions of a file, on real tree-sitter parses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.history.symbol_diff import diff_file

BASE = (
    "import os\n\n"
    "class Session:\n"
    "    timeout = 3\n\n"
    "    def get(self, url):\n"
    "        return url\n\n"
    "    def post(self, url):\n"
    "        return url\n\n\n"
    "def helper(x):\n"
    "    return x + 1\n"
)

ALL = ("Session", "Session.timeout", "Session.get", "Session.post", "helper")


def changes(old: str | None, new: str | None, path: str = "m.py") -> set[tuple[str, str]]:
    diff = diff_file(
        path, old.encode() if old is not None else None, new.encode() if new is not None else None
    )
    return {(c.change, c.qualified_name) for c in diff.symbols}


def test_an_edit_inside_a_method_changes_the_method_only() -> None:
    new = BASE.replace("        return url\n\n    def post", "        return url.strip()\n\n    def post")
    assert changes(BASE, new) == {("modified", "Session.get")}
    assert not diff_file("m.py", BASE.encode(), new.encode()).module_changed


def test_class_attribute_and_header_changes() -> None:
    assert changes(BASE, BASE.replace("timeout = 3", "timeout = 5")) == {("modified", "Session.timeout")}
    assert ("modified", "Session") in changes(BASE, BASE.replace("class Session:", "class Session(object):"))


def test_added_deleted_and_moved_definitions() -> None:
    added = BASE + "\n\ndef extra():\n    return 0\n"
    assert changes(BASE, added) == {("added", "extra")}
    assert changes(BASE, BASE.replace("    def post(self, url):\n        return url\n\n", "")) == {
        ("deleted", "Session.post")
    }
    moved = "\n\n\n" + BASE  # every definition moves down: nothing changed but positions
    assert changes(BASE, moved) == set()
    assert changes(None, BASE) == {("added", n) for n in ALL}
    assert changes(BASE, None) == {("deleted", n) for n in ALL}


def test_module_level_code_is_told_apart() -> None:
    diff = diff_file("m.py", BASE.encode(), BASE.replace("import os", "import sys").encode())
    assert diff.module_changed and diff.symbols == ()


def test_unparsed_languages_compare_bytes_only() -> None:
    diff = diff_file("notes.txt", b"a\n", b"b\n")
    assert not diff.parsed and diff.module_changed and diff.symbols == ()


def test_repeated_names_are_matched_by_occurrence() -> None:
    old = "if X:\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n"
    new = old.replace("return 2", "return 3")
    diff = diff_file("m.py", old.encode(), new.encode())
    assert [(c.change, c.qualified_name, c.new.start_line) for c in diff.symbols if c.new] == [
        ("modified", "f", 5)
    ]


BODIES = st.lists(
    st.sampled_from(["return 1", "return x", "y = 2\n    return y", "pass"]), min_size=1, max_size=6
)


@settings(max_examples=40, deadline=None)
@given(BODIES, st.data())
def test_editing_one_function_reports_exactly_that_function(bodies: list[str], data: st.DataObject) -> None:
    def render(parts: list[str]) -> str:
        return "".join(f"def f{i}(x):\n    {body}\n\n\n" for i, body in enumerate(parts))

    index = data.draw(st.integers(0, len(bodies) - 1))
    replacement = data.draw(st.sampled_from(["return 42", "return -x", "z = 3\n    return z"]))
    edited = list(bodies)
    edited[index] = replacement
    expected = {("modified", f"f{index}")} if replacement != bodies[index] else set()
    assert changes(render(bodies), render(edited)) == expected
    assert changes(render(bodies), render(bodies)) == set()

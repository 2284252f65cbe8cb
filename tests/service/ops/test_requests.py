"""A symbol written with the file it is defined in (``requests.split_symbol_location``).

Agents copy a test's pytest node id (``tests/test_x.py::TestA::test_b[1-2]``) or write
``path/file.py:Class.method``; both were read as one dotted name (``tests/test_x.py.TestA.test_b``)
and answered ``NOT_FOUND`` by every operation that takes a symbol. ``tests/service/ops/
test_symbol_names.py`` asks for every extracted symbol of eleven languages in both forms.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.errors import InvalidArgument
from lazy_intel.service.ops.operations import OPERATIONS
from lazy_intel.service.ops.requests import parse_request, split_symbol_location
from lazy_intel.settings import load_settings

IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
PATHS = st.builds(
    lambda parts, ext: "/".join(parts) + "." + ext,
    st.lists(st.text(string.ascii_lowercase, min_size=1, max_size=6), min_size=1, max_size=3),
    st.sampled_from(("py", "ts", "go", "rs", "java", "rb", "cpp", "kt")),
)


@given(PATHS, st.lists(IDENT, min_size=1, max_size=3), st.sampled_from(("", "[1-2]", "[a b]")))
def test_a_node_id_names_its_file_and_its_dotted_symbol(path: str, parts: list[str], params: str) -> None:
    assert split_symbol_location(f"{path}::{'::'.join(parts)}{params}") == (path, ".".join(parts))
    assert split_symbol_location(f"{path}:{'.'.join(parts)}") == (path, ".".join(parts))
    assert split_symbol_location(f"./{path}::{parts[0]}") == (path, parts[0])


@given(st.lists(IDENT, min_size=1, max_size=4))
def test_names_without_a_file_are_unchanged(parts: list[str]) -> None:
    for written in (".".join(parts), "::".join(parts), "#".join(parts)):
        assert split_symbol_location(written) == (None, written)


def test_entry_points_and_locations() -> None:
    assert split_symbol_location("django.core.management:call_command") == (
        None,
        "django.core.management.call_command",
    )
    assert split_symbol_location("pkg/core.py:17") == (None, "pkg/core.py:17")  # a line, not a name
    assert split_symbol_location("notes.md:Intro") == (None, "notes.md:Intro")  # no symbols in a .md


def _parse(**args: object):  # type: ignore[no-untyped-def]
    return parse_request({"operation": "symbol", **args}, load_settings(env={}), operations=tuple(OPERATIONS))


def test_the_request_carries_the_file_as_relative_path() -> None:
    request = _parse(symbol="pkg/core.py::Child::step")
    assert (request.symbol, request.relative_path) == ("Child.step", "pkg/core.py")
    same = _parse(symbol="pkg/core.py:Child.step", relativePath="./pkg/core.py")
    assert (same.symbol, same.relative_path) == ("Child.step", "./pkg/core.py")
    with pytest.raises(InvalidArgument) as caught:
        _parse(symbol="pkg/core.py::helper", relativePath="pkg/web.py")
    assert caught.value.code == "INVALID_ARGUMENT" and "pkg/web.py" in caught.value.message

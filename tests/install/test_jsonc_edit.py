"""The span-preserving JSON/JSONC editor: edits touch only their own bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.errors import InvalidArgument
from lazy_intel.install import jsonc_edit

ENTRY = {"type": "stdio", "command": "/opt/bin/lazy-intel", "args": ["serve"]}
PATH = ("mcpServers", "lazy-intel")


def ours(key: str, _value: object) -> bool:
    return key == "lazy-intel"


def assert_only_inserted(before: str, after: str) -> str:
    """``after`` is ``before`` with one contiguous insertion; returns the inserted text."""
    prefix = 0
    while prefix < len(before) and before[prefix] == after[prefix]:
        prefix += 1
    suffix = len(before) - prefix
    assert after.endswith(before[prefix:]), "bytes after the insertion point changed"
    return after[prefix : len(after) - suffix]


def test_insert_into_existing_container_keeps_every_other_byte():
    before = '{\n    "mcpServers": {\n        "other": {"command": "x"}\n    },\n    "theme": "dark"\n}\n'
    after = jsonc_edit.set_path(before, PATH, ENTRY)
    inserted = assert_only_inserted(before, after)
    assert inserted.startswith(',\n        "lazy-intel": {\n            "type": "stdio"')
    assert json.loads(after) == {
        "mcpServers": {"other": {"command": "x"}, "lazy-intel": ENTRY},
        "theme": "dark",
    }


def test_missing_container_is_created_at_the_end_of_the_root():
    before = '{\n  "theme": "dark"\n}\n'
    after = jsonc_edit.set_path(before, PATH, ENTRY)
    assert_only_inserted(before, after)
    assert json.loads(after) == {"theme": "dark", "mcpServers": {"lazy-intel": ENTRY}}


@pytest.mark.parametrize("empty", ["{}", "{ }", "{\n}\n", "{\n\n  \n}"])
def test_empty_root(empty: str):
    after = jsonc_edit.set_path(empty, PATH, ENTRY)
    assert json.loads(after) == {"mcpServers": {"lazy-intel": ENTRY}}
    assert after.startswith('{\n  "mcpServers": {\n    "lazy-intel": {\n')


def test_replacing_an_existing_value_touches_only_that_value():
    before = '{\n  "mcpServers": {\n    "lazy-intel": {"command": "old"},\n    "z": 1\n  }\n}\n'
    after = jsonc_edit.set_path(before, PATH, ENTRY)
    start = before.index('{"command": "old"}')
    end = start + len('{"command": "old"}')
    assert after.startswith(before[:start]) and after.endswith(before[end:])
    assert json.loads(after)["mcpServers"] == {"lazy-intel": ENTRY, "z": 1}
    assert jsonc_edit.set_path(after, PATH, ENTRY) == after  # unchanged when equal


def test_jsonc_comments_trailing_commas_tabs_and_crlf_are_kept():
    before = (
        '// user settings\r\n{\r\n\t/* theme */ "theme": "one",\r\n'
        '\t"context_servers": {\r\n\t\t"other": {"command": "x"}, // keep me\r\n\t},\r\n}\r\n'
    )
    after = jsonc_edit.set_path(before, ("context_servers", "lazy-intel"), {"command": "c", "args": []})
    inserted = assert_only_inserted(before, after)
    assert inserted == '\r\n\t\t"lazy-intel": {\r\n\t\t\t"command": "c",\r\n\t\t\t"args": []\r\n\t\t},'
    assert "// keep me" in after and "/* theme */" in after
    root = jsonc_edit.parse(after)
    assert root.to_python()["context_servers"]["lazy-intel"] == {"command": "c", "args": []}


def test_compact_file_stays_compact():
    before = '{"mcpServers": {"a": {"command": "x"}}, "n": [1, 2]}'
    after = jsonc_edit.set_path(before, PATH, {"command": "c"})
    assert after == '{"mcpServers": {"a": {"command": "x"}, "lazy-intel": {"command": "c"}}, "n": [1, 2]}'


def test_non_object_container_value_is_replaced():
    after = jsonc_edit.set_path('{"mcpServers": null}', PATH, {"command": "c"})
    assert json.loads(after) == {"mcpServers": {"lazy-intel": {"command": "c"}}}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"a": 1,, "b": 2}', "line 1"),
        ('{\n  "a": 1\n  "b": 2\n}', "line 3"),
        ('{"a": "unterminated}', "unterminated string"),
        ("{'a': 1}", "double quotes"),
        ('{"a": 1} trailing', "after the top-level value"),
        ("/* never closed", "unterminated comment"),
        ('{"a": tru}', "unexpected character"),
    ],
)
def test_invalid_documents_are_refused_with_position(text: str, where: str):
    with pytest.raises(InvalidArgument) as err:
        jsonc_edit.set_path(text, PATH, ENTRY, source="cfg.json")
    assert "cfg.json" in err.value.message and where in err.value.message


def test_top_level_must_be_an_object():
    with pytest.raises(InvalidArgument):
        jsonc_edit.set_path("[1, 2]", PATH, ENTRY)


@pytest.mark.parametrize(
    "before",
    [
        '{\n  "mcpServers": {\n    "lazy-intel": {"command": "x"},\n    "b": 1\n  }\n}',
        '{\n  "mcpServers": {\n    "a": 1,\n    "lazy-intel": {"command": "x"},\n    "b": 1\n  }\n}',
        '{\n  "mcpServers": {\n    "a": 1,\n    "lazy-intel": {"command": "x"},\n  }\n}',
    ],
)
def test_delete_first_middle_and_trailing_comma_last(before: str):
    after = jsonc_edit.delete_members(before, ("mcpServers",), ours)
    parsed = jsonc_edit.parse(after).to_python()
    assert "lazy-intel" not in parsed["mcpServers"] and parsed["mcpServers"]
    assert '"lazy-intel"' not in after


def test_delete_keeps_comments_next_to_other_entries():
    before = '{\n  "mcpServers": {\n    // mine\n    "a": 1,\n    "lazy-intel": {}\n  }\n}'
    after = jsonc_edit.delete_members(before, ("mcpServers",), ours)
    assert after == '{\n  "mcpServers": {\n    // mine\n    "a": 1\n  }\n}'


def test_delete_prunes_emptied_parents():
    before = '{\n  "x": 1,\n  "mcpServers": {\n    "lazy-intel": {}\n  }\n}'
    assert jsonc_edit.delete_members(before, ("mcpServers",), ours, prune=1) == '{\n  "x": 1\n}'
    assert jsonc_edit.delete_members(before, ("mcpServers",), ours) == '{\n  "x": 1,\n  "mcpServers": {}\n}'


def test_array_append_and_delete_roundtrip():
    before = '{\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"command": "theirs"}]}\n    ]\n  }\n}\n'
    group = {"hooks": [{"type": "command", "command": "lazy-intel loop hook stop"}]}
    after = jsonc_edit.append_item(before, ("hooks", "Stop"), group)
    assert_only_inserted(before, after)
    assert jsonc_edit.parse(after).to_python()["hooks"]["Stop"][1] == group
    assert jsonc_edit.delete_items(after, ("hooks", "Stop"), lambda g: g == group, prune=2) == before


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "mcpServers"), json_values, max_size=5),
    servers=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "lazy-intel"), json_values, max_size=3),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    has_servers=st.booleans(),
)
def test_install_then_uninstall_restores_the_exact_bytes(doc, servers, indent, has_servers):
    if has_servers and servers:
        doc = {**doc, "mcpServers": servers}
    before = json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"
    after = jsonc_edit.set_path(before, PATH, ENTRY)
    assert json.loads(after) == {**doc, "mcpServers": {**doc.get("mcpServers", {}), "lazy-intel": ENTRY}}
    assert_only_inserted(before, after)
    restored = jsonc_edit.delete_members(after, ("mcpServers",), ours, prune=1)
    assert restored == before

"""Our own ``[mcp_servers.<name>]`` table in a Codex config.toml; every other byte is kept."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.errors import InvalidArgument
from lazy_intel.install import toml_edit

ENTRY = {"command": "/opt/bin/lazy-intel", "args": ["serve"], "env": {"LAZY_INTEL_ROOT": "/src/app"}}
TABLE = ("mcp_servers",)

CONFIG = """# Codex config
model = "o4-mini"  # trailing comment
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "o4-mini"
"""


def set_ours(text: str, remove: set[str] | None = None) -> str:
    return toml_edit.set_table(text, TABLE, "lazy-intel", ENTRY, remove=remove or set(), source="config.toml")


def test_install_appends_our_table_and_keeps_the_file_as_prefix():
    after = set_ours(CONFIG)
    assert after.startswith(CONFIG)
    assert after[len(CONFIG) :] == (
        '\n[mcp_servers.lazy-intel]\ncommand = "/opt/bin/lazy-intel"\nargs = ["serve"]\n'
        'env = { LAZY_INTEL_ROOT = "/src/app" }\n'
    )
    parsed = tomllib.loads(after)
    assert parsed["mcp_servers"]["lazy-intel"] == ENTRY
    assert parsed["mcp_servers"]["docs"]["command"] == "npx"
    assert set_ours(after) == after  # idempotent


def test_uninstall_restores_the_exact_bytes():
    after = set_ours(CONFIG)
    assert toml_edit.remove_entries(after, TABLE, {"lazy-intel"}, "config.toml") == CONFIG


def test_existing_entry_in_the_middle_with_subtable_is_replaced():
    before = (
        'model = "x"\n\n[mcp_servers.lazy-intel]\ncommand = "old"\n\n'
        '[mcp_servers.lazy-intel.env]\nA = "1"\n\n[mcp_servers.docs]\ncommand = "npx"\n'
    )
    after = set_ours(before)
    assert after.startswith('model = "x"\n\n[mcp_servers.docs]\ncommand = "npx"\n')
    parsed = tomllib.loads(after)
    assert parsed["mcp_servers"] == {"docs": {"command": "npx"}, "lazy-intel": ENTRY}


def test_legacy_entry_and_quoted_header_are_replaced():
    before = '[mcp_servers."lazy_intel"]\ncommand = "lazy-intel"\nargs = ["serve"]\n\n[other]\nx = 1\n'
    after = set_ours(before, {"lazy_intel"})
    parsed = tomllib.loads(after)
    assert parsed == {"other": {"x": 1}, "mcp_servers": {"lazy-intel": ENTRY}}
    assert after.startswith("[other]\nx = 1\n")


def test_header_lookalike_inside_multiline_string_is_not_a_header():
    before = 'notes = """\n[mcp_servers.lazy-intel]\nnot a table\n"""\n'
    after = set_ours(before)
    assert after.startswith(before)
    assert tomllib.loads(after)["notes"] == "[mcp_servers.lazy-intel]\nnot a table\n"


@pytest.mark.parametrize(
    "before",
    [
        'mcp_servers = { lazy-intel = { command = "old" } }\n',
        '[mcp_servers]\nlazy-intel.command = "old"\n',
    ],
)
def test_forms_this_writer_does_not_rewrite_are_refused(before: str):
    with pytest.raises(InvalidArgument) as err:
        set_ours(before)
    assert "by hand" in (err.value.next_step or "")


def test_invalid_toml_is_refused():
    with pytest.raises(InvalidArgument) as err:
        set_ours("model = \n")
    assert "not valid TOML" in err.value.message


def test_empty_file_gets_just_our_table():
    assert tomllib.loads(set_ours("")) == {"mcp_servers": {"lazy-intel": ENTRY}}


def test_crlf_file_keeps_crlf():
    before = 'model = "x"\r\n'
    after = set_ours(before)
    assert after.startswith(before) and "\r\n[mcp_servers.lazy-intel]\r\n" in after
    assert toml_edit.remove_entries(after, TABLE, {"lazy-intel"}, "c") == before


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_strings_are_escaped_so_they_read_back(value: str):
    assert tomllib.loads(f"k = {toml_edit.toml_string(value)}")["k"] == value

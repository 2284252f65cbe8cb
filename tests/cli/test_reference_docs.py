"""docs/reference.md documents every loop/install command, loop setting and loop error code."""

from __future__ import annotations

import re
from pathlib import Path

import click

from lazy_intel.cli.install_cmds import COMMANDS as INSTALL_COMMANDS
from lazy_intel.cli.loop_cmds import COMMANDS as LOOP_COMMANDS
from lazy_intel.errors import LOOP_GATE_CODES
from lazy_intel.settings import SETTINGS

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def command_paths(command: click.Command, prefix: tuple[str, ...] = ()) -> list[str]:
    path = (*prefix, command.name or "")
    if isinstance(command, click.Group):
        return [p for sub in command.commands.values() for p in command_paths(sub, path)]
    return [" ".join(path)]


def section(text: str, title: str) -> str:
    match = re.search(rf"^## {title}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no '## {title}' section"
    return match.group(1)


def test_commands_have_headings():
    commands = section(REFERENCE.read_text(), "Commands")
    headings = set(re.findall(r"^### lazy-intel (.+)$", commands, re.M))
    for command in [*LOOP_COMMANDS, *INSTALL_COMMANDS]:
        for path in command_paths(command):
            assert path in headings, f"`lazy-intel {path}` is not documented"


def test_loop_settings_are_in_the_settings_table():
    table = section(REFERENCE.read_text(), "Settings")
    for setting in SETTINGS:
        if setting.env.startswith("LAZY_INTEL_LOOP_"):
            row = re.search(rf"^\| `{setting.env}` \|.*$", table, re.M)
            assert row, f"{setting.env} is not documented"
            assert f"`{setting.default}`" in row.group(0)


def test_loop_error_codes_are_documented():
    text = REFERENCE.read_text()
    for code in LOOP_GATE_CODES:
        assert f"`{code}`" in text, code

"""docs/reference.md documents every command, operation, error code and setting."""

from __future__ import annotations

from pathlib import Path

import click

from lazy_intel.cli.main import main
from lazy_intel.errors import ERROR_CODES
from lazy_intel.service.ops.operations import OPERATIONS
from lazy_intel.settings import SETTINGS, render_settings_table

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference.md"


def command_paths(group: click.Group, prefix: str = "lazy-intel") -> list[str]:
    out: list[str] = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        out.append(path)
        if isinstance(command, click.Group):
            out.extend(command_paths(command, path))
    return out


def test_every_cli_command_is_documented() -> None:
    text = REFERENCE.read_text()
    missing = [p for p in command_paths(main) if f"### {p}\n" not in text]
    assert not missing, f"undocumented commands: {missing}"


def test_every_operation_is_documented() -> None:
    text = REFERENCE.read_text()
    missing = [op for op in OPERATIONS if f"### {op}\n" not in text]
    assert not missing, f"undocumented operations: {missing}"


def test_every_error_code_is_documented() -> None:
    text = REFERENCE.read_text()
    assert not [c for c in ERROR_CODES if f"| `{c}` |" not in text]


def test_settings_table_matches_the_code() -> None:
    text = REFERENCE.read_text()
    block = text.split("<!-- settings:begin -->\n", 1)[1].split("\n<!-- settings:end -->", 1)[0]
    assert block == render_settings_table(), (
        "regenerate: python -c 'from lazy_intel.settings import render_settings_table as r; print(r())'"
    )
    for setting in SETTINGS:
        assert f"`{setting.env}`" in text

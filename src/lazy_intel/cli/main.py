"""Entry point: the ``lazy-intel`` click group. Commands live in sibling modules and are added here.

A command's module is imported only when that command runs (or when the whole list is needed:
``--help``, the docs test): ``lazy-intel --version`` and a ``search`` must not pay for importing the
language-server types, the MCP SDK or NumPy (issue 14: CLI start <= 0.3 s).
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any

import click

from lazy_intel import __version__
from lazy_intel.errors import LazyIntelError
from lazy_intel.settings import load_settings

# Command name -> the module that defines it; each module exposes ``COMMANDS`` (a list of click
# commands or groups). ``tests/cli/test_cli.py`` checks that this table matches those lists.
COMMAND_MODULES: dict[str, str] = {
    "index": "lazy_intel.cli.index_cmds",
    "search": "lazy_intel.cli.index_cmds",
    "symbol": "lazy_intel.cli.index_cmds",
    "status": "lazy_intel.cli.index_cmds",
    "repair": "lazy_intel.cli.index_cmds",
    "verify": "lazy_intel.cli.index_cmds",
    "serve": "lazy_intel.cli.serve_cmd",
    "doctor": "lazy_intel.cli.doctor_cmd",
    "loop": "lazy_intel.cli.loop_cmds",
    "install": "lazy_intel.cli.install_cmds",
    "uninstall": "lazy_intel.cli.install_cmds",
    "lsp": "lazy_intel.cli.lsp_cmds",
    "callers": "lazy_intel.cli.graph_cmds",
    "callees": "lazy_intel.cli.graph_cmds",
    "references": "lazy_intel.cli.graph_cmds",
    "implementations": "lazy_intel.cli.graph_cmds",
    "impact": "lazy_intel.cli.graph_cmds",
    "architecture": "lazy_intel.cli.graph_cmds",
    "routes": "lazy_intel.cli.graph_cmds",
    "context": "lazy_intel.cli.graph_cmds",
    "auto": "lazy_intel.cli.graph_cmds",
    "changes": "lazy_intel.cli.graph_cmds",
    "query": "lazy_intel.cli.query_cmd",
    "ui": "lazy_intel.cli.ui_cmd",
}


def configure_logging(level: str | None = None) -> None:
    """Entry points only: logs go to stderr (stdout belongs to answers and to MCP in ``serve``)."""
    try:
        wanted = level or load_settings().log_level
    except LazyIntelError:
        wanted = "WARNING"
    logging.basicConfig(
        level=getattr(logging, str(wanted).upper(), logging.WARNING),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


class LazyGroup(click.Group):
    """A group whose commands are imported from :data:`COMMAND_MODULES` on first use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()

    def _load(self, module_name: str) -> None:
        if module_name in self._loaded:
            return
        self._loaded.add(module_name)
        module = importlib.import_module(module_name)
        for command in module.COMMANDS:
            self._commands[command.name] = command

    def _load_all(self) -> None:
        for module_name in dict.fromkeys(COMMAND_MODULES.values()):
            self._load(module_name)

    # click reads ``self.commands`` directly in places (and the tests walk it): load everything then
    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        self._load_all()
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = dict(value)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = COMMAND_MODULES.get(cmd_name)
        if module_name is None:
            return None
        self._load(module_name)
        return self._commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)


@click.group(
    cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.version_option(__version__, prog_name="lazy-intel")
def main() -> None:
    """Local code intelligence for AI coding agents: index, search, symbols, evidence."""
    configure_logging()

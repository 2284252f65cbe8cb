"""Entry point: the ``lazy-intel`` click group. Commands live in sibling modules and are added here."""

from __future__ import annotations

import importlib
import logging
import sys

import click

from lazy_intel import __version__
from lazy_intel.errors import LazyIntelError
from lazy_intel.settings import load_settings

# Modules that define commands; each exposes ``COMMANDS`` (a list of click commands or groups).
COMMAND_MODULES: tuple[str, ...] = (
    "lazy_intel.cli.index_cmds",
    "lazy_intel.cli.serve_cmd",
    "lazy_intel.cli.doctor_cmd",
    "lazy_intel.cli.loop_cmds",
    "lazy_intel.cli.install_cmds",
    "lazy_intel.cli.lsp_cmds",
    "lazy_intel.cli.graph_cmds",
    "lazy_intel.cli.query_cmd",
    "lazy_intel.cli.ui_cmd",
)


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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="lazy-intel")
def main() -> None:
    """Local code intelligence for AI coding agents: index, search, symbols, evidence."""
    configure_logging()


def _register() -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        for command in module.COMMANDS:
            main.add_command(command)


_register()

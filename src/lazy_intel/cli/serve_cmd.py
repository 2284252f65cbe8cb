"""``lazy-intel serve``: MCP over stdio. Nothing but protocol is written to stdout."""

from __future__ import annotations

import os

import anyio
import click

from lazy_intel.settings import load_settings


@click.command("serve")
@click.option(
    "--root", default=None, help="Default workspace root (else LAZY_INTEL_ROOT, else the current directory)."
)
def serve_command(root: str | None) -> None:
    """Run the MCP server (one tool, code_intel) on stdin/stdout until the client goes away."""
    from lazy_intel.mcp.server import serve_stdio

    settings = load_settings()
    default_root = root or settings.root or os.getcwd()
    anyio.run(serve_stdio, settings, default_root)


COMMANDS: list[click.Command] = [serve_command]

"""``lazy-intel serve``: MCP over stdio. Nothing but protocol is written to stdout."""

from __future__ import annotations

import multiprocessing
import os

import anyio
import click

from lazy_intel.settings import load_settings


@click.command("serve")
@click.option(
    "--root", default=None, help="Default workspace root (else LAZY_INTEL_ROOT, else the current directory)."
)
def serve_command(root: str | None) -> None:
    """Run the MCP server (one tool, code_intel) on stdin/stdout until the client goes away.

    It watches each open root and publishes changes in the background; when stdin closes it stops
    every watcher and sync, releases its writer locks and exits, leaving no child process behind.
    """
    from lazy_intel.mcp.server import serve_stdio
    from lazy_intel.service.parse_pool import terminate_parse_pools

    settings = load_settings()
    default_root = root or settings.root or os.getcwd()
    try:
        anyio.run(serve_stdio, settings, default_root)
    finally:
        terminate_parse_pools()
        for child in multiprocessing.active_children():
            child.terminate()


COMMANDS: list[click.Command] = [serve_command]

"""``lazy-intel serve``: MCP over stdio. Nothing but protocol is written to stdout."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys

import anyio
import click

from lazy_intel.settings import load_settings


@click.command("serve")
@click.option(
    "--root", default=None, help="Default workspace root (else LAZY_INTEL_ROOT, else the current directory)."
)
@click.option(
    "--lsp-config",
    default=None,
    help="Operator-reviewed code-intel-config.v1 file (else LAZY_INTEL_LSP_CONFIG).",
)
@click.option(
    "--store",
    default=None,
    help="Where the index lives: a postgresql:// URL for a shared PostgreSQL store (LAZY_INTEL_STORE).",
)
def serve_command(root: str | None, lsp_config: str | None, store: str | None) -> None:
    """Run the MCP server (one tool, code_intel) on stdin/stdout until the client goes away.

    It watches each open root and publishes changes in the background; when stdin closes it stops
    every watcher and sync, closes the language servers, releases its writer locks and exits,
    leaving no child process behind.
    """
    from lazy_intel.allocator import bound_malloc, bounds_from_settings, forget_reexec, reexec_under_malloc

    if store is not None:
        os.environ["LAZY_INTEL_STORE"] = store
    settings = load_settings()
    # first, before the heavy imports and any thread: returns only when no restart is needed
    reexec_under_malloc(settings.serve_allocator)
    forget_reexec()  # the restarted server's children start with Python's own allocator
    bound_malloc(bounds_from_settings(settings))  # before any thread starts

    from lazy_intel.mcp.server import serve_stdio
    from lazy_intel.semantic import SemanticLayer
    from lazy_intel.service.indexing.parse_pool import terminate_parse_pools

    default_root = root or settings.root or os.getcwd()
    semantic = SemanticLayer.from_settings(settings, config_path=lsp_config)
    try:
        anyio.run(serve_stdio, settings, default_root, semantic)
    finally:
        terminate_parse_pools()
        for child in multiprocessing.active_children():
            child.terminate()
        _quiet_stdout()


def _quiet_stdout() -> None:
    """A client that closed its end of stdout must not turn the interpreter's final flush into a
    traceback: point stdout at the null device when it is a broken pipe."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError, OSError):
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())


COMMANDS: list[click.Command] = [serve_command]

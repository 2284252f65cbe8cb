"""``lazy-intel ui``: the published view as a local web page (see :mod:`lazy_intel.ui.server`).

It prints the page's address (with the run's token) on stdout — or, with ``--json``, one JSON line
``{url, host, port, token, root}`` — and serves until Ctrl-C or SIGTERM. With ``--watch`` (the
default) it also watches the root and publishes changes as ``serve`` does; when another process owns
publication, it only reads what that process publishes. A root with no index is built first, with
progress on a terminal.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import webbrowser
from pathlib import Path
from types import FrameType

import click

from lazy_intel.cli.index_cmds import _semantic_layer, emit
from lazy_intel.cli.progress import TerminalProgress
from lazy_intel.errors import LazyIntelError, WorkspaceOwned
from lazy_intel.evidence.budget import error_answer
from lazy_intel.evidence.model import NO_VIEW
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.ui.assets import load_assets
from lazy_intel.ui.backend import UIBackend
from lazy_intel.ui.server import HOST, UIServer


def _refuse(exc: LazyIntelError, as_json: bool) -> None:
    emit(error_answer("ui", exc.code, exc.message, view=NO_VIEW, next_step=exc.next_step), as_json)


@click.command("ui")
@click.option("--root", default=".", show_default=True, help="Workspace root.")
@click.option("--state-dir", default=None, help="Explicit state directory (default <root>/.lazy-intel).")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: a free one).",
)
@click.option(
    "--watch/--no-watch",
    default=True,
    show_default=True,
    help="Also watch the root and publish changes (as serve does); --no-watch only shows what is published.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option("--json", "as_json", is_flag=True, help="Print the address as one JSON line.")
def ui_command(
    *, root: str, state_dir: str | None, port: int, watch: bool, open_browser: bool, as_json: bool
) -> None:
    """A local web page of the published view: package graph, central symbols, call graphs, source."""
    try:
        workspace = Workspace.open(
            root, settings=load_settings(auto_index=watch), state_dir=Path(state_dir) if state_dir else None
        )
        assets = load_assets()
    except LazyIntelError as exc:
        _refuse(exc, as_json)
        return
    if not workspace.has_view():
        progress = TerminalProgress.for_command(as_json)
        try:
            workspace.sync(progress=progress)
        except WorkspaceOwned as exc:  # another process is building it: show it once published
            click.echo(f"note: {exc.message}; the page updates when it publishes", err=True)
        except LazyIntelError as exc:
            progress.close()
            workspace.close()
            _refuse(exc, as_json)
            return
        progress.close()
    backend = UIBackend(workspace, semantic=_semantic_layer(workspace.settings))
    try:
        server = UIServer(backend, assets, port=port)
    except OSError as exc:
        workspace.close()
        _refuse(
            LazyIntelError(
                f"cannot listen on {HOST}:{port}: {exc.strerror or exc}",
                code="INVALID_ARGUMENT",
                next_step="choose another --port, or leave it out for a free one",
            ),
            as_json,
        )
        return
    if watch:
        workspace.start_serving()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    server.start()
    if as_json:
        line = {"url": server.url, "host": HOST, "port": server.port, "token": server.token}
        click.echo(json.dumps({**line, "root": str(workspace.root)}))
    else:
        click.echo(f"lazy-intel ui: {server.url}")
        click.echo(f"serving {workspace.root} on {HOST}:{server.port}; Ctrl-C to stop", err=True)
    sys.stdout.flush()
    if open_browser:
        webbrowser.open(server.url)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        workspace.close()


COMMANDS: list[click.Command] = [ui_command]

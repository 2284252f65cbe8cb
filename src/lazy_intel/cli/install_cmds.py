"""``lazy-intel install`` / ``uninstall``: register ``lazy-intel serve`` with an MCP client."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from lazy_intel.cli.command_output import json_option, run_and_print
from lazy_intel.errors import InvalidArgument
from lazy_intel.install.clients import CLIENTS, server_command
from lazy_intel.install.config_file import FileChange
from lazy_intel.install.register import Target, install, uninstall
from lazy_intel.settings import load_settings
from lazy_intel.workspace.root import canonical_root

CLIENT_NAMES = sorted(CLIENTS)


def _target(client: str, project: str | None, global_scope: bool) -> Target:
    if project is not None and global_scope:
        raise InvalidArgument("--project and --global exclude each other", next_step="pass one of them")
    home = Path.home()
    if global_scope:
        return Target(client, None, home, dict(os.environ))
    settings = load_settings()
    root = canonical_root(
        project or os.getcwd(), allowed_roots=settings.allowed_roots, deny_roots=settings.deny_roots
    )
    return Target(client, root, home, dict(os.environ))


def _result(target: Target, changes: list[FileChange], dry_run: bool, command: str | None) -> dict[str, Any]:
    notes = []
    if target.client == "codex" and target.project is not None:
        notes.append("Codex reads a project's .codex/config.toml only when the project is trusted.")
    if not dry_run and any(c.action not in ("unchanged", "absent") for c in changes):
        notes.append(f"Restart {target.client} (or reload its MCP servers) to pick up the change.")
    return {
        "client": target.client,
        "scope": target.scope,
        "project": str(target.project) if target.project is not None else None,
        "dry_run": dry_run,
        "command": command,
        "changes": [
            {"path": str(c.path), "kind": c.kind, "action": c.action, "diff": c.diff()} for c in changes
        ],
        "notes": notes,
    }


def _render(result: dict[str, Any]) -> str:
    lines = []
    verb = "would be " if result["dry_run"] else ""
    for change in result["changes"]:
        lines.append(f"{change['path']} ({change['kind']}): {verb}{change['action']}")
        if result["dry_run"] and change["diff"]:
            lines.append(change["diff"].rstrip("\n"))
    lines += [f"note: {n}" for n in result["notes"]]
    return "\n".join(lines)


def _scope_options(func: Any) -> Any:
    func = click.option(
        "--global",
        "global_scope",
        is_flag=True,
        help="Use the client's user-wide config instead of a project's.",
    )(func)
    func = click.option(
        "--project",
        "project",
        default=None,
        metavar="PATH",
        help="Project directory (default: the current one).",
    )(func)
    func = click.option("--client", type=click.Choice(CLIENT_NAMES), required=True, help="The MCP client.")(
        func
    )
    return func


@click.command("install")
@_scope_options
@click.option("--hooks", is_flag=True, help="Also register the goal-loop hooks (claude-code only).")
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
@click.option(
    "--command",
    "command",
    default=None,
    metavar="PATH",
    help="Executable to register (default: this installation's absolute lazy-intel path).",
)
@json_option
def install_cmd(
    *,
    client: str,
    project: str | None,
    global_scope: bool,
    hooks: bool,
    dry_run: bool,
    command: str | None,
    json_output: bool,
) -> None:
    """Register `lazy-intel serve` as an MCP server in CLIENT's own config file.

    Unrelated entries and settings are kept byte-for-byte; an older lazy-intel entry is replaced;
    files are written atomically with mode 0600.
    """

    def action() -> dict[str, Any]:
        target = _target(client, project, global_scope)
        executable = server_command(command)
        return _result(target, install(target, executable, hooks=hooks, dry_run=dry_run), dry_run, executable)

    run_and_print("install", json_output, action, _render)


@click.command("uninstall")
@_scope_options
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
@json_option
def uninstall_cmd(
    client: str, project: str | None, global_scope: bool, dry_run: bool, json_output: bool
) -> None:
    """Remove lazy-intel's MCP entry (and, for claude-code, its loop hooks) from CLIENT's config."""

    def action() -> dict[str, Any]:
        target = _target(client, project, global_scope)
        return _result(target, uninstall(target, dry_run=dry_run), dry_run, None)

    run_and_print("uninstall", json_output, action, _render)


COMMANDS: list[click.Command] = [install_cmd, uninstall_cmd]

"""``lazy-intel lsp …``: trusted language servers — status, qualification and the ten operations."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from lazy_intel.cli.safe_text import safe_name, terminal_safe
from lazy_intel.errors import InvalidArgument, LazyIntelError
from lazy_intel.evidence.model import STATUS_ERROR, Answer
from lazy_intel.semantic.config import LspConfig, load_lsp_config
from lazy_intel.semantic.layer import SemanticLayer
from lazy_intel.semantic.operations import SemanticRequest, semantic_answer
from lazy_intel.semantic.qualify import config_status, qualify
from lazy_intel.settings import load_settings
from lazy_intel.workspace.root import canonical_root


def _say(text: str, *, err: bool = False) -> None:
    """Text output, escaped for the terminal (cli/safe_text.py); JSON output is printed as is."""
    click.echo(terminal_safe(text), err=err)


def _fail(exc: LazyIntelError, as_json: bool) -> None:
    if as_json:
        payload = {"status": "error", "code": exc.code, "message": exc.message, "next_step": exc.next_step}
        click.echo(json.dumps(payload, ensure_ascii=False))
    else:
        _say(f"{exc.code}: {exc.message}", err=True)
        if exc.next_step:
            _say(f"next step: {exc.next_step}", err=True)
    sys.exit(1)


def _config(path: str | None) -> LspConfig:
    config = load_lsp_config(load_settings(), path)
    if config is None:
        raise InvalidArgument(
            "no language servers are configured",
            next_step="pass --config FILE, or set LAZY_INTEL_LSP_CONFIG or LAZY_INTEL_LSP",
        )
    return config


def _root(workspace: str) -> Path:
    settings = load_settings()
    return canonical_root(workspace, allowed_roots=settings.allowed_roots, deny_roots=settings.deny_roots)


config_option = click.option(
    "--config",
    "config_path",
    metavar="FILE",
    help="code-intel-config.v1 file (default: LAZY_INTEL_LSP_CONFIG).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group("lsp")
def lsp() -> None:
    """Trusted language servers: status, qualification and live semantic operations."""


@lsp.command("status")
@config_option
@json_option
def status_command(config_path: str | None, as_json: bool) -> None:
    """Show the configured servers (metadata only; starts nothing)."""
    try:
        config = load_lsp_config(load_settings(), config_path)
        report = config_status(config) if config is not None else None
    except LazyIntelError as exc:
        _fail(exc, as_json)
        return
    if report is None:  # nothing configured is a state to report, not an error
        unconfigured = {
            "configured": False,
            "source": None,
            "servers": [],
            "effect": "semantic operations answer UNSUPPORTED; references and implementations come "
            "from the index graph",
            "next_step": "to add live semantics, pass --config FILE, or set LAZY_INTEL_LSP_CONFIG or LAZY_INTEL_LSP",
        }
        if as_json:
            click.echo(json.dumps(unconfigured, ensure_ascii=False, indent=2))
        else:
            _say("no language servers configured (LAZY_INTEL_LSP_CONFIG, LAZY_INTEL_LSP or --config)")
            _say(f"  {unconfigured['effect']}")
            _say(f"next step: {unconfigured['next_step']}")
        return
    report = {"configured": True, **report}
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    _say(f"config {report['source']['label']} sha256 {report['source']['sha256'][:16]}…")
    for server in report["servers"]:
        languages = ", ".join(f"{b['id']} ({' '.join(b['extensions'])})" for b in server["languages"])
        _say(f"{server['id']}: {server['name']} — {languages}")
        _say(f"  executable sha256 {server['executable_sha256']}, timeout {server['request_timeout_ms']} ms")
        _say(f"  reviewed by {server['reviewed_by']} at {server['reviewed_at'] or '(not recorded)'}")


@lsp.command("qualify")
@config_option
@click.option("--workspace", "-w", default=".", show_default=True, help="Workspace root.")
@click.option("--server", "server_id", help="Qualify only this server id.")
@click.option("--no-start", is_flag=True, help="Only the checks; do not start the servers.")
@json_option
def qualify_command(
    config_path: str | None, workspace: str, server_id: str | None, no_start: bool, as_json: bool
) -> None:
    """Check each server (workspace, review, executable hash), then initialize it for real."""
    try:
        report = qualify(_config(config_path), _root(workspace), start=not no_start, server_id=server_id)
    except LazyIntelError as exc:
        _fail(exc, as_json)
        return
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        _say(f"workspace {report['workspace']} — config {report['source']['label']}")
        for server in report["servers"]:
            verdict = "qualified" if server["qualified"] else "NOT qualified"
            _say(f"{server['id']}: {verdict}")
            for name, value in server["checks"].items():
                _say(f"  {name}: {value}")
            if server.get("started"):
                version = server.get("server_version") or "unknown version"
                _say(f"  server: {server.get('server_name') or server['name']} {version}")
                _say(f"  position encoding: {server['position_encoding']}")
                _say(f"  operations: {', '.join(server['operations'])}")
                _say(f"  capability fingerprint: {server['capability_fingerprint']}")
            if "error" in server:
                _say(f"  error: {server['error']['code']}: {server['error']['message']}")
    if not report["qualified"]:
        sys.exit(1)


def _print_answer(answer: Answer, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
    else:
        if answer.status == STATUS_ERROR:
            _say(f"{answer.code}: {answer.message}", err=True)
            if answer.next_step:
                _say(f"next step: {answer.next_step}", err=True)
        semantic = (answer.data or {}).get("semantic", {})
        for item in answer.items:
            anchor = item.anchor
            _say(f"{safe_name(anchor.path)}:{anchor.start_line}-{anchor.end_line} [{item.kind}]")
            for line in (item.text or "").splitlines()[:20]:
                _say(f"    {line}")
        if answer.status != STATUS_ERROR:
            state = semantic.get("evidence_state", "?")
            _say(
                f"-- {answer.status}, evidence {state}, {semantic.get('total', len(answer.items))} result(s)"
            )
        if answer.message and answer.status != STATUS_ERROR:
            _say(f"-- {answer.message}")
        for warning in answer.warnings:
            _say(f"warning: {warning}", err=True)
        if answer.next_cursor:
            _say(f"-- more: --cursor {answer.next_cursor}")
    if answer.status == STATUS_ERROR:
        sys.exit(1)


def _file_argument(root: Path, file: str) -> str:
    """FILE as given: relative to the workspace, or (when only that exists) to the current directory."""
    if Path(file).is_absolute() or (root / file).exists() or not Path(file).exists():
        return file
    return str(Path(file).resolve())


def _run(*, workspace: str, config_path: str | None, as_json: bool, **fields: Any) -> None:
    try:
        root = _root(workspace)
        if fields.get("relative_path"):
            fields["relative_path"] = _file_argument(root, fields["relative_path"])
        settings = load_settings()
        layer = SemanticLayer.from_settings(settings, config_path=config_path)
        if layer.config is None:
            _config(config_path)
    except LazyIntelError as exc:
        _fail(exc, as_json)
        return
    with layer:
        answer = semantic_answer(layer, root, SemanticRequest(**fields))
    _print_answer(answer, as_json)


def _common(func: Callable[..., Any]) -> Callable[..., Any]:
    for decorator in reversed(
        (
            click.option("--workspace", "-w", default=".", show_default=True, help="Workspace root."),
            config_option,
            click.option("--limit", default=50, show_default=True, help="Results per page (1..500)."),
            click.option("--cursor", help="Cursor from a previous answer, for the next page."),
            click.option(
                "--max-chars", default=20_000, show_default=True, help="Output budget in characters."
            ),
            json_option,
        )
    ):
        func = decorator(func)
    return func


def _position(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option(
        "--encoding",
        type=click.Choice(["utf-16", "utf-8", "utf-32"]),
        default="utf-16",
        show_default=True,
        help="Unit of --character.",
    )(func)
    func = click.option("--character", type=int, required=True, help="Zero-based character in the line.")(
        func
    )
    func = click.option("--line", type=int, required=True, help="Zero-based line.")(func)
    return click.argument("file")(func)


def _position_command(
    name: str, operation: str, doc: str, extra: tuple[Callable[..., Any], ...] = ()
) -> click.Command:
    def command(**params: Any) -> None:
        params["relative_path"] = params.pop("file")
        _run(operation=operation, **params)

    command.__doc__ = doc
    func: Callable[..., Any] = _common(_position(command))
    for decorator in extra:
        func = decorator(func)
    return lsp.command(name)(func)


def _file_command(name: str, operation: str, doc: str) -> click.Command:
    def command(**params: Any) -> None:
        params["relative_path"] = params.pop("file")
        _run(operation=operation, **params)

    command.__doc__ = doc
    return lsp.command(name)(_common(click.argument("file")(command)))


_position_command("definition", "definition", "Where the symbol at FILE:LINE:CHARACTER is defined.")
_position_command(
    "references",
    "references",
    "Every reference to the symbol at the position.",
    (
        click.option(
            "--exclude-declaration",
            "include_declaration",
            flag_value=False,
            default=True,
            help="Leave the declaration itself out.",
        ),
    ),
)
_position_command(
    "implementations", "implementations", "Implementations of the interface/method at the position."
)
_position_command("hover", "hover", "The server's hover text at the position (scrubbed).")
_position_command("signature-help", "signature_help", "Signature help for the call around the position.")
_position_command(
    "call-hierarchy",
    "call_hierarchy",
    "Incoming or outgoing calls of the function at the position.",
    (
        click.option(
            "--direction", type=click.Choice(["incoming", "outgoing"]), default="incoming", show_default=True
        ),
    ),
)
_position_command(
    "type-hierarchy",
    "type_hierarchy",
    "Supertypes or subtypes of the type at the position.",
    (
        click.option(
            "--direction",
            type=click.Choice(["supertypes", "subtypes"]),
            default="supertypes",
            show_default=True,
        ),
    ),
)
_file_command("document-symbols", "document_symbols", "The symbols of FILE as the server sees them.")
_file_command(
    "diagnostics", "diagnostics", "The server's diagnostics for FILE (pull, or the bounded publish wait)."
)


@lsp.command("workspace-symbols")
@click.argument("query")
@click.option("--server", "server_id", help="Ask only this server id.")
@_common
def workspace_symbols_command(**params: Any) -> None:
    """Symbols matching QUERY across the workspace, from every server that offers it."""
    _run(operation="workspace_symbols", **params)


COMMANDS: list[click.Command] = [lsp]

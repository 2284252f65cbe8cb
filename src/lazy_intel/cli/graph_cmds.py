"""Graph commands: ``callers``, ``callees``, ``references``, ``implementations``, ``impact``,
``changes``, ``architecture``, ``routes``, ``context`` and ``auto`` — each one ``code_intel`` operation.

``references`` and ``implementations`` ask a configured language server first (``LAZY_INTEL_LSP_CONFIG``
or ``LAZY_INTEL_LSP``) and fall back to the index graph; the answer's coverage names the source.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from lazy_intel.cli.index_cmds import common_options, operation_answer, query_options, run_operation
from lazy_intel.cli.safe_text import terminal_safe
from lazy_intel.settings import load_settings
from lazy_intel.ui.formats import FORMATS as PICTURE_FORMATS
from lazy_intel.ui.formats import render as render_picture
from lazy_intel.ui.picture import picture_from_answer


def _symbol_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option(
        "--line",
        type=int,
        default=None,
        help="Zero-based line inside the definition: one of several definitions of SYMBOL (overloads).",
    )(func)
    func = click.option(
        "--path", "relative_path", default=None, help="The definition in this file (relative path)."
    )(func)
    return func


def _depth_option(default_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--depth", type=int, default=None, help=f"How many edges to follow (1..10, default {default_text})."
    )


def _paged(opts: dict[str, Any]) -> dict[str, Any]:
    return {
        "maxChars": opts.get("max_chars"),
        "limit": opts.get("limit"),
        "freshness": opts.get("freshness"),
        "cursor": opts.get("cursor"),
    }


def _symbol_command(name: str, summary: str, default_depth: str | None) -> click.Command:
    def command(symbol: str, root: str, state_dir: str | None, as_json: bool, **opts: Any) -> None:
        args = {
            "operation": name,
            "symbol": symbol,
            "relativePath": opts.get("relative_path"),
            "line": opts.get("line"),
            "depth": opts.get("depth"),
            **_paged(opts),
        }
        if name == "references":
            args["includeDeclaration"] = not opts.get("no_declaration", False)
            if opts.get("candidates"):
                args["includeCandidates"] = True
        run_operation(root, state_dir, as_json, args)

    command.__doc__ = summary
    decorated: Callable[..., Any] = command
    if name == "references":
        decorated = click.option("--no-declaration", is_flag=True, help="Leave the declaration itself out.")(
            decorated
        )
        decorated = click.option(
            "--candidates",
            is_flag=True,
            help="Also list sites resolved by name only (ambiguous, unique-name).",
        )(decorated)
    if default_depth is not None:
        decorated = _depth_option(default_depth)(decorated)
    decorated = _symbol_options(query_options(common_options(decorated)))
    decorated = click.argument("symbol")(decorated)
    return click.command(name)(decorated)


callers_command = _symbol_command(
    "callers", "Call sites of SYMBOL (transitively up to --depth), with edge confidence and strategy.", "1"
)
callees_command = _symbol_command(
    "callees", "Calls made by SYMBOL (transitively up to --depth), resolved or not.", "1"
)
references_command = _symbol_command(
    "references",
    "Reference sites of SYMBOL: the index graph and, when one is configured, a live language server, fused.",
    None,
)
implementations_command = _symbol_command(
    "implementations",
    "Subtypes and overrides of SYMBOL: a live language server when configured, else the index graph.",
    "3",
)


@click.command("impact")
@click.argument("symbol", required=False)
@common_options
@query_options
@_symbol_options
@_depth_option("3")
def impact_command(symbol: str | None, root: str, state_dir: str | None, as_json: bool, **opts: Any) -> None:
    """What depends on SYMBOL (or on the file --path): dependents by distance, and affected tests."""
    run_operation(
        root,
        state_dir,
        as_json,
        {
            "operation": "impact",
            "symbol": symbol,
            "relativePath": opts.get("relative_path"),
            "line": opts.get("line"),
            "depth": opts.get("depth"),
            **_paged(opts),
        },
    )


@click.command("changes")
@common_options
@query_options
@click.option(
    "--since",
    default=None,
    help="Git revision compared with the working tree (default HEAD): HEAD~3, main, a tag.",
)
@_depth_option("2")
def changes_command(root: str, state_dir: str | None, as_json: bool, **opts: Any) -> None:
    """Files and definitions changed since --since (default HEAD), with dependents and affected tests."""
    run_operation(
        root,
        state_dir,
        as_json,
        {"operation": "changes", "since": opts.get("since"), "depth": opts.get("depth"), **_paged(opts)},
    )


@click.command("architecture")
@common_options
@query_options
@click.option("--path", "relative_path", default=None, help="Only this directory (relative path).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", *PICTURE_FORMATS)),
    default="text",
    show_default=True,
    help="text or json (the Answer), or the package picture: svg, html, dot, mermaid (to stdout).",
)
def architecture_command(root: str, state_dir: str | None, as_json: bool, fmt: str, **opts: Any) -> None:
    """Packages, their dependencies and layers, entry points, cycles, and central symbols (PageRank)."""
    args = {"operation": "architecture", "relativePath": opts.get("relative_path"), **_paged(opts)}
    if fmt not in PICTURE_FORMATS:
        run_operation(root, state_dir, as_json or fmt == "json", args)
        return
    if args["maxChars"] is None:  # a picture shows the whole structure, not the default budget
        args["maxChars"] = load_settings().max_output_chars
    answer = operation_answer(root, state_dir, True, args)
    if answer.status == "error":
        click.echo(f"error {answer.code}: {terminal_safe(answer.message or '')}", err=True)
        if answer.next_step:
            click.echo(f"next: {terminal_safe(answer.next_step)}", err=True)
        sys.exit(2 if answer.code == "INVALID_ARGUMENT" else 1)
    click.echo(
        render_picture(picture_from_answer(answer.to_dict(), Path(root).resolve().name), fmt), nl=False
    )


@click.command("routes")
@common_options
@query_options
@click.option("--match", "query", default=None, help="Only routes whose 'METHOD pattern' contains this.")
@click.option("--path", "path_glob", default=None, help="Only routes declared in files matching this glob.")
def routes_command(root: str, state_dir: str | None, as_json: bool, **opts: Any) -> None:
    """HTTP routes (Flask, FastAPI, Starlette, Django, Express, Next.js, Go routers) and the handlers they call."""
    run_operation(
        root,
        state_dir,
        as_json,
        {"operation": "routes", "query": opts.get("query"), "path": opts.get("path_glob"), **_paged(opts)},
    )


@click.command("context")
@click.argument("text", nargs=-1, required=True)
@common_options
@query_options
@click.option("--symbol", "as_symbol", is_flag=True, help="TEXT is a symbol name, not a query.")
@_symbol_options
def context_command(
    text: tuple[str, ...], root: str, state_dir: str | None, as_json: bool, **opts: Any
) -> None:
    """Best definitions for TEXT with their callers, callees and related files, in one budget (several
    words need no quotes)."""
    key = "symbol" if opts.get("as_symbol") else "query"
    run_operation(
        root,
        state_dir,
        as_json,
        {
            "operation": "context",
            key: " ".join(text),
            "relativePath": opts.get("relative_path"),
            **_paged(opts),
        },
    )


@click.command("auto")
@click.argument("query", nargs=-1, required=True)
@common_options
@query_options
def auto_command(
    query: tuple[str, ...], root: str, state_dir: str | None, as_json: bool, **opts: Any
) -> None:
    """Classify QUERY (symbol, path, stack trace, text) and run the fitting operations once."""
    run_operation(root, state_dir, as_json, {"operation": "auto", "query": " ".join(query), **_paged(opts)})


COMMANDS: list[click.Command] = [
    callers_command,
    callees_command,
    references_command,
    implementations_command,
    impact_command,
    changes_command,
    architecture_command,
    routes_command,
    context_command,
    auto_command,
]

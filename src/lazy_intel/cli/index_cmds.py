"""``index``, ``search``, ``symbol``, ``status``, ``verify``: the index and its questions.

Exit codes: 0 for ``ok`` and ``partial`` answers, 1 for an error answer, 2 for invalid arguments.
Query commands default to ``--freshness strict``: a person at a terminal expects the answer to match
the files as they are now, and a sync of an up-to-date index costs one stat pass.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lazy_intel.cli.progress import TerminalProgress
from lazy_intel.cli.safe_text import terminal_safe
from lazy_intel.errors import LazyIntelError, WorkspaceOwned
from lazy_intel.evidence.budget import error_answer
from lazy_intel.evidence.model import NO_VIEW, Answer
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.ops.requests import FRESHNESS_MODES, GRANULARITIES
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings, load_settings

if TYPE_CHECKING:
    from lazy_intel.semantic import SemanticLayer


def emit(answer: Answer, as_json: bool, render: Callable[[Answer], str] | None = None) -> None:
    """Print ``answer`` (JSON, ``render`` or the default text form); exit non-zero on an error."""
    from lazy_intel.cli.render import render_json, render_text

    # text is escaped for the terminal (control and bidi characters from the repository); JSON is exact
    click.echo(render_json(answer) if as_json else terminal_safe((render or render_text)(answer)))
    if answer.status == "error":
        sys.exit(2 if answer.code == "INVALID_ARGUMENT" else 1)


def open_workspace_or_exit(
    root: str, state_dir: str | None, as_json: bool, operation: str, *, adopt_state_dir: bool = False
) -> Workspace:
    """The workspace of one CLI command. It never syncs in the background (``auto_index`` off): the
    process exits right after answering, and would kill a background sync mid-publication. It keeps
    no in-memory postings (``postings_mb`` 0): a process that answers once would read each phrase's
    scores to use them once, and FTS5 ranks the same (nor does it import NumPy for them)."""
    try:
        settings = load_settings(auto_index=False, postings_mb=0)
        return Workspace.open(
            root,
            settings=settings,
            state_dir=Path(state_dir) if state_dir else None,
            adopt_state_dir=adopt_state_dir,
        )
    except LazyIntelError as exc:
        emit(error_answer(operation, exc.code, exc.message, view=NO_VIEW, next_step=exc.next_step), as_json)
        raise AssertionError("unreachable") from None


def run_operation(
    root: str,
    state_dir: str | None,
    as_json: bool,
    args: dict[str, Any],
    render: Callable[[Answer], str] | None = None,
) -> None:
    """Open the workspace, build it first if needed (with a progress bar), run one operation."""
    emit(operation_answer(root, state_dir, as_json, args), as_json, render)


def operation_answer(root: str, state_dir: str | None, as_json: bool, args: dict[str, Any]) -> Answer:
    """The answer of one operation (the workspace built first, with progress, when it has no view)."""
    operation = str(args["operation"])
    workspace = open_workspace_or_exit(root, state_dir, as_json, operation)
    settings = workspace.settings
    if args.get("freshness") == "strict" and not workspace.has_view():
        build_first(workspace, operation, as_json)
    clean = {k: v for k, v in args.items() if v is not None and v != ()}
    return execute(clean, lambda _root: workspace, settings, semantic=_semantic_layer(settings))


def build_first(workspace: Workspace, operation: str, as_json: bool) -> None:
    """The first build of a workspace, with progress on a terminal; an error answer exits."""
    progress = TerminalProgress.for_command(as_json)
    try:
        workspace.sync(progress=progress)
    except WorkspaceOwned:
        pass  # another process builds it: the strict read waits for that build (bounded)
    except LazyIntelError as exc:
        progress.close()
        emit(error_answer(operation, exc.code, exc.message, view=NO_VIEW, next_step=exc.next_step), as_json)
    progress.close()


def _semantic_layer(settings: Settings) -> SemanticLayer | None:
    """The configured language servers (nothing is started here), or None when none is configured
    (without importing the language-server modules) or the config is bad."""
    if not settings.lsp_config and not settings.lsp:
        return None
    from lazy_intel.semantic import SemanticLayer

    try:
        return SemanticLayer.from_settings(settings)
    except LazyIntelError as exc:
        click.echo(f"warning: language servers ignored: {terminal_safe(exc.message)}", err=True)
        return None


def common_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--json", "as_json", is_flag=True, help="Print the Answer object as JSON.")(func)
    func = click.option(
        "--state-dir", default=None, help="Explicit state directory (default <root>/.lazy-intel)."
    )(func)
    func = click.option("--root", default=".", show_default=True, help="Workspace root.")(func)
    return func


def query_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--cursor", default=None, help="Continue a previous answer (its next_cursor).")(func)
    func = click.option(
        "--freshness",
        type=click.Choice(FRESHNESS_MODES),
        default="strict",
        show_default=True,
        help="strict: sync first; auto: serve the view, sync in background; fast: the view as is.",
    )(func)
    func = click.option(
        "--max-chars", type=int, default=None, help="Output budget of the answer (characters)."
    )(func)
    func = click.option("--limit", type=int, default=None, help="Most results to return.")(func)
    return func


@click.command("index")
@click.argument("root", default=".")
@click.option("--rebuild", is_flag=True, help="Rebuild into a fresh store instead of syncing changes.")
@click.option("--state-dir", default=None, help="Explicit state directory (default <root>/.lazy-intel).")
@click.option("--json", "as_json", is_flag=True, help="Print the Answer object as JSON.")
@click.option(
    "--store",
    default=None,
    help="Where the index lives: a postgresql:// URL for a shared PostgreSQL store (LAZY_INTEL_STORE).",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default=None,
    help="Where parsing runs: local worker processes or Ray tasks (LAZY_INTEL_EXECUTOR).",
)
def index_command(
    root: str, rebuild: bool, state_dir: str | None, as_json: bool, *, store: str | None, executor: str | None
) -> None:
    """Index ROOT (default: the current directory), or bring its index up to date."""
    if store is not None:
        os.environ["LAZY_INTEL_STORE"] = store
    if executor is not None:
        os.environ["LAZY_INTEL_EXECUTOR"] = executor
    workspace = open_workspace_or_exit(
        root, state_dir, as_json, "reindex" if rebuild else "sync", adopt_state_dir=rebuild
    )
    progress = TerminalProgress.for_command(as_json)
    try:
        workspace.sync(rebuild=rebuild, progress=progress)
    except LazyIntelError as exc:
        progress.close()
        emit(error_answer("sync", exc.code, exc.message, view=NO_VIEW, next_step=exc.next_step), as_json)
    except KeyboardInterrupt:
        progress.close(interrupted=True)
        workspace.close()  # cancel the sync: it rolls back and the journal records it abandoned
        raise
    progress.close()
    emit(execute({"operation": "status"}, lambda _root: workspace, workspace.settings), as_json)


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@common_options
@query_options
@click.option("--lang", default=None, help="Only files of this language (python, typescript, …).")
@click.option("--path", "path_glob", default=None, help="Only paths matching this glob (e.g. 'src/*').")
@click.option("--kind", default=None, help="Only chunks of symbols of this kind (function, class, …).")
@click.option("--granularity", type=click.Choice(GRANULARITIES), default="chunk", show_default=True)
@click.option(
    "--backend",
    type=click.Choice(("all", "lexical", "dense", "graph")),
    default="all",
    show_default=True,
    help="all: every signal fused; lexical: BM25 only; dense: embeddings only; graph: all + graph priors.",
)
def search_command(
    query: tuple[str, ...], root: str, state_dir: str | None, as_json: bool, **opts: Any
) -> None:
    """Ranked code chunks for QUERY (words, identifiers, an error message, an issue text; several
    words need no quotes)."""
    run_operation(
        root,
        state_dir,
        as_json,
        {
            "operation": "search",
            "query": " ".join(query),
            "maxChars": opts["max_chars"],
            "limit": opts["limit"],
            "freshness": opts["freshness"],
            "cursor": opts["cursor"],
            "lang": opts["lang"],
            "path": opts["path_glob"],
            "kind": opts["kind"],
            "granularity": opts["granularity"],
            "backend": opts["backend"],
        },
    )


@click.command("symbol")
@click.argument("name")
@common_options
@query_options
@click.option(
    "--path", "relative_path", default=None, help="Only the definition in this file (relative path)."
)
def symbol_command(name: str, root: str, state_dir: str | None, as_json: bool, **opts: Any) -> None:
    """Definitions of NAME (a name, Class.method, or module.qualified.name) with their source."""
    run_operation(
        root,
        state_dir,
        as_json,
        {
            "operation": "symbol",
            "symbol": name,
            "relativePath": opts["relative_path"],
            "maxChars": opts["max_chars"],
            "limit": opts["limit"],
            "freshness": opts["freshness"],
            "cursor": opts["cursor"],
        },
    )


@click.command("status")
@common_options
def status_command(root: str, state_dir: str | None, as_json: bool) -> None:
    """One verdict per projection, the next step, counts, watcher, writer and recovery state."""
    run_operation(root, state_dir, as_json, {"operation": "status"})


@click.command("repair")
@common_options
def repair_command(root: str, state_dir: str | None, as_json: bool) -> None:
    """Recover interrupted publications, check the store thoroughly, rebuild it if a check fails."""
    run_operation(root, state_dir, as_json, {"operation": "repair"})


@click.command("verify")
@click.argument("anchors_file", type=click.File("r"), default="-")
@common_options
def verify_command(anchors_file: Any, root: str, state_dir: str | None, as_json: bool) -> None:
    """Check anchors against the files on disk: current, moved, stale or gone.

    ANCHORS_FILE (default stdin) holds a JSON list of anchors, or a whole Answer (its items' anchors
    and texts are checked, and its view.repository binding: stale when the commit, branch or dirty
    set moved since), as printed by --json.
    """
    try:
        data = json.load(anchors_file)
    except json.JSONDecodeError as exc:
        emit(
            error_answer("verify", "INVALID_ARGUMENT", f"anchors are not JSON: {exc.msg}", view=NO_VIEW),
            as_json,
        )
        return
    anchors: list[Any]
    binding: Any = None
    if isinstance(data, dict) and isinstance(data.get("view"), dict):
        binding = data["view"].get("repository")
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        anchors = []
        for item in data["items"]:
            if isinstance(item, dict) and isinstance(item.get("anchor"), dict):
                anchor = dict(item["anchor"])
                if item.get("text_kind") == "source" and isinstance(item.get("text"), str):
                    anchor["text"] = item["text"]
                anchors.append(anchor)
    elif isinstance(data, list):
        anchors = data
    else:
        anchors = [data]
    args: dict[str, Any] = {"operation": "verify", "anchors": anchors}
    if isinstance(binding, dict):
        args["binding"] = binding
    run_operation(root, state_dir, as_json, args)


COMMANDS: list[click.Command] = [
    index_command,
    search_command,
    symbol_command,
    status_command,
    repair_command,
    verify_command,
]

__all__ = ["COMMANDS", "load_settings"]

"""The operation table and :func:`execute`: validation, freshness, the read view, errors -> answers.

An explicit operation is never replaced by another; when it cannot run, the answer is an error with
a stable code or ``partial`` with the reason — never ``ok`` with nothing.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lazy_intel.errors import LazyIntelError
from lazy_intel.evidence.budget import error_answer, mark_partial
from lazy_intel.evidence.model import NO_VIEW, STATUS_OK, Answer, View
from lazy_intel.service.freshness import check_after_read, reading, repository_of
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.requests import Request, operation_name, parse_request, requested_budget
from lazy_intel.service.ops.semantic_names import SEMANTIC_OPERATIONS
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings

if TYPE_CHECKING:
    from lazy_intel.semantic import SemanticLayer

logger = logging.getLogger(__name__)

Handler = Callable[[OperationContext], Answer]


@dataclass(frozen=True)
class OperationSpec:
    """One operation. ``entry`` is its handler, or ``"module:function"`` imported on first use (so a
    CLI ``search`` never imports the graph, Cypher or language-server modules)."""

    name: str
    entry: Handler | str
    summary: str
    reads_view: bool = True  # needs a published view (answers INDEX_BUILDING without one)
    optional_view: bool = False  # uses a view when there is one, works without
    dirty_check: bool = True  # the answer's view says whether the files changed (auto/fast)
    semantic: bool = False  # served by a live language server (listed only when one negotiated it)

    @property
    def handler(self) -> Handler:
        if not isinstance(self.entry, str):
            return self.entry
        module_name, _, function = self.entry.partition(":")
        handler: Handler = getattr(importlib.import_module(module_name), function)
        return handler


OPERATIONS: dict[str, OperationSpec] = {
    spec.name: spec
    for spec in (
        OperationSpec(
            "search",
            "lazy_intel.service.ops.ops_retrieval:op_search",
            "ranked code chunks for a query (lexical BM25 over symbol chunks)",
        ),
        OperationSpec(
            "symbol",
            "lazy_intel.service.ops.ops_retrieval:op_symbol",
            "definitions of a symbol with body, signature, doc and parent",
        ),
        OperationSpec(
            "context",
            "lazy_intel.service.ops.ops_auto:op_context",
            "best definitions for a query or symbol + their callers/callees + related files",
        ),
        OperationSpec(
            "auto",
            "lazy_intel.service.ops.ops_auto:op_auto",
            "classify the query (symbol, path, stack trace, text) and run the fitting operations",
        ),
        OperationSpec(
            "references",
            "lazy_intel.service.ops.ops_references:op_references",
            "reference sites of a symbol: live LSP when a server can answer, else the index graph",
        ),
        OperationSpec(
            "implementations",
            "lazy_intel.service.ops.ops_references:op_implementations",
            "subtypes/overrides of a symbol: live LSP when a server can answer, else the index graph",
        ),
        OperationSpec(
            "callers",
            "lazy_intel.service.ops.ops_graph:op_callers",
            "call sites of a symbol, depth-bounded, with edge confidence",
        ),
        OperationSpec(
            "callees",
            "lazy_intel.service.ops.ops_graph:op_callees",
            "calls made by a symbol, depth-bounded, with edge confidence",
        ),
        OperationSpec(
            "impact",
            "lazy_intel.service.ops.ops_graph:op_impact",
            "reverse transitive dependents of a symbol or file, with affected tests",
        ),
        OperationSpec(
            "changes",
            "lazy_intel.service.ops.ops_changes:op_changes",
            "files and definitions changed between a git revision (since, default HEAD) and the working "
            "tree, each with its dependents, and the affected tests",
        ),
        OperationSpec(
            "architecture",
            "lazy_intel.service.ops.ops_architecture:op_architecture",
            "packages, their dependencies, layers, entry points, cycles and central symbols",
        ),
        OperationSpec(
            "routes",
            "lazy_intel.service.ops.ops_graph:op_routes",
            "HTTP routes (Flask, FastAPI, Starlette, Django, Express, Next.js, Go routers) -> handlers",
        ),
        OperationSpec(
            "query",
            "lazy_intel.service.ops.ops_query:op_query",
            "read-only Cypher subset over the code graph (MATCH/WHERE/RETURN/ORDER BY/SKIP/LIMIT, "
            "*min..max paths), bounded rows and time",
        ),
        OperationSpec(
            "status",
            "lazy_intel.service.ops.ops_control:op_status",
            "one verdict per projection, the next step, counts, watcher and writer state",
            reads_view=False,
            optional_view=True,
        ),
        OperationSpec(
            "sync",
            "lazy_intel.service.ops.ops_control:op_sync",
            "capture and publish changes now",
            reads_view=False,
            optional_view=True,
            dirty_check=False,
        ),
        OperationSpec(
            "reindex",
            "lazy_intel.service.ops.ops_control:op_sync",
            "rebuild the index into a fresh store",
            reads_view=False,
            optional_view=True,
            dirty_check=False,
        ),
        # repair opens no view before it runs: a read's own check of a damaged store would schedule
        # a rebuild first, and repair would then find nothing to report
        OperationSpec(
            "repair",
            "lazy_intel.service.ops.ops_control:op_repair",
            "recover interrupted publications, check the store, rebuild what fails a check",
            reads_view=False,
            dirty_check=False,
        ),
        OperationSpec(
            "verify",
            "lazy_intel.service.ops.ops_control:op_verify",
            "check anchors against the bytes on disk: current/moved/stale/gone",
            reads_view=False,
            optional_view=True,
            dirty_check=False,
        ),
    )
}
OPERATIONS.update(
    {
        name: OperationSpec(
            name,
            "lazy_intel.service.ops.ops_semantic:live_answer",
            summary,
            reads_view=False,
            optional_view=True,
            dirty_check=False,
            semantic=True,
        )
        for name, summary in SEMANTIC_OPERATIONS.items()
        if name not in OPERATIONS  # references/implementations: live when possible, else the graph
    }
)


WorkspaceResolver = Callable[[str | None], Workspace]


def _run(
    workspace: Workspace,
    request: Request,
    settings: Settings,
    *,
    deadline: float | None,
    seen: list[View],
    semantic: SemanticLayer | None,
) -> Answer:
    spec = OPERATIONS[request.operation]
    if not spec.reads_view and not spec.optional_view:
        info = View(
            generation=0,
            published_at=None,
            freshness=request.freshness,
            repository=repository_of(workspace, request.freshness),
        )
        ctx = OperationContext(workspace, request, None, info, [], settings, deadline, semantic)
        return spec.handler(ctx)
    with reading(
        workspace,
        settings,
        request.freshness,
        needs_view=spec.reads_view,
        dirty_check=spec.dirty_check,
        deadline=deadline,
    ) as read:
        seen.append(read.info)
        ctx = OperationContext(
            workspace, request, read.view, read.info, read.warnings, settings, deadline, semantic
        )
        answer = spec.handler(ctx)
    if spec.reads_view:
        check_after_read(workspace, request.freshness, answer)
    if read.behind and answer.status == STATUS_OK:
        answer = mark_partial(answer)  # strict could not read the files as they are on disk
    return answer


def _error_view(workspace: Workspace | None, freshness: str) -> View:
    """The view of an error answer given before any view was read (still bound to the repository)."""
    if freshness == "none":
        return NO_VIEW
    repository = None
    if workspace is not None:
        try:
            repository = repository_of(workspace, "auto")
        except LazyIntelError:
            repository = None
    return View(0, None, freshness, repository=repository)


def execute(
    args: Mapping[str, Any],
    resolve: WorkspaceResolver,
    settings: Settings,
    *,
    deadline: float | None = None,
    semantic: SemanticLayer | None = None,
) -> Answer:
    """Validate and run one operation; every failure becomes an error answer with a stable code.

    ``deadline`` (``time.monotonic()`` seconds) bounds the work: queries still running after it are
    interrupted (``TIMEOUT``) and a strict sync stops being waited for (it goes on for the others).
    ``semantic`` is the process's trusted language-server layer (``None``: semantic operations answer
    ``UNSUPPORTED``).
    """
    operation = operation_name(args, tuple(OPERATIONS))
    budget = requested_budget(args, settings)
    seen: list[View] = []
    freshness = "none"
    workspace: Workspace | None = None
    try:
        request = parse_request(args, settings, operations=tuple(OPERATIONS))
        freshness = request.freshness
        workspace = resolve(request.root)
        return _run(workspace, request, settings, deadline=deadline, seen=seen, semantic=semantic)
    except LazyIntelError as exc:
        view = seen[-1] if seen else _error_view(workspace, freshness)
        return error_answer(
            operation, exc.code, exc.message, view=view, next_step=exc.next_step, max_chars=budget
        )
    except Exception as exc:
        logger.exception("operation %s failed", operation)
        return error_answer(
            operation,
            "INTERNAL",
            f"{type(exc).__name__}: {exc}",
            view=seen[-1] if seen else NO_VIEW,
            next_step="report this as a bug with the request that caused it",
            max_chars=budget,
        )

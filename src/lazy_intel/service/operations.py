"""The operation table and :func:`execute`: validation, freshness, the read view, errors -> answers.

An explicit operation is never replaced by another; when it cannot run, the answer is an error with
a stable code or ``partial`` with the reason — never ``ok`` with nothing.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lazy_intel.errors import IndexBuilding, LazyIntelError, SourceChanged, WorkspaceOwned
from lazy_intel.evidence.budget import error_answer
from lazy_intel.evidence.model import NO_VIEW, Answer, View
from lazy_intel.service.context import OperationContext
from lazy_intel.service.ops_control import op_status, op_sync, op_verify
from lazy_intel.service.ops_retrieval import op_search, op_symbol
from lazy_intel.service.ops_semantic import SEMANTIC_OPERATIONS, live_answer
from lazy_intel.service.requests import Request, parse_request
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.workspace.capture import read_regular_file

if TYPE_CHECKING:
    from lazy_intel.semantic import SemanticLayer

logger = logging.getLogger(__name__)

Handler = Callable[[OperationContext], Answer]


@dataclass(frozen=True)
class OperationSpec:
    name: str
    handler: Handler
    summary: str
    reads_view: bool = True  # needs a published view (answers INDEX_BUILDING without one)
    optional_view: bool = False  # uses a view when there is one, works without
    semantic: bool = False  # served by a live language server (listed only when one negotiated it)


OPERATIONS: dict[str, OperationSpec] = {
    spec.name: spec
    for spec in (
        OperationSpec(
            "search", op_search, "ranked code chunks for a query (lexical BM25 over symbol chunks)"
        ),
        OperationSpec("symbol", op_symbol, "definitions of a symbol with body, signature, doc and parent"),
        OperationSpec(
            "status",
            op_status,
            "readiness of each projection, counts and the next step",
            reads_view=False,
            optional_view=True,
        ),
        OperationSpec(
            "sync", op_sync, "capture and publish changes now", reads_view=False, optional_view=True
        ),
        OperationSpec(
            "reindex", op_sync, "rebuild the index into a fresh store", reads_view=False, optional_view=True
        ),
        OperationSpec(
            "verify",
            op_verify,
            "check anchors against the bytes on disk: current/moved/stale/gone",
            reads_view=False,
            optional_view=True,
        ),
    )
}
OPERATIONS.update(
    {
        name: OperationSpec(name, live_answer, summary, reads_view=False, optional_view=True, semantic=True)
        for name, summary in SEMANTIC_OPERATIONS.items()
    }
)


WorkspaceResolver = Callable[[str | None], Workspace]


def _view_info(view: Any, freshness: str, dirty_paths: tuple[str, ...] = ()) -> View:
    if view is None:
        return View(generation=0, published_at=None, freshness=freshness)
    return View(
        generation=view.generation,
        published_at=view.published_at,
        freshness=freshness,
        dirty=bool(dirty_paths),
        dirty_paths=dirty_paths,
    )


def _touched_changed(workspace: Workspace, answer: Answer) -> list[str]:
    """Paths an answer quoted whose bytes on disk no longer hash to the anchor's hash."""
    moved: list[str] = []
    seen: set[str] = set()
    for item in answer.items:
        anchor = item.anchor
        if anchor.path in seen or not anchor.sha256:
            continue
        seen.add(anchor.path)
        try:
            data = read_regular_file(workspace.root / anchor.path)
        except OSError:
            moved.append(anchor.path)
            continue
        if hashlib.sha256(data).hexdigest() != anchor.sha256:
            moved.append(anchor.path)
    return moved


def _run(
    workspace: Workspace, request: Request, settings: Settings, semantic: SemanticLayer | None
) -> Answer:
    spec = OPERATIONS[request.operation]
    warnings: list[str] = []
    freshness = request.freshness
    if not spec.reads_view and not spec.optional_view:
        ctx = OperationContext(workspace, request, None, _view_info(None, freshness), warnings, semantic)
        return spec.handler(ctx)
    if spec.reads_view and freshness == "strict":
        try:
            workspace.sync()
        except WorkspaceOwned as exc:
            warnings.append(f"not synced: {exc.message}; answered from the published view")
    if not workspace.has_view():
        if not spec.reads_view:
            ctx = OperationContext(workspace, request, None, _view_info(None, freshness), warnings, semantic)
            return spec.handler(ctx)
        scheduled = settings.auto_index and workspace.start_background_sync()
        raise IndexBuilding(
            f"no index for {workspace.root} yet; "
            + (
                "a background build has started"
                if scheduled or workspace.is_building()
                else "auto-index is off"
            ),
            next_step="retry in a few seconds (status shows progress)"
            if settings.auto_index
            else f"run lazy-intel index {workspace.root}",
        )
    with workspace.read() as view:
        dirty: tuple[str, ...] = ()
        if spec.reads_view and freshness == "auto":
            dirty = workspace.dirty_paths(view)
            if dirty and settings.auto_index:
                workspace.start_background_sync()
                warnings.append(
                    f"{len(dirty)} file(s) changed since generation {view.generation}; a sync is running"
                )
        ctx = OperationContext(
            workspace, request, view, _view_info(view, freshness, dirty), warnings, semantic
        )
        answer = spec.handler(ctx)
    if spec.reads_view and freshness == "strict":
        changed = _touched_changed(workspace, answer)
        if changed:
            raise SourceChanged(
                f"{', '.join(changed[:10])} changed on disk while the answer was read",
                next_step="repeat the request",
            )
    return answer


def execute(
    args: Mapping[str, Any],
    resolve: WorkspaceResolver,
    settings: Settings,
    *,
    semantic: SemanticLayer | None = None,
) -> Answer:
    """Validate and run one operation; every failure becomes an error answer with a stable code.

    ``semantic`` is the process's trusted language-server layer (``None``: semantic operations answer
    ``UNSUPPORTED``).
    """
    operation = str(args.get("operation", "")) if isinstance(args, Mapping) else ""
    try:
        request = parse_request(args, settings, operations=tuple(OPERATIONS))
        workspace = resolve(request.root)
        return _run(workspace, request, settings, semantic)
    except LazyIntelError as exc:
        return error_answer(
            operation or "unknown", exc.code, exc.message, view=NO_VIEW, next_step=exc.next_step
        )
    except Exception as exc:
        logger.exception("operation %s failed", operation)
        return error_answer(
            operation or "unknown",
            "INTERNAL",
            f"{type(exc).__name__}: {exc}",
            view=NO_VIEW,
            next_step="report this as a bug with the request that caused it",
        )

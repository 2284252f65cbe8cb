"""``status``, ``sync``, ``reindex``, ``repair`` and ``verify``."""

from __future__ import annotations

from typing import Any

from lazy_intel import __version__
from lazy_intel.errors import InvalidArgument, StoreError, Unsupported
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item, View
from lazy_intel.evidence.verify import verify_anchor
from lazy_intel.service.context import OperationContext
from lazy_intel.service.readiness import StatusInputs, overall, projection_verdicts
from lazy_intel.service.requests import require
from lazy_intel.timestamps import shown_decision
from lazy_intel.vcs.binding import STATE_STALE, BindingCheck, check_binding, describe_binding
from lazy_intel.workspace.capture import read_regular_file
from lazy_intel.workspace.root import contained_relative_path

# the projections kept in the store file that sync, reindex and repair rebuild in this version
STORE_BACKENDS = ("all", "lexical")


def _writer_state(ctx: OperationContext) -> dict[str, Any]:
    ws = ctx.workspace
    holder = ws.lock.live_holder()
    return {
        "held_by_this_process": ws.lock.held,
        "holder_pid": holder,
        "release_after_idle_ms": ctx.settings.writer_idle_ms,
    }


def op_status(ctx: OperationContext) -> Answer:
    ws = ctx.workspace
    verdicts = projection_verdicts(StatusInputs(ws, ctx.view, ctx.settings, ctx.semantic))
    ready, next_step = overall(verdicts)
    data: dict[str, object] = {
        "projections": {v.projection: v.to_dict() for v in verdicts},
        "next_step": next_step,
        "root": str(ws.root),
        "state_dir": str(ws.state.path),
        "version": __version__,
    }
    if ctx.view is not None:
        view = ctx.view
        data["generation"] = view.generation
        data["store"] = view.store_path.name
        data["counts"] = view.counts()
        data["languages"] = view.languages()
        data["scope_source"] = view.meta("scope_source")
        data["parser_versions"] = view.meta("parser_versions")
    data["repository"] = describe_binding(ws.repository_binding())
    data["watcher"] = ws.describe_watcher()
    data["writer"] = _writer_state(ctx)
    decisions = ws.journal.decisions()
    if decisions:
        data["recovery"] = shown_decision(decisions[-1])
    if ws.last_report is not None:
        data["last_sync"] = ws.last_report.to_dict()
    if ws.last_vectors is not None:
        data["last_embedding"] = ws.last_vectors.to_dict()
    return fit_answer(
        "status",
        [],
        max_chars=ctx.request.max_chars,
        view=ctx.view_info,
        warnings=ctx.warnings,
        data=data,
        ok_without_items=ready,
        force_partial=not ready,
    )


def _view_now(ctx: OperationContext) -> View:
    """The view after a control operation published (its generation is what the answer reports)."""
    from lazy_intel.service.freshness import describe, repository_of

    ws = ctx.workspace
    repository = repository_of(ws, ctx.request.freshness)
    if not ws.has_view():
        return describe(None, ctx.request.freshness, repository=repository)
    with ws.read() as view:
        return describe(view, ctx.request.freshness, repository=repository)


def _refuse_other_backends(ctx: OperationContext) -> None:
    if ctx.request.backend not in STORE_BACKENDS:
        raise Unsupported(
            f"backend={ctx.request.backend} has no derived index to {ctx.request.operation} in this version",
            next_step="use backend=all",
        )


def op_sync(ctx: OperationContext) -> Answer:
    _refuse_other_backends(ctx)
    report = ctx.workspace.sync(rebuild=ctx.request.operation == "reindex", timeout_s=ctx.remaining_s())
    return fit_answer(
        ctx.request.operation,
        [],
        max_chars=ctx.request.max_chars,
        view=_view_now(ctx),
        warnings=ctx.warnings,
        data=report.to_dict(),
        ok_without_items=True,
    )


def op_repair(ctx: OperationContext) -> Answer:
    """Recover interrupted publications, check the store thoroughly, rebuild what fails."""
    _refuse_other_backends(ctx)
    ws = ctx.workspace
    report = ws.repair(timeout_s=ctx.remaining_s())
    data: dict[str, object] = {**(ws.last_repair or {}), "sync": report.to_dict()}
    if ws.recovery is not None and ws.recovery.decisions:
        data["recovered"] = [d.to_dict() for d in ws.recovery.decisions]
    return fit_answer(
        "repair",
        [],
        max_chars=ctx.request.max_chars,
        view=_view_now(ctx),
        warnings=ctx.warnings,
        data=data,
        ok_without_items=True,
    )


def _binding_check(ctx: OperationContext) -> BindingCheck | None:
    given = ctx.request.binding
    if given is None:
        return None
    return check_binding(given, ctx.workspace.repository_binding(fresh=True))


def op_verify(ctx: OperationContext) -> Answer:
    request = ctx.request
    if not request.anchors and request.binding is None:
        require(request, "anchors")
    binding = _binding_check(ctx)
    root = ctx.workspace.root
    generation = ctx.view.generation if ctx.view is not None else 0
    items: list[Item] = []
    for index, raw in enumerate(request.anchors):
        try:
            anchor = Anchor.from_dict(raw)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidArgument(
                f"anchors[{index}] is not an anchor (needs path, sha256, start_byte, end_byte): {exc}"
            ) from None
        if anchor.start_byte < 0 or anchor.end_byte < anchor.start_byte:
            raise InvalidArgument(
                f"anchors[{index}] has an invalid byte span {anchor.start_byte}..{anchor.end_byte}"
            )
        rel = contained_relative_path(root, anchor.path)
        text = raw.get("text")
        excerpt: bytes | None = text.encode("utf-8") if isinstance(text, str) else None
        if excerpt is None and ctx.view is not None:
            try:
                stored = ctx.view.content(anchor.sha256)
            except StoreError:
                stored = None
            if stored is not None and anchor.end_byte <= len(stored):
                excerpt = stored[anchor.start_byte : anchor.end_byte]
        try:
            current: bytes | None = read_regular_file(root / rel)
        except FileNotFoundError:
            current = None
        except OSError as exc:
            raise InvalidArgument(f"anchors[{index}]: {rel} cannot be read: {exc.strerror}") from None
        verdict = verify_anchor(anchor, excerpt, current, generation)
        extra: dict[str, Any] = {"verdict": verdict.verdict, "input_index": index}
        if binding is not None:
            extra["binding"] = binding.state
        items.append(
            Item(
                kind="verification",
                text_kind=TEXT_DESCRIPTION,
                text=verdict.reason,
                anchor=verdict.anchor,
                extra=extra,
            )
        )
    coverage = ["verified against the bytes on disk now"]
    warnings = list(ctx.warnings)
    data: dict[str, Any] | None = None
    if binding is not None:
        coverage.append(f"repository binding: {binding.state} ({binding.reason})")
        data = {"binding": binding.to_dict()}
        if binding.state == STATE_STALE:
            warnings.append(
                "the answer these anchors came from is stale: " + binding.reason + " (re-run the request)"
            )
    return fit_answer(
        "verify",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=coverage,
        warnings=warnings,
        data=data,
        ok_without_items=binding is not None,
    )

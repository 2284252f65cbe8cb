"""``status``, ``sync``, ``reindex`` and ``verify``."""

from __future__ import annotations

from pathlib import Path

from lazy_intel import __version__
from lazy_intel.errors import InvalidArgument, LazyIntelError, StoreError, Unsupported
from lazy_intel.evidence.budget import fit_answer
from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Answer, Item
from lazy_intel.evidence.verify import verify_anchor
from lazy_intel.search.embedders import parse_provider_spec, spec_text
from lazy_intel.search.vectors import META_PROFILE, vector_coverage
from lazy_intel.service.context import OperationContext
from lazy_intel.service.requests import require
from lazy_intel.workspace.capture import read_regular_file
from lazy_intel.workspace.root import contained_relative_path

READY = "ready"
BUILDING = "building"
ABSENT = "absent"
FAILING = "failing"


def _projection_verdicts(ctx: OperationContext) -> dict[str, dict[str, object]]:
    ws = ctx.workspace
    building = ws.is_building()
    lexical: dict[str, object]
    if ctx.view is not None:
        lexical = {"verdict": READY, "generation": ctx.view.generation}
    elif building:
        lexical = {"verdict": BUILDING, "progress": list(ws.progress) if ws.progress else None}
    elif ws.last_error is not None:
        lexical = {"verdict": FAILING, "error": str(ws.last_error)}
    else:
        lexical = {"verdict": ABSENT}
    if building and ctx.view is not None:
        lexical["sync_running"] = True
    return {
        "lexical": lexical,
        "dense": _dense_verdict(ctx),
        "graph": {"verdict": ABSENT, "reason": "not built by this version"},
        "semantic": _semantic_verdict(ctx),
    }


def _semantic_verdict(ctx: OperationContext) -> dict[str, object]:
    layer = ctx.semantic
    if layer is None or not layer.configured:
        return {"verdict": ABSENT, "reason": "no trusted language server configured (LAZY_INTEL_LSP_CONFIG)"}
    servers = layer.status(ctx.workspace.root)  # metadata and health only; starts nothing
    failing = [s for s in servers if s.get("health") in ("failed", "failing")]
    return {
        "verdict": FAILING if failing and len(failing) == len(servers) else READY,
        "servers": servers,
        "note": "servers start on first use; operations listed are the ones they negotiated",
    }


def _dense_verdict(ctx: OperationContext) -> dict[str, object]:
    """ready / building / absent / failing for the vector projection, without loading the model."""
    ws = ctx.workspace
    try:
        spec = ws.embedding_spec()
    except LazyIntelError as exc:
        return {"verdict": FAILING, "error": exc.message}
    configured = spec_text(spec)
    out: dict[str, object] = {"provider": configured}
    if spec.provider == "none":
        reason = (
            "LAZY_INTEL_EMBEDDING=auto and the dense extra is not installed (pip install 'lazy-intel[dense]')"
            if parse_provider_spec(ws.settings.embedding).provider == "auto"
            else "no embedding provider configured (LAZY_INTEL_EMBEDDING=none)"
        )
        return {**out, "verdict": ABSENT, "reason": reason}
    if ws.dense_error is not None:
        message = getattr(ws.dense_error, "message", str(ws.dense_error))
        return {**out, "verdict": FAILING, "error": message}
    view = ctx.view
    if view is None:
        return {**out, "verdict": BUILDING if ws.is_building() else ABSENT, "reason": "no index yet"}
    profile = view.meta(META_PROFILE)
    if profile is None:
        verdict = BUILDING if ws.is_building() else ABSENT
        return {**out, "verdict": verdict, "reason": "no vectors yet; lazy-intel index builds them"}
    covered, total = vector_coverage(view.conn, profile)
    out.update({"profile": profile, "chunks_with_vectors": covered, "chunks": total})
    if covered >= total:
        return {**out, "verdict": READY}
    if ws.is_building():
        if ws.progress and ws.progress[0] == "embed":
            out["progress"] = list(ws.progress)
        return {**out, "verdict": BUILDING}
    return {**out, "verdict": ABSENT, "reason": "vectors are incomplete; run lazy-intel index to finish them"}


def _next_step(verdicts: dict[str, dict[str, object]], root: Path) -> str:
    lexical = verdicts["lexical"]["verdict"]
    if lexical == ABSENT:
        return f"run lazy-intel index {root}"
    if lexical == BUILDING:
        return "wait for the build to finish; status shows progress"
    if lexical == FAILING:
        return f"read the error, then run lazy-intel index {root}"
    return "ready: search, symbol and verify answer from the index"


def op_status(ctx: OperationContext) -> Answer:
    ws = ctx.workspace
    verdicts = _projection_verdicts(ctx)
    data: dict[str, object] = {
        "version": __version__,
        "root": str(ws.root),
        "state_dir": str(ws.state.path),
        "projections": verdicts,
        "next_step": _next_step(verdicts, ws.root),
    }
    if ctx.view is not None:
        view = ctx.view
        data["store"] = view.store_path.name
        data["counts"] = view.counts()
        data["languages"] = view.languages()
        data["scope_source"] = view.meta("scope_source")
        data["parser_versions"] = view.meta("parser_versions")
    if ws.last_report is not None:
        data["last_sync"] = ws.last_report.to_dict()
    if ws.last_vectors is not None:
        data["last_embedding"] = ws.last_vectors.to_dict()
    # the dense, graph and semantic projections are optional: readiness is the lexical verdict
    ready = verdicts["lexical"]["verdict"] == READY
    return fit_answer(
        "status",
        [],
        max_chars=ctx.request.max_chars,
        view=ctx.view_info,
        warnings=ctx.warnings,
        data=data,
        ok_without_items=ready,
    )


def op_sync(ctx: OperationContext) -> Answer:
    if ctx.request.backend not in ("all", "lexical"):
        raise Unsupported(
            f"backend={ctx.request.backend} has no derived index to sync in this version",
            next_step="use backend=all",
        )
    report = ctx.workspace.sync(rebuild=ctx.request.operation == "reindex")
    return fit_answer(
        ctx.request.operation,
        [],
        max_chars=ctx.request.max_chars,
        view=ctx.view_info,
        warnings=ctx.warnings,
        data=report.to_dict(),
        ok_without_items=True,
    )


def op_verify(ctx: OperationContext) -> Answer:
    request = ctx.request
    require(request, "anchors")
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
        items.append(
            Item(
                kind="verification",
                text_kind=TEXT_DESCRIPTION,
                text=verdict.reason,
                anchor=verdict.anchor,
                extra={"verdict": verdict.verdict, "input_index": index},
            )
        )
    return fit_answer(
        "verify",
        items,
        max_chars=request.max_chars,
        view=ctx.view_info,
        coverage=["verified against the bytes on disk now"],
        warnings=ctx.warnings,
    )

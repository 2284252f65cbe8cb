"""One verdict per projection, and the next step: what ``status`` leads with (DESIGN §5).

Verdicts: ``ready``, ``building`` (with progress), ``absent``, ``needs_recovery`` (a dead writer
left an interrupted publication), ``failing`` (the store fails its checks, or the last sync failed).
A projection is ``required`` when this configuration builds it; ``status`` is ``partial`` while any
required projection is not ``ready``.

Projections register a probe in :data:`PROJECTION_PROBES` (the dense and graph projections add
theirs next to the lexical one); everything a probe may look at is in :class:`StatusInputs`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lazy_intel.errors import LazyIntelError, WorkspaceOwned
from lazy_intel.graph.rows import NAME_GUESS_STRATEGIES
from lazy_intel.search.embedders import parse_provider_spec, spec_text
from lazy_intel.search.vectors import META_PROFILE, vector_coverage
from lazy_intel.service.indexing.parse_pool import SyncCancelled
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.store.pg.vectors import META_COLUMN, search_method
from lazy_intel.store.reader import ReadView
from lazy_intel.timestamps import iso_utc

if TYPE_CHECKING:
    from lazy_intel.semantic import SemanticLayer

READY = "ready"
BUILDING = "building"
ABSENT = "absent"
NEEDS_RECOVERY = "needs_recovery"
FAILING = "failing"
VERDICTS = (READY, BUILDING, ABSENT, NEEDS_RECOVERY, FAILING)


@dataclass(frozen=True)
class StatusInputs:
    workspace: Workspace
    view: ReadView | None
    settings: Settings
    semantic: SemanticLayer | None = None


@dataclass(frozen=True)
class Verdict:
    projection: str
    verdict: str
    next_step: str
    required: bool = True
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "required": self.required,
            "next_step": self.next_step,
            **self.detail,
        }


def building_detail(ws: Workspace) -> dict[str, Any]:
    """Progress of the sync this process runs for ``ws`` (stage, done, total, seconds so far)."""
    detail: dict[str, Any] = {}
    since = ws.scheduler.running_since
    if since is not None:
        detail["running_s"] = round(time.monotonic() - since, 1)
    if ws.progress is not None:
        stage, done, total = ws.progress
        detail["progress"] = {"stage": stage, "done": done, "total": total}
    return detail


def _failure(error: BaseException | None) -> str | None:
    if error is None or isinstance(error, WorkspaceOwned | SyncCancelled):
        return None
    return str(error)


def lexical_verdict(inputs: StatusInputs) -> Verdict:
    ws, view = inputs.workspace, inputs.view
    root = ws.root
    holder = ws.lock.live_holder()
    other_writer = holder if holder is not None and holder != os.getpid() else None
    running = ws.scheduler.syncing
    if ws.store_fault is not None:
        return Verdict(
            "lexical",
            FAILING,
            "a rebuild into a fresh store is running; retry shortly"
            if ws.is_building()
            else f"run lazy-intel repair --root {root}",
            detail={"store_fault": ws.store_fault, **building_detail(ws)},
        )
    pending = ws.journal.pending()
    if pending and other_writer is None and not running:
        return Verdict(
            "lexical",
            NEEDS_RECOVERY,
            f"the next sync recovers it: run lazy-intel index {root} (serve does it on its own)",
            detail={
                "interrupted": [
                    {"kind": i.kind, "store": i.store, "pid": i.pid, "started_at": iso_utc(i.started_at)}
                    for i in pending
                ]
            },
        )
    if view is None:
        if running:
            return Verdict("lexical", BUILDING, "wait; status shows progress", detail=building_detail(ws))
        if other_writer is not None:
            return Verdict(
                "lexical",
                BUILDING,
                f"process {other_writer} owns publication and is building; wait",
                detail={"builder_pid": other_writer},
            )
        failure = _failure(ws.last_error)
        if failure:
            return Verdict(
                "lexical",
                FAILING,
                f"read the error, then run lazy-intel index {root}",
                detail={"error": failure},
            )
        return Verdict("lexical", ABSENT, f"run lazy-intel index {root} (serve builds on first use)")
    detail: dict[str, Any] = {"generation": view.generation, "published_at": view.published_at}
    failure = _failure(ws.last_error)
    if failure:
        detail["error"] = failure
        return Verdict(
            "lexical",
            FAILING,
            f"serving generation {view.generation}; the last sync failed: read the error, then run "
            f"lazy-intel index {root}",
            detail=detail,
        )
    if running:
        detail["sync_running"] = True
        detail.update(building_detail(ws))
    return Verdict("lexical", READY, "ready: search, symbol and verify answer from the index", detail=detail)


def _dense_verdict(inputs: StatusInputs) -> Verdict:
    """ready / building / absent / failing for the vector projection, without loading the model."""
    ws, view = inputs.workspace, inputs.view
    root = ws.root
    try:
        spec = ws.embedding_spec()
    except LazyIntelError as exc:
        return Verdict(
            "dense", FAILING, "fix LAZY_INTEL_EMBEDDING", required=False, detail={"error": exc.message}
        )
    detail: dict[str, Any] = {"provider": spec_text(spec)}
    if spec.provider == "none":
        auto = parse_provider_spec(ws.settings.embedding).provider == "auto"
        reason = (
            "LAZY_INTEL_EMBEDDING=auto and the dense extra is not installed (pip install 'lazy-intel[dense]')"
            if auto
            else "no embedding provider configured (LAZY_INTEL_EMBEDDING=none)"
        )
        step = "pip install 'lazy-intel[dense]' for dense retrieval" if auto else "set LAZY_INTEL_EMBEDDING"
        return Verdict("dense", ABSENT, step, required=False, detail={**detail, "reason": reason})
    if ws.dense_error is not None:
        message = getattr(ws.dense_error, "message", str(ws.dense_error))
        return Verdict(
            "dense",
            FAILING,
            "read the error; fix the provider or set LAZY_INTEL_EMBEDDING=none",
            required=False,
            detail={**detail, "error": message},
        )
    building = ws.scheduler.syncing
    if view is None:
        return Verdict(
            "dense",
            BUILDING if building else ABSENT,
            "wait; status shows progress" if building else f"run lazy-intel index {root}",
            required=False,
            detail={**detail, "reason": "no index yet"},
        )
    profile = view.meta(META_PROFILE)
    if profile is None:
        return Verdict(
            "dense",
            BUILDING if building else ABSENT,
            "wait; status shows progress" if building else f"run lazy-intel index {root}",
            required=False,
            detail={**detail, "reason": "no vectors yet; lazy-intel index builds them"},
        )
    covered, total = vector_coverage(view.conn, profile)
    method = search_method(getattr(view, "dialect", "sqlite"), view.meta(META_COLUMN))
    detail.update({"profile": profile, "chunks_with_vectors": covered, "chunks": total, "search": method})
    if covered >= total:
        return Verdict("dense", READY, "ready: search fuses dense similarity", required=False, detail=detail)
    if building:
        if ws.progress and ws.progress[0] in ("prepare", "embed"):
            detail["progress"] = list(ws.progress)
        return Verdict("dense", BUILDING, "wait; status shows progress", required=False, detail=detail)
    return Verdict(
        "dense",
        ABSENT,
        f"run lazy-intel index {root} to finish the vectors",
        required=False,
        detail={**detail, "reason": "vectors are incomplete; run lazy-intel index to finish them"},
    )


def graph_counts(view: ReadView) -> dict[str, Any]:
    """What the property graph of ``view`` holds: nodes, edges resolved by evidence, edges guessed by
    name (``unique-name``/``ambiguous``), unresolved sites, and the files it covers. Counted once per
    generation (a scan of the edges: ~140 ms on Django, at every ``status`` before)."""
    return view.per_generation("graph_counts", lambda: _graph_counts(view))


def _graph_counts(view: ReadView) -> dict[str, Any]:
    # every count but the name-guessed one reads an index; that one reads the strategy of every edge
    # (~50 ms on Django's 412k edges; grouping all of them by strategy took ~130)
    conn = view.conn
    nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    edges = conn.execute("SELECT count(*) FROM edges").fetchone()[0]
    unresolved = conn.execute("SELECT count(*) FROM edges WHERE dst IS NULL").fetchone()[0]
    marks = ",".join("?" * len(NAME_GUESS_STRATEGIES))
    guessed = conn.execute(
        f"SELECT count(*) FROM edges WHERE strategy IN ({marks}) AND dst IS NOT NULL", NAME_GUESS_STRATEGIES
    ).fetchone()[0]
    return {
        "nodes": nodes,
        "edges": edges,
        "resolved_edges": edges - unresolved - guessed,
        "name_guessed_edges": guessed,
        "unresolved_sites": unresolved,
        "files": conn.execute("SELECT count(*) FROM graph_files").fetchone()[0],
    }


def _graph_verdict(inputs: StatusInputs) -> Verdict:
    """The graph is derived in the same publication as the lexical projection: its verdict follows
    the store (its resolver version and what it holds), not a constant."""
    from lazy_intel.graph.build import RESOLVER_VERSION

    ws, view = inputs.workspace, inputs.view
    root = ws.root
    if view is None:
        building = ws.scheduler.syncing
        return Verdict(
            "graph",
            BUILDING if building else ABSENT,
            "wait; status shows progress"
            if building
            else f"run lazy-intel index {root} (serve builds on first use)",
            detail={"reason": "no index yet"},
        )
    built_by = view.meta("resolver_version")
    if built_by != RESOLVER_VERSION:
        return Verdict(
            "graph",
            ABSENT,
            f"run lazy-intel index {root}: the store was built by another graph resolver",
            detail={
                "reason": f"built by resolver version {built_by}, this version writes {RESOLVER_VERSION}"
            },
        )
    detail: dict[str, Any] = {
        "generation": view.generation,
        "resolver_version": built_by,
        **graph_counts(view),
    }
    return Verdict(
        "graph",
        READY,
        "ready: callers, callees, impact, architecture, routes and query answer from the index graph",
        detail=detail,
    )


def _semantic_verdict(inputs: StatusInputs) -> Verdict:
    layer = inputs.semantic
    if layer is None or not layer.configured:
        return Verdict(
            "semantic",
            ABSENT,
            "configure a trusted language server (LAZY_INTEL_LSP_CONFIG) for live semantics",
            required=False,
            detail={"reason": "no trusted language server configured (LAZY_INTEL_LSP_CONFIG)"},
        )
    servers = layer.status(inputs.workspace.root)  # metadata and health only; starts nothing
    failing = [s for s in servers if s.get("health") in ("failed", "failing")]
    all_failing = bool(failing) and len(failing) == len(servers)
    return Verdict(
        "semantic",
        FAILING if all_failing else READY,
        "read each server's health and error; fix the configuration or the server"
        if all_failing
        else "ready: servers start on first use; operations listed are the ones they negotiated",
        required=False,
        detail={
            "servers": servers,
            "note": "servers start on first use; operations listed are the ones they negotiated",
        },
    )


ProjectionProbe = Callable[[StatusInputs], Verdict]

PROJECTION_PROBES: dict[str, ProjectionProbe] = {
    "lexical": lexical_verdict,
    "dense": _dense_verdict,
    "graph": _graph_verdict,
    "semantic": _semantic_verdict,
}


def projection_verdicts(inputs: StatusInputs) -> list[Verdict]:
    return [probe(inputs) for probe in PROJECTION_PROBES.values()]


def overall(verdicts: list[Verdict]) -> tuple[bool, str]:
    """(every required projection ready, the next step: the first unready one's, else ready's)."""
    for verdict in verdicts:
        if verdict.required and verdict.verdict != READY:
            return False, f"{verdict.projection}: {verdict.next_step}"
    ready = [v for v in verdicts if v.required]
    return True, ready[0].next_step if ready else "ready"

"""One function per loop command: load state, read git, run the pure transition, save.

Every function returns a JSON-ready dict; every refused gate raises ``GateRefused`` (or another
``LazyIntelError``) after the refusal has been written to the loop's history.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lazy_intel.errors import GateRefused, InvalidArgument, LazyIntelError, NotFound
from lazy_intel.loop import transitions
from lazy_intel.loop.gitstate import git_fingerprint, git_toplevel
from lazy_intel.loop.model import Fingerprint, LoopRecord
from lazy_intel.loop.plan import MAX_PLAN_BYTES, normalize_item_id, parse_plan, parse_review
from lazy_intel.loop.store import LoopStore
from lazy_intel.settings import load_settings
from lazy_intel.workspace.root import canonical_root


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def resolve_loop_root(raw: str | None, *, cwd: Path | None = None) -> Path:
    """``--root`` if given; else the nearest directory with a loop, else the git top level, else cwd."""
    settings = load_settings()
    policy = {"allowed_roots": settings.allowed_roots, "deny_roots": settings.deny_roots}
    if raw:
        return canonical_root(raw, **policy)
    start = (cwd or Path.cwd()).resolve()
    found = LoopStore.find(start, stop_at=Path.home())
    if found is not None:
        return canonical_root(found.root, **policy)
    try:
        return canonical_root(git_toplevel(start), **policy)
    except GateRefused:
        return canonical_root(start, **policy)


def _record_refusal(store: LoopStore, record: LoopRecord | None, action: str, exc: LazyIntelError) -> None:
    if record is None:
        return
    refused = transitions.with_event(
        record, now_iso(), "refused", action=action, code=exc.code, reason=exc.message
    )
    store.save(refused)


def _transition(root: Path, action: str, step: Callable[[LoopRecord | None], LoopRecord]) -> LoopRecord:
    store = LoopStore(root)
    if not store.exists():
        return step(None)  # refuses (no loop registered) without creating any state
    with store.locked():
        record = store.load()
        try:
            updated = step(record)
        except LazyIntelError as exc:
            _record_refusal(store, record, action, exc)
            raise
        store.save(updated)
        return updated


def _summary(record: LoopRecord) -> dict[str, Any]:
    return {
        "slug": record.slug,
        "title": record.title,
        "state": record.state,
        "created_at": record.created_at,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "plan_sha256": record.plan_sha256,
        "plan_source": record.plan_source,
        "review": record.review.to_dict() if record.review else None,
        "required": list(record.required_ids),
    }


def register(root: Path, slug: str, title: str, *, replace_active: bool = False) -> dict[str, Any]:
    transitions.check_new_loop(slug, title)
    store = LoopStore(root)
    with store.locked():
        try:
            existing = store.load()
        except GateRefused as exc:
            if exc.code != "LOOP_STATE_CORRUPT" or not replace_active:
                raise
            store.set_aside_corrupt()
            existing = None
        record, archived = transitions.register(
            existing, slug, title, now_iso(), replace_active=replace_active
        )
        archived_path = store.archive(archived) if archived is not None else None
        store.save(record)
    return {
        "loop": _summary(record),
        "archived": str(archived_path) if archived_path else None,
        "next_step": transitions.next_step(record, None),
    }


def _read_plan_file(path: Path) -> bytes:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise NotFound(f"plan file {path} does not exist", next_step="write the plan first") from None
    if not stat.S_ISREG(info.st_mode):
        raise InvalidArgument(f"plan file {path} is not a regular file")
    if info.st_size > MAX_PLAN_BYTES:
        raise InvalidArgument(f"plan file {path} is {info.st_size} bytes; at most {MAX_PLAN_BYTES}")
    return path.read_bytes()


def submit_plan(root: Path, plan_path: Path, review_text: str | None) -> dict[str, Any]:
    data = _read_plan_file(plan_path)
    try:
        source = plan_path.resolve().relative_to(root).as_posix()
    except ValueError:
        source = str(plan_path.resolve())
    store = LoopStore(root)
    if not store.exists():
        transitions.submit_plan(
            None, parse_plan(data, source=source), parse_review(review_text), source, now_iso()
        )
    with store.locked():
        record = store.load()
        try:
            plan = parse_plan(data, source=source)
            review = parse_review(review_text)
            updated = transitions.submit_plan(record, plan, review, source, now_iso())
        except LazyIntelError as exc:
            _record_refusal(store, record, "plan", exc)
            raise
        store.save_plan(data)
        store.save(updated)
    return {
        "loop": _summary(updated),
        "items": [{"id": i.id, "text": i.text, "required": i.required} for i in updated.items],
        "next_step": transitions.next_step(updated, None),
    }


def start(root: Path) -> dict[str, Any]:
    def step(record: LoopRecord | None) -> LoopRecord:
        _check_plan_copy(LoopStore(root), record)
        return transitions.start(record, now_iso())

    updated = _transition(root, "start", step)
    return {"loop": _summary(updated), "next_step": transitions.next_step(updated, None)}


def _check_plan_copy(store: LoopStore, record: LoopRecord | None) -> None:
    """The approved plan copy must still hash to what was approved."""
    if record is None or record.plan_sha256 is None:
        return
    data = store.load_plan()
    if data is None or hashlib.sha256(data).hexdigest() != record.plan_sha256:
        raise GateRefused(
            f"the approved plan copy {store.plan_file} is missing or was modified after review",
            code="LOOP_STATE_CORRUPT",
            next_step='resubmit the plan: `lazy-intel loop plan plan.md --review "<reviewer>: PASS …"`',
        )


def step_done(root: Path, raw_id: str, evidence: str | None, *, allow_dirty: bool = False) -> dict[str, Any]:
    item_id = normalize_item_id(raw_id)
    captured: dict[str, Fingerprint] = {}

    def step(record: LoopRecord | None) -> LoopRecord:
        if record is not None and record.state == "executing":
            captured["fp"] = git_fingerprint(root)
        current = captured.get("fp") or Fingerprint("", "")
        return transitions.step_done(record, item_id, evidence, current, now_iso(), allow_dirty=allow_dirty)

    updated = _transition(root, "step done", step)
    ev = updated.evidence_for(item_id)
    assert ev is not None
    fp = captured["fp"]
    return {
        "loop": _summary(updated),
        "item": item_id,
        "evidence": ev.to_dict(),
        "dirty": not fp.clean,
        "next_step": transitions.next_step(updated, fp),
    }


def finish(root: Path) -> dict[str, Any]:
    captured: dict[str, Fingerprint] = {}

    def step(record: LoopRecord | None) -> LoopRecord:
        if record is not None and record.state == "executing":
            captured["fp"] = git_fingerprint(root)
        return transitions.finish(record, captured.get("fp") or Fingerprint("", ""), now_iso())

    updated = _transition(root, "finish", step)
    fp = captured["fp"]
    return {
        "loop": _summary(updated),
        "items": transitions.evidence_report(updated, fp),
        "tree": fp.tree,
        "next_step": transitions.next_step(updated, fp),
    }


def current_fingerprint(root: Path) -> tuple[Fingerprint | None, str | None]:
    """The git state, or ``(None, reason)`` when it cannot be read (not a repo, no commit)."""
    try:
        return git_fingerprint(root), None
    except LazyIntelError as exc:
        return None, exc.message


def status(root: Path) -> dict[str, Any]:
    store = LoopStore(root)
    record = store.load()
    if record is None:
        return {"root": str(root), "loop": None, "next_step": transitions.next_step(None, None)}
    fp, git_problem = current_fingerprint(root)
    return {
        "root": str(root),
        "loop": _summary(record),
        "items": transitions.evidence_report(record, fp),
        "tree": fp.tree if fp else None,
        "head": fp.head if fp else None,
        "dirty_paths": list(fp.dirty_paths) if fp else [],
        "git": git_problem,
        "history": list(record.history[-10:]),
        "next_step": transitions.next_step(record, fp),
    }

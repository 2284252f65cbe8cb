"""The goal-loop state machine as pure functions: record in, record out, or a refused gate.

``registered --plan(PASS)--> planned --start--> executing --finish--> done``; ``step done`` records
evidence while executing; ``register --replace`` abandons an unfinished loop. No I/O here: the git
state (``Fingerprint``) and the clock come in as arguments, so every gate is testable as logic.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lazy_intel.errors import GateRefused, InvalidArgument, NotFound
from lazy_intel.loop.model import (
    MAX_EVIDENCE_CHARS,
    MAX_HISTORY,
    SLUG,
    Evidence,
    Fingerprint,
    LoopRecord,
    ReviewRecord,
)
from lazy_intel.loop.plan import Plan, Review

NEXT_PLAN = (
    'write plan.md, have it reviewed, then `lazy-intel loop plan plan.md --review "<reviewer>: PASS …"`'
)


def with_event(record: LoopRecord, now: str, event: str, **detail: Any) -> LoopRecord:
    """Append one history entry (bounded to the newest ``MAX_HISTORY``)."""
    entry = {"at": now, "event": event, **detail}
    return replace(record, history=(*record.history, entry)[-MAX_HISTORY:])


def _require_state(record: LoopRecord | None, allowed: tuple[str, ...], action: str) -> LoopRecord:
    if record is None:
        raise GateRefused(
            f"cannot {action}: no goal loop is registered here",
            code="LOOP_NOT_REGISTERED",
            next_step='`lazy-intel loop register <slug> --title "…"`',
        )
    if record.state not in allowed:
        raise GateRefused(
            f"cannot {action}: loop {record.slug!r} is {record.state}, this needs {' or '.join(allowed)}",
            code="LOOP_STATE",
            next_step=next_step(record, None),
            details={"state": record.state, "allowed": list(allowed)},
        )
    return record


def check_new_loop(slug: str, title: str) -> str:
    """Validate a new loop's slug and title; returns the stripped title."""
    if not SLUG.match(slug):
        raise InvalidArgument(
            f"slug {slug!r} is not 1-63 lower-case letters, digits and hyphens starting with a letter or digit",
            next_step="pass a slug such as export-csv",
        )
    title = title.strip()
    if not title or len(title) > 200:
        raise InvalidArgument("a loop needs a --title of 1 to 200 characters")
    return title


def register(
    existing: LoopRecord | None, slug: str, title: str, now: str, *, replace_active: bool = False
) -> tuple[LoopRecord, LoopRecord | None]:
    """New loop; returns ``(new, archived)`` where ``archived`` is the previous loop, if any."""
    title = check_new_loop(slug, title)
    archived = existing
    if existing is not None and existing.active:
        if not replace_active:
            raise GateRefused(
                f"loop {existing.slug!r} is still {existing.state}",
                code="LOOP_EXISTS",
                next_step="finish it with `lazy-intel loop finish`, or pass --replace to archive it as abandoned",
                details={"slug": existing.slug, "state": existing.state},
            )
        archived = with_event(replace(existing, state="abandoned"), now, "abandoned", replaced_by=slug)
    record = LoopRecord(slug=slug, title=title, state="registered", created_at=now)
    return with_event(record, now, "registered", title=title), archived


def submit_plan(
    record: LoopRecord | None, plan: Plan, review: Review | None, source: str, now: str
) -> LoopRecord:
    """Accept a plan with a PASS review (again allowed until ``start``); none or REVISE is refused."""
    current = _require_state(record, ("registered", "planned"), "accept a plan")
    if review is None:
        raise GateRefused(
            "plan refused: it has no review verdict",
            code="PLAN_NOT_APPROVED",
            next_step='have the plan reviewed independently, then pass --review "<reviewer>: PASS <note>"',
        )
    if not review.passed:
        raise GateRefused(
            f"plan refused: {review.reviewer} asked to REVISE" + (f" ({review.note})" if review.note else ""),
            code="PLAN_NOT_APPROVED",
            next_step="revise the plan, get it reviewed again and resubmit it with a PASS verdict",
            details={"reviewer": review.reviewer, "verdict": review.verdict, "note": review.note},
        )
    updated = replace(
        current,
        state="planned",
        plan_sha256=plan.sha256,
        plan_source=source,
        items=plan.items,
        review=ReviewRecord(review.reviewer, review.verdict, review.note, now),
    )
    return with_event(updated, now, "planned", plan_sha256=plan.sha256, reviewer=review.reviewer)


def start(record: LoopRecord | None, now: str) -> LoopRecord:
    current = _require_state(record, ("planned",), "start")
    return with_event(replace(current, state="executing", started_at=now), now, "started")


def step_done(
    record: LoopRecord | None,
    item_id: str,
    text: str | None,
    current: Fingerprint,
    now: str,
    *,
    allow_dirty: bool = False,
) -> LoopRecord:
    """Bind evidence for one item to the current git state; a recapture replaces (re-binds) it."""
    loop = _require_state(record, ("executing",), "record a step")
    item = loop.item(item_id)
    if item is None:
        raise NotFound(
            f"plan item {item_id} is not in loop {loop.slug!r} (items: {', '.join(i.id for i in loop.items)})",
            next_step="use an ID listed by `lazy-intel loop status`",
        )
    body = (text or "").strip()
    if item.required and not body:
        raise InvalidArgument(
            f"{item_id} is an F item: it needs --evidence naming what was observed",
            next_step=f'`lazy-intel loop step done {item_id} --evidence "<command> -> <observed result>"`',
        )
    if len(body) > MAX_EVIDENCE_CHARS:
        raise InvalidArgument(f"evidence is {len(body)} characters; at most {MAX_EVIDENCE_CHARS}")
    if not current.clean and not allow_dirty:
        shown = ", ".join(current.dirty_paths[:5]) + (" …" if len(current.dirty_paths) > 5 else "")
        raise GateRefused(
            f"work tree has uncommitted changes ({shown}); evidence binds to HEAD^{{tree}}",
            code="DIRTY_TREE",
            next_step="commit first, capture after (or pass --allow-dirty to bind it to this exact dirty state)",
            details={"dirty_paths": list(current.dirty_paths)},
        )
    evidence = Evidence(item_id, body, current.tree, current.head, now, current.dirty_digest)
    previous = loop.evidence_for(item_id)
    kept = tuple(e for e in loop.evidence if e.item_id != item_id)
    updated = replace(loop, evidence=(*kept, evidence))
    return with_event(
        updated,
        now,
        "recaptured" if previous else "captured",
        item=item_id,
        tree=current.tree,
        dirty=not current.clean,
        **({"previous_tree": previous.tree} if previous else {}),
    )


def evidence_report(record: LoopRecord, current: Fingerprint | None) -> list[dict[str, Any]]:
    """Per plan item: required?, evidence state (missing / fresh / stale / unknown) and why."""
    rows = []
    for item in record.items:
        ev = record.evidence_for(item.id)
        row: dict[str, Any] = {"id": item.id, "text": item.text, "required": item.required}
        if ev is None:
            row["evidence"] = "missing"
        elif current is None:
            row["evidence"] = "unknown"
        elif ev.fresh_on(current):
            row["evidence"] = "fresh"
        else:
            row["evidence"] = "stale"
            row["why"] = (
                f"captured on tree {ev.tree[:12]}, HEAD is now on tree {current.tree[:12]}"
                if ev.tree != current.tree
                else "uncommitted changes differ from those present at capture"
            )
        if ev is not None:
            row["captured_tree"] = ev.tree
            row["captured_at"] = ev.captured_at
            row["text_evidence"] = ev.text
        rows.append(row)
    return rows


def finish(record: LoopRecord | None, current: Fingerprint, now: str) -> LoopRecord:
    """Done only when every F item has evidence captured on exactly the current state."""
    loop = _require_state(record, ("executing",), "finish")
    rows = evidence_report(loop, current)
    missing = [r["id"] for r in rows if r["required"] and r["evidence"] == "missing"]
    stale = [r for r in rows if r["required"] and r["evidence"] == "stale"]
    details = {
        "missing": missing,
        "stale": [{"id": r["id"], "why": r["why"]} for r in stale],
        "tree": current.tree,
    }
    if missing:
        raise GateRefused(
            f"cannot finish: F items without evidence: {', '.join(missing)}"
            + (f"; stale: {', '.join(r['id'] for r in stale)}" if stale else ""),
            code="EVIDENCE_MISSING",
            next_step=f'commit, then `lazy-intel loop step done {missing[0]} --evidence "…"`',
            details=details,
        )
    if stale:
        raise GateRefused(
            "cannot finish: evidence is stale by construction: "
            + "; ".join(f"{r['id']} {r['why']}" for r in stale),
            code="EVIDENCE_STALE",
            next_step=f"re-check on the current tree and recapture: `lazy-intel loop step done {stale[0]['id']} "
            '--evidence "…"`',
            details=details,
        )
    return with_event(replace(loop, state="done", finished_at=now), now, "finished", tree=current.tree)


def next_step(record: LoopRecord | None, current: Fingerprint | None) -> str:
    """One sentence: the command that moves this loop forward."""
    if record is None or record.state in ("done", "abandoned"):
        return '`lazy-intel loop register <slug> --title "…"`'
    if record.state == "registered":
        return NEXT_PLAN
    if record.state == "planned":
        return "`lazy-intel loop start`"
    for row in evidence_report(record, current):
        if row["required"] and row["evidence"] != "fresh":
            return f'commit, then `lazy-intel loop step done {row["id"]} --evidence "<observed result>"`'
    return "`lazy-intel loop finish`"


def pending_required(record: LoopRecord, current: Fingerprint | None) -> list[str]:
    """F items whose evidence is not fresh on ``current`` (all of them when the state is unknown)."""
    return [r["id"] for r in evidence_report(record, current) if r["required"] and r["evidence"] != "fresh"]

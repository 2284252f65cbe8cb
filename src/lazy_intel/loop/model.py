"""Records of the goal loop: the loop itself, its evidence and the git state evidence binds to.

Everything here is pure data with a stable JSON form (``to_dict`` / ``from_dict``); the on-disk
file is ``<root>/.lazy-intel/loop/loop.json``. ``from_dict`` validates strictly: a record that does
not parse is ``LOOP_STATE_CORRUPT``, never silently repaired.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import GateRefused
from lazy_intel.loop.plan import PlanItem

SCHEMA_VERSION = 1
STATES: tuple[str, ...] = ("registered", "planned", "executing", "done", "abandoned")
ACTIVE_STATES: tuple[str, ...] = ("registered", "planned", "executing")
MAX_HISTORY = 200
MAX_EVIDENCE_CHARS = 8000
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


@dataclass(frozen=True)
class Fingerprint:
    """The git state a capture is bound to: ``HEAD^{tree}`` plus a digest of uncommitted changes.

    ``dirty_digest`` is ``None`` for a clean work tree (``.lazy-intel/`` never counts as dirty).
    """

    tree: str
    head: str
    dirty_digest: str | None = None
    dirty_paths: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return self.dirty_digest is None


@dataclass(frozen=True)
class Evidence:
    item_id: str
    text: str
    tree: str
    head: str
    captured_at: str
    dirty_digest: str | None = None

    def fresh_on(self, current: Fingerprint) -> bool:
        """Fresh only on the very state it was captured on: same tree, same uncommitted changes."""
        return self.tree == current.tree and self.dirty_digest == current.dirty_digest

    def to_dict(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "text": self.text,
            "tree": self.tree,
            "head": self.head,
            "captured_at": self.captured_at,
            "dirty_digest": self.dirty_digest,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Evidence:
        d = _mapping(data, "evidence")
        return cls(
            item_id=_text(d, "item_id"),
            text=_text(d, "text", allow_empty=True),
            tree=_text(d, "tree"),
            head=_text(d, "head"),
            captured_at=_text(d, "captured_at"),
            dirty_digest=_optional_text(d, "dirty_digest"),
        )


@dataclass(frozen=True)
class ReviewRecord:
    reviewer: str
    verdict: str
    note: str
    at: str

    def to_dict(self) -> dict[str, Any]:
        return {"reviewer": self.reviewer, "verdict": self.verdict, "note": self.note, "at": self.at}

    @classmethod
    def from_dict(cls, data: Any) -> ReviewRecord:
        d = _mapping(data, "review")
        return cls(
            _text(d, "reviewer"), _text(d, "verdict"), _text(d, "note", allow_empty=True), _text(d, "at")
        )


@dataclass(frozen=True)
class LoopRecord:
    slug: str
    title: str
    state: str
    created_at: str
    plan_sha256: str | None = None
    plan_source: str | None = None
    items: tuple[PlanItem, ...] = ()
    review: ReviewRecord | None = None
    started_at: str | None = None
    finished_at: str | None = None
    evidence: tuple[Evidence, ...] = ()
    history: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    def item(self, item_id: str) -> PlanItem | None:
        return next((i for i in self.items if i.id == item_id), None)

    def evidence_for(self, item_id: str) -> Evidence | None:
        return next((e for e in self.evidence if e.item_id == item_id), None)

    @property
    def required_ids(self) -> tuple[str, ...]:
        return tuple(i.id for i in self.items if i.required)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "slug": self.slug,
            "title": self.title,
            "state": self.state,
            "created_at": self.created_at,
            "plan_sha256": self.plan_sha256,
            "plan_source": self.plan_source,
            "items": [{"id": i.id, "text": i.text, "line": i.line} for i in self.items],
            "review": self.review.to_dict() if self.review else None,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "evidence": [e.to_dict() for e in self.evidence],
            "history": list(self.history),
        }

    @classmethod
    def from_dict(cls, data: Any) -> LoopRecord:
        d = _mapping(data, "loop")
        if d.get("schema") != SCHEMA_VERSION:
            raise _corrupt(f"loop state has schema {d.get('schema')!r}, expected {SCHEMA_VERSION}")
        state = _text(d, "state")
        if state not in STATES:
            raise _corrupt(f"loop state {state!r} is not one of {', '.join(STATES)}")
        items_raw = d.get("items", [])
        evidence_raw = d.get("evidence", [])
        history_raw = d.get("history", [])
        if not isinstance(items_raw, list) or not isinstance(evidence_raw, list):
            raise _corrupt("loop state items/evidence are not lists")
        if not isinstance(history_raw, list) or not all(isinstance(h, dict) for h in history_raw):
            raise _corrupt("loop state history is not a list of objects")
        items = []
        for raw in items_raw:
            item = _mapping(raw, "plan item")
            line = item.get("line")
            if not isinstance(line, int):
                raise _corrupt("plan item line is not an integer")
            items.append(PlanItem(_text(item, "id"), _text(item, "text"), line))
        review_raw = d.get("review")
        return cls(
            slug=_text(d, "slug"),
            title=_text(d, "title"),
            state=state,
            created_at=_text(d, "created_at"),
            plan_sha256=_optional_text(d, "plan_sha256"),
            plan_source=_optional_text(d, "plan_source"),
            items=tuple(items),
            review=ReviewRecord.from_dict(review_raw) if review_raw is not None else None,
            started_at=_optional_text(d, "started_at"),
            finished_at=_optional_text(d, "finished_at"),
            evidence=tuple(Evidence.from_dict(e) for e in evidence_raw),
            history=tuple(history_raw),
        )


def _corrupt(message: str) -> GateRefused:
    return GateRefused(
        message,
        code="LOOP_STATE_CORRUPT",
        next_step="inspect .lazy-intel/loop/loop.json, or `lazy-intel loop register <slug> --replace` to start over",
    )


def _mapping(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _corrupt(f"{what} is not a JSON object")
    return data


def _text(d: dict[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = d.get(key)
    if not isinstance(value, str) or (not value and not allow_empty):
        raise _corrupt(f"loop state field {key!r} is missing or not a string")
    return value


def _optional_text(d: dict[str, Any], key: str) -> str | None:
    value = d.get(key)
    if value is not None and not isinstance(value, str):
        raise _corrupt(f"loop state field {key!r} is not a string")
    return value

"""The publication journal: intent recorded before a publication mutates anything (DESIGN §4 "Recovery").

``<state>/runtime/publication.journal`` holds only publications still pending: a record is written
(atomically, fsynced) before a rebuild creates its store file or an incremental publication opens
its transaction, and removed when the publication is complete. The file is therefore bounded by the
number of concurrent writers (one), never by history. Recovery decisions are kept apart, in
``recovery.json``, and only the last :data:`DECISIONS_KEPT` of them.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lazy_intel.workspace.state import write_json_atomic

KIND_REBUILD = "rebuild"
KIND_INCREMENTAL = "incremental"

ROLLED_FORWARD = "rolled_forward"
ABANDONED = "abandoned"

DECISIONS_KEPT = 10


@dataclass(frozen=True)
class Intent:
    """One pending publication."""

    id: str
    kind: str  # rebuild | incremental
    store: str  # store file, relative to the state directory
    previous: str | None  # the store the catalog named when the intent was recorded
    profile: str  # scope digest: scope policy, parser fingerprint, schema (+ embedding profile)
    generation_before: int
    pid: int
    started_at: float

    @classmethod
    def new(
        cls, kind: str, store: str, previous: str | None, profile: str, generation_before: int = 0
    ) -> Intent:
        return cls(
            id=uuid.uuid4().hex[:12],
            kind=kind,
            store=store,
            previous=previous,
            profile=profile,
            generation_before=generation_before,
            pid=os.getpid(),
            started_at=time.time(),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Intent:
        return cls(
            id=str(data["id"]),
            kind=str(data["kind"]),
            store=str(data["store"]),
            previous=str(data["previous"]) if data.get("previous") else None,
            profile=str(data.get("profile", "")),
            generation_before=int(data.get("generation_before", 0)),
            pid=int(data.get("pid", 0)),
            started_at=float(data.get("started_at", 0.0)),
        )


@dataclass(frozen=True)
class Decision:
    """What recovery did with one interrupted publication."""

    intent: Intent
    decision: str  # rolled_forward | abandoned
    reason: str
    decided_at: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "reason": self.reason,
            "decided_at": self.decided_at,
            "intent": asdict(self.intent),
        }


class PublicationJournal:
    """Pending intents of one state directory. Only the writer-lock holder mutates it."""

    def __init__(self, runtime_dir: Path) -> None:
        self.path = runtime_dir / "publication.journal"
        self.decisions_path = runtime_dir / "recovery.json"

    def pending(self) -> list[Intent]:
        data = _read_json(self.path)
        records = data.get("pending", []) if isinstance(data, dict) else []
        out: list[Intent] = []
        for record in records if isinstance(records, list) else []:
            try:
                out.append(Intent.from_dict(record))
            except (KeyError, TypeError, ValueError):
                continue  # an unreadable record cannot be acted on; recovery sweeps its store
        return out

    def begin(self, intent: Intent) -> None:
        """Record ``intent`` durably before anything it describes is written."""
        records = [asdict(i) for i in self.pending() if i.id != intent.id]
        records.append(asdict(intent))
        write_json_atomic(self.path, {"pending": records})

    def finish(self, intent_id: str) -> None:
        """Drop a completed intent; the file is rewritten (to empty when nothing is pending)."""
        remaining = [asdict(i) for i in self.pending() if i.id != intent_id]
        write_json_atomic(self.path, {"pending": remaining})

    def decide(self, intent: Intent, decision: str, reason: str) -> Decision:
        """Record what happened to an interrupted intent and drop it from the pending list."""
        made = Decision(intent, decision, reason, time.time())
        kept = [*self.decisions()[-(DECISIONS_KEPT - 1) :], made.to_dict()]
        write_json_atomic(self.decisions_path, {"decisions": kept})
        self.finish(intent.id)
        return made

    def decisions(self) -> list[dict[str, Any]]:
        data = _read_json(self.decisions_path)
        records = data.get("decisions", []) if isinstance(data, dict) else []
        return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError):
        return None

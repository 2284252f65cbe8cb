"""The publication journal: intent recorded before a publication mutates anything (DESIGN §4 "Recovery").

``<state>/runtime/publication.journal`` holds only publications still pending: a record is written
(atomically, fsynced) before a rebuild creates its store file or an incremental publication opens
its transaction, and removed when the publication is complete. The file is therefore bounded by the
number of concurrent writers (one), never by history. Recovery decisions are kept apart, in
``recovery.json``, and only the last :data:`DECISIONS_KEPT` of them.

An incremental publication's record is written without the fsync when the file keeps no other
record (``write_json_atomic(durable=False)``): it must outlive the writer's process, which the
kernel's copy does; a power cut may lose it, and then nothing is lost with it — its SQLite
transaction (``synchronous=NORMAL``) is whole or rolled back either way, and the record only tells
recovery which of the two to record and that the store is to be checked. The fsync made every edit
in ``serve`` wait for the disk before its transaction: seconds on a disk other processes kept busy
(docs/design/indexing.md, "The serve edit path").

A rebuild killed before it published, whose fresh store holds committed batches of files under the
profile a build would use now, is kept **resumable** (at most one): the next full build continues in
that store instead of starting over (:mod:`service.sync`, :mod:`service.recovery`).
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
RESUMABLE = "resumable"  # a killed rebuild's fresh store, kept for the next full build to continue
RESUMED = "resumed"  # a full build continued in a resumable store

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
        return self._intents("pending")

    def resumable(self) -> list[Intent]:
        """Killed rebuilds whose fresh store a full build may continue (at most one)."""
        return self._intents("resumable")

    def _intents(self, key: str) -> list[Intent]:
        data = _read_json(self.path)
        records = data.get(key, []) if isinstance(data, dict) else []
        out: list[Intent] = []
        for record in records if isinstance(records, list) else []:
            try:
                out.append(Intent.from_dict(record))
            except (KeyError, TypeError, ValueError):
                continue  # an unreadable record cannot be acted on; recovery sweeps its store
        return out

    def _write(self, pending: list[Intent], resumable: list[Intent], *, durable: bool = True) -> None:
        body: dict[str, Any] = {"pending": [asdict(i) for i in pending]}
        if resumable:
            body["resumable"] = [asdict(i) for i in resumable]
        write_json_atomic(self.path, body, durable=durable)

    def begin(self, intent: Intent) -> None:
        """Record ``intent`` before anything it describes is written: durably (fsynced), except an
        incremental publication's when the file keeps no other record (see the module's docstring)."""
        records = [i for i in self.pending() if i.id != intent.id]
        resumable = self.resumable()
        quick = intent.kind == KIND_INCREMENTAL and not records and not resumable
        self._write([*records, intent], resumable, durable=not quick)

    def finish(self, intent_id: str) -> None:
        """Drop a completed intent; the file is rewritten (to empty when nothing is pending). The
        rewrite is fsynced unless the intent was incremental and no other record is kept."""
        pending = self.pending()
        done = [i for i in pending if i.id == intent_id]
        kept = [i for i in pending if i.id != intent_id]
        resumable = self.resumable()
        quick = bool(done) and all(i.kind == KIND_INCREMENTAL for i in done) and not kept and not resumable
        self._write(kept, resumable, durable=not quick)

    def decide(self, intent: Intent, decision: str, reason: str) -> Decision:
        """Record what happened to an interrupted intent and drop it from the pending list (and from
        the resumable one)."""
        made = self._record(intent, decision, reason)
        self._write(
            [i for i in self.pending() if i.id != intent.id],
            [i for i in self.resumable() if i.id != intent.id],
        )
        return made

    def keep_resumable(self, intent: Intent, reason: str) -> Decision:
        """Move an interrupted rebuild from pending to resumable (replacing any older one)."""
        made = self._record(intent, RESUMABLE, reason)
        self._write([i for i in self.pending() if i.id != intent.id], [intent])
        return made

    def _record(self, intent: Intent, decision: str, reason: str) -> Decision:
        made = Decision(intent, decision, reason, time.time())
        kept = [*self.decisions()[-(DECISIONS_KEPT - 1) :], made.to_dict()]
        write_json_atomic(self.decisions_path, {"decisions": kept})
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

"""The evidence contract as frozen dataclasses with a stable JSON form.

``to_dict`` drops ``None`` fields so that what is serialized is exactly what the budget counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

STATUS_OK = "ok"
STATUS_PARTIAL = "partial"
STATUS_ERROR = "error"

TEXT_SOURCE = "source"
TEXT_DESCRIPTION = "description"


def _compact(pairs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in pairs.items() if v is not None}


@dataclass(frozen=True)
class Anchor:
    """Where a piece of evidence came from: captured file hash plus UTF-8 byte and 1-based line span."""

    path: str
    sha256: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    generation: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "sha256": self.sha256,
            "start_byte": self.start_byte,
            "end_byte": self.end_byte,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "generation": self.generation,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Anchor:
        return cls(
            path=str(data["path"]),
            sha256=str(data["sha256"]),
            start_byte=int(data["start_byte"]),
            end_byte=int(data["end_byte"]),
            start_line=int(data.get("start_line", 0)),
            end_line=int(data.get("end_line", 0)),
            generation=int(data.get("generation", 0)),
        )


@dataclass(frozen=True)
class SemanticObservation:
    """Provenance of a live language-server result; never relabelled as indexed evidence."""

    server_id: str
    session_epoch: int
    document_version: int
    observed_sha256: str
    position_encoding: str
    diagnostics: str = "not_reported"  # completed | not_reported | partial

    def to_dict(self) -> dict[str, Any]:
        return {
            "server_id": self.server_id,
            "session_epoch": self.session_epoch,
            "document_version": self.document_version,
            "observed_sha256": self.observed_sha256,
            "position_encoding": self.position_encoding,
            "diagnostics": self.diagnostics,
        }


@dataclass(frozen=True)
class SymbolInfo:
    name: str
    qualified_name: str
    kind: str
    language: str | None = None
    signature: str | None = None
    doc: str | None = None
    parent: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return _compact(
            {
                "name": self.name,
                "qualified_name": self.qualified_name,
                "kind": self.kind,
                "language": self.language,
                "signature": self.signature,
                "doc": self.doc,
                "parent": self.parent,
            }
        )


@dataclass(frozen=True)
class Item:
    """One piece of evidence. ``text`` is the verbatim byte slice when ``text_kind`` is ``source``."""

    kind: str
    text_kind: str
    anchor: Anchor
    text: str | None = None
    symbol: SymbolInfo | None = None
    score: float | None = None
    signals: Mapping[str, float] | None = None
    confidence: float | None = None
    body_omitted: bool = False
    needed_chars: int | None = None
    observation: SemanticObservation | None = None
    extra: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text_kind": self.text_kind}
        if self.text is not None:
            out["text"] = self.text
        out["anchor"] = self.anchor.to_dict()
        if self.symbol is not None:
            out["symbol"] = self.symbol.to_dict()
        if self.score is not None:
            out["score"] = round(self.score, 6)
        if self.signals:
            out["signals"] = {k: round(v, 6) for k, v in self.signals.items()}
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 4)
        if self.body_omitted:
            out["body_omitted"] = True
            out["needed_chars"] = self.needed_chars
        if self.observation is not None:
            out["observation"] = self.observation.to_dict()
        if self.extra:
            out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    def without_body(self, needed_chars: int) -> Item:
        return replace(self, text=None, body_omitted=True, needed_chars=needed_chars)


@dataclass(frozen=True)
class View:
    generation: int
    published_at: str | None
    freshness: str
    dirty: bool | None = False  # None: not checked (freshness=fast without a watcher), or pending
    dirty_paths: tuple[str, ...] = ()
    repository: Mapping[str, Any] | None = None  # the git binding (vcs.binding), when captured
    # the watcher saw a change less than one debounce interval ago: more of it may not be reported yet
    pending: bool = False
    last_event_ms_ago: int | None = None
    # a starting server has not yet compared the disk with the view: what changed while nobody
    # watched is unknown, so ``dirty`` is ``null`` unless dirty paths are known (never ``false``)
    catching_up: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "generation": self.generation,
            "published_at": self.published_at,
            "freshness": self.freshness,
            "dirty": self.dirty,
        }
        if self.dirty_paths:
            out["dirty_paths"] = list(self.dirty_paths)
        if self.repository is not None:
            out["repository"] = dict(self.repository)
        if self.pending:
            out["pending"] = True
            out["last_event_ms_ago"] = self.last_event_ms_ago
        if self.catching_up:
            out["catching_up"] = True
        return out


NO_VIEW = View(generation=0, published_at=None, freshness="none")


@dataclass(frozen=True)
class Answer:
    """What every operation returns. Build through :mod:`lazy_intel.evidence.budget` to fit a budget."""

    status: str
    operation: str
    items: Sequence[Item] = ()
    code: str | None = None
    message: str | None = None
    next_step: str | None = None
    coverage: Sequence[str] = ()
    warnings: Sequence[str] = ()
    view: View = NO_VIEW
    max_chars: int = 0
    used_chars: int = 0
    omitted: int = 0
    next_cursor: str | None = None
    data: Mapping[str, Any] | None = field(default=None)

    def budget_text(self) -> str:
        text = f"{self.used_chars}/{self.max_chars} chars"
        return text + (f", {self.omitted} omitted" if self.omitted else "")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "operation": self.operation}
        if self.code is not None:
            out["code"] = self.code
        if self.message is not None:
            out["message"] = self.message
        if self.next_step is not None:
            out["next_step"] = self.next_step
        out["items"] = [item.to_dict() for item in self.items]
        out["coverage"] = list(self.coverage)
        out["warnings"] = list(self.warnings)
        out["view"] = self.view.to_dict()
        out["budget"] = {"max_chars": self.max_chars, "used_chars": self.used_chars, "omitted": self.omitted}
        if self.next_cursor is not None:
            out["next_cursor"] = self.next_cursor
        if self.data is not None:
            out["data"] = self.data
        return out

"""One timestamp format for everything an answer shows: RFC 3339 in UTC with milliseconds
(``2026-12-01T08:20:00.123Z``), the format ``published_at`` has always had. Files on disk may keep
epoch seconds; they are converted when shown."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(epoch_s: float | None = None) -> str:
    """``epoch_s`` (default: now) as RFC 3339 UTC with milliseconds."""
    moment = datetime.now(UTC) if epoch_s is None else datetime.fromtimestamp(epoch_s, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def shown_decision(decision: dict[str, object]) -> dict[str, object]:
    """A recovery decision (as the journal stores it) with its times in the one format."""
    out = dict(decision)
    if isinstance(out.get("decided_at"), int | float):
        out["decided_at"] = iso_utc(float(out["decided_at"]))  # type: ignore[arg-type]
    intent = out.get("intent")
    if isinstance(intent, dict) and isinstance(intent.get("started_at"), int | float):
        out["intent"] = {**intent, "started_at": iso_utc(float(intent["started_at"]))}
    return out

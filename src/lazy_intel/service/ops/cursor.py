"""Opaque pagination cursors bound to a generation and to the request they continue."""

from __future__ import annotations

import base64
import hashlib
import json

from lazy_intel.errors import InvalidArgument, LazyIntelError


class CursorStale(LazyIntelError):
    code = "CURSOR_STALE"


def _digest(fingerprint: str) -> str:
    return hashlib.sha256(fingerprint.encode()).hexdigest()[:12]


def encode_cursor(generation: int, offset: int, fingerprint: str) -> str:
    raw = json.dumps({"g": generation, "o": offset, "h": _digest(fingerprint)}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, generation: int, fingerprint: str) -> int:
    """The offset a cursor resumes at; refuses a cursor of another request or another generation."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset, cursor_generation, digest = int(data["o"]), int(data["g"]), str(data["h"])
    except (ValueError, KeyError, TypeError, json.JSONDecodeError):
        raise InvalidArgument(f"cursor {cursor[:40]!r} is not a cursor this server issued") from None
    if digest != _digest(fingerprint):
        raise InvalidArgument(
            "cursor belongs to a different request", next_step="repeat the original request"
        )
    if cursor_generation != generation:
        raise CursorStale(
            f"cursor is from generation {cursor_generation}, the view is now at generation {generation}",
            next_step="repeat the request without cursor",
        )
    if offset < 0:
        raise InvalidArgument("cursor offset is negative")
    return offset

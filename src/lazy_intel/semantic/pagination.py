"""Stable cursors for semantic answers.

A cursor names the query it belongs to (a fingerprint of the operation, server, capability
fingerprint, document hash, position and arguments) and an offset into the deterministically
sorted results. Following it re-asks the server and returns the next page; if anything in the
fingerprint moved (the file was edited, the server renegotiated), the cursor is refused with
``CURSOR_STALE`` instead of silently paging through a different result.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from lazy_intel.errors import InvalidArgument, LazyIntelError

CURSOR_VERSION = 1
MAX_CURSOR_CHARS = 256


def query_fingerprint(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def encode_cursor(fingerprint: str, offset: int) -> str:
    payload = json.dumps({"v": CURSOR_VERSION, "q": fingerprint[:32], "o": offset}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None, fingerprint: str) -> int:
    """The offset a cursor resumes at (0 without a cursor)."""
    if cursor is None or cursor == "":
        return 0
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
        raise InvalidArgument("cursor is not a cursor from a previous semantic answer")
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()).decode())
        version, query, offset = payload["v"], payload["q"], payload["o"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidArgument("cursor is not a cursor from a previous semantic answer") from None
    if version != CURSOR_VERSION or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument("cursor is not a cursor from a previous semantic answer")
    if query != fingerprint[:32]:
        raise LazyIntelError(
            "cursor belongs to another query, or the file or the server changed since it was issued",
            code="CURSOR_STALE",
            next_step="repeat the request without a cursor",
        )
    return offset

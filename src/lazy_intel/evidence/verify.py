"""Verification of anchors against the bytes on disk (DESIGN §6).

- ``current``: the file's hash equals the anchor's (and the span fits the file).
- ``moved``: the hash differs but the exact excerpt is found again; the new anchor is reported (new
  hash; the occurrence nearest the old start wins, which may be the same span).
- ``stale``: the file exists but the excerpt is not in it (or no excerpt was available to look for).
- ``gone``: the file no longer exists.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from lazy_intel.evidence.model import Anchor

CURRENT = "current"
MOVED = "moved"
STALE = "stale"
GONE = "gone"


@dataclass(frozen=True)
class Verdict:
    verdict: str
    anchor: Anchor
    reason: str


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def verify_anchor(anchor: Anchor, excerpt: bytes | None, current: bytes | None, generation: int) -> Verdict:
    """Pure check of one anchor. ``current`` is the file's bytes now (``None`` if it is gone)."""
    if current is None:
        return Verdict(GONE, anchor, f"{anchor.path} no longer exists")
    sha = hashlib.sha256(current).hexdigest()
    if sha == anchor.sha256 and 0 <= anchor.start_byte <= anchor.end_byte <= len(current):
        return Verdict(CURRENT, anchor, "file hash matches")
    if excerpt is None or not excerpt:
        return Verdict(STALE, anchor, "file changed and no excerpt was available to find the span again")
    best = -1
    pos = current.find(excerpt)
    while pos != -1:
        if best == -1 or abs(pos - anchor.start_byte) < abs(best - anchor.start_byte):
            best = pos
        pos = current.find(excerpt, pos + 1)
    if best == -1:
        return Verdict(STALE, anchor, "file changed and the excerpt is no longer in it")
    end = best + len(excerpt)
    moved = Anchor(
        path=anchor.path,
        sha256=sha,
        start_byte=best,
        end_byte=end,
        start_line=_line_of(current, best),
        end_line=_line_of(current, max(best, end - 1)),
        generation=generation,
    )
    same = best == anchor.start_byte and end == anchor.end_byte
    reason = (
        "file edited; excerpt unchanged at the same span"
        if same
        else "file edited; excerpt found at a new span"
    )
    return Verdict(MOVED, moved, reason)

from __future__ import annotations

import hashlib

from lazy_intel.evidence.model import Anchor
from lazy_intel.evidence.verify import CURRENT, GONE, MOVED, STALE, verify_anchor

SOURCE = b"import os\n\ndef target():\n    return 1\n"
START = SOURCE.index(b"def target")
END = len(SOURCE) - 1
ANCHOR = Anchor("m.py", hashlib.sha256(SOURCE).hexdigest(), START, END, 3, 4, 1)
EXCERPT = SOURCE[START:END]


def test_current_when_hash_matches() -> None:
    assert verify_anchor(ANCHOR, EXCERPT, SOURCE, 1).verdict == CURRENT


def test_moved_reports_the_new_span() -> None:
    edited = b"import os\nimport sys\n\n\ndef target():\n    return 1\n"
    verdict = verify_anchor(ANCHOR, EXCERPT, edited, 2)
    assert verdict.verdict == MOVED
    a = verdict.anchor
    assert edited[a.start_byte : a.end_byte] == EXCERPT
    assert (a.start_line, a.end_line) == (5, 6)
    assert a.sha256 == hashlib.sha256(edited).hexdigest() and a.generation == 2


def test_moved_picks_the_occurrence_nearest_the_old_span() -> None:
    edited = b"#\n" + SOURCE + b"\n" * 50 + EXCERPT
    verdict = verify_anchor(ANCHOR, EXCERPT, edited, 2)
    assert verdict.verdict == MOVED
    assert verdict.anchor.start_byte == START + 2


def test_stale_and_gone() -> None:
    assert verify_anchor(ANCHOR, EXCERPT, b"import os\n\ndef other():\n    return 2\n", 2).verdict == STALE
    assert verify_anchor(ANCHOR, None, b"changed", 2).verdict == STALE
    assert verify_anchor(ANCHOR, EXCERPT, None, 2).verdict == GONE

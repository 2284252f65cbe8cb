"""The publication journal holds only pending intents; recovery decisions are kept, but few."""

from __future__ import annotations

import json
from pathlib import Path

from lazy_intel.store.journal import (
    ABANDONED,
    DECISIONS_KEPT,
    KIND_REBUILD,
    ROLLED_FORWARD,
    Intent,
    PublicationJournal,
)


def test_pending_intents_only(tmp_path: Path) -> None:
    journal = PublicationJournal(tmp_path)
    assert journal.pending() == []
    first = Intent.new(KIND_REBUILD, "stores/a.sqlite", None, "digest")
    journal.begin(first)
    assert journal.pending() == [first]
    journal.finish(first.id)
    assert journal.pending() == []
    assert json.loads(journal.path.read_text()) == {"pending": []}, "rewritten to empty, not appended to"


def test_decisions_are_bounded_and_drop_the_intent(tmp_path: Path) -> None:
    journal = PublicationJournal(tmp_path)
    for n in range(DECISIONS_KEPT + 5):
        intent = Intent.new(KIND_REBUILD, f"stores/{n}.sqlite", None, "digest")
        journal.begin(intent)
        journal.decide(intent, ABANDONED if n % 2 else ROLLED_FORWARD, f"reason {n}")
        assert journal.pending() == []
    kept = journal.decisions()
    assert len(kept) == DECISIONS_KEPT
    assert kept[-1]["reason"] == f"reason {DECISIONS_KEPT + 4}"
    assert kept[-1]["intent"]["store"] == f"stores/{DECISIONS_KEPT + 4}.sqlite"


def test_an_unreadable_journal_is_treated_as_empty(tmp_path: Path) -> None:
    journal = PublicationJournal(tmp_path)
    journal.path.write_text("{not json")
    assert journal.pending() == []
    journal.path.write_text('{"pending": [{"kind": "rebuild"}]}')  # a record without its fields
    assert journal.pending() == []

"""The publication journal holds only pending intents; recovery decisions are kept, but few."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lazy_intel.store.journal import (
    ABANDONED,
    DECISIONS_KEPT,
    KIND_INCREMENTAL,
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


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    return calls


def test_an_incremental_intent_alone_is_written_without_waiting_for_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fsyncs = _count_fsyncs(monkeypatch)
    journal = PublicationJournal(tmp_path)
    edit = Intent.new(KIND_INCREMENTAL, "stores/live.sqlite", None, "digest", 7)
    journal.begin(edit)
    assert journal.pending() == [edit], "recorded (a killed writer leaves it for recovery)"
    journal.finish(edit.id)
    assert journal.pending() == []
    assert fsyncs == [], "an edit's publication does not wait for an fsync"

    rebuild = Intent.new(KIND_REBUILD, "stores/new.sqlite", "stores/live.sqlite", "digest")
    journal.begin(rebuild)
    journal.finish(rebuild.id)
    assert len(fsyncs) == 2, "a rebuild's intent is durable"


def test_an_incremental_intent_beside_another_record_stays_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = PublicationJournal(tmp_path)
    killed = Intent.new(KIND_REBUILD, "stores/half.sqlite", "stores/live.sqlite", "digest")
    journal.begin(killed)
    journal.keep_resumable(killed, "killed")
    fsyncs = _count_fsyncs(monkeypatch)
    edit = Intent.new(KIND_INCREMENTAL, "stores/live.sqlite", None, "digest", 7)
    journal.begin(edit)
    journal.finish(edit.id)
    assert len(fsyncs) == 2, "the resumable record it rewrites must not be lost to a power cut"
    assert journal.resumable() == [killed]


def test_a_journal_a_power_cut_left_empty_reads_as_nothing_pending(tmp_path: Path) -> None:
    journal = PublicationJournal(tmp_path)
    journal.begin(Intent.new(KIND_INCREMENTAL, "stores/live.sqlite", None, "digest", 7))
    journal.path.write_bytes(b"")  # what a replaced but never synced file may be after a power cut
    assert journal.pending() == []
    assert journal.resumable() == []

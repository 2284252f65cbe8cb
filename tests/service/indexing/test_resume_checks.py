"""A resumable store's integrity checks run once per file identity: recovery and the build that
adopts the store both ask, and a 100k-file store takes minutes to check (issue 15)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lazy_intel.service.indexing import check_memo, resume
from lazy_intel.store.journal import PublicationJournal
from tests.service.indexing.test_resumable_build import cancelled_build


@pytest.fixture
def resumable(make_repo, tmp_path: Path) -> tuple[Path, str, Path]:
    """A fresh store a cancelled build left resumable: (its path, its profile, the memo file)."""
    _root, state = cancelled_build(make_repo, tmp_path, batches=2)
    (intent,) = PublicationJournal(state.runtime).resumable()
    store = state.path / intent.store
    conn = sqlite3.connect(store)
    profile = conn.execute("SELECT value FROM meta WHERE key=?", (resume.BUILD_PROFILE_KEY,)).fetchone()[0]
    conn.close()
    return store, profile, state.runtime / check_memo.MEMO_FILE


def _counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = resume.check_store

    def counted(path: Path, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(resume, "check_store", counted)
    return calls


def test_the_same_store_is_checked_once(resumable, monkeypatch: pytest.MonkeyPatch) -> None:
    store, profile, memo = resumable
    calls = _counting_checks(monkeypatch)
    assert resume.resume_problem(store, profile, memo) == resume.resume_problem(store, profile, memo)
    assert resume.resume_problem(store, profile, memo)[0] is None
    assert calls == [store]
    # without the memo every ask checks
    resume.resume_problem(store, profile)
    assert calls == [store, store]


def test_a_store_written_since_is_checked_again(resumable, monkeypatch: pytest.MonkeyPatch) -> None:
    store, profile, memo = resumable
    calls = _counting_checks(monkeypatch)
    resume.resume_problem(store, profile, memo)
    conn = sqlite3.connect(store)
    conn.execute("INSERT INTO meta(key, value) VALUES ('written_since', '1')")
    conn.commit()
    conn.close()  # the checkpoint moves the log into the file: its identity changes
    assert resume.resume_problem(store, profile, memo)[0] is None
    assert calls == [store, store]


def test_a_pending_write_ahead_log_is_checked_again(resumable, monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames in the log are not described by the file's identity: a store with some is checked."""
    store, profile, memo = resumable
    calls = _counting_checks(monkeypatch)
    resume.resume_problem(store, profile, memo)
    writer = sqlite3.connect(store)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO meta(key, value) VALUES ('in_the_log', '1')")
    writer.commit()  # committed to the log, the file untouched while this connection stays open
    try:
        assert store.with_name(store.name + "-wal").stat().st_size > 0
        resume.resume_problem(store, profile, memo)
        assert calls == [store, store]
    finally:
        writer.close()


def test_a_failed_verdict_is_remembered_as_a_failure(resumable, monkeypatch: pytest.MonkeyPatch) -> None:
    store, profile, memo = resumable
    check_memo.remember(memo, store, "content blob 0123 does not hash to its key")
    calls = _counting_checks(monkeypatch)
    problem, _ = resume.resume_problem(store, profile, memo)
    assert problem is not None and "does not hash" in problem
    assert calls == []

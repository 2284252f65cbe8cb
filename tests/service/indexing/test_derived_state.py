"""Derived state stays bounded by the current corpus: churn, deletions and rebuilds leave one store
no bigger than the files it describes need, an empty journal, and no retired or orphan stores."""

from __future__ import annotations

import random
import string
from pathlib import Path

from lazy_intel.service.indexing.sync import FREE_PAGE_SHARE
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import WAL_SIZE_LIMIT, connect

FILE_COUNT = 24
FILE_BYTES = 24_000


def _body(rng: random.Random, index: int) -> str:
    words = " ".join("".join(rng.choices(string.ascii_lowercase, k=9)) for _ in range(FILE_BYTES // 10))
    return f"def func_{index}(x):\n    '''{words}'''\n    return x + {index}\n"


def _write_all(root: Path, rng: random.Random, count: int = FILE_COUNT) -> None:
    for i in range(count):
        (root / "pkg" / f"m{i:02d}.py").write_text(_body(rng, i))


def _pages(store: Path) -> tuple[int, int]:
    conn = connect(str(store), readonly=True)
    try:
        return (
            conn.execute("PRAGMA page_count").fetchone()[0],
            conn.execute("PRAGMA freelist_count").fetchone()[0],
        )
    finally:
        conn.close()


def _store_files(state: Path) -> list[str]:
    return sorted(p.name for p in (state / "stores").iterdir())


def test_churn_deletions_and_rebuilds_stay_bounded(make_repo) -> None:
    rng = random.Random(5)
    root = make_repo({"pkg/__init__.py": ""})
    _write_all(root, rng)
    ws = Workspace.open(root, settings=load_settings(env={}, store_grace_ms=0, writer_idle_ms=0))
    state = ws.state.path
    try:
        ws.sync()
        store = ws.store_path()
        assert store is not None
        first_pages, _ = _pages(store)
        # every file rewritten, eight times over: the superseded bytes do not accumulate
        for _ in range(8):
            _write_all(root, rng)
            report = ws.sync()
            assert report.modified == FILE_COUNT and not report.full_rebuild
            pages, free = _pages(store)
            assert free <= FREE_PAGE_SHARE * pages, f"{free} of {pages} pages free after a publication"
            # superseded full-text rows are merged away once they outnumber the live ones
            assert pages <= 2.5 * first_pages, f"{pages} pages after churn, {first_pages} at first"
            wal = Path(f"{store}-wal")
            assert not wal.exists() or wal.stat().st_size <= WAL_SIZE_LIMIT
        with ws.read() as view:
            assert view.counts()["files"] == FILE_COUNT + 1
        conn = connect(str(store), readonly=True)
        try:
            assert conn.execute("SELECT count(*) FROM contents").fetchone()[0] == FILE_COUNT + 1
        finally:
            conn.close()
        # most files deleted: the freed pages are given back, not kept for ever
        for i in range(2, FILE_COUNT):
            (root / "pkg" / f"m{i:02d}.py").unlink()
        assert ws.sync().removed == FILE_COUNT - 2
        pages, free = _pages(store)
        assert free <= FREE_PAGE_SHARE * pages, f"{free} free of {pages} pages"
        assert pages < first_pages / 3, f"{pages} pages for 3 files, {first_pages} for {FILE_COUNT + 1}"
        # rebuilds replace the store; with no grace period the replaced ones are collected
        for _ in range(3):
            ws.sync(rebuild=True)
        ws.sync()  # collects what the last rebuild retired
        live = ws.store_path()
        assert live is not None and live != store
        assert [n for n in _store_files(state) if n.endswith(".sqlite")] == [live.name]
        assert not any(n.endswith(".retired") for n in _store_files(state))
        assert ws.journal.pending() == []
        assert len(ws.journal.decisions()) <= 10
    finally:
        ws.close()

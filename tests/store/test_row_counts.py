"""The files and chunks a store holds, kept in meta by each publication (``store/row_counts.py``):
equal to a count of the tables after every kind of sync, never taken from a generation they do
not name, and a scoped sync counts neither table (issue 15: both counts read a whole index)."""

from __future__ import annotations

import random
from pathlib import Path

from lazy_intel.service.indexing.sync import run_sync
from lazy_intel.store.reader import open_view
from lazy_intel.store.row_counts import ROW_COUNTS_KEY, RowCounts, count_rows, parse_row_counts
from lazy_intel.store.schema import connect
from lazy_intel.workspace.state import StateDir
from tests.conftest import write_tree

MAX_BYTES = 1_000_000


def _source(seed: int, functions: int) -> str:
    return "".join(
        f"def f{seed}_{i}(x):\n    '''doc {i}'''\n    return x + {i}\n\n\n" for i in range(functions)
    )


def _recorded_and_counted(store: Path) -> tuple[RowCounts | None, RowCounts]:
    conn = connect(str(store), readonly=True)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        return parse_row_counts(meta), count_rows(conn)
    finally:
        conn.close()


def test_recorded_counts_equal_the_tables_after_random_syncs(tmp_path: Path) -> None:
    root, state = tmp_path / "repo", StateDir(tmp_path / "state")
    write_tree(root, {f"pkg/m{i}.py": _source(i, 1 + i % 4) for i in range(8)} | {"README.md": "# r\n"})
    run_sync(root, state, max_file_bytes=MAX_BYTES, rebuild=True)
    rng = random.Random(15)
    scoped = 0
    for step in range(14):
        present = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
        action = rng.choice(["edit", "edit", "add", "remove"]) if len(present) > 2 else "add"
        only: tuple[str, ...] | None = None
        if action == "edit":
            rel = rng.choice(present)
            (root / rel).write_text(_source(100 + step, rng.randint(0, 6)))
            only = (rel,) if rng.random() < 0.7 else None  # the watcher's hint: a scoped sync
        elif action == "add":
            write_tree(root, {f"pkg/new{step}.py": _source(200 + step, rng.randint(1, 5))})
        else:
            rel = rng.choice(present)
            (root / rel).unlink()
            only = (rel,) if rng.random() < 0.5 else None
        report = run_sync(root, state, max_file_bytes=MAX_BYTES, rebuild=step == 7, only=only)
        scoped += report.scoped
        store = state.published_store()
        assert store is not None
        recorded, counted = _recorded_and_counted(store)
        assert recorded == counted, (step, action)
        with open_view(store) as view:
            assert view.chunk_count() == counted.chunks
    assert scoped >= 3  # the scoped path was exercised, not only full listings


def test_a_scoped_sync_counts_no_table(tmp_path: Path, traced: list[str]) -> None:
    root, state = tmp_path / "repo", StateDir(tmp_path / "state")
    write_tree(root, {f"m{i}.py": _source(i, 3) for i in range(5)})
    run_sync(root, state, max_file_bytes=MAX_BYTES, rebuild=True)
    for round_ in range(2):  # the second: full-text rows deleted before, so compaction is checked
        (root / "m1.py").write_text(_source(50 + round_, 2))
        traced.clear()
        report = run_sync(root, state, max_file_bytes=MAX_BYTES, only=("m1.py",))
        assert report.scoped and report.modified == 1 and report.unchanged == 4
        counting = [s for s in traced if "count(*) FROM files" in s or "count(*) FROM chunks" in s]
        assert counting == []


def test_counts_of_another_generation_are_not_used(tmp_path: Path) -> None:
    """A writer that does not keep the counts (an older version) moves the generation: the counts
    then name another one and are ignored, by readers and by the next publication."""
    root, state = tmp_path / "repo", StateDir(tmp_path / "state")
    write_tree(root, {f"m{i}.py": _source(i, 2) for i in range(4)})
    run_sync(root, state, max_file_bytes=MAX_BYTES, rebuild=True)
    store = state.published_store()
    assert store is not None
    conn = connect(str(store))
    try:
        generation = int(conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE meta SET value=? WHERE key=?", (f"{generation} 999 999", ROW_COUNTS_KEY))
        conn.execute("UPDATE meta SET value=? WHERE key='generation'", (str(generation + 1),))
        conn.execute("COMMIT")
    finally:
        conn.close()
    recorded, counted = _recorded_and_counted(store)
    assert recorded is None
    with open_view(store) as view:
        assert view.chunk_count() == counted.chunks
    (root / "m2.py").write_text(_source(9, 5))
    report = run_sync(root, state, max_file_bytes=MAX_BYTES, only=("m2.py",))
    assert report.scoped and report.unchanged == 3
    recorded, counted = _recorded_and_counted(store)
    assert recorded == counted

"""The dependents of an edit by index (``graph_deps``, issue 15): the files the lookup finds are
exactly those a scan of every ``graph_files.deps`` text finds, on random edit sequences, and the
table always holds exactly the tokens of the deps texts (incrementally written or filled by a full
build)."""

from __future__ import annotations

import random
import sqlite3
import tempfile
from collections.abc import Collection, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.graph import build as build_module
from lazy_intel.graph.deps_index import (
    LOOKUP_SQL,
    PENDING_DEPS,
    dependents_of,
    deps_rows,
    deps_tokens,
    fill_deps,
    write_deps,
)
from lazy_intel.store.schema import connect, create_schema
from tests.graph.helpers import index_repo
from tests.graph.test_incremental import Repo


def scan_dependents(conn: sqlite3.Connection, tokens: Iterable[str], exclude: Collection[str]) -> list[str]:
    """What the sync did before the index: read every file's deps text and split it."""
    wanted = set(tokens)
    return sorted(
        path
        for path, deps in conn.execute("SELECT path, deps FROM graph_files")
        if path not in exclude and not wanted.isdisjoint(deps.split("\n"))
    )


def table_rows(store: Path) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(``graph_deps`` as stored, the rows the deps texts call for), both sorted."""
    conn = connect(str(store), readonly=True)
    try:
        stored = sorted(conn.execute("SELECT token, file_key FROM graph_deps").fetchall())
        return stored, sorted(deps_rows(conn))
    finally:
        conn.close()


class Recorder:
    """Wraps the sync's lookup: every call also runs the scan on the same connection."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], list[str]]] = []

    def __call__(
        self, conn: sqlite3.Connection, tokens: Iterable[str], exclude: Collection[str] = ()
    ) -> list[str]:
        tokens = list(tokens)
        found = dependents_of(conn, tokens, exclude)
        self.calls.append((found, scan_dependents(conn, tokens, exclude)))
        return found


def _edit_sequence(root: Path, state: Path, seed: int, steps: int) -> Recorder:
    repo = Repo(root)
    ws = index_repo(root, state)
    recorder = Recorder()
    try:
        store = ws.store_path()
        assert store is not None
        stored, wanted = table_rows(store)
        assert stored == wanted and stored, "a full build fills graph_deps from every deps text"
        rng = random.Random(seed)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build_module, "dependents_of", recorder)
            for step in range(steps):
                changed = repo.random_step(rng)
                ws.sync()
                store = ws.store_path()
                assert store is not None
                stored, wanted = table_rows(store)
                assert stored == wanted, f"seed {seed} step {step} {changed}"
    finally:
        ws.close()
    for found, scanned in recorder.calls:
        assert found == scanned
    return recorder


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
def test_dependents_by_index_equal_the_scan_on_random_edits(seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _edit_sequence(Path(tmp) / "repo", Path(tmp) / "state", seed, steps=4)


def test_the_lookup_finds_dependents_when_an_edit_has_some(tmp_path: Path) -> None:
    recorder = _edit_sequence(tmp_path / "repo", tmp_path / "state", seed=22, steps=6)
    assert any(found for found, _ in recorder.calls), "the seed should re-resolve other files"


def _store() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.isolation_level = None
    create_schema(conn)
    return conn


def _add(conn: sqlite3.Connection, path: str, key: int, deps: str) -> None:
    conn.execute(
        "INSERT INTO graph_files(path, file_key, interface_sha, definitions, deps) VALUES (?,?,?,?,?)",
        (path, key, "", "", deps),
    )


def test_write_deps_moves_a_files_rows_to_its_new_tokens() -> None:
    conn = _store()
    _add(conn, "a.py", 1, "n:x\no:b.py:y")
    _add(conn, "c.py", 2, "n:x")
    write_deps(conn, 1, PENDING_DEPS, "n:x\no:b.py:y")
    write_deps(conn, 2, None, "n:x")
    assert sorted(conn.execute("SELECT * FROM graph_deps")) == sorted(deps_rows(conn))
    assert dependents_of(conn, ["n:x"]) == ["a.py", "c.py"]
    assert dependents_of(conn, ["n:x", "o:b.py:y"], exclude={"c.py"}) == ["a.py"]
    conn.execute("UPDATE graph_files SET deps=? WHERE path='a.py'", ("f:b.py\nn:x",))
    write_deps(conn, 1, "n:x\no:b.py:y", "f:b.py\nn:x")
    assert sorted(conn.execute("SELECT * FROM graph_deps")) == sorted(deps_rows(conn))
    assert dependents_of(conn, ["o:b.py:y"]) == []
    write_deps(conn, 2, "n:x", None)
    assert dependents_of(conn, ["n:x"]) == ["a.py"]


def test_fill_equals_the_rows_of_every_deps_text() -> None:
    conn = _store()
    rng = random.Random(5)
    tokens = [f"n:name{i}" for i in range(40)] + [f"o:pkg/m{i}.py:f" for i in range(40)]
    for i in range(300):
        _add(conn, f"f{i}.py", 1000 + i, "\n".join(sorted(rng.sample(tokens, rng.randint(0, 12)))))
    _add(conn, "pending.py", 7, PENDING_DEPS)
    conn.execute("INSERT INTO graph_deps VALUES ('stale', 1)")
    conn.execute("BEGIN")
    written = fill_deps(conn)
    conn.execute("COMMIT")
    rows = sorted(conn.execute("SELECT token, file_key FROM graph_deps"))
    assert rows == sorted(deps_rows(conn)) and written == len(rows)
    assert deps_tokens(PENDING_DEPS) == set() and deps_tokens("") == set()
    for token in tokens[::7]:
        assert dependents_of(conn, [token]) == scan_dependents(conn, [token], ())


def test_the_lookup_reads_the_index_not_every_deps_text() -> None:
    conn = _store()
    plan = " ".join(
        str(row[3])
        for row in conn.execute("EXPLAIN QUERY PLAN " + LOOKUP_SQL.format(marks="?, ?"), ("n:a", "n:b"))
    )
    assert "SCAN" not in plan.replace("USING TEMP B-TREE", ""), plan
    assert "graph_files_key" in plan, plan

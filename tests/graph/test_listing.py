"""The graph update's listing of parsed files, kept between incremental syncs (issue 15): on random
edit sequences every listing an update starts from equals a fresh read of the store, it is reused
when it can be, and never after a publication it does not know about (a rollback, another writer)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.graph import build as build_module
from lazy_intel.graph import listing
from lazy_intel.graph import program as program_module
from lazy_intel.graph.listing import LISTING_KEY, keep_listing, read_listing
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.store.schema import connect, create_schema
from tests.graph.helpers import graph_of, index_repo
from tests.graph.test_incremental import Repo


class Checked:
    """Wraps the update's read: compares each result with a fresh read on the same connection."""

    def __init__(self) -> None:
        self.hits = 0
        self.reads = 0

    def __call__(self, conn: sqlite3.Connection, changed: Collection[str] | None) -> Any:
        token = dict(conn.execute("SELECT key, value FROM meta")).get(LISTING_KEY)
        self.hits += token in listing._kept and changed is not None
        self.reads += 1
        files, sizes, index = read_listing(conn, changed)
        fresh_files, fresh_sizes, _ = read_listing(conn, None)
        assert files == fresh_files and index.files == fresh_files
        wanted = fresh_sizes if changed is None else {p: fresh_sizes[p] for p in changed if p in fresh_sizes}
        assert sizes == wanted
        return files, sizes, index


@pytest.mark.parametrize("seed", [3, 4])
def test_the_kept_listing_equals_a_fresh_read_on_random_edits(tmp_path: Path, seed: int) -> None:
    listing.forget_listings()
    repo = Repo(tmp_path / "repo")
    ws = index_repo(tmp_path / "repo", tmp_path / "state")
    checked = Checked()
    rng = random.Random(seed)
    updates = 0  # steps that changed the tree (one that edits a file and changes it back does not)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build_module, "read_listing", checked)
            for _ in range(6):
                before = dict(repo.state)
                repo.random_step(rng)
                updates += repo.state != before
                ws.sync()
    finally:
        ws.close()
    assert updates >= 4
    # every update reads the listing; the first after the build reads it all, the others reuse it
    assert checked.reads == updates and checked.hits == updates - 1


def _store(tmp_path: Path) -> sqlite3.Connection:
    conn = connect(str(tmp_path / "s.sqlite"))
    create_schema(conn)
    conn.execute("UPDATE meta SET value='7' WHERE key='generation'")
    if conn.execute("SELECT count(*) FROM meta WHERE key='generation'").fetchone()[0] == 0:
        conn.execute("INSERT INTO meta(key, value) VALUES ('generation', '7')")
    for i, path in enumerate(("a.py", "b/c.py", "d.md")):
        conn.execute(
            "INSERT INTO files(path, sha256, size, mtime_ns, captured_ns, lang, status, line_count) "
            "VALUES (?, ?, ?, 0, 0, ?, 'indexed', 3)",
            (path, f"h{i}", 10 + i, "markdown" if path.endswith(".md") else "python"),
        )
    return conn


def _publish(conn: sqlite3.Connection, changed: list[str] | None, *, commit: bool = True) -> dict[str, str]:
    """What an update does in its publication: read, keep, and the writer's generation bump."""
    conn.execute("BEGIN")
    files, _sizes, index = read_listing(conn, changed)
    keep_listing(conn, files, index, full=changed is None)
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
    conn.execute("COMMIT" if commit else "ROLLBACK")
    return files


def test_a_rolled_back_or_unknown_publication_is_never_served_from_the_kept_listing(tmp_path: Path) -> None:
    listing.forget_listings()
    conn = _store(tmp_path)
    assert _publish(conn, []) == {"a.py": "python", "b/c.py": "python"}
    kept = dict(listing._kept)
    conn.execute(
        "INSERT INTO files(path, sha256, size, mtime_ns, captured_ns, lang, status) VALUES "
        "('e.py', 'h9', 1, 0, 0, 'python', 'indexed')"
    )
    # a rolled-back update: its listing is kept in memory, the store still names the previous one
    _publish(conn, ["e.py"], commit=False)
    conn.execute("DELETE FROM files WHERE path='e.py'")
    files, _, _ = read_listing(conn, [])
    assert files == {"a.py": "python", "b/c.py": "python"}
    # a publication without a graph update (or by another writer) moved the generation on
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
    conn.execute("UPDATE files SET status='too-large' WHERE path='a.py'")
    assert set(kept) <= set(listing._kept)
    files, _, _ = read_listing(conn, [])
    assert files == {"b/c.py": "python"}  # read afresh: the kept listing's generation is not the store's
    # a full build writes a new token and keeps no listing under it
    _publish(conn, None)
    token = dict(conn.execute("SELECT key, value FROM meta")).get(LISTING_KEY)
    assert token is not None and token not in listing._kept


def test_a_primed_listing_is_used_for_its_token_and_generation_only(tmp_path: Path) -> None:
    listing.forget_listings()
    conn = _store(tmp_path)
    _publish(conn, None)  # a full build: a token, no listing kept
    assert listing.prime_listing(conn) and not listing.prime_listing(conn)  # read once
    token = dict(conn.execute("SELECT key, value FROM meta"))[LISTING_KEY]
    assert listing._kept[token].files == {"a.py": "python", "b/c.py": "python"}
    reads = Checked()
    reads(conn, ["a.py"])
    assert reads.hits == 1
    # a publication without a graph update moves the generation: the primed listing is not used
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
    conn.execute("UPDATE files SET status='too-large' WHERE path='a.py'")
    files, _, _ = read_listing(conn, [])
    assert files == {"b/c.py": "python"}
    # a store written before tokens existed: nothing to key a listing by
    conn.execute("DELETE FROM meta WHERE key=?", (LISTING_KEY,))
    assert not listing.prime_listing(conn)


MAX_RANDOM_STEPS = 30


@pytest.mark.parametrize("seed", [5, 6])
def test_carried_name_lookups_equal_fresh_ones_on_random_edits(tmp_path: Path, seed: int) -> None:
    """Every definition list an update's name lookup answers — the carried ones included — is what
    a lookup in the store as that update sees it returns (graph/listing.py carried_names)."""
    listing.forget_listings()
    repo = Repo(tmp_path / "repo")
    ws = index_repo(tmp_path / "repo", tmp_path / "state")
    real_named, real_adopt = FactStore.named, FactStore.adopt_names
    adopted: list[int] = []
    compared = {"n": 0}

    def named(self: FactStore, name: str) -> list[Any]:
        found = real_named(self, name)
        assert found == real_named(FactStore(self.conn, self.index), name), name
        compared["n"] += 1
        return found

    def adopt(self: FactStore, carried: Any, stale: set[str]) -> None:
        real_adopt(self, carried, stale)
        adopted.append(sum(1 for name in carried if name not in stale))

    rng = random.Random(seed)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(program_module, "CARRIED_LOOKUP_MIN_S", 0.0)  # every lookup counts as dear
            patch.setattr(FactStore, "named", named)
            patch.setattr(FactStore, "adopt_names", adopt)
            # random edits until two updates carried names (a step where a file comes or goes
            # carries none), bounded: how many steps that takes depends on the edit table
            for _ in range(MAX_RANDOM_STEPS):
                repo.random_step(rng)
                ws.sync()
                if sum(1 for n in adopted if n > 0) >= 2:
                    break
    finally:
        ws.close()
    assert compared["n"] > 0 and adopted and max(adopted) > 0, (compared, adopted)


def test_a_carried_lookup_of_a_name_a_changed_file_defines_is_read_again(tmp_path: Path) -> None:
    """``size`` becomes a property of ``Box`` after two updates looked it up: the third update's
    lookup must see the getter, and the reading file gets its property edge as a clean build would."""
    listing.forget_listings()
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    plain = "class Box:\n    def size(self):\n        return 1\n"
    prop = "class Box:\n    @property\n    def size(self):\n        return 1\n"
    (root / "pkg" / "box.py").write_text(plain)
    (root / "pkg" / "use.py").write_text(
        "from pkg.box import Box\n\ndef area():\n    b = Box()\n    return b.size\n"
    )
    ws = index_repo(root, tmp_path / "state")
    real_named = FactStore.named
    served: dict[str, list[Any]] = {}

    def named(self: FactStore, name: str) -> list[Any]:
        found = real_named(self, name)
        assert found == real_named(FactStore(self.conn, self.index), name), name
        served[name] = found
        return found

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(program_module, "CARRIED_LOOKUP_MIN_S", 0.0)  # every lookup counts as dear
            patch.setattr(FactStore, "named", named)
            for n in range(2):
                (root / "pkg" / "use.py").write_text(
                    f"from pkg.box import Box\n\ndef area():\n    b = Box()\n    return b.size  # {n}\n"
                )
                ws.sync()
            assert "size" in served and not any(d.getter for d in served["size"])
            (root / "pkg" / "box.py").write_text(prop)
            (root / "pkg" / "use.py").write_text(
                "from pkg.box import Box\n\ndef area():\n    b = Box()\n    return b.size\n"
            )
            ws.sync()
            assert any(d.getter for d in served["size"])
        incremental = graph_of(ws)
    finally:
        ws.close()
    clean = index_repo(root, tmp_path / "clean")
    try:
        assert sorted(map(repr, graph_of(clean).edges)) == sorted(map(repr, incremental.edges))
    finally:
        clean.close()


def test_only_dear_lookups_are_carried_and_within_the_bound(tmp_path: Path, monkeypatch) -> None:
    """What stays in memory between edits: no cheap lookup, and at most
    CARRIED_NAMED_DEFINITIONS definitions, the most recently used names first."""
    conn = _store(tmp_path)
    conn.executemany(
        "INSERT INTO nodes(id, label, labels, name, qualified_name, path, kind, file_key, properties) "
        "VALUES (?, 'Symbol', 'Symbol', ?, ?, 'pkg/m.py', 'function', 7, '{}')",
        [(i, f"n{i % 3}", f"n{i}") for i in range(1, 31)],
    )
    monkeypatch.setattr(program_module, "CARRIED_LOOKUP_MIN_S", 60.0)  # no lookup is that dear
    store = FactStore(conn, PathIndex({}))
    for name in ("n0", "n1", "n2"):
        assert len(store.named(name)) == 10
    store.keep_dear_names()
    assert dict(store.names) == {}, "cheap lookups are read again, not held"
    monkeypatch.setattr(program_module, "CARRIED_LOOKUP_MIN_S", 0.0)
    monkeypatch.setattr(program_module, "CARRIED_NAMED_DEFINITIONS", 20)
    store = FactStore(conn, PathIndex({}))
    for name in ("n0", "n1", "n2", "n0"):
        store.named(name)
    store.keep_dear_names()
    assert list(store.names) == ["n2", "n0"]  # n1 was used least recently

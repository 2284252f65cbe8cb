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
from lazy_intel.graph.listing import LISTING_KEY, keep_listing, read_listing
from lazy_intel.store.schema import connect, create_schema
from tests.graph.helpers import index_repo
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
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(build_module, "read_listing", checked)
            for _ in range(6):
                repo.random_step(rng)
                ws.sync()
    finally:
        ws.close()
    assert checked.reads == 6 and checked.hits == 5  # the first update after the build reads it all


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

"""The dependents lookup of an incremental graph update (``graph/build.py`` ``dependent_files``):
the files whose last resolution consulted a dirty token, found without every file's deps text
crossing into Python when the tokens are few (issue 15: a 100k-file tree in a warm serve)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from lazy_intel.graph.build import DIRTY_PREFILTER_MAX, PENDING_DEPS, dependent_files
from lazy_intel.store.schema import create_schema


class RowCounting:
    """A real SQLite connection that counts the rows its statements hand to the caller."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.rows = 0

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Iterator[Any]:
        for row in self.conn.execute(sql, args):
            self.rows += 1
            yield row


def _store(deps_by_path: dict[str, list[str]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    create_schema(conn)
    conn.executemany(
        "INSERT INTO graph_files(path, file_key, interface_sha, definitions, deps) VALUES (?, ?, '', '', ?)",
        [(path, i + 1, "\n".join(deps)) for i, (path, deps) in enumerate(sorted(deps_by_path.items()))],
    )
    return conn


def _brute_force(deps_by_path: dict[str, list[str]], dirty: set[str], changed: set[str]) -> list[str]:
    return sorted(p for p, deps in deps_by_path.items() if p not in changed and dirty & set(deps))


def _tree(files: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    vocabulary = [f"n:name{i}" for i in range(200)] + [f"s:pkg/mod{i}.py" for i in range(50)]
    return {f"pkg/f{i:04}.py": rng.sample(vocabulary, 12) for i in range(files)}


def test_few_dirty_tokens_read_only_the_rows_that_hold_one() -> None:
    tree = {f"pkg/f{i:04}.py": [f"n:local{i}", "s:pkg/util.py"] for i in range(2000)}
    tree["app/uses.py"] = ["n:helper", "s:lib/core.py"]
    tree["app/also.py"] = ["o:lib/core.py:helper"]
    tree["app/near.py"] = ["n:helper_two"]  # holds "n:helper" as a substring, not as a line
    tree["lib/core.py"] = ["n:helper"]  # the changed file itself
    conn = _store(tree)
    counting = RowCounting(conn)
    found = dependent_files(counting, {"n:helper", "o:lib/core.py:helper"}, {"lib/core.py"})  # type: ignore[arg-type]
    assert sorted(found) == ["app/also.py", "app/uses.py"]
    # the 2,000 unrelated files never reached Python: only the substring matches did
    assert counting.rows == 4


def test_the_answer_equals_splitting_every_row_for_few_and_many_tokens() -> None:
    tree = _tree(600, seed=15)
    conn = _store(tree)
    rng = random.Random(7)
    tokens = sorted({t for deps in tree.values() for t in deps}) + ["n:absent", "s:nowhere.py"]
    for count in (1, 3, DIRTY_PREFILTER_MAX, DIRTY_PREFILTER_MAX + 1, 60):
        for _ in range(5):
            dirty = set(rng.sample(tokens, count))
            changed = set(rng.sample(sorted(tree), 3))
            assert sorted(dependent_files(conn, dirty, changed)) == _brute_force(tree, dirty, changed)


def test_many_tokens_read_every_row_and_no_tokens_read_none() -> None:
    tree = _tree(300, seed=3)
    conn = _store(tree)
    counting = RowCounting(conn)
    many = {f"n:name{i}" for i in range(DIRTY_PREFILTER_MAX + 1)}
    assert sorted(dependent_files(counting, many, set())) == _brute_force(tree, many, set())  # type: ignore[arg-type]
    assert counting.rows == len(tree)
    counting.rows = 0
    assert dependent_files(counting, set(), set()) == []  # type: ignore[arg-type]
    assert counting.rows == 0


def test_a_pending_row_is_no_dependent() -> None:
    conn = _store({"a.py": [PENDING_DEPS], "b.py": ["n:x"]})
    assert dependent_files(conn, {"n:x", "pending"}, set()) == ["b.py"]

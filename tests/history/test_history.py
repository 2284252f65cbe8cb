"""The history walk, its store and signals on real git repositories (commits, branches, a bare
mirror, a subdirectory root), incremental against clean, and through the operations."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.history.signals import co_changed, file_churn, symbol_churn
from lazy_intel.history.store import open_history, refresh
from lazy_intel.history.walk import MAX_FILES_PER_COMMIT_SYMBOLS, HistorySource
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import git


def commit(root: Path, files: dict[str, str | None], message: str) -> str:
    for rel, text in files.items():
        path = root / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


PAD = '"""A module long enough to be a hotspot.\n' + "More words.\n" * 10 + '"""\n\n\n'


def body(*functions: tuple[str, str]) -> str:
    return PAD + "".join(f"def {name}(x):\n    return {value}\n\n\n" for name, value in functions)


@pytest.fixture
def history_repo(make_repo: Callable[..., Path]) -> tuple[Path, list[str]]:
    root = make_repo(
        {
            "app/core.py": body(("load", "x"), ("save", "x")),
            "app/util.py": body(("norm", "x")),
            "tests/test_core.py": "from app.core import load\n\n\ndef test_load():\n    assert load(1)\n",
            "docs/index.md": "# docs\n",
        },
        use_git=True,
    )
    hashes = [git(root, "rev-parse", "HEAD").strip()]
    hashes.append(
        commit(
            root,
            {"app/core.py": body(("load", "x + 1"), ("save", "x")), "tests/test_core.py": "# t1\n"},
            "load: off by one",
        )
    )
    hashes.append(
        commit(
            root,
            {"app/core.py": body(("load", "x + 2"), ("save", "x")), "tests/test_core.py": "# t2\n"},
            "load again",
        )
    )
    hashes.append(commit(root, {"app/util.py": body(("norm", "x.strip()"))}, "norm strips"))
    hashes.append(
        commit(
            root,
            {"app/core.py": body(("load", "x + 2")), "app/util.py": body(("norm", "x"), ("extra", "1"))},
            "drop save, add extra",
        )
    )
    return root, hashes


def rows(path: Path) -> dict[str, Any]:
    """Everything the signals read: the window's commits with their files and definitions."""
    with open_history(path) as conn:
        return {
            "window": conn.execute("SELECT position, hash FROM window ORDER BY position").fetchall(),
            "commits": conn.execute(
                "SELECT c.hash, c.parent, c.time, c.subject, c.file_count, c.symbols_done FROM commits c "
                "JOIN window w ON w.hash = c.hash ORDER BY c.hash"
            ).fetchall(),
            "files": conn.execute(
                "SELECT f.* FROM commit_files f JOIN window w ON w.hash = f.hash ORDER BY 1, 2"
            ).fetchall(),
            "symbols": conn.execute(
                "SELECT s.* FROM commit_symbols s JOIN window w ON w.hash = s.hash ORDER BY 1, 2, 3, 5"
            ).fetchall(),
        }


def test_churn_co_change_and_last_change(history_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, hashes = history_repo
    store = tmp_path / "h.sqlite"
    state = refresh(store, HistorySource(root), 100)
    assert state.complete and state.commits == 5 and state.head == hashes[-1]
    with open_history(store) as conn:
        churn = file_churn(conn)
        assert churn["app/core.py"].commits == 4 and churn["app/util.py"].commits == 3
        assert churn["app/core.py"].last_hash == hashes[4] and churn["docs/index.md"].commits == 1
        pairs = {p.path: p for p in co_changed(conn, "app/core.py")}
        assert pairs["tests/test_core.py"].count == 3  # the initial commit and two fixes
        assert "docs/index.md" not in pairs  # seen together once only
        assert pairs["tests/test_core.py"].support == pytest.approx(3 / 4)
        symbols = {(s.path, s.qualified_name): s for s in symbol_churn(conn)}
    load = symbols[("app/core.py", "load")]
    assert load.commits == 3 and load.last_hash == hashes[2] and load.last_subject == "load again"
    assert symbols[("app/core.py", "save")].last_hash == hashes[4]  # its deletion is its last change
    assert symbols[("app/util.py", "extra")].commits == 1
    assert symbols[("app/util.py", "norm")].commits == 3


def test_incremental_refresh_equals_a_clean_walk(history_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = history_repo
    incremental = tmp_path / "inc.sqlite"
    refresh(incremental, HistorySource(root), 3)
    for i in range(4):
        commit(
            root,
            {f"app/m{i}.py": body((f"f{i}", str(i))), "app/core.py": body(("load", f"x * {i}"))},
            f"c{i}",
        )
        refresh(incremental, HistorySource(root), 3)
    git(root, "checkout", "-q", "-b", "side", "HEAD~2")
    commit(root, {"app/side.py": body(("s", "1"))}, "on side")
    refresh(incremental, HistorySource(root), 3)
    git(root, "checkout", "-q", "main")
    refresh(incremental, HistorySource(root), 3)
    clean = tmp_path / "clean.sqlite"
    refresh(clean, HistorySource(root), 3)
    assert rows(incremental) == rows(clean)
    assert len(rows(clean)["window"]) == 3


def test_a_budget_reads_part_of_the_window_and_the_next_call_goes_on(history_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = history_repo
    store = tmp_path / "b.sqlite"
    first = refresh(store, HistorySource(root), 100, budget_s=0.0)
    assert not first.complete and first.commits == 5 and first.with_symbols == 0
    assert "later requests read the rest" in first.describe()
    final = refresh(store, HistorySource(root), 100)
    assert final.complete
    clean = tmp_path / "c.sqlite"
    refresh(clean, HistorySource(root), 100)
    assert rows(store) == rows(clean)


def test_mass_commits_are_recorded_by_file_only(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    root = make_repo({"a.py": "x = 1\n"}, use_git=True)
    many = {f"gen/m{i}.py": body(("f", str(i))) for i in range(MAX_FILES_PER_COMMIT_SYMBOLS + 1)}
    commit(root, many, "generated")
    store = tmp_path / "m.sqlite"
    assert refresh(store, HistorySource(root), 10).complete
    with open_history(store) as conn:
        assert conn.execute("SELECT count(*) FROM commit_symbols").fetchone()[0] == 1  # a.py's x only
        assert file_churn(conn)["gen/m0.py"].commits == 1
        assert co_changed(conn, "gen/m0.py") == []  # a 51-file commit says nothing about pairs


def test_subdirectory_root_and_a_bare_mirror_up_to_a_base_commit(history_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, hashes = history_repo
    sub = tmp_path / "sub.sqlite"
    state = refresh(sub, HistorySource(root / "app", "HEAD", "app/"), 100)
    assert state.commits == 5  # every commit touched app/
    with open_history(sub) as conn:
        assert set(file_churn(conn)) == {"core.py", "util.py"}
    mirror = tmp_path / "mirror.git"
    git(tmp_path, "clone", "-q", "--bare", str(root), str(mirror))
    base = tmp_path / "base.sqlite"
    state = refresh(base, HistorySource(mirror, hashes[2]), 100)
    assert state.head == hashes[2] and state.commits == 3
    with open_history(base) as conn:
        assert file_churn(conn)["app/core.py"].commits == 3
        assert "app/util.py" in file_churn(conn)  # from the initial commit
        assert conn.execute("SELECT count(*) FROM commits WHERE hash = ?", (hashes[3],)).fetchone()[0] == 0


def test_history_in_architecture_impact_and_context(history_repo) -> None:  # type: ignore[no-untyped-def]
    root, _ = history_repo
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(root, settings=settings)
    try:
        ws.sync()

        def run(**args: Any) -> dict[str, Any]:
            return execute({"freshness": "fast", **args}, lambda _: ws, settings).to_dict()

        arch = run(operation="architecture")
        hot = arch["data"]["hotspots"]
        assert hot["files"][0]["path"] == "app/core.py" and hot["files"][0]["commits"] == 4
        assert any(i["kind"] == "hotspot" for i in arch["items"])
        assert any(c.startswith("history: last 5 commit(s)") for c in arch["coverage"])
        impact = run(operation="impact", relativePath="app/core.py")
        assert impact["data"]["co_changed"][0]["path"] == "tests/test_core.py"
        co = [i for i in impact["items"] if i["kind"] == "co_changed"]
        assert co and co[0]["anchor"]["path"] == "tests/test_core.py" and co[0]["count"] == 3
        last = impact["data"]["last_changes"]
        assert last == [] or all(c["path"] == "app/core.py" for c in last)  # a file target: none
        by_symbol = run(operation="impact", symbol="load")["data"]["last_changes"]
        assert [(c["symbol"], c["commits"], c["last_subject"]) for c in by_symbol] == [
            ("load", 3, "load again")
        ]
        context = run(operation="context", symbol="load")
        assert context["data"]["last_changes"][0]["last_subject"] == "load again"
        assert context["data"]["co_changed"][0]["path"] == "tests/test_core.py", context["data"]
        # listed once: as the related file the graph found (tests, imports) or as co-changed
        paths = [i["anchor"]["path"] for i in context["items"] if i["kind"] == "related_file"]
        assert paths.count("tests/test_core.py") == 1
    finally:
        ws.close()
    assert (root / ".lazy-intel" / "history" / "history.sqlite").is_file()


def test_history_off_and_outside_git(make_repo: Callable[..., Path]) -> None:
    plain = make_repo({"a.py": "def f():\n    return 1\n"})
    settings = load_settings({}, auto_index=False)
    ws = Workspace.open(plain, settings=settings)
    try:
        ws.sync()
        arch = execute({"operation": "architecture"}, lambda _: ws, settings).to_dict()
        assert any("history: none (not inside a git work tree)" in c for c in arch["coverage"])
        assert "hotspots" not in arch["data"]
        off = load_settings({"LAZY_INTEL_HISTORY_COMMITS": "0"}, auto_index=False)
        answer = execute({"operation": "impact", "relativePath": "a.py"}, lambda _: ws, off).to_dict()
        assert any("history: off" in c for c in answer["coverage"])
    finally:
        ws.close()


def test_store_is_a_cache_of_another_schema_rebuilt(tmp_path: Path, history_repo) -> None:  # type: ignore[no-untyped-def]
    root, _ = history_repo
    store = tmp_path / "old.sqlite"
    conn = sqlite3.connect(store)
    conn.executescript(
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('schema','x');"
    )
    conn.close()
    assert refresh(store, HistorySource(root), 10).complete

"""A PostgreSQL full build killed with ``kill -9`` resumes from the batches it had committed
(issue 15), against the suite's real server: readers are served the previous generation, whole,
while the killed build's staging store holds its batches; the next full build parses none of the
committed files again and its store equals a clean build's."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from tests.conftest import pg_env
from tests.faults import Paused, chained_modules, cli, run_json, wait_gone

BATCH = 8


def _env(dsn: str, **extra: str) -> dict[str, str]:
    return {
        **pg_env(dsn),
        "LAZY_INTEL_EMBEDDING": "none",
        "LAZY_INTEL_WATCH": "false",
        "LAZY_INTEL_STORE_GRACE_MS": "0",
        "LAZY_INTEL_PARSE_WORKERS": "2",
        "LAZY_INTEL_BUILD_BATCH_FILES": str(BATCH),
        **extra,
    }


def _view(root: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]] | None:
    """(generation, canonical dump) of the store readers are served, ``None`` when there is none."""
    from lazy_intel.errors import IndexBuilding

    ws = Workspace.open(root, settings=load_settings(env=env), state_dir=root.parent / f"{root.name}-reader")
    try:
        with ws.read() as view:
            return view.generation, canonical_dump(view.conn)
    except IndexBuilding:
        return None
    finally:
        ws.close()


def _build_row(dsn: str, root: Path) -> tuple[str, dict[str, str]] | None:
    """The staging store of ``root``'s unpublished build and its meta (another process writes it)."""
    with psycopg.connect(dsn, autocommit=True) as raw:
        row = raw.execute(
            "SELECT store FROM lazy_intel.builds WHERE repository LIKE %s", [f"%:{root}"]
        ).fetchone()
        if row is None:
            return None
        try:
            meta = dict(raw.execute(f'SELECT key, value FROM "{row[0]}".meta').fetchall())
        except psycopg.errors.UndefinedTable:
            return None
        return str(row[0]), meta


def _schema_exists(dsn: str, schema: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as raw:
        return raw.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema]).fetchone() is not None


def _clean(root: Path, dsn: str, tmp_path: Path) -> dict[str, Any]:
    """A clean full build of ``root`` under another repository name in the same database."""
    env = {**_env(dsn), "LAZY_INTEL_STORE_REPOSITORY": f"clean:{root}:{time.monotonic_ns()}"}
    ws = Workspace.open(root, settings=load_settings(env=env, writer_idle_ms=0), state_dir=tmp_path / "clean")
    try:
        ws.sync(rebuild=True)
        with ws.read() as view:
            return canonical_dump(view.conn)
    finally:
        ws.close()


def _resumed(root: Path, env: dict[str, str], *args: str) -> dict[str, Any]:
    code, after = run_json("index", str(root), *args, env=env)
    assert code == 0, after
    return after["data"]


@pytest.mark.slow
def test_a_killed_rebuild_serves_the_previous_generation_and_resumes(
    make_repo, pg_dsn: str, tmp_path: Path
) -> None:
    root = make_repo(chained_modules())
    env = _env(pg_dsn)
    assert run_json("index", str(root), env=env)[0] == 0
    before = _view(root, env)
    assert before is not None
    (root / "pkg" / "zz_new.py").write_text("def brand_new():\n    return helper_3(1)\n")
    paused = Paused("batch", "index", str(root), "--rebuild", env=env)
    staged = _build_row(pg_dsn, root)
    assert staged is not None
    schema, meta = staged
    written = int(meta["build_files"])
    total = len(chained_modules()) + 1
    assert BATCH <= written < total and meta["generation"] == "0"
    assert _view(root, env) == before, "a reader is served the previous generation, whole"
    code, second = run_json("index", str(root), "--rebuild", env=env)
    assert code != 0 and second["code"] == "WORKSPACE_OWNED", second
    assert f"pid {paused.pid}" in second["message"]
    paused.kill9()
    assert wait_gone(paused.descendants, 30) == []
    assert _view(root, env) == before, "the killed writer left the previous generation served"
    assert _build_row(pg_dsn, root) == staged, "its committed batches are kept"

    data = _resumed(root, env, "--rebuild")
    assert data["recovery"]["decision"] == "resumed", data["recovery"]
    assert data["recovery"]["intent"]["pid"] == paused.pid
    report = data["last_sync"]
    assert report["full_rebuild"] is True and report["store"] == f"postgresql:{schema}"
    assert report["added"] + report["modified"] == total - written, "no committed file parsed again"
    after = _view(root, env)
    assert after is not None and after[0] > 0
    assert after[1] == _clean(root, pg_dsn, tmp_path)
    assert any(row[0] == "pkg/zz_new.py" for row in after[1]["files"])
    assert _build_row(pg_dsn, root) is None
    assert after[1] != before[1]


@pytest.mark.slow
def test_a_first_build_killed_at_an_arbitrary_moment_resumes(make_repo, pg_dsn: str, tmp_path: Path) -> None:
    """No pause point: the build runs freely and is killed once its staging store holds three
    batches, most likely in the middle of writing the fourth; edits follow before the resume."""
    root = make_repo(chained_modules())
    env = _env(pg_dsn)
    proc = psutil.Popen(
        [cli(), "index", str(root)],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    written = 0
    try:
        while written < 3 * BATCH:
            assert time.monotonic() < deadline, "the build committed no batches in time"
            assert proc.poll() is None, "the build finished before it could be killed"
            staged = _build_row(pg_dsn, root)
            written = int(staged[1].get("build_files", "0")) if staged else 0
            if written < 3 * BATCH:
                with contextlib.suppress(psutil.TimeoutExpired):
                    proc.wait(0.02)  # a bounded wait on the process, not a sleep
        descendants = [p.pid for p in proc.children(recursive=True)]
        proc.kill()
        proc.wait(30)
    finally:
        if proc.is_running():
            proc.kill()
    assert wait_gone(descendants, 30) == []
    assert _view(root, env) is None, "nothing was published"
    staged = _build_row(pg_dsn, root)
    assert staged is not None
    written = int(staged[1]["build_files"])  # the last commit before the kill
    assert 3 * BATCH <= written < len(chained_modules())

    # since the kill: one written file changed, one removed, one file added
    (root / "pkg" / "mod_000.py").write_text("def replaced():\n    return 'new'\n")
    (root / "pkg" / "mod_001.py").unlink()
    (root / "pkg" / "zz_added.py").write_text("def added():\n    return 1\n")
    data = _resumed(root, env)
    assert data["recovery"]["decision"] == "resumed", data["recovery"]
    report = data["last_sync"]
    # README.md, mod_000 and mod_001 sort first: they were in the first committed batch
    assert report["modified"] == 1 and report["removed"] == 1, report
    assert report["added"] + report["modified"] == len(chained_modules()) - (written - 2), report
    after = _view(root, env)
    assert after is not None and after[1] == _clean(root, pg_dsn, tmp_path)


@pytest.mark.slow
def test_a_build_killed_while_resolving_resumes_from_its_last_committed_batch(
    make_repo, pg_dsn: str, tmp_path: Path
) -> None:
    root = make_repo(chained_modules())
    env = _env(pg_dsn)
    paused = Paused("resolved", "index", str(root), env=env)
    paused.kill9()
    assert wait_gone(paused.descendants, 30) == []
    staged = _build_row(pg_dsn, root)
    assert staged is not None
    resolved = int(staged[1]["build_resolved"])
    assert 0 < resolved < len(chained_modules())
    data = _resumed(root, env)
    report = data["last_sync"]
    assert report["added"] + report["modified"] == 0, "every file was committed: none parsed again"
    assert report["graph"]["resumed_files"] == resolved
    # the rest was resolved by local workers reading the staging store over their own connections
    assert report["graph"]["resolve_workers"] == 2
    after = _view(root, env)
    assert after is not None and after[1] == _clean(root, pg_dsn, tmp_path)


@pytest.mark.slow
def test_an_incremental_sync_discards_a_killed_rebuild(make_repo, pg_dsn: str, tmp_path: Path) -> None:
    root = make_repo(chained_modules())
    env = _env(pg_dsn)
    assert run_json("index", str(root), env=env)[0] == 0
    paused = Paused("batch", "index", str(root), "--rebuild", env=env)
    staged = _build_row(pg_dsn, root)
    assert staged is not None
    paused.kill9()
    (root / "pkg" / "mod_005.py").write_text("def edited():\n    return 5\n")
    data = _resumed(root, env)
    assert data["recovery"]["decision"] == "abandoned", data["recovery"]
    assert data["last_sync"]["full_rebuild"] is False
    assert _build_row(pg_dsn, root) is None
    assert not _schema_exists(pg_dsn, staged[0]), "the abandoned staging store was dropped"
    after = _view(root, env)
    assert after is not None and after[1] == _clean(root, pg_dsn, tmp_path)


@pytest.mark.slow
def test_a_killed_build_under_another_profile_starts_over(make_repo, pg_dsn: str, tmp_path: Path) -> None:
    root = make_repo(chained_modules())
    env = _env(pg_dsn)
    paused = Paused("batch", "index", str(root), env=env)
    paused.kill9()
    (root / ".lazy-intel-ignore").write_text("pkg/mod_1*\n")  # the scope it was built for is gone
    data = _resumed(root, env)
    assert data["recovery"]["decision"] == "abandoned" and "profile" in data["recovery"]["reason"]
    assert data["last_sync"]["added"] == data["counts"]["files"]
    after = _view(root, env)
    assert after is not None and after[1] == _clean(root, pg_dsn, tmp_path)

"""Faults of the PostgreSQL backend against a real server: a writer killed mid-publication, two
writers, a connection dropped mid-read, and the server restarted under a running ``serve``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from lazy_intel.errors import Unavailable
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from tests.conftest import pg_env
from tests.faults import Paused, run_cli, run_json
from tests.mcp.raw_client import RawMcpClient, structured

FILES = {
    f"pkg/mod_{i:02d}.py": f"def helper_{i}(value):\n    return value + {i}\n\n\ndef caller_{i}():\n    return helper_{i}(1)\n"
    for i in range(12)
}


def _dump(root: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    ws = Workspace.open(root, settings=load_settings(env=env), state_dir=root.parent / f"{root.name}-reader")
    try:
        with ws.read() as view:
            return view.generation, canonical_dump(view.conn)
    finally:
        ws.close()


def _edit(root: Path) -> None:
    (root / "pkg" / "mod_00.py").write_text("def replaced():\n    return 'new'\n")
    (root / "pkg" / "mod_01.py").unlink()
    (root / "pkg" / "added.py").write_text("def added():\n    return helper_2(3)\n")


@pytest.mark.slow
@pytest.mark.parametrize(("point", "rebuild"), [("commit", False), ("parse", True), ("switch", True)])
def test_writer_killed_mid_publication_leaves_the_previous_generation(
    make_repo, pg_dsn: str, point: str, rebuild: bool
) -> None:
    root = make_repo(FILES)
    env = {**pg_env(pg_dsn), "LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_WATCH": "false"}
    assert run_cli("index", str(root), env=env).returncode == 0
    generation, before = _dump(root, env)
    _edit(root)
    paused = Paused(point, "index", str(root), *(["--rebuild"] if rebuild else []), env=env)
    # while the writer sits inside its transaction, readers see the previous generation, whole
    assert _dump(root, env) == (generation, before)
    paused.kill9()
    assert _dump(root, env) == (generation, before)  # the server rolled the transaction back
    # the killed writer's lock went with its connection: the next writer publishes the edit
    code, report = run_json("index", str(root), env=env)
    assert code == 0, report
    after_generation, after = _dump(root, env)
    assert after_generation > generation
    assert any(row[0] == "pkg/added.py" for row in after["files"])
    assert not any(row[0] == "pkg/mod_01.py" for row in after["files"])


@pytest.mark.slow
def test_a_second_writer_gets_workspace_owned_and_reads_still_work(make_repo, pg_dsn: str) -> None:
    root = make_repo(FILES)
    env = {**pg_env(pg_dsn), "LAZY_INTEL_EMBEDDING": "none"}
    assert run_cli("index", str(root), env=env).returncode == 0
    _edit(root)
    holder = Paused("parse", "index", str(root), env=env)
    try:
        code, answer = run_json("index", str(root), env=env)
        assert code != 0 and answer["code"] == "WORKSPACE_OWNED", answer
        assert f"pid {holder.pid}" in answer["message"]
        code, found = run_json("search", "helper", "--root", str(root), "--freshness", "fast", env=env)
        assert code == 0 and found["status"] == "ok" and found["items"], found
    finally:
        holder.kill9()


def test_a_connection_dropped_mid_read_is_a_clear_error_and_the_next_read_reconnects(
    make_repo, pg_dsn: str
) -> None:
    root = make_repo(FILES)
    settings = load_settings(env={**pg_env(pg_dsn), "LAZY_INTEL_EMBEDDING": "none"})
    ws = Workspace.open(root, settings=settings)
    try:
        ws.sync()
        with pytest.raises(Unavailable) as caught, ws.read() as view:
            backend = view.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            with psycopg.connect(pg_dsn, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", [backend])
            view.conn.execute("SELECT count(*) FROM files").fetchone()
        assert caught.value.code == "UNAVAILABLE"
        assert "lost the connection" in caught.value.message and "127.0.0.1" in caught.value.message
        with ws.read() as view:  # a fresh connection, the same published generation
            assert view.conn.execute("SELECT count(*) FROM files").fetchone()[0] == len(FILES)
    finally:
        ws.close()


@pytest.mark.slow
def test_server_restarted_under_a_running_serve(make_repo, pg_server: Any, pg_dsn: str) -> None:
    root = make_repo(FILES)
    env = {**pg_env(pg_dsn), "LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_WATCH": "false"}
    assert run_cli("index", str(root), env=env).returncode == 0
    client = RawMcpClient(root, env)
    try:
        client.initialize()
        ask = {"operation": "symbol", "symbol": "helper_3", "root": str(root), "freshness": "fast"}
        first = structured(client.wait(client.call(ask), 60))
        assert first["status"] == "ok" and first["items"], first
        pg_server.stop()
        down = structured(client.wait(client.call(ask), 60))
        assert down["status"] == "error" and down["code"] == "UNAVAILABLE", down
        assert "127.0.0.1" in down["message"] and down.get("next_step")
        (root / "pkg" / "late.py").write_text("def late_edit():\n    return 1\n")  # while it is down
        pg_server.start()
        again = structured(client.wait(client.call(ask), 60))
        assert again["status"] == "ok", again
        assert [i["anchor"] for i in again["items"]] == [i["anchor"] for i in first["items"]]
        late = structured(
            client.wait(client.call({**ask, "symbol": "late_edit", "freshness": "strict"}), 120)
        )
        assert late["status"] == "ok" and late["items"], late  # the edit made while down is published
        assert client.proc.poll() is None
    finally:
        if not pg_server.running:
            pg_server.start()
        client.close_stdin()
        client.finish(60)

"""Server limits with a real ``lazy-intel serve`` process: a full queue answers BUSY, a client that
goes away mid-request leaves no process behind, roots beyond the bound are closed; and, in-process,
a cancelled or timed-out request never cancels shared work or another caller's wait."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from lazy_intel.mcp.admission import Admission
from lazy_intel.mcp.server import CodeIntelServer
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.faults import WAIT_S, parse_workers, run_cli, wait_gone
from tests.faults import try_lock as _try_lock
from tests.mcp.raw_client import RawMcpClient, structured

FILES = {f"pkg/m{i:03d}.py": f"def func_{i}(x):\n    return x + {i}\n" for i in range(140)}


def _exit_cleanly(client: RawMcpClient, children: list[int]) -> None:
    client.close_stdin()
    assert client.finish(30) == 0, "".join(client.stderr_text)[-2000:]
    assert wait_gone(children, 30) == [], "no child process outlives the server"


@pytest.mark.slow
def test_a_full_queue_answers_busy_and_the_server_still_exits(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_tree(root, dict(list(FILES.items())[:5]))
    assert run_cli("index", str(root)).returncode == 0
    (root / "pkg" / "m000.py").write_text("def func_0(x):\n    return 'edited'\n")
    client = RawMcpClient(
        root,
        {"LAZY_INTEL_TEST_PAUSE_AT": "parse", "LAZY_INTEL_TIMEOUT_MS": "600000", "LAZY_INTEL_WATCH": "false"},
    )
    client.initialize()
    ids = [client.call({"operation": "symbol", "symbol": "func_1", "freshness": "strict"}) for _ in range(40)]
    answered = client.wait_for_count(1 + 4, WAIT_S)  # initialize + the four refused at once
    refused = [structured(answered[i]) for i in ids if i in answered]
    assert len(refused) == 4 and {a["code"] for a in refused} == {"BUSY"}
    assert "4 requests are running and 32 waiting" in refused[0]["message"]
    client.wait_stderr("LAZY_INTEL_PAUSED parse", WAIT_S)  # the shared sync is stuck: 36 wait on it
    # an oversized request is refused before it is admitted
    huge = client.call({"operation": "search", "query": "x" * 200_000})
    assert structured(client.wait(huge, WAIT_S))["code"] == "INVALID_ARGUMENT"
    _exit_cleanly(client, [p.pid for p in client.proc.children(recursive=True)])


@pytest.mark.slow
def test_a_client_gone_mid_request_leaves_no_process(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_tree(root, FILES)
    client = RawMcpClient(root, {"LAZY_INTEL_TEST_PAUSE_AT": "parse", "LAZY_INTEL_PARSE_WORKERS": "2"})
    client.initialize()
    client.call({"operation": "search", "query": "func", "freshness": "strict"})
    client.wait_stderr("LAZY_INTEL_PAUSED parse", 60)  # building, mid-parse, workers alive
    workers = parse_workers(client.proc)
    assert len(workers) >= 2, "the build parses in worker processes"
    _exit_cleanly(client, [p.pid for p in client.proc.children(recursive=True)])


@pytest.mark.slow
def test_roots_beyond_the_bound_are_closed(tmp_path: Path) -> None:
    roots = []
    for name in ("one", "two"):
        root = tmp_path / name
        write_tree(root, dict(list(FILES.items())[:3]))
        roots.append(root)
    client = RawMcpClient(roots[0], {"LAZY_INTEL_MAX_ROOTS": "1"})
    client.initialize()
    first = client.call({"operation": "sync", "root": str(roots[0])})
    assert structured(client.wait(first, 60))["status"] == "ok"
    assert not _try_lock(roots[0] / ".lazy-intel" / "runtime" / "writer.lock")  # held while active
    second = client.call({"operation": "sync", "root": str(roots[1])})
    assert structured(client.wait(second, 60))["status"] == "ok", structured(client.wait(second, 60))
    # the first root is closed once idle (its catch-up sync may still be running): poll, bounded
    deadline = time.monotonic() + WAIT_S
    while not _try_lock(roots[0] / ".lazy-intel" / "runtime" / "writer.lock"):
        assert time.monotonic() < deadline, "the first root was never closed"
        client.wait(client.call({"operation": "status", "root": str(roots[1])}), 60)
    again = client.call({"operation": "symbol", "symbol": "func_1", "root": str(roots[0])})
    assert structured(client.wait(again, 60))["status"] == "ok", structured(client.wait(again, 60))
    _exit_cleanly(client, [p.pid for p in client.proc.children(recursive=True)])


def test_a_cancelled_wait_does_not_cancel_shared_work(make_repo, gated: threading.Event) -> None:
    root = make_repo(dict(list(FILES.items())[:5]))
    app = CodeIntelServer(load_settings(env={}, timeout_ms=60_000), str(root), serving=False)
    strict = {"operation": "symbol", "symbol": "func_1", "freshness": "strict"}
    results: dict[str, Any] = {}
    doomed: list[anyio.CancelScope] = []

    async def call(name: str) -> None:
        with anyio.CancelScope() as scope:
            doomed.append(scope)
            results[name] = await app.run(dict(strict))

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            app.admission.attach(group)
            async with anyio.create_task_group() as callers:
                callers.start_soon(call, "cancelled")
                callers.start_soon(call, "patient")
                with anyio.fail_after(WAIT_S):  # both callers wait on the workspace's (blocked) sync
                    while app.admission.running < 2 or not app.registry.workspaces():
                        await anyio.sleep(0.01)
                    while not app.registry.workspaces()[0].is_building():
                        await anyio.sleep(0.01)
                doomed[0].cancel()  # the MCP client cancels its request
                await anyio.sleep(0.05)
                await anyio.to_thread.run_sync(gated.set)
            group.cancel_scope.cancel()

    anyio.run(scenario)
    assert "cancelled" not in results and results["patient"].status == "ok"
    workspace = app.registry.workspaces()[0]
    assert workspace.scheduler.last_error is None and workspace.last_report is not None
    assert workspace.has_view()
    assert app.registry.close_all()


def test_a_request_that_times_out_queued_never_runs() -> None:
    admission = Admission(max_active=1, max_queued=2)
    ran: list[str] = []
    gate = threading.Event()

    def blocking() -> str:
        gate.wait(WAIT_S)
        ran.append("first")
        return "first"

    def never() -> str:
        ran.append("second")
        return "second"

    outcomes: dict[str, Any] = {}

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            admission.attach(group)

            async def first() -> None:
                outcomes["first"] = await admission.run(blocking, WAIT_S)

            group.start_soon(first)
            await anyio.sleep(0.05)
            outcomes["second"] = await admission.run(never, 0.1)  # queued behind the first, times out
            assert admission.full() is False
            await anyio.to_thread.run_sync(gate.set)
            with anyio.fail_after(WAIT_S):
                while "first" not in outcomes:
                    await anyio.sleep(0.01)
            await anyio.sleep(0.05)

    anyio.run(scenario)
    assert outcomes["first"] == (True, "first")
    assert outcomes["second"] == (False, None)
    assert ran == ["first"], "the abandoned request never started"

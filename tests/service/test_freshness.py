"""Freshness modes on every operation: which view is read and what the answer says about it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service import operations as operations_module
from lazy_intel.service.operations import OPERATIONS, OperationSpec, execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.faults import WAIT_S, Holder

FILES = {
    "pkg/__init__.py": "",
    "pkg/sessions.py": "class Session:\n    def request(self, url):\n        return url  # retries\n",
    "pkg/util.py": "def clamp(x):\n    return max(0, x)  # retries\n",
}

REQUESTS: dict[str, dict[str, Any]] = {
    "search": {"query": "retries"},
    "symbol": {"symbol": "Session.request"},
    "status": {},
    "verify": {"anchors": [{"path": "pkg/util.py", "sha256": "0" * 64, "start_byte": 0, "end_byte": 3}]},
    "sync": {},
    "repair": {},
}


def _run(ws: Workspace, **args: Any) -> dict[str, Any]:
    return execute(args, lambda _r: ws, ws.settings).to_dict()


@pytest.mark.parametrize("freshness", ["auto", "strict", "fast"])
@pytest.mark.parametrize("operation", sorted(REQUESTS))
def test_every_answer_states_its_view(make_repo, operation: str, freshness: str) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    ws.sync()
    (root / "pkg" / "util.py").write_text("def clamp(x):\n    return min(9, x)  # retries\n")
    answer = _run(ws, operation=operation, freshness=freshness, **REQUESTS[operation])
    view = answer["view"]
    assert answer["status"] in ("ok", "partial"), answer
    assert view["freshness"] == freshness and isinstance(view["generation"], int) and view["generation"] >= 1
    with ws.read() as now:
        published = now.generation
    if operation in ("sync", "repair") or (freshness == "strict" and OPERATIONS[operation].reads_view):
        assert view["generation"] == published == 2 and view["dirty"] is False
    elif freshness == "auto" and OPERATIONS[operation].dirty_check:
        assert view["dirty"] is True and view["dirty_paths"] == ["pkg/util.py"]
    elif freshness == "fast" and OPERATIONS[operation].dirty_check:
        assert view["dirty"] is None  # not checked, and no watcher to ask
    for item in answer["items"]:
        assert item["anchor"]["generation"] in (0, view["generation"])
    ws.close()


def test_an_error_answer_states_the_view_it_read(make_repo) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    ws.sync()
    missing = _run(ws, operation="symbol", symbol="nowhere", freshness="fast")
    assert missing["code"] == "NOT_FOUND" and missing["view"]["generation"] == 1
    assert missing["view"]["freshness"] == "fast"
    ws.close()


def test_strict_refuses_an_answer_whose_files_moved_during_the_read(make_repo, monkeypatch) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    ws.sync()
    spec = OPERATIONS["symbol"]

    def edit_during_read(ctx: Any) -> Any:
        answer = spec.handler(ctx)
        (root / "pkg" / "sessions.py").write_text(FILES["pkg/sessions.py"] + "# edited meanwhile\n")
        return answer

    patched = dict(OPERATIONS, symbol=OperationSpec("symbol", edit_during_read, spec.summary))
    monkeypatch.setattr(operations_module, "OPERATIONS", patched)
    answer = _run(ws, operation="symbol", symbol="Session.request", freshness="strict")
    assert answer["code"] == "SOURCE_CHANGED" and "pkg/sessions.py" in answer["message"]
    assert answer["view"]["generation"] == 1
    ws.close()


def test_auto_never_waits_for_a_build_and_schedules_only_one(make_repo, gated) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    started = time.monotonic()
    first = _run(ws, operation="search", query="retries")
    second = _run(ws, operation="symbol", symbol="clamp")
    assert time.monotonic() - started < 5
    assert first["code"] == second["code"] == "INDEX_BUILDING"
    assert "background build has started" in second["message"]
    status = _run(ws, operation="status")
    assert status["status"] == "partial"
    assert status["data"]["projections"]["lexical"]["verdict"] == "building"
    gated.set()
    assert ws.wait_background(WAIT_S)
    assert ws.scheduler.syncs == 1
    assert _run(ws, operation="symbol", symbol="clamp")["status"] == "ok"
    ws.close()


def test_strict_within_the_request_time_then_the_sync_goes_on(make_repo, gated) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}))
    answer = execute(
        {"operation": "symbol", "symbol": "clamp", "freshness": "strict"},
        lambda _r: ws,
        ws.settings,
        deadline=time.monotonic() + 0.2,
    ).to_dict()
    assert answer["code"] == "TIMEOUT" and "continues" in answer["message"]
    gated.set()
    assert ws.wait_background(WAIT_S) and ws.has_view()
    ws.close()


def test_strict_while_another_process_owns_publication(make_repo) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=0))
    ws.sync()
    holder = Holder(ws.state.writer_lock)
    try:
        # the owner's published view covers the disk: strict answers from it, and says whose it is
        clean = _run(ws, operation="symbol", symbol="clamp", freshness="strict")
        assert clean["status"] == "ok" and f"process {holder.proc.pid}" in clean["warnings"][0]
        (root / "pkg" / "util.py").write_text("def clamp(x):\n    return 0\n")
        # the owner does not publish within the bound: the published view, partial, naming the file
        behind = execute(
            {"operation": "symbol", "symbol": "clamp", "freshness": "strict"},
            lambda _r: ws,
            ws.settings,
            deadline=time.monotonic() + 0.5,
        ).to_dict()
        assert behind["status"] == "partial", behind
        assert behind["view"]["dirty"] is True and behind["view"]["dirty_paths"] == ["pkg/util.py"]
        assert any(str(holder.proc.pid) in w and "pkg/util.py" in w for w in behind["warnings"])
        auto = _run(ws, operation="symbol", symbol="clamp")
        assert auto["status"] == "ok" and auto["view"]["dirty"] is True
    finally:
        holder.release()
    ws.close()


def test_strict_publishes_itself_when_the_owner_lets_go_during_the_wait(make_repo) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, writer_idle_ms=0, owner_wait_ms=60_000))
    ws.sync()
    holder = Holder(ws.state.writer_lock)
    (root / "pkg" / "util.py").write_text("def clamp(x):\n    return 7\n")
    released = threading.Timer(0.3, holder.release)
    released.start()
    try:
        answer = _run(ws, operation="symbol", symbol="clamp", freshness="strict")
    finally:
        released.join()
    assert answer["status"] == "ok" and answer["view"]["dirty"] is False, answer
    assert "return 7" in answer["items"][0]["text"]
    ws.close()


def test_no_view_while_another_process_builds_names_it(make_repo, tmp_path: Path) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    ws.state.ensure()
    holder = Holder(ws.state.writer_lock)
    try:
        answer = _run(ws, operation="search", query="retries")
        assert answer["code"] == "INDEX_BUILDING" and str(holder.proc.pid) in answer["message"]
        status = _run(ws, operation="status")
        lexical = status["data"]["projections"]["lexical"]
        assert lexical["verdict"] == "building" and lexical["builder_pid"] == holder.proc.pid
    finally:
        holder.release()
    ws.close()

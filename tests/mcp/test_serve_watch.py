"""A real ``lazy-intel serve`` publishes what changes on disk without being asked: its watcher sees
the edit and a sync publishes it within the debounce plus the sync time."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_tree
from tests.faults import WAIT_S, wait_gone
from tests.mcp.raw_client import RawMcpClient, structured

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def core_fn():\n    return 1\n",
    "pkg/other.py": "def other_fn():\n    return 2\n",
}
POLL_S = 0.05


def _ask(client: RawMcpClient, args: dict[str, Any]) -> dict[str, Any]:
    return structured(client.wait(client.call(args), WAIT_S))


def _until(client: RawMcpClient, args: dict[str, Any], done: Callable[[dict[str, Any]], bool]) -> float:
    """Seconds until an answer to ``args`` satisfies ``done`` (bounded; fails the test otherwise)."""
    started = time.monotonic()
    pause = threading.Event()
    while True:
        answer = _ask(client, args)
        if done(answer):
            return time.monotonic() - started
        assert time.monotonic() - started < WAIT_S, f"not published within {WAIT_S}s: {answer}"
        pause.wait(POLL_S)


@pytest.mark.slow
def test_serve_publishes_edits_it_was_not_told_about(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_tree(root, FILES)
    client = RawMcpClient(root, {"LAZY_INTEL_DEBOUNCE_MS": "50", "LAZY_INTEL_WRITER_IDLE_MS": "0"})
    try:
        client.initialize()
        _until(client, {"operation": "status", "freshness": "fast"}, lambda a: a["status"] == "ok")
        first = _ask(client, {"operation": "status", "freshness": "fast"})["view"]["generation"]
        # a new file in a new directory: only the watcher can tell the server about it
        (root / "pkg" / "sub").mkdir()
        fresh = root / "pkg" / "sub" / "fresh.py"
        fresh.write_text("def brand_new_fn():\n    return 3\n")
        fast = {"operation": "symbol", "symbol": "brand_new_fn", "freshness": "fast"}
        _until(client, fast, lambda a: a["status"] == "ok")
        answer = _ask(client, fast)
        anchor = answer["items"][0]["anchor"]
        assert anchor["path"] == "pkg/sub/fresh.py"
        assert anchor["sha256"] == hashlib.sha256(fresh.read_bytes()).hexdigest()
        assert answer["view"]["generation"] > first and anchor["generation"] == answer["view"]["generation"]
        # a deletion is published too
        (root / "pkg" / "core.py").unlink()
        gone = {"operation": "symbol", "symbol": "core_fn", "freshness": "fast"}
        _until(client, gone, lambda a: a.get("code") == "NOT_FOUND")
    finally:
        children = [p.pid for p in client.proc.children(recursive=True)]
        client.close_stdin()
        assert client.finish(30) == 0, "".join(client.stderr_text)[-2000:]
    assert wait_gone(children, 30) == [], "no child process outlives the server"

"""End to end: ``lazy-intel serve`` as a subprocess, driven by the MCP SDK's own stdio client."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.conftest import write_tree

FILES = {
    "pkg/__init__.py": "",
    "pkg/sessions.py": (
        "class Session:\n"
        '    """HTTP session with retries."""\n\n'
        "    def request(self, method, url):\n"
        '        """Send a request, retrying on failure."""\n'
        "        return self.send(method, url, retries=3)\n\n"
        "    def send(self, method, url, retries):\n"
        "        return (method, url, retries)\n"
    ),
    "pkg/config.py": "MAX_RETRIES = 5\nBACKOFF_FACTOR = 0.3\n",
}


def _server_command() -> list[str]:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    assert exe is not None, "the lazy-intel console script is installed next to this Python"
    return [exe, "serve"]


async def _session_calls(root: Path) -> dict[str, Any]:
    command = _server_command()
    params = StdioServerParameters(
        command=command[0],
        args=command[1:],
        cwd=str(root),
        env={**os.environ, "LAZY_INTEL_LOG_LEVEL": "WARNING"},
    )
    results: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        results["tools"] = tools.tools
        first = await session.call_tool("code_intel", {"operation": "search", "query": "retries"})
        results["first"] = first
        # the first call on an unindexed root answers INDEX_BUILDING at once; poll status (bounded)
        with anyio.fail_after(60):
            while True:
                status = await session.call_tool("code_intel", {"operation": "status"})
                if status.structured_content["status"] == "ok":
                    break
                await anyio.sleep(0.1)
        results["search"] = await session.call_tool(
            "code_intel", {"operation": "search", "query": "retries", "limit": 5}
        )
        results["symbol"] = await session.call_tool(
            "code_intel", {"operation": "symbol", "symbol": "Session.request", "freshness": "fast"}
        )
        results["bad"] = await session.call_tool("code_intel", {"operation": "explode"})
        results["negative"] = await session.call_tool(
            "code_intel", {"operation": "search", "query": "x", "limit": -1}
        )
    return results


def test_serve_over_stdio_with_the_sdk_client(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_tree(root, FILES)
    results = anyio.run(_session_calls, root)

    tools = results["tools"]
    assert [t.name for t in tools] == ["code_intel"]
    assert "operation" in tools[0].input_schema["properties"]

    first = results["first"].structured_content
    assert first["status"] == "error" and first["code"] == "INDEX_BUILDING"

    search = results["search"].structured_content
    assert search["status"] == "ok"
    assert search["items"], search
    for item in search["items"]:
        anchor = item["anchor"]
        data = (root / anchor["path"]).read_bytes()
        assert anchor["sha256"] == hashlib.sha256(data).hexdigest()
        assert item["text"] == data[anchor["start_byte"] : anchor["end_byte"]].decode()

    symbol = results["symbol"].structured_content
    assert symbol["status"] == "ok"
    (item,) = symbol["items"]
    assert item["symbol"]["qualified_name"] == "Session.request"
    data = (root / "pkg/sessions.py").read_bytes()
    assert item["text"] == data[item["anchor"]["start_byte"] : item["anchor"]["end_byte"]].decode()
    assert item["text"].startswith("def request(self, method, url):")

    bad = results["bad"]
    assert bad.is_error and bad.structured_content["code"] == "INVALID_ARGUMENT"
    assert "explode" in bad.structured_content["message"]
    negative = results["negative"]
    assert negative.is_error and "limit" in negative.structured_content["message"]


@pytest.mark.parametrize("stdin_payload", [b"", b"not json\n"])
def test_serve_exits_when_stdin_closes(tmp_path: Path, stdin_payload: bytes) -> None:
    import subprocess

    done = subprocess.run(
        _server_command(), input=stdin_payload, capture_output=True, cwd=tmp_path, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    # nothing but protocol on stdout: no stray text, only JSON-RPC lines (if any)
    for line in done.stdout.decode().splitlines():
        assert line.startswith("{"), line

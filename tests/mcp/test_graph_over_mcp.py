"""Graph operations through ``lazy-intel serve`` and the MCP SDK's own stdio client."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio

from tests.conftest import write_tree

FILES = {
    "pkg/__init__.py": "",
    "pkg/store.py": "def save(row):\n    return row\n",
    "pkg/service.py": "from pkg.store import save\n\n\ndef create(x):\n    return save(x)\n",
    "pkg/api.py": "from pkg.service import create\n\n\ndef post(x):\n    return create(x)\n",
}


async def _calls(root: Path) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    assert exe is not None
    params = StdioServerParameters(
        command=exe,
        args=["serve"],
        cwd=str(root),
        env={**os.environ, "LAZY_INTEL_LOG_LEVEL": "WARNING", "LAZY_INTEL_LSP_CONFIG": ""},
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        out["operations"] = tools.tools[0].input_schema["properties"]["operation"]["enum"]
        synced = await session.call_tool("code_intel", {"operation": "sync"})
        assert not synced.is_error, synced
        for name, args in {
            "callers": {"operation": "callers", "symbol": "save", "depth": 2},
            "impact": {"operation": "impact", "symbol": "save", "depth": 3},
            "references": {"operation": "references", "symbol": "create"},
        }.items():
            result = await session.call_tool("code_intel", args)
            assert not result.is_error, result
            out[name] = result.structured_content
    return out


def test_graph_operations_over_mcp(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_tree(root, FILES)
    out = anyio.run(_calls, root)
    # the index operations are offered without any language server; references falls back to the graph
    assert {"callers", "callees", "impact", "architecture", "routes", "context", "auto", "references"} <= set(
        out["operations"]
    )
    callers = out["callers"]
    assert [(i["caller"]["name"], i["distance"]) for i in callers["items"] if i["kind"] == "call"] == [
        ("create", 1),
        ("post", 2),
    ]
    impact = out["impact"]
    dependents = {
        i["symbol"]["qualified_name"]: i["distance"]
        for i in impact["items"]
        if i["kind"] == "dependent" and "symbol" in i
    }
    assert dependents == {"create": 1, "post": 2}
    references = out["references"]
    assert references["data"]["source"] == "index"
    assert (
        references["coverage"][0] == "source: index graph, because no trusted language server is configured"
    )

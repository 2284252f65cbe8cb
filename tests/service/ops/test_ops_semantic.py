"""The semantic operations through ``code_intel``: a real language server behind the tool."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from lazy_intel.semantic import SemanticLayer
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.semantic.conftest import INSTALL_HINT, locate_server, write_config

FILES = {
    "shapes.py": (
        "class Shape:\n"
        '    """A shape."""\n\n'
        "    def area(self) -> float:\n"
        "        return 0.0\n\n\n"
        "def total(a: Shape, b: Shape) -> float:\n"
        "    return a.area() + b.area()\n"
    ),
    "main.py": "from shapes import Shape, total\n\n\ndef run() -> float:\n    return total(Shape(), Shape())\n",
}


@pytest.fixture
def jedi_config(tmp_path: Path) -> Path:
    server = locate_server("jedi")
    if server is None:
        if os.environ.get("CI"):
            pytest.fail(f"jedi-language-server missing in CI: {INSTALL_HINT}")
        pytest.skip(f"jedi-language-server not installed: {INSTALL_HINT}")
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    return write_config(config_dir / "servers.json", [server.entry()])


def test_semantic_operations_through_execute(make_repo, jedi_config: Path) -> None:
    root = Path(os.path.realpath(make_repo(FILES)))
    settings = load_settings(env={"LAZY_INTEL_LSP_CONFIG": str(jedi_config)})
    layer = SemanticLayer.from_settings(settings)
    ws = Workspace.open(root, settings=settings)
    ws.sync()
    try:

        def run(**args: Any) -> dict[str, Any]:
            return execute(args, lambda _r: ws, settings, semantic=layer).to_dict()

        # by symbol: the index resolves Shape.area to the position of its name, the server answers
        hover = run(operation="hover", symbol="total", relativePath="shapes.py")
        assert hover["status"] in ("ok", "partial"), hover
        assert hover["items"] and "observation" in hover["items"][0]
        assert hover["items"][0]["observation"]["server_id"] == "jedi"
        # by position: line 4 of main.py, on `total`
        definition = run(operation="definition", relativePath="main.py", line=4, character=12)
        assert definition["status"] == "ok", definition
        target = definition["items"][0]["anchor"]
        assert target["path"] == "shapes.py" and target["start_line"] == 8
        status = run(operation="status")
        assert status["data"]["projections"]["semantic"]["verdict"] == "ready"
        unsupported = run(operation="type_hierarchy", relativePath="shapes.py", line=0, character=6)
        assert unsupported["code"] == "UNSUPPORTED"
    finally:
        layer.close()


def test_without_a_configured_server_semantic_operations_are_unsupported(make_repo) -> None:
    root = make_repo(FILES)
    settings = load_settings(env={})
    ws = Workspace.open(root, settings=settings)
    answer = execute(
        {"operation": "hover", "relativePath": "main.py", "line": 0, "character": 0},
        lambda _r: ws,
        settings,
        semantic=SemanticLayer.from_settings(settings),
    )
    assert answer.code == "UNSUPPORTED" and "LAZY_INTEL_LSP_CONFIG" in (answer.next_step or "")


async def _list_operations(root: Path, env: dict[str, str]) -> list[str]:
    exe = Path(sys.executable).parent / "lazy-intel"
    params = StdioServerParameters(command=str(exe), args=["serve"], cwd=str(root), env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        (tool,) = tools.tools
        return list(tool.input_schema["properties"]["operation"]["enum"])


def test_tool_lists_only_negotiated_semantic_operations(make_repo, jedi_config: Path) -> None:
    root = Path(os.path.realpath(make_repo(FILES)))
    plain = anyio.run(_list_operations, root, {**os.environ, "LAZY_INTEL_LSP_CONFIG": ""})
    assert "hover" not in plain and "definition" not in plain and "search" in plain
    with_jedi = anyio.run(_list_operations, root, {**os.environ, "LAZY_INTEL_LSP_CONFIG": str(jedi_config)})
    assert {"hover", "definition", "references", "document_symbols"} <= set(with_jedi)
    assert "type_hierarchy" not in with_jedi  # jedi does not negotiate it
    json.dumps(with_jedi)

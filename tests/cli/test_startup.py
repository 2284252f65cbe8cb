"""The CLI imports a command's module only when it runs, and light commands never load the heavy
dependencies (language-server types, the MCP SDK, NumPy, the parsers and resolver, the sync
machinery and its watcher): issue 14."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from lazy_intel.cli.main import COMMAND_MODULES, main

HEAVY = (
    "lsprotocol",
    "mcp",
    "numpy",
    "tree_sitter_python",
    "lazy_intel.graph.resolve",
    "lazy_intel.semantic",
    # the sync machinery and what only it needs: a read of a published view never syncs
    "lazy_intel.service.indexing.sync",
    "lazy_intel.service.indexing.watcher",
    "watchfiles",
    "pathspec",
    "importlib.metadata",  # the parsers' version table
    # an HTTP embedder's client, and PostgreSQL's vector code for a SQLite store
    "urllib.request",
    "lazy_intel.store.pg.vectors",
)

PROBE = """
import json, sys
from click.testing import CliRunner
from lazy_intel.cli.main import main
result = CliRunner().invoke(main, sys.argv[1:])
heavy = [m for m in {heavy!r} if m in sys.modules and type(sys.modules[m]).__name__ != "_LazyModule"]
print(json.dumps({{"exit": result.exit_code, "heavy": heavy, "output": result.output[-2000:]}}))
"""


def _loaded_after(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_command_table_names_every_command_where_it_is_defined() -> None:
    defined = {}
    for module_name in set(COMMAND_MODULES.values()):
        for command in importlib.import_module(module_name).COMMANDS:
            defined[command.name] = module_name
    assert defined == COMMAND_MODULES
    assert sorted(main.commands) == sorted(COMMAND_MODULES)


def test_version_loads_no_command_module() -> None:
    probe = _loaded_after("--version")
    assert probe["exit"] == 0 and "version" in str(probe["output"])
    assert probe["heavy"] == []
    done = subprocess.run(
        [sys.executable, "-c", "import sys, lazy_intel.cli.main; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    modules = json.loads(done.stdout.replace("'", '"'))
    assert [m for m in modules if m.startswith("lazy_intel.cli.")] == ["lazy_intel.cli.main"]


def test_a_fast_search_loads_neither_the_parsers_nor_the_language_server_types(make_repo) -> None:
    root = make_repo({"app/util.py": "def helper_marker():\n    return 1\n"})
    built = _loaded_after("index", str(root), "--json")
    assert built["exit"] == 0, built
    probe = _loaded_after("search", "helper_marker", "--root", str(root), "--freshness", "fast", "--json")
    assert probe["exit"] == 0, probe
    assert "helper_marker" in str(probe["output"])
    assert probe["heavy"] == []

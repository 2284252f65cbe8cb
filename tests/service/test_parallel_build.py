"""A full build whose graph is resolved in worker processes equals the serial build (store dumps)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.graph.helpers import dump_of
from tests.graph.test_incremental import VERSIONS

PACKAGES = 12
MODULES = 12


def _module(p: int, m: int) -> str:
    """Cross-package imports, bases in other files, returned instances, decorators, re-exports."""
    other = (p + 1) % PACKAGES
    prev = (m - 1) % MODULES
    return textwrap.dedent(
        f"""
        import functools
        from pkg{other} import Service{other}_0, make_{other}_0
        from pkg{other}.mod{prev} import helper_{other}_{prev} as aliased
        from . import mod{prev}


        def deco(fn):
            @functools.wraps(fn)
            def wrapper(*args):
                return fn(*args)
            return wrapper


        class Service{p}_{m}(Service{other}_0):
            limit = {m}

            def __init__(self):
                self.peer = make_{other}_0()

            @deco
            def run(self, value):
                self.peer.run(value)
                return aliased(value) + mod{prev}.helper_{p}_{prev}(value)


        def make_{p}_{m}():
            return Service{p}_{m}()


        def helper_{p}_{m}(value):
            service = make_{p}_{m}()
            service.run(value)
            for item in [make_{other}_0()]:
                item.run(value)
            return unknown_call(value)
        """
    )


def _tree() -> dict[str, str]:
    files: dict[str, str] = {}
    for p in range(PACKAGES):
        files[f"pkg{p}/__init__.py"] = f"from .mod0 import Service{p}_0, make_{p}_0\nfrom .mod1 import *\n"
        for m in range(MODULES):
            files[f"pkg{p}/mod{m}.py"] = _module(p, m)
        files[f"tests/test_pkg{p}.py"] = (
            f"from pkg{p}.mod0 import helper_{p}_0\n\n\ndef test_helper_{p}_0():\n    helper_{p}_0(1)\n"
        )
    for path, versions in VERSIONS.items():
        if versions[0] is not None:
            files[f"multi/{path}"] = versions[0]
    return files


def _build(root: Path, state: Path, workers: int) -> tuple[dict[str, list[tuple[object, ...]]], int]:
    ws = Workspace.open(root, settings=load_settings(env={}, parse_workers=workers), state_dir=state)
    try:
        report = ws.sync(rebuild=True)
        assert report.graph is not None
        return dump_of(ws), report.graph.resolve_workers
    finally:
        ws.close()


def test_the_parallel_graph_build_equals_the_serial_one(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, _tree())
    serial, serial_workers = _build(root, tmp_path / "serial", 1)
    parallel, parallel_workers = _build(root, tmp_path / "parallel", 2)
    assert serial_workers == 0 and parallel_workers == 2
    assert sum(1 for e in serial["edges"] if e[3] is not None) > 2000, "the fixture resolves many edges"
    for table in serial:
        assert parallel[table] == serial[table], table

"""The language tables of graph/traits.py against the runtimes they describe."""

from __future__ import annotations

import builtins
import json
import keyword
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lazy_intel.graph.builtin_names import ECMA_GLOBALS, PYTHON_BUILTINS, TYPESCRIPT_TYPE_GLOBALS

# what `node -e` adds to the global object that a module does not have: the REPL's core-module names
NODE_REPL_MODULES = frozenset(
    [
        "assert",
        "async_hooks",
        "buffer",
        "child_process",
        "cluster",
        "constants",
        "dgram",
        "diagnostics_channel",
        "dns",
        "domain",
        "events",
        "fs",
        "http",
        "http2",
        "https",
        "inspector",
        "net",
        "os",
        "path",
        "perf_hooks",
        "punycode",
        "querystring",
        "readline",
        "repl",
        "stream",
        "string_decoder",
        "sys",
        "timers",
        "tls",
        "trace_events",
        "tty",
        "url",
        "util",
        "v8",
        "vm",
        "wasi",
        "worker_threads",
        "zlib",
    ]
)


def test_every_python_builtin_name_is_a_builtin() -> None:
    """A bare call of any public name of the module `builtins` (``ConnectionResetError``, ``exit``)
    is the runtime's, not a site to guess among the project's definitions."""
    public = {n for n in dir(builtins) if not n.startswith("_") and not keyword.iskeyword(n)}
    assert public - PYTHON_BUILTINS == set()


def test_every_global_of_node_is_an_ecmascript_global() -> None:
    """The global object of the Node.js the tests run beside (ECMAScript's own globals and the host's:
    ``TypeError``, ``URL``, ``setImmediate``, ``TextEncoder``), less the REPL's module names."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH (.ci/node-install.sh)")
    out = subprocess.run(
        [node, "-e", "console.log(JSON.stringify(Object.getOwnPropertyNames(globalThis)))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    names = {n for n in json.loads(out) if not n.startswith("_") or n in ("__dirname", "__filename")}
    assert names - NODE_REPL_MODULES - ECMA_GLOBALS == set()


def test_every_typescript_global_type_is_declared_by_the_compiler_s_libraries() -> None:
    """Each global type name (``Partial``, ``RequestInit``, ``HTMLDivElement``) is an interface or type
    that TypeScript's own `lib.*.d.ts` declare, the compiler `.ci/lsp-install.sh` installs."""
    lib = Path(__file__).resolve().parents[2] / ".ci" / "node" / "node_modules" / "typescript" / "lib"
    if not lib.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{lib} missing in CI: run .ci/lsp-install.sh")
        pytest.skip("typescript is not installed (.ci/lsp-install.sh)")
    text = "\n".join(p.read_text(encoding="utf-8") for p in lib.glob("lib*.d.ts"))
    declared = set(re.findall(r"^(?:declare )?(?:interface|type) (\w+)", text, re.MULTILINE))
    assert TYPESCRIPT_TYPE_GLOBALS - declared == set()

"""The CLI beside a running ``serve`` (issue 18, class 2): real processes on one root.

``serve`` owns the writer lock and keeps the view current; a strict CLI read waits for that owner's
publication (bounded by ``LAZY_INTEL_OWNER_WAIT_MS``) and answers from it. When the owner does not
catch up in time, the CLI answers from the published view, ``partial``, naming exactly the files the
owner has not published yet — never ``WORKSPACE_OWNED`` after a half-minute stall.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, write_tree
from tests.faults import WAIT_S
from tests.mcp.raw_client import RawMcpClient, structured

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def core_v0():\n    return 0\n",
    "pkg/other.py": "def other_fn():\n    return 2\n",
    "tests/certs/valid/server.pem": "not a key\n",
}


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write_tree(root, FILES)
    # as psf/requests does: a tracked symlink to a directory
    os.symlink("..", root / "tests" / "certs" / "valid" / "ca")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def _cli(root: Path, *args: str, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    assert exe is not None
    done = subprocess.run(
        [exe, *args, "--root", str(root), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=WAIT_S * 2,
        check=False,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def _serve(root: Path, env: dict[str, str]) -> RawMcpClient:
    client = RawMcpClient(root, {"LAZY_INTEL_WRITER_IDLE_MS": "3600000", **env})
    client.initialize()
    answer = structured(client.wait(client.call({"operation": "sync"}), WAIT_S))
    assert answer["status"] == "ok", answer
    return client


def _stop(client: RawMcpClient) -> None:
    client.close_stdin()
    assert client.finish() == 0


@pytest.mark.slow
def test_strict_cli_reads_beside_serve_get_the_current_files(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    client = _serve(root, {"LAZY_INTEL_DEBOUNCE_MS": "50"})
    env = {"LAZY_INTEL_OWNER_WAIT_MS": str(int(WAIT_S * 1000))}
    try:
        code, clean = _cli(root, "symbol", "core_v0", env=env)
        assert code == 0 and clean["status"] == "ok", clean
        assert any(f"process {client.proc.pid}" in w for w in clean["warnings"]), clean
        for version in range(1, 4):
            body = f"def core_v{version}():\n    return {version}\n"
            (root / "pkg" / "core.py").write_text(body)
            code, answer = _cli(root, "symbol", f"core_v{version}", env=env)
            assert code == 0, answer
            assert answer["status"] == "ok" and answer["view"]["dirty"] is False, answer
            assert answer["items"][0]["text"] == body.rstrip("\n") or answer["items"][0]["text"] == body
            assert any(f"process {client.proc.pid}" in w for w in answer["warnings"]), answer
            code, search = _cli(root, "search", f"core_v{version}", env=env)
            assert code == 0 and search["status"] == "ok", search
            assert search["items"][0]["anchor"]["path"] == "pkg/core.py"
    finally:
        _stop(client)


@pytest.mark.slow
def test_strict_cli_beside_an_owner_that_has_not_caught_up_names_the_files(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    # no watcher and a reconciliation an hour away: the owner will not publish the edit in time
    client = _serve(root, {"LAZY_INTEL_WATCH": "false", "LAZY_INTEL_RECONCILE_MS": "3600000"})
    try:
        (root / "pkg" / "other.py").write_text("def other_fn():\n    return 3\n")
        code, answer = _cli(root, "symbol", "core_v0", env={"LAZY_INTEL_OWNER_WAIT_MS": "300"})
        assert code == 0, answer
        assert answer["status"] == "partial", answer
        assert answer["view"]["dirty"] is True
        assert answer["view"]["dirty_paths"] == ["pkg/other.py"]
        assert any(str(client.proc.pid) in w and "pkg/other.py" in w for w in answer["warnings"]), answer
        assert answer["items"][0]["anchor"]["path"] == "pkg/core.py"  # still the published answer
    finally:
        _stop(client)

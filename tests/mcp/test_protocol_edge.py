"""The protocol edge of a real ``lazy-intel serve`` (issue 18, class 8).

- A frame that is not JSON gets a JSON-RPC parse error (-32700, ``id: null``); one that is JSON but not
  a JSON-RPC message gets an invalid-request error (-32600, with its ``id`` when it has a usable one);
  the server keeps serving afterwards.
- A client that closes its pipes abruptly (stdin and the read end of stdout, mid-request) leaves the
  server exiting 0 with no traceback on stderr.
- An error answer's budget is true: ``max_chars`` is the request's budget and ``used_chars`` is the
  exact length of the text the client receives.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_tree
from tests.faults import WAIT_S
from tests.mcp.raw_client import PROTOCOL_VERSION, RawMcpClient, server_command, structured

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def core_fn():\n    return 1\n"}
INITIALIZE = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "edge", "version": "0"},
}


def _frame(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    return (
        json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n"
    ).encode()


def _server(tmp_path: Path) -> RawMcpClient:
    root = tmp_path / "proj"
    write_tree(root, FILES)
    client = RawMcpClient(root, {"LAZY_INTEL_WATCH": "false"})
    client.initialize()
    return client


def _raw(client: RawMcpClient, line: bytes) -> None:
    assert client.proc.stdin is not None
    client.proc.stdin.write(line)
    client.proc.stdin.flush()


MALFORMED = [
    (b"not json at all\n", -32700),
    (b'{"jsonrpc": "2.0", "id": 7, "method": \n', -32700),
    (b"\xff\xfe garbage bytes\n", -32700),
    (b"[1, 2, 3]\n", -32600),
    (b'{"jsonrpc": "1.0", "method": "ping"}\n', -32600),
    (b'"just a string"\n', -32600),
]


@pytest.mark.slow
def test_malformed_frames_get_a_jsonrpc_error_and_the_server_goes_on(tmp_path: Path) -> None:
    client = _server(tmp_path)
    try:
        for line, _code in MALFORMED:
            _raw(client, line)
        # one with a usable id: the error names it
        _raw(client, b'{"jsonrpc": "2.0", "id": 41, "params": {}}\n')
        replies = client.wait_unnumbered(len(MALFORMED), WAIT_S)
        assert [r["error"]["code"] for r in replies] == [code for _line, code in MALFORMED], replies
        for reply in replies:
            assert reply["jsonrpc"] == "2.0" and reply["id"] is None and reply["error"]["message"]
        named = client.wait(41, WAIT_S)
        assert named["error"]["code"] == -32600, named
        # still serving
        answer = structured(client.wait(client.call({"operation": "status", "freshness": "fast"}), WAIT_S))
        assert answer["operation"] == "status"
    finally:
        client.close_stdin()
        assert client.finish() == 0
    assert "Traceback" not in "".join(client.stderr_text)


@pytest.mark.slow
@pytest.mark.parametrize("mid_request", [False, True])
def test_a_client_closing_its_pipes_abruptly_leaves_a_clean_exit(tmp_path: Path, mid_request: bool) -> None:
    """No reader threads here: the test itself closes the read end of the server's stdout."""
    root = tmp_path / "proj"
    write_tree(root, FILES)
    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as stderr:
        proc = subprocess.Popen(
            server_command(),
            cwd=root,
            env={**os.environ, "LAZY_INTEL_WATCH": "false"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(_frame(1, "initialize", INITIALIZE))
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["id"] == 1
            proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            if mid_request:  # its answer will find nobody to read it
                proc.stdin.write(
                    _frame(2, "tools/call", {"name": "code_intel", "arguments": {"operation": "sync"}})
                )
            proc.stdin.flush()
            proc.stdout.close()  # the read end of the server's stdout: its next write fails (EPIPE)
            proc.stdin.close()
            code = proc.wait(WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(WAIT_S)
    text = errors.read_text(errors="replace")
    assert code == 0, text[-3000:]
    assert "Traceback" not in text and "Error" not in text, text[-3000:]


@pytest.mark.slow
def test_error_answers_report_a_true_budget(tmp_path: Path) -> None:
    client = _server(tmp_path)
    try:
        cases = [
            (
                {"operation": "symbol", "symbol": "no_such_symbol", "maxChars": 600, "freshness": "strict"},
                600,
            ),
            ({"operation": "search", "query": "x", "limit": 0, "maxChars": 900}, 900),
            ({"operation": "nope" * 30, "maxChars": 500}, 500),
            ({"operation": "search", "query": "x", "maxChars": 10**9}, 20_000),  # invalid budget: the default
            ({"operation": "search", "query": "x", "unknown": "y" * 5000, "maxChars": 500}, 500),
        ]
        for args, budget in cases:
            response = client.wait(client.call(args), WAIT_S)
            text = response["result"]["content"][0]["text"]
            answer = json.loads(text)
            assert answer["status"] == "error", answer
            assert answer["budget"]["max_chars"] == budget, answer
            assert answer["budget"]["used_chars"] == len(text) <= budget, (len(text), answer)
            assert structured(response) == answer
    finally:
        client.close_stdin()
        assert client.finish() == 0

"""A minimal line-delimited JSON-RPC client for ``lazy-intel serve``, for process-level fault tests.

The SDK's stdio client kills the server's whole process tree when it closes, which would hide the
very orphans these tests look for; this client only closes stdin and lets the server exit alone.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

PROTOCOL_VERSION = "2025-06-18"


def server_command() -> list[str]:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent))
    assert exe is not None, "the lazy-intel console script is installed next to this Python"
    return [exe, "serve"]


class RawMcpClient:
    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.proc = psutil.Popen(
            server_command(),
            cwd=cwd,
            env={**os.environ, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._next_id = 0
        self._responses: dict[int, dict[str, Any]] = {}
        self.unnumbered: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        self.stderr_lines: queue.Queue[str] = queue.Queue()
        self.stderr_text: list[str] = []
        self._readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except json.JSONDecodeError:
                continue
            if isinstance(message, dict) and "id" in message and ("result" in message or "error" in message):
                with self._arrived:
                    if isinstance(message["id"], int):
                        self._responses[message["id"]] = message
                    else:  # an error about a frame whose id could not be read
                        self.unnumbered.append(message)
                    self._arrived.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.stderr_text.append(line)
            self.stderr_lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> int:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def call(self, arguments: dict[str, Any]) -> int:
        return self.request("tools/call", {"name": "code_intel", "arguments": arguments})

    def cancel(self, request_id: int) -> None:
        self.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}
        )

    def wait(self, request_id: int, timeout_s: float) -> dict[str, Any]:
        end = time.monotonic() + timeout_s
        with self._arrived:
            while request_id not in self._responses:
                left = end - time.monotonic()
                assert left > 0, f"no response to request {request_id} within {timeout_s}s"
                self._arrived.wait(left)
            return self._responses[request_id]

    def wait_unnumbered(self, count: int, timeout_s: float) -> list[dict[str, Any]]:
        """The first ``count`` replies whose ``id`` is null (errors about unreadable frames)."""
        end = time.monotonic() + timeout_s
        with self._arrived:
            while len(self.unnumbered) < count:
                left = end - time.monotonic()
                assert left > 0, f"only {len(self.unnumbered)} of {count} id-less replies: {self.unnumbered}"
                self._arrived.wait(left)
            return list(self.unnumbered[:count])

    def answered(self) -> dict[int, dict[str, Any]]:
        with self._arrived:
            return dict(self._responses)

    def wait_for_count(self, count: int, timeout_s: float) -> dict[int, dict[str, Any]]:
        end = time.monotonic() + timeout_s
        with self._arrived:
            while len(self._responses) < count:
                left = end - time.monotonic()
                assert left > 0, f"only {len(self._responses)} of {count} responses within {timeout_s}s"
                self._arrived.wait(left)
            return dict(self._responses)

    def wait_stderr(self, marker: str, timeout_s: float) -> str:
        end = time.monotonic() + timeout_s
        while True:
            left = end - time.monotonic()
            assert left > 0, (
                f"{marker!r} not on stderr within {timeout_s}s: {''.join(self.stderr_text)[-2000:]}"
            )
            try:
                line = self.stderr_lines.get(timeout=left)
            except queue.Empty:
                continue
            if marker in line:
                return line

    def initialize(self) -> None:
        rid = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "fault-test", "version": "0"},
            },
        )
        response = self.wait(rid, 60)
        assert "result" in response, response
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def finish(self, timeout_s: float = 30) -> int:
        """Wait for the server to exit on its own; close the pipes. Returns its exit status."""
        code = self.proc.wait(timeout_s)
        for reader in self._readers:
            reader.join(timeout_s)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        return code


def structured(response: dict[str, Any]) -> dict[str, Any]:
    """The Answer inside a tools/call response."""
    result = response["result"]
    if result.get("structuredContent"):
        return result["structuredContent"]
    return json.loads(result["content"][0]["text"])

"""JSON-RPC 2.0 over LSP base-protocol framing, with hard size limits.

A frame is ``Content-Length: N\\r\\n`` (other headers allowed, ignored) ``\\r\\n`` then ``N`` bytes of
UTF-8 JSON. Everything a server sends is bounded: header lines, header count and body size. A body
that is not valid UTF-8 is decoded with replacement characters and flagged ``lossy`` (the JSON may
still be usable; the caller reports the damage); a body that is not JSON, or JSON that is not a
JSON-RPC message, is a :class:`ProtocolError` and ends the session, because after it nothing the
stream says can be trusted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, BinaryIO

MAX_HEADER_LINE = 8 * 1024
MAX_HEADER_LINES = 16
DEFAULT_MAX_BODY = 32 * 1024 * 1024


class ProtocolError(Exception):
    """The peer broke the framing or JSON-RPC rules; the stream cannot continue."""


class StreamClosed(Exception):
    """The peer closed its output (normally: the process exited)."""


@dataclass(frozen=True)
class Message:
    """One decoded JSON-RPC message; ``lossy`` when its bytes were not valid UTF-8."""

    body: dict[str, Any]
    lossy: bool = False

    @property
    def is_response(self) -> bool:
        return "method" not in self.body and ("result" in self.body or "error" in self.body)

    @property
    def is_request(self) -> bool:
        return "method" in self.body and "id" in self.body

    @property
    def is_notification(self) -> bool:
        return "method" in self.body and "id" not in self.body


def encode(message: dict[str, Any]) -> bytes:
    """Frame one message."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body


def request(request_id: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def notification(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def response(request_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> dict[str, Any]:
    if error is not None:
        return {"jsonrpc": "2.0", "id": request_id, "error": error}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _read_header_line(stream: BinaryIO) -> bytes:
    line = stream.readline(MAX_HEADER_LINE + 1)
    if not line:
        raise StreamClosed("the server closed its output")
    if len(line) > MAX_HEADER_LINE or not line.endswith(b"\n"):
        raise ProtocolError(f"header line longer than {MAX_HEADER_LINE} bytes or cut off")
    return line.rstrip(b"\r\n")


def read_frame(stream: BinaryIO, *, max_body: int = DEFAULT_MAX_BODY) -> bytes:
    """Read one framed body; raises :class:`StreamClosed` at a clean end of stream."""
    length: int | None = None
    for count in range(MAX_HEADER_LINES + 1):
        if count == MAX_HEADER_LINES:
            raise ProtocolError(f"more than {MAX_HEADER_LINES} header lines")
        line = _read_header_line(stream)
        if not line:
            if count == 0:
                continue  # tolerate a stray blank line between frames
            break
        name, sep, value = line.partition(b":")
        if not sep:
            raise ProtocolError(f"malformed header line {line[:80]!r}")
        if name.strip().lower() == b"content-length":
            text = value.strip()
            if not text.isdigit() or len(text) > 12:
                raise ProtocolError(f"invalid Content-Length {text[:20]!r}")
            length = int(text)
    if length is None:
        raise ProtocolError("frame without Content-Length")
    if length > max_body:
        raise ProtocolError(f"frame of {length} bytes exceeds the {max_body}-byte limit")
    body = stream.read(length)
    if len(body) < length:
        raise StreamClosed("the server closed its output in the middle of a frame")
    return body


def decode(body: bytes) -> Message:
    """Parse a frame body into a JSON-RPC message, validating its shape."""
    lossy = False
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = body.decode("utf-8", errors="replace")
        lossy = True
    try:
        parsed = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError(f"frame body is not JSON ({exc.__class__.__name__})") from None
    if not isinstance(parsed, dict):
        raise ProtocolError("frame body is not a JSON-RPC object")
    if parsed.get("jsonrpc") != "2.0":
        raise ProtocolError("message lacks jsonrpc: 2.0")
    method = parsed.get("method")
    if method is not None and not isinstance(method, str):
        raise ProtocolError("message method is not a string")
    if "id" in parsed and not isinstance(parsed["id"], (int, str, type(None))):
        raise ProtocolError("message id is neither a number nor a string")
    if method is None and "result" not in parsed and "error" not in parsed:
        raise ProtocolError("message is neither a request, a notification nor a response")
    if "error" in parsed and not isinstance(parsed["error"], dict):
        raise ProtocolError("response error is not an object")
    return Message(parsed, lossy)

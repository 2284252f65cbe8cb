"""The stdio protocol edge: frames that are not JSON-RPC, and a client that vanishes.

The SDK's stdio transport hands a frame it cannot read to the session as an exception, and the
session drops it: the client waits for an answer that never comes. :class:`AnswerUnreadableFrames`
sits between the transport and the server and answers such a frame itself, as JSON-RPC 2.0 says:
``-32700`` (parse error) for text that is not JSON, ``-32600`` (invalid request) for JSON that is not
a JSON-RPC message, with the frame's ``id`` when it has a usable one, else ``id: null``.

A client that closes its pipes while the server still has something to write makes the transport
fail with ``EPIPE``; :func:`client_gone` recognises that, so ``serve`` shuts down as it does when
stdin closes (exit 0, no traceback).
"""

from __future__ import annotations

import errno
import logging
from types import TracebackType
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def frame_error(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a frame the transport could not turn into a message."""
    errors: list[dict[str, Any]] = []
    errors_of = getattr(exc, "errors", None)
    if callable(errors_of):
        try:
            errors = list(errors_of())
        except Exception:  # not a pydantic error after all
            errors = []
    if not errors or any(e.get("type") == "json_invalid" for e in errors):
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=None,
            error=types.ErrorData(code=PARSE_ERROR, message="Parse error: the frame is not valid JSON"),
        )
    request_id: str | int | None = None
    for error in errors:
        value = error.get("input")
        if isinstance(value, dict) and "id" in value:
            candidate = value["id"]
            if isinstance(candidate, str | int) and not isinstance(candidate, bool):
                request_id = candidate
                break
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=types.ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: the frame is JSON but not a JSON-RPC 2.0 request, notification or response",
        ),
    )


class AnswerUnreadableFrames:
    """A read stream (the SDK's ``ReadStream`` protocol) that passes messages on and answers
    unreadable frames on ``write_stream`` instead of handing them to the session."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner = inner
        self._write = write_stream
        self.answered = 0

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            self.answered += 1
            logger.info("answered an unreadable frame: %s", type(item).__name__)
            await self._write.send(SessionMessage(frame_error(item)))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> AnswerUnreadableFrames:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnswerUnreadableFrames:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


def client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` (or every exception in a group) says the client's pipes are closed."""
    if isinstance(exc, BaseExceptionGroup):
        return bool(exc.exceptions) and all(client_gone(inner) for inner in exc.exceptions)
    if isinstance(exc, BrokenPipeError | ConnectionResetError):
        return True
    return isinstance(exc, OSError) and exc.errno in (errno.EPIPE, errno.ECONNRESET)

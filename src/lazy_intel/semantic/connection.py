"""One JSON-RPC connection to one server process: requests with timeouts, cancellation, fencing.

A reader thread owns the process's stdout. Responses complete the waiting request; server-to-
client requests go to a handler; notifications go to a callback. A broken stream (exit, invalid
JSON-RPC, oversize frame) fails every waiting request at once with ``UNAVAILABLE`` and reports the
death to the owner. Request ids are never reused within a connection and a connection never
outlives its process, so a late answer from an earlier process cannot complete a new request.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import InvalidArgument, LazyIntelError, Timeout, Unavailable, Unsupported
from lazy_intel.semantic import jsonrpc
from lazy_intel.semantic.process import ServerProcess
from lazy_intel.semantic.scrub import scrub_text

log = logging.getLogger(__name__)

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
REQUEST_CANCELLED = -32800


@dataclass
class _Pending:
    method: str
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: LazyIntelError | None = None
    lossy: bool = False


@dataclass(frozen=True)
class Reply:
    """A server's result and whether any of its bytes were not valid UTF-8."""

    result: Any
    lossy: bool = False


RequestHandler = Callable[[str, Any], Any]
NotificationHandler = Callable[[str, Any, bool], None]
DeathHandler = Callable[["Connection", str], None]


class Connection:
    def __init__(
        self,
        process: ServerProcess,
        *,
        label: str,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        on_death: DeathHandler,
        max_frame_bytes: int = jsonrpc.DEFAULT_MAX_BODY,
    ) -> None:
        self.process = process
        self.label = label
        self._on_request = on_request
        self._on_notification = on_notification
        self._on_death = on_death
        self._max_frame = max_frame_bytes
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self.dead_reason: str | None = None
        self.closing = False
        self._reader = threading.Thread(target=self._read_loop, name=f"lsp-reader-{label}", daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        return self.dead_reason is None

    # -- writing -------------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        data = jsonrpc.encode(message)
        with self._write_lock:
            if self.dead_reason is not None:
                raise Unavailable(f"language server {self.label} is not running ({self.dead_reason})")
            try:
                self.process.write(data)
            except (OSError, ValueError) as exc:
                reason = f"its input pipe closed ({exc.__class__.__name__})"
                self._die(reason)
                raise Unavailable(f"language server {self.label} stopped: {reason}") from None

    def notify(self, method: str, params: Any) -> None:
        self._send(jsonrpc.notification(method, params))

    def request(self, method: str, params: Any, *, timeout_ms: int) -> Reply:
        """Send a request and wait; on timeout send ``$/cancelRequest`` and raise ``TIMEOUT``."""
        request_id = next(self._ids)
        pending = _Pending(method)
        with self._lock:
            if self.dead_reason is not None:
                raise Unavailable(f"language server {self.label} is not running ({self.dead_reason})")
            self._pending[request_id] = pending
        try:
            self._send(jsonrpc.request(request_id, method, params))
        except LazyIntelError:
            with self._lock:
                self._pending.pop(request_id, None)
            raise
        if not pending.done.wait(timeout_ms / 1000):
            with self._lock:
                self._pending.pop(request_id, None)
            with contextlib.suppress(LazyIntelError):
                self.notify("$/cancelRequest", {"id": request_id})
            raise Timeout(
                f"language server {self.label} did not answer {method} within {timeout_ms} ms; "
                "the request was cancelled",
                next_step="retry, or raise request_timeout_ms in the server's configuration",
            )
        if pending.error is not None:
            raise pending.error
        return Reply(pending.result, pending.lossy)

    # -- reading -------------------------------------------------------------------------------
    def _read_loop(self) -> None:
        stream = self.process.proc.stdout
        assert stream is not None
        reason = "it exited"
        try:
            while True:
                body = jsonrpc.read_frame(stream, max_body=self._max_frame)
                self._dispatch(jsonrpc.decode(body))
        except jsonrpc.StreamClosed:
            code = self.process.exit_code()
            if code is None and self.process.wait_exit(1.0):
                code = self.process.exit_code()
            reason = f"it exited with status {code}" if code is not None else "it closed its output"
        except jsonrpc.ProtocolError as exc:
            reason = f"it broke the protocol: {exc}"
        except (OSError, ValueError) as exc:
            reason = f"its output could not be read ({exc.__class__.__name__})"
        try:
            self._die(reason)
        finally:
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def _dispatch(self, message: jsonrpc.Message) -> None:
        body = message.body
        if message.is_response:
            with self._lock:
                pending = self._pending.pop(body.get("id"), None) if isinstance(body.get("id"), int) else None
            if pending is None:
                log.debug("%s: response to unknown or cancelled id %r ignored", self.label, body.get("id"))
                return
            pending.lossy = message.lossy
            if "error" in body:
                pending.error = self._error_for(pending.method, body["error"])
            else:
                pending.result = body.get("result")
            pending.done.set()
            return
        method = body["method"]
        params = body.get("params")
        if message.is_request:
            try:
                result = self._on_request(method, params)
                reply = jsonrpc.response(body["id"], result)
            except LookupError:
                reply = jsonrpc.response(
                    body["id"], error={"code": METHOD_NOT_FOUND, "message": f"{method} is not offered"}
                )
            with contextlib.suppress(LazyIntelError):
                self._send(reply)
            return
        try:
            self._on_notification(method, params, message.lossy)
        except Exception:  # a malformed notification must not kill the reader
            log.debug("%s: notification %s could not be handled", self.label, method, exc_info=True)

    def _error_for(self, method: str, error: dict[str, Any]) -> LazyIntelError:
        code = error.get("code")
        text = scrub_text(str(error.get("message", "")), limit=300)
        if code == METHOD_NOT_FOUND:
            return Unsupported(f"language server {self.label} does not implement {method}")
        if code == INVALID_PARAMS:
            return InvalidArgument(f"language server {self.label} rejected the {method} parameters: {text}")
        if code == REQUEST_CANCELLED:
            return Timeout(f"language server {self.label} cancelled {method}")
        return Unavailable(f"language server {self.label} answered {method} with error {code}: {text}")

    # -- death -----------------------------------------------------------------------------------
    def _die(self, reason: str) -> None:
        """End the connection: kill the process group, tell the owner, then wake every waiter."""
        with self._lock:
            if self.dead_reason is not None:
                return
            self.dead_reason = reason
        log.info("language server %s stopped: %s", self.label, reason)
        self.process.kill_group()
        self._on_death(self, reason)
        with self._lock:
            waiting = list(self._pending.values())
            self._pending.clear()
        for pending in waiting:
            pending.error = Unavailable(
                f"language server {self.label} stopped during {pending.method}: {reason}",
                next_step="retry: the server is restarted on the next request",
            )
            pending.done.set()

    def close(self, *, graceful_ms: int = 2000) -> None:
        """``shutdown`` → ``exit`` → kill of the whole process group (``closing`` marks it wanted)."""
        self.closing = True
        if self.dead_reason is None:
            with contextlib.suppress(LazyIntelError):
                self.request("shutdown", None, timeout_ms=graceful_ms)
            with contextlib.suppress(LazyIntelError):
                self.notify("exit", None)
            self.process.wait_exit(graceful_ms / 1000)
        self._die("closed")
        self.process.kill_group()
        if threading.current_thread() is not self._reader:
            self._reader.join(timeout=5)

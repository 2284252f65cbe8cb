"""One session per (workspace, server): lifecycle, initialize, documents and diagnostics.

Started on first use: the executable's hash is re-verified, the process launched (see
:mod:`~lazy_intel.semantic.process`), ``initialize`` offers UTF-8 and UTF-16 positions, and the
server's answer fixes the negotiated capabilities of this *epoch*. A crash or protocol break ends
the epoch; the next request starts a new one (at most :data:`MAX_CRASHES` within
:data:`CRASH_WINDOW_S`, then the server stays unavailable for a cool-down). Documents are opened
with the captured bytes and a version before any position request, and changed (``didChange`` +
``didChangeWatchedFiles``) when their bytes move.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lazy_intel.errors import LazyIntelError, Unavailable
from lazy_intel.semantic import capabilities as caps
from lazy_intel.semantic.codec import TextCodec
from lazy_intel.semantic.config import ServerConfig
from lazy_intel.semantic.connection import Connection, Reply
from lazy_intel.semantic.executable import check_executable, is_inside
from lazy_intel.semantic.process import ServerProcess
from lazy_intel.semantic.uris import path_to_uri, relative_to_uri
from lazy_intel.workspace.capture import sha256_bytes

log = logging.getLogger(__name__)

MAX_CRASHES = 3
CRASH_WINDOW_S = 60.0
MAX_OPEN_DOCUMENTS = 200
MAX_DIAGNOSTICS_KEPT = 1000
MAX_TIMEOUTS_IN_A_ROW = 3
DIAGNOSTICS_SETTLE_S = 0.25


@dataclass(frozen=True)
class OpenDocument:
    relative_path: str
    uri: str
    version: int
    sha256: str
    codec: TextCodec
    sync_seq: int
    synced_at: float  # time.monotonic() when the server was sent this text


@dataclass(frozen=True)
class Published:
    """One ``publishDiagnostics``: for which version (if the server said) and when (sync sequence)."""

    version: int | None
    diagnostics: tuple[Any, ...]
    seen_after_sync: int
    lossy: bool


@dataclass(frozen=True)
class Negotiated:
    epoch: int
    capabilities: dict[str, Any]
    encoding: str
    operations: tuple[str, ...]
    fingerprint: str
    server_name: str | None
    server_version: str | None


class ServerSession:
    def __init__(self, server: ServerConfig, root: Path) -> None:
        self.server = server
        self.root = root
        self.epoch = 0
        self.negotiated: Negotiated | None = None
        self.last_error: str | None = None
        self.last_used = time.monotonic()
        self._conn: Connection | None = None
        self._crashes: deque[float] = deque(maxlen=MAX_CRASHES)
        self._timeouts_in_a_row = 0
        self._inflight = 0
        self._inflight_lock = threading.Lock()
        self._lock = threading.RLock()
        self._docs: OrderedDict[str, OpenDocument] = OrderedDict()
        self._published: dict[str, Published] = {}
        self._registered: set[str] = set()
        self._sync_seq = 0
        self._changed = threading.Condition()
        self._settled_epoch = -1  # the epoch whose workspace a blocking request has settled

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._conn is not None and self._conn.alive

    @property
    def label(self) -> str:
        return self.server.id

    def health(self) -> str:
        if self.running:
            return "ready"
        if self._cooling_down():
            return "failing"
        return "failed" if self.last_error else "stopped"

    def _cooling_down(self) -> bool:
        return len(self._crashes) == MAX_CRASHES and time.monotonic() - self._crashes[0] < CRASH_WINDOW_S

    def ensure_started(self) -> Negotiated:
        """Start (or restart after a crash) and return this epoch's negotiation."""
        with self._lock:
            self.last_used = time.monotonic()
            if self.running and self.negotiated is not None:
                return self.negotiated
            if self._cooling_down():
                raise Unavailable(
                    f"language server {self.label} crashed {MAX_CRASHES} times within {CRASH_WINDOW_S:.0f} s "
                    f"(last: {self.last_error}); it is not restarted for now",
                    next_step="check the server with `lazy-intel lsp qualify`, then retry later",
                )
            # a start counts as a request in flight, and the idle clock starts when the server is
            # ready: a start slower than idle_ms must not let the reaper stop the new session
            with self._inflight_lock:
                self._inflight += 1
            try:
                return self._start()
            finally:
                with self._inflight_lock:
                    self._inflight -= 1
                self.last_used = time.monotonic()

    def _start(self) -> Negotiated:
        for what, raw in [
            ("executable", self.server.executable),
            *(("argument", a) for a in self.server.arguments),
        ]:
            if raw.startswith("/") and is_inside(Path(os.path.normpath(raw)), self.root):
                raise Unavailable(
                    f"language server {self.label}: {what} {raw} lies inside the workspace {self.root}; "
                    "a repository never supplies its own server",
                    next_step="install the server outside the workspace and update the configuration",
                )
        try:
            check_executable(
                self.server.executable, self.server.executable_sha256, what=f"{self.label} executable"
            )
        except LazyIntelError as exc:
            self.last_error = exc.message
            raise Unavailable(
                f"refused to launch language server {self.label}: {exc.message}", next_step=exc.next_step
            ) from None
        self.epoch += 1
        self._docs.clear()
        self._published.clear()
        self._registered.clear()
        self._timeouts_in_a_row = 0
        try:
            process = ServerProcess([self.server.executable, *self.server.arguments], self.root)
        except OSError as exc:
            self.last_error = f"could not be launched: {exc.strerror or exc}"
            self._crashes.append(time.monotonic())
            raise Unavailable(f"language server {self.label} {self.last_error}") from None
        conn = Connection(
            process,
            label=self.label,
            on_request=self._on_server_request,
            on_notification=self._on_notification,
            on_death=self._on_death,
        )
        self._conn = conn
        root_uri = path_to_uri(self.root)
        params = caps.initialize_params(
            root_uri, self.root.name, self.server.initialization_options, os.getpid()
        )
        try:
            reply = conn.request("initialize", params, timeout_ms=self.server.request_timeout_ms)
            result = reply.result
            if not isinstance(result, dict) or not isinstance(result.get("capabilities"), dict):
                raise Unavailable(f"language server {self.label} answered initialize without capabilities")
            capabilities = result["capabilities"]
            encoding = caps.negotiated_encoding(capabilities)
            if encoding is None:
                raise Unavailable(
                    f"language server {self.label} chose position encoding "
                    f"{capabilities.get('positionEncoding')!r}, which was not offered"
                )
            conn.notify("initialized", {})
            if self.server.initialization_options is not None:
                conn.notify(
                    "workspace/didChangeConfiguration", {"settings": self.server.initialization_options}
                )
        except LazyIntelError as exc:
            self.last_error = exc.message
            conn.close(graceful_ms=200)
            self._conn = None
            raise Unavailable(
                f"language server {self.label} failed to initialize: {exc.message}",
                next_step="run `lazy-intel lsp qualify` to check the server",
            ) from None
        info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {}
        operations = caps.negotiated_operations(capabilities)
        self.negotiated = Negotiated(
            epoch=self.epoch,
            capabilities=capabilities,
            encoding=encoding,
            operations=operations,
            fingerprint=caps.capability_fingerprint(capabilities, encoding, operations),
            server_name=str(info.get("name"))[:128] if info.get("name") else None,
            server_version=str(info.get("version"))[:64] if info.get("version") else None,
        )
        self.last_error = None
        log.info("language server %s ready (epoch %d, %s)", self.label, self.epoch, encoding)
        return self.negotiated

    def _on_death(self, conn: Connection, reason: str) -> None:
        if conn.closing:
            return
        with self._changed:
            self.last_error = reason
            self._crashes.append(time.monotonic())
            self._changed.notify_all()

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
            self._docs.clear()
        if conn is not None:
            conn.close()

    def operations(self) -> tuple[str, ...]:
        """Operations negotiated now (plus those a server registered dynamically this epoch)."""
        if self.negotiated is None:
            return ()
        if not self._registered:
            return self.negotiated.operations
        return caps.negotiated_operations(self.negotiated.capabilities, frozenset(self._registered))

    # -- requests -------------------------------------------------------------------------------
    def settle_workspace(self, uri: str, position: tuple[int, int]) -> None:
        """Before this epoch's first request that answers from files other than the one asked about:
        one ``textDocument/hover`` there, its answer ignored.

        A server may list the workspace lazily: basedpyright enumerates its source files only after
        the first request, and answered a first ``references`` with the declaration alone — and we
        would have called that answer ``current``. Its hover waits for the enumeration (about a second
        on a fresh start), after which references are complete, so a hover is the barrier: every
        server answers it, and it costs one request per server start. A hover that times out or errs
        does not fail the request behind it (the next cross-file request tries again); a server that
        dies on it fails the request, as any crash mid-request does."""
        if self._settled_epoch == self.epoch or self.negotiated is None:
            return
        epoch = self.epoch
        if "hover" in self.operations():
            params = {
                "textDocument": {"uri": uri},
                "position": {"line": position[0], "character": position[1]},
            }
            try:
                self.request("textDocument/hover", params)
            except LazyIntelError as exc:
                if not self.running or self.epoch != epoch:
                    raise  # the server died: the request fails as any request a crash interrupts
                log.info("language server %s: the workspace barrier (hover) failed: %s", self.label, exc)
                return
        self._settled_epoch = epoch

    def request(self, method: str, params: Any, *, timeout_ms: int | None = None) -> Reply:
        negotiated = self.ensure_started()
        conn = self._conn
        if conn is None or negotiated.epoch != self.epoch:
            raise Unavailable(f"language server {self.label} restarted during {method}")
        self.last_used = time.monotonic()
        with self._inflight_lock:
            self._inflight += 1
        try:
            reply = conn.request(method, params, timeout_ms=timeout_ms or self.server.request_timeout_ms)
        except LazyIntelError as exc:
            if exc.code == "TIMEOUT":
                self._timeouts_in_a_row += 1
                if self._timeouts_in_a_row >= MAX_TIMEOUTS_IN_A_ROW:
                    log.warning(
                        "language server %s timed out %d times in a row; restarting",
                        self.label,
                        self._timeouts_in_a_row,
                    )
                    self._crashes.append(time.monotonic())
                    self.last_error = f"{self._timeouts_in_a_row} requests in a row timed out"
                    self.close()
            raise
        finally:
            with self._inflight_lock:
                self._inflight -= 1
            self.last_used = time.monotonic()
        self._timeouts_in_a_row = 0
        return reply

    @contextlib.contextmanager
    def in_use(self) -> Iterator[None]:
        """Keep the idle reaper off this session for a whole operation (start, documents, requests),
        not only while a request is in flight: between them the operation runs git and reads files."""
        with self._inflight_lock:
            self._inflight += 1
        try:
            yield
        finally:
            with self._inflight_lock:
                self._inflight -= 1
                self.last_used = time.monotonic()

    def close_if_idle(self, idle_s: float) -> bool:
        """Stop the server when nothing is in flight and it was last used over ``idle_s`` ago.

        The check and the stop happen under the in-flight lock, so an operation that begins
        meanwhile waits for the stop and then starts a new epoch instead of racing it."""
        with self._inflight_lock:
            if not self.running or self._inflight or time.monotonic() - self.last_used <= idle_s:
                return False
            self.close()
            return True

    def idle_for(self) -> float:
        """Seconds since the last request ended; 0 while a request is in flight."""
        return 0.0 if self._inflight else time.monotonic() - self.last_used

    def _on_server_request(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            items = params.get("items", []) if isinstance(params, dict) else []
            return [self._configuration_section(item) for item in items[:64]]
        if method == "client/registerCapability":
            for reg in (params or {}).get("registrations", [])[:64]:
                if isinstance(reg, dict) and isinstance(reg.get("method"), str):
                    self._registered.add(reg["method"])
            return None
        if method in (
            "client/unregisterCapability",
            "window/workDoneProgress/create",
            "window/showMessageRequest",
        ):
            return None
        if method == "workspace/workspaceFolders":
            return [{"uri": path_to_uri(self.root), "name": self.root.name}]
        if method == "workspace/applyEdit":
            return {"applied": False, "failureReason": "lazy-intel is read-only"}
        raise LookupError(method)

    def _configuration_section(self, item: Any) -> Any:
        options = self.server.initialization_options
        section = item.get("section") if isinstance(item, dict) else None
        if not isinstance(options, dict):
            return None
        if not section:
            return options
        node: Any = options
        for part in str(section).split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def _on_notification(self, method: str, params: Any, lossy: bool) -> None:
        if method != "textDocument/publishDiagnostics" or not isinstance(params, dict):
            return
        uri = params.get("uri")
        diagnostics = params.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(diagnostics, list):
            return
        version = params.get("version") if isinstance(params.get("version"), int) else None
        with self._changed:
            self._published[uri] = Published(
                version, tuple(diagnostics[:MAX_DIAGNOSTICS_KEPT]), self._sync_seq, lossy
            )
            self._changed.notify_all()

    # -- documents ------------------------------------------------------------------------------
    def sync_document(self, relative_path: str, data: bytes, language_id: str) -> OpenDocument:
        """Make the server see exactly ``data`` for ``relative_path``; returns its open state."""
        negotiated = self.ensure_started()
        codec = TextCodec(data)  # raises UnicodeDecodeError for non-UTF-8 bytes
        digest = sha256_bytes(data)
        conn = self._conn
        assert conn is not None
        with self._lock:
            current = self._docs.get(relative_path)
            if current is not None and current.sha256 == digest:
                self._docs.move_to_end(relative_path)
                return current
            uri = relative_to_uri(self.root, relative_path)
            text = data.decode("utf-8")
            with self._changed:
                self._sync_seq += 1
                seq = self._sync_seq
                self._published.pop(uri, None)
            if current is None:
                version = 1
                conn.notify(
                    "textDocument/didOpen",
                    {"textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}},
                )
            else:
                version = current.version + 1
                if caps.text_sync_kind(negotiated.capabilities) == 0:
                    conn.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
                    conn.notify(
                        "textDocument/didOpen",
                        {
                            "textDocument": {
                                "uri": uri,
                                "languageId": language_id,
                                "version": version,
                                "text": text,
                            }
                        },
                    )
                else:
                    conn.notify(
                        "textDocument/didChange",
                        {
                            "textDocument": {"uri": uri, "version": version},
                            "contentChanges": [{"text": text}],
                        },
                    )
                self._notify_watched([(uri, 2)])
            document = OpenDocument(relative_path, uri, version, digest, codec, seq, time.monotonic())
            self._docs[relative_path] = document
            self._docs.move_to_end(relative_path)
            while len(self._docs) > MAX_OPEN_DOCUMENTS:
                _, oldest = self._docs.popitem(last=False)
                conn.notify("textDocument/didClose", {"textDocument": {"uri": oldest.uri}})
            return document

    def open_document(self, relative_path: str) -> OpenDocument | None:
        return self._docs.get(relative_path)

    def files_changed(self, changes: list[tuple[str, int]]) -> None:
        """Tell a running server about files changed on disk (1 created, 2 changed, 3 deleted)."""
        if not self.running:
            return
        self._notify_watched([(relative_to_uri(self.root, rel), kind) for rel, kind in changes[:1000]])

    def _notify_watched(self, events: list[tuple[str, int]]) -> None:
        if "workspace/didChangeWatchedFiles" not in self._registered or self._conn is None:
            return
        self._conn.notify(
            "workspace/didChangeWatchedFiles",
            {"changes": [{"uri": uri, "type": kind} for uri, kind in events]},
        )

    def wait_for_published(self, document: OpenDocument, wait_ms: int) -> Published | None:
        """Wait (bounded) for diagnostics published for ``document``'s version; ``None`` on silence."""
        deadline = time.monotonic() + wait_ms / 1000
        found: Published | None = None
        with self._changed:
            while True:
                current = self._published.get(document.uri)
                if current is not None and self._matches(current, document):
                    if current is not found:
                        found = current
                        settle_until = min(deadline, time.monotonic() + DIAGNOSTICS_SETTLE_S)
                    if time.monotonic() >= settle_until:
                        return found
                    self._changed.wait(max(0.0, settle_until - time.monotonic()))
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self.running:
                    return found
                self._changed.wait(remaining)

    @staticmethod
    def _matches(published: Published, document: OpenDocument) -> bool:
        if published.version is not None:
            return published.version == document.version
        return published.seen_after_sync >= document.sync_seq

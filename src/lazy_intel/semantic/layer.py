"""The semantic layer of one process: the configuration plus a session per (workspace, server).

Sessions start on first use and stop after ``idle_ms`` without a request (a background thread
checks). :meth:`SemanticLayer.available_operations` is what the MCP tool description lists: only
operations a configured server actually negotiated.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import Any

from lazy_intel.errors import LazyIntelError
from lazy_intel.semantic.config import LspConfig, ServerConfig, load_lsp_config
from lazy_intel.semantic.session import ServerSession
from lazy_intel.settings import Settings, load_settings

log = logging.getLogger(__name__)

DEFAULT_IDLE_MS = 300_000
DEFAULT_DIAGNOSTICS_WAIT_MS = 5_000
DEFAULT_MAX_FILE_BYTES = 1_048_576


class SemanticLayer:
    def __init__(
        self,
        config: LspConfig | None,
        *,
        idle_ms: int = DEFAULT_IDLE_MS,
        diagnostics_wait_ms: int = DEFAULT_DIAGNOSTICS_WAIT_MS,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        self.config = config
        self.idle_ms = idle_ms
        self.diagnostics_wait_ms = diagnostics_wait_ms
        self.max_file_bytes = max_file_bytes
        self._sessions: dict[tuple[Path, str], ServerSession] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._reaper: threading.Thread | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings | None = None, *, config_path: str | None = None
    ) -> SemanticLayer:
        """The layer the settings describe (``--lsp-config`` beats ``LAZY_INTEL_LSP_CONFIG`` beats
        ``LAZY_INTEL_LSP``); with no configuration the layer has no servers."""
        settings = settings or load_settings()
        return cls(
            load_lsp_config(settings, config_path),
            idle_ms=settings.lsp_idle_ms,
            diagnostics_wait_ms=settings.lsp_diagnostics_wait_ms,
            max_file_bytes=settings.max_file_bytes,
        )

    @property
    def configured(self) -> bool:
        """Whether any trusted server is configured at all (nothing is started to tell)."""
        return self.config is not None and bool(self.config.servers)

    # -- sessions -------------------------------------------------------------------------------
    def servers_for(self, root: Path) -> tuple[ServerConfig, ...]:
        return self.config.servers_for_root(root) if self.config is not None else ()

    def server_for_path(self, root: Path, relative_path: str) -> ServerConfig | None:
        return self.config.server_for_path(root, relative_path) if self.config is not None else None

    def session(self, root: Path, server: ServerConfig) -> ServerSession:
        key = (root, server.id)
        with self._lock:
            existing = self._sessions.get(key)
            if existing is None:
                existing = ServerSession(server, root)
                self._sessions[key] = existing
            if self._reaper is None and self.idle_ms > 0:
                self._reaper = threading.Thread(target=self._reap_loop, name="lsp-idle-reaper", daemon=True)
                self._reaper.start()
        return existing

    def sessions(self) -> list[ServerSession]:
        with self._lock:
            return list(self._sessions.values())

    def _reap_loop(self) -> None:
        interval = max(0.05, min(self.idle_ms / 4000, 30.0))
        while not self._stop.wait(interval):
            self.reap_idle()

    def reap_idle(self) -> int:
        """Stop sessions idle for longer than ``idle_ms``; returns how many were stopped."""
        stopped = 0
        for session in self.sessions():
            if session.running and session.idle_for() * 1000 > self.idle_ms:
                log.info("stopping idle language server %s", session.label)
                session.close()
                stopped += 1
        return stopped

    def files_changed(self, root: Path, changes: list[tuple[str, int]]) -> None:
        """Forward file events (1 created, 2 changed, 3 deleted) to the running servers of ``root``."""
        for session in self.sessions():
            if session.root == root:
                with contextlib.suppress(LazyIntelError):
                    session.files_changed(changes)

    # -- what is offered ------------------------------------------------------------------------
    def available_operations(self, root: Path, *, start: bool = True) -> dict[str, tuple[str, ...]]:
        """Operation -> ids of servers that negotiated it for ``root``.

        ``start`` starts servers that are not running (their capabilities are only known after
        ``initialize``); a server that fails to start contributes nothing.
        """
        offered: dict[str, list[str]] = {}
        for server in self.servers_for(root):
            session = self.session(root, server)
            if start:
                try:
                    session.ensure_started()
                except LazyIntelError as exc:
                    log.warning("language server %s unavailable: %s", server.id, exc.message)
                    continue
            for operation in session.operations():
                offered.setdefault(operation, []).append(server.id)
        return {op: tuple(ids) for op, ids in offered.items()}

    def can_answer(self, root: Path, relative_path: str, operation: str, *, start: bool = True) -> bool:
        """Whether a live server would answer ``operation`` for ``relative_path`` (for the service's
        "prefer the live answer when configured" rule). ``start`` starts the server if needed."""
        server = self.server_for_path(root, relative_path)
        if server is None:
            return False
        session = self.session(root, server)
        if start:
            try:
                session.ensure_started()
            except LazyIntelError:
                return False
        return operation in session.operations()

    def evidence_state(self, root: Path, semantic: dict[str, Any]) -> str:
        """Re-check an earlier answer's ``data["semantic"]`` now: ``current`` while every binding
        holds (git facts and dirty digest, the document's hash, each server's epoch and capability
        fingerprint), ``unavailable`` when a server is unhealthy, else ``stale``."""
        from lazy_intel.semantic import binding as bind
        from lazy_intel.workspace.capture import read_regular_file, sha256_bytes

        facts = [semantic["server"]] if "server" in semantic else list(semantic.get("servers", ()))
        for fact in facts:
            with self._lock:
                session = self._sessions.get((root, fact.get("id")))
            if session is None or session.health() == "failing":
                return bind.STATE_UNAVAILABLE
            negotiated = session.negotiated
            if (
                not session.running
                or negotiated is None
                or negotiated.epoch != fact.get("epoch")
                or negotiated.fingerprint != fact.get("capability_fingerprint")
            ):
                return bind.STATE_STALE
        recorded = semantic.get("binding")
        if not isinstance(recorded, dict) or bind.capture_binding(root) != bind.SourceBinding.from_dict(
            recorded
        ):
            return bind.STATE_STALE
        document = semantic.get("document")
        if isinstance(document, dict):
            try:
                current = sha256_bytes(read_regular_file(root / document["path"]))
            except OSError:
                return bind.STATE_STALE
            if current != document.get("sha256"):
                return bind.STATE_STALE
        return bind.STATE_CURRENT

    def status(self, root: Path | None = None) -> list[dict[str, Any]]:
        """Per configured server: metadata, health, epoch, negotiated operations (starts nothing)."""
        out: list[dict[str, Any]] = []
        servers = self.config.servers if self.config is not None else ()
        for server in servers:
            entry: dict[str, Any] = {**server.metadata(), "health": "stopped", "sessions": []}
            for session in self.sessions():
                if session.server.id != server.id or (root is not None and session.root != root):
                    continue
                negotiated = session.negotiated
                entry["sessions"].append(
                    {
                        "workspace": str(session.root),
                        "health": session.health(),
                        "epoch": session.epoch,
                        "operations": list(session.operations()),
                        "position_encoding": negotiated.encoding if negotiated else None,
                        "capability_fingerprint": negotiated.fingerprint if negotiated else None,
                        "server_version": negotiated.server_version if negotiated else None,
                        "last_error": session.last_error,
                    }
                )
            if entry["sessions"]:
                entry["health"] = entry["sessions"][0]["health"]
            out.append(entry)
        return out

    def close(self) -> None:
        self._stop.set()
        for session in self.sessions():
            session.close()
        with self._lock:
            self._sessions.clear()

    def __enter__(self) -> SemanticLayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

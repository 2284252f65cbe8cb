"""``lsp status`` and ``lsp qualify``: what the configuration says, and whether each server passes.

``status`` reads metadata only and starts nothing. ``qualify`` checks the workspace root, the
review fields and each executable (path policy and SHA-256), then — unless told not to — starts
the server for real, shows what ``initialize`` negotiated (operations, position encoding, server
version, capability fingerprint) and shuts it down again. Neither shows executables, argv or the
environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lazy_intel.errors import LazyIntelError
from lazy_intel.semantic.config import LspConfig, ServerConfig
from lazy_intel.semantic.executable import check_executable, is_inside
from lazy_intel.semantic.session import ServerSession


def config_status(config: LspConfig) -> dict[str, Any]:
    return {
        "source": {"label": config.source_label, "sha256": config.source_sha256},
        "servers": [server.metadata() for server in config.servers],
    }


def qualify_server(server: ServerConfig, root: Path, *, start: bool) -> dict[str, Any]:
    checks: dict[str, Any] = {}
    report: dict[str, Any] = {"id": server.id, "name": server.name, "checks": checks, "qualified": False}
    checks["workspace"] = "ok" if server.serves_root(root) else f"configured for {server.workspace_root} only"
    checks["reviewed"] = (
        "ok"
        if server.reviewed_by and (server.reviewed_at or server.reviewed_by.startswith("LAZY_INTEL_LSP"))
        else "missing reviewed_by/reviewed_at"
    )
    try:
        check_executable(server.executable, server.executable_sha256, what=f"{server.id} executable")
        checks["executable"] = "ok"
    except LazyIntelError as exc:
        checks["executable"] = exc.message
    checks["outside_workspace"] = (
        "executable lies inside the workspace" if is_inside(Path(server.executable), root) else "ok"
    )
    if any(value != "ok" for value in checks.values()):
        return report
    if not start:
        report["qualified"] = True
        report["started"] = False
        return report
    session = ServerSession(server, root)
    try:
        negotiated = session.ensure_started()
        report.update(
            {
                "qualified": True,
                "started": True,
                "server_name": negotiated.server_name,
                "server_version": negotiated.server_version,
                "position_encoding": negotiated.encoding,
                "operations": list(session.operations()),
                "capability_fingerprint": negotiated.fingerprint,
                "descriptor_fingerprint": server.descriptor_fingerprint,
                "epoch": negotiated.epoch,
            }
        )
    except LazyIntelError as exc:
        report["started"] = False
        report["error"] = {"code": exc.code, "message": exc.message}
    finally:
        session.close()
    return report


def qualify(
    config: LspConfig, root: Path, *, start: bool = True, server_id: str | None = None
) -> dict[str, Any]:
    servers = [config.server(server_id)] if server_id else list(config.servers)
    reports = [qualify_server(server, root, start=start) for server in servers]
    return {
        "source": {"label": config.source_label, "sha256": config.source_sha256},
        "workspace": str(root),
        "servers": reports,
        "qualified": all(r["qualified"] for r in reports),
    }

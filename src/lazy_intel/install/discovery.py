"""Which lazy-intel registrations exist, for ``lazy-intel doctor``: read-only, never raises."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lazy_intel.checks import Check
from lazy_intel.errors import LazyIntelError
from lazy_intel.install import jsonc_edit, toml_edit
from lazy_intel.install.clients import (
    CLAUDE_HOOK_EVENTS,
    CLIENTS,
    SERVER_NAME,
    ConfigLocation,
    claude_hooks_location,
    entry_command,
    is_our_hook,
    is_ours,
)
from lazy_intel.install.config_file import read_text, resolve_config_path


@dataclass(frozen=True)
class Registration:
    client: str
    scope: str  # project | global
    kind: str  # mcp-server | hooks
    path: str
    status: str  # ok | legacy-name | command-missing | unreadable
    name: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()
    events: tuple[str, ...] = field(default_factory=tuple)
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _command_ok(command: str | None) -> bool:
    if not command:
        return False
    if os.path.isabs(command):
        return os.path.isfile(command) and os.access(command, os.X_OK)
    return shutil.which(command) is not None


def _load(location: ConfigLocation, fmt: str) -> tuple[Any, str | None]:
    """(parsed document or None when absent, problem)."""
    try:
        real = resolve_config_path(location.path, location.base)
        text = read_text(real)
        if text is None or not text.strip():
            return None, None
        if fmt == "toml":
            return toml_edit.loads(text, str(real)), None
        return jsonc_edit.parse(text, str(real)).to_python(), None
    except LazyIntelError as exc:
        return None, exc.message
    except OSError as exc:
        return None, f"cannot read {location.path}: {exc.strerror}"


def _lookup(doc: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc


def registrations_found(
    project: Path | None, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[Registration]:
    """Every lazy-intel MCP registration (and Claude Code hook set) in the project's and the
    global config of each supported client."""
    environ = os.environ if env is None else env
    home_dir = home if home is not None else Path.home()
    found: list[Registration] = []
    for spec in CLIENTS.values():
        scopes: list[tuple[str, ConfigLocation]] = []
        if project is not None:
            scopes.append(("project", spec.project_location(project)))
        scopes.append(("global", spec.global_location(home_dir, environ)))
        for scope, location in scopes:
            doc, problem = _load(location, spec.fmt)
            if problem:
                found.append(
                    Registration(
                        spec.name, scope, "mcp-server", str(location.path), "unreadable", detail=problem
                    )
                )
                continue
            servers = _lookup(doc, spec.servers_key)
            if not isinstance(servers, dict):
                continue
            for name, entry in servers.items():
                if not is_ours(name, entry):
                    continue
                command, args = entry_command(entry)
                status = "ok"
                detail = ""
                if not _command_ok(command):
                    status, detail = "command-missing", f"{command!r} is not an executable file or on PATH"
                elif name != SERVER_NAME:
                    status, detail = (
                        "legacy-name",
                        f"registered as {name!r}; `lazy-intel install` replaces it",
                    )
                found.append(
                    Registration(
                        spec.name,
                        scope,
                        "mcp-server",
                        str(location.path),
                        status,
                        name,
                        command,
                        tuple(args),
                        detail=detail,
                    )
                )
    hook_scopes = [("project", project)] if project is not None else []
    hook_scopes.append(("global", None))
    for scope, where in hook_scopes:
        location = claude_hooks_location(where, home_dir)
        doc, problem = _load(location, "json")
        if problem:
            found.append(
                Registration("claude-code", scope, "hooks", str(location.path), "unreadable", detail=problem)
            )
            continue
        hooks = _lookup(doc, ("hooks",))
        if not isinstance(hooks, dict):
            continue
        events = []
        commands = set()
        for client_event in CLAUDE_HOOK_EVENTS:
            groups = hooks.get(client_event)
            for group in groups if isinstance(groups, list) else []:
                for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                    if is_our_hook(hook):
                        events.append(client_event)
                        commands.add(shlex.split(hook["command"])[0])
        if events:
            command = sorted(commands)[0]
            ok = _command_ok(command)
            found.append(
                Registration(
                    "claude-code",
                    scope,
                    "hooks",
                    str(location.path),
                    "ok" if ok else "command-missing",
                    command=command,
                    events=tuple(dict.fromkeys(events)),
                    detail="" if ok else f"{command!r} is not an executable file or on PATH",
                )
            )
    return found


def registration_checks(project: Path | None, **kwargs: Any) -> list[Check]:
    """The registrations as doctor checks (``info`` when there are none)."""
    found = registrations_found(project, **kwargs)
    if not found:
        return [
            Check(
                "install.registrations",
                "info",
                "lazy-intel is not registered with any MCP client",
                "`lazy-intel install --client <client>`",
            )
        ]
    checks = []
    for reg in found:
        label = f"install.{reg.client}.{reg.scope}.{reg.kind}"
        what = f"{reg.name} -> {reg.command}" if reg.kind == "mcp-server" else f"{', '.join(reg.events)}"
        status = {"ok": "ok", "legacy-name": "warn"}.get(reg.status, "fail")
        message = f"{reg.path}: {what}" + (f" ({reg.detail})" if reg.detail else "")
        next_step = None if status == "ok" else f"`lazy-intel install --client {reg.client}"
        if next_step:
            next_step += " --global`" if reg.scope == "global" else "`"
        checks.append(Check(label, status, message, next_step))
    return checks

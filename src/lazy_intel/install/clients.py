"""Where each MCP client keeps its server registrations, and what an entry looks like there.

| client      | project file            | global file                                  | servers key       |
|-------------|-------------------------|----------------------------------------------|-------------------|
| claude-code | ``.mcp.json``           | ``~/.claude.json``                           | ``mcpServers``    |
| cursor      | ``.cursor/mcp.json``    | ``~/.cursor/mcp.json``                       | ``mcpServers``    |
| vscode      | ``.vscode/mcp.json``    | user profile ``Code/User/mcp.json``          | ``servers``       |
| zed         | ``.zed/settings.json``  | ``~/.config/zed/settings.json``              | ``context_servers`` |
| codex       | ``.codex/config.toml``  | ``$CODEX_HOME/config.toml`` (``~/.codex``)   | ``[mcp_servers.<name>]`` |

Claude Code's hooks live in ``.claude/settings.json`` (project) or ``~/.claude/settings.json``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

SERVER_NAME = "lazy-intel"
LEGACY_NAMES = frozenset({"lazy-intel", "lazy_intel", "lazyintel", "lazy-intel-mcp", "lazy-intel-serve"})
EXECUTABLE = "lazy-intel"


@dataclass(frozen=True)
class ConfigLocation:
    path: Path
    base: Path  # symlinks may not lead outside this directory


@dataclass(frozen=True)
class ClientSpec:
    name: str
    fmt: str  # "json" | "toml"
    servers_key: tuple[str, ...]
    project_file: str
    typed: bool  # entries carry "type": "stdio"

    def project_location(self, project: Path) -> ConfigLocation:
        return ConfigLocation(project / self.project_file, project)

    def global_location(self, home: Path, env: Mapping[str, str]) -> ConfigLocation:
        xdg = env.get("XDG_CONFIG_HOME")
        config_home = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
        if self.name == "claude-code":
            return ConfigLocation(home / ".claude.json", home)
        if self.name == "cursor":
            return ConfigLocation(home / ".cursor" / "mcp.json", home)
        if self.name == "vscode":
            if sys.platform == "darwin":
                return ConfigLocation(
                    home / "Library" / "Application Support" / "Code" / "User" / "mcp.json", home
                )
            if os.name == "nt" and env.get("APPDATA"):
                appdata = Path(env["APPDATA"])
                return ConfigLocation(appdata / "Code" / "User" / "mcp.json", appdata)
            return ConfigLocation(config_home / "Code" / "User" / "mcp.json", config_home if xdg else home)
        if self.name == "zed":
            return ConfigLocation(config_home / "zed" / "settings.json", config_home if xdg else home)
        codex_home = env.get("CODEX_HOME")
        if codex_home and Path(codex_home).is_absolute():
            return ConfigLocation(Path(codex_home) / "config.toml", Path(codex_home))
        return ConfigLocation(home / ".codex" / "config.toml", home)

    def entry(self, command: str, args: list[str], env: Mapping[str, str]) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        entry["command"] = command
        entry["args"] = list(args)
        if env:
            entry["env"] = dict(env)
        return entry


CLIENTS: dict[str, ClientSpec] = {
    spec.name: spec
    for spec in (
        ClientSpec("claude-code", "json", ("mcpServers",), ".mcp.json", typed=True),
        ClientSpec("cursor", "json", ("mcpServers",), ".cursor/mcp.json", typed=False),
        ClientSpec("vscode", "json", ("servers",), ".vscode/mcp.json", typed=True),
        ClientSpec("zed", "json", ("context_servers",), ".zed/settings.json", typed=False),
        ClientSpec("codex", "toml", ("mcp_servers",), ".codex/config.toml", typed=False),
    )
}

CLAUDE_HOOK_EVENTS: dict[str, tuple[str, str | None]] = {
    # Claude Code event -> (our hook event, matcher)
    "SessionStart": ("session-start", None),
    "UserPromptSubmit": ("user-prompt-submit", None),
    "PostToolUse": ("post-tool-use", "*"),
    "PostToolUseFailure": ("post-tool-use", "*"),
    "Stop": ("stop", None),
}
HOOK_TIMEOUT_S = 30


def claude_hooks_location(project: Path | None, home: Path) -> ConfigLocation:
    if project is not None:
        return ConfigLocation(project / ".claude" / "settings.json", project)
    return ConfigLocation(home / ".claude" / "settings.json", home)


def server_command(explicit: str | None = None) -> str:
    """The absolute ``lazy-intel`` executable to register (GUI-launched clients have no venv PATH)."""
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / EXECUTABLE
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which(EXECUTABLE)
    return str(Path(found).absolute()) if found else EXECUTABLE


def _command_of(entry: Any) -> tuple[str | None, list[str]]:
    if not isinstance(entry, dict):
        return None, []
    command = entry.get("command")
    args = entry.get("args")
    if isinstance(command, dict):  # Zed's older {"command": {"path": ..., "args": [...]}}
        args = command.get("args")
        command = command.get("path")
    arg_list = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
    return (command if isinstance(command, str) else None), arg_list


def is_ours(name: str, entry: Any) -> bool:
    """A lazy-intel registration: one of our names, or a server that runs ``lazy-intel``."""
    if name.lower() in LEGACY_NAMES:
        return True
    command, args = _command_of(entry)
    if command is None:
        return False
    if PurePath(command).name == EXECUTABLE:
        return True
    return any(
        a == "-m" and i + 1 < len(args) and args[i + 1].startswith("lazy_intel") for i, a in enumerate(args)
    )


def entry_command(entry: Any) -> tuple[str | None, list[str]]:
    return _command_of(entry)


def hook_command(command: str, event: str) -> str:
    return f"{shlex.quote(command)} loop hook {event}"


def is_our_hook(hook: Any) -> bool:
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    try:
        words = shlex.split(hook["command"])
    except ValueError:
        return False
    return len(words) >= 3 and PurePath(words[0]).name == EXECUTABLE and words[1:3] == ["loop", "hook"]


def claude_hook_group(command: str, client_event: str) -> dict[str, Any]:
    event, matcher = CLAUDE_HOOK_EVENTS[client_event]
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [{"type": "command", "command": hook_command(command, event), "timeout": HOOK_TIMEOUT_S}]
    return group

"""install / uninstall against each client's real config format, with unrelated content."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.errors import InvalidArgument
from lazy_intel.install import jsonc_edit
from lazy_intel.install.register import Target, install, uninstall
from tests.install.test_jsonc_edit import assert_only_inserted

CMD = "/opt/lazy/bin/lazy-intel"

EXISTING: dict[str, tuple[str, str]] = {
    "claude-code": (
        ".mcp.json",
        '{\n  "mcpServers": {\n    "github": {\n      "type": "stdio",\n      "command": "gh-mcp",\n'
        '      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}\n    }\n  }\n}\n',
    ),
    "cursor": (
        ".cursor/mcp.json",
        '{\n    "mcpServers": {\n        "browser": {"command": "npx", "args": ["-y", "browser-mcp"]}\n    }\n}\n',
    ),
    "vscode": (
        ".vscode/mcp.json",
        '{\n\t// Team servers\n\t"inputs": [\n\t\t{"type": "promptString", "id": "key", "password": true}\n\t],\n'
        '\t"servers": {\n\t\t"db": {"type": "stdio", "command": "db-mcp", "args": ["${input:key}"]},\n\t}\n}\n',
    ),
    "zed": (
        ".zed/settings.json",
        '// Zed project settings\n{\n  "tab_size": 4,\n  "context_servers": {\n'
        '    "notes": {\n      "command": "notes-mcp",\n      "args": [],\n    },\n  },\n  "format_on_save": "on",\n}\n',
    ),
    "codex": (
        ".codex/config.toml",
        '# project codex settings\nmodel = "o4-mini"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs"]\n',
    ),
}
SERVERS_KEY = {
    "claude-code": "mcpServers",
    "cursor": "mcpServers",
    "vscode": "servers",
    "zed": "context_servers",
}
CLIENTS = sorted(EXISTING)


def read_doc(client: str, path: Path) -> dict[str, Any]:
    text = path.read_text()
    return tomllib.loads(text) if client == "codex" else jsonc_edit.parse(text).to_python()


def servers(client: str, path: Path) -> dict[str, Any]:
    doc = read_doc(client, path)
    return doc["mcp_servers"] if client == "codex" else doc[SERVERS_KEY[client]]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def target(client: str, project: Path | None, home: Path) -> Target:
    return Target(client, project, home, {})


def write_existing(client: str, project: Path) -> Path:
    rel, text = EXISTING[client]
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("client", CLIENTS)
def test_install_keeps_unrelated_bytes_and_writes_0600(client: str, project: Path, home: Path):
    path = write_existing(client, project)
    before = path.read_text()
    os.chmod(path, 0o644)
    [change] = install(target(client, project, home), CMD)
    assert change.action == "updated" and change.path == path
    after = path.read_text()
    if client == "codex":
        assert after.startswith(before)
    else:
        assert_only_inserted(before, after)
    entry = servers(client, path)["lazy-intel"]
    assert entry["command"] == CMD and entry["args"] == ["serve"]
    assert entry["env"] == {"LAZY_INTEL_ROOT": str(project)}
    assert ("type" in entry) == (client in ("claude-code", "vscode"))
    assert len([n for n in servers(client, path) if n != "lazy-intel"]) == 1  # the user's own entry
    assert mode(path) == 0o600


@pytest.mark.parametrize("client", CLIENTS)
def test_install_is_idempotent_and_uninstall_restores_the_original(client: str, project: Path, home: Path):
    path = write_existing(client, project)
    before = path.read_text()
    install(target(client, project, home), CMD)
    installed = path.read_text()
    [again] = install(target(client, project, home), CMD)
    assert again.action == "unchanged" and path.read_text() == installed
    removed = uninstall(target(client, project, home))[0]
    assert removed.action == "updated"
    assert path.read_text() == before
    again = uninstall(target(client, project, home))[0]
    assert again.action == "unchanged"


@pytest.mark.parametrize("client", CLIENTS)
def test_install_creates_a_missing_file_and_uninstall_deletes_it(client: str, project: Path, home: Path):
    [change] = install(target(client, project, home), CMD)
    assert change.action == "created" and change.before is None
    assert servers(client, change.path)["lazy-intel"]["command"] == CMD
    assert mode(change.path) == 0o600
    removed = uninstall(target(client, project, home))[0]
    assert removed.action == "deleted" and not change.path.exists()


@pytest.mark.parametrize("client", CLIENTS)
def test_older_lazy_intel_entries_are_replaced(client: str, project: Path, home: Path):
    rel = EXISTING[client][0]
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if client == "codex":
        path.write_text(
            '[mcp_servers.lazy_intel]\ncommand = "/old/venv/bin/lazy-intel"\nargs = ["serve"]\n\n'
            '[mcp_servers.lazy-intel]\ncommand = "/old/lazy-intel"\n\n[mcp_servers.keep]\ncommand = "k"\n'
        )
    else:
        key = SERVERS_KEY[client]
        path.write_text(
            json.dumps(
                {
                    key: {
                        "code-intel": {"command": "/old/venv/bin/lazy-intel", "args": ["serve"]},
                        "lazy-intel": {"command": "/old/lazy-intel", "args": ["serve"]},
                        "py": {"command": "python", "args": ["-m", "lazy_intel.cli.main", "serve"]},
                        "keep": {"command": "k"},
                    }
                },
                indent=2,
            )
        )
    install(target(client, project, home), CMD)
    found = servers(client, path)
    assert sorted(found) == ["keep", "lazy-intel"]
    assert found["lazy-intel"]["command"] == CMD
    assert found["keep"] == {"command": "k"}


@pytest.mark.parametrize("client", CLIENTS)
def test_dry_run_shows_the_diff_and_writes_nothing(client: str, project: Path, home: Path):
    path = write_existing(client, project)
    before = path.read_bytes()
    [change] = install(target(client, project, home), CMD, dry_run=True)
    assert path.read_bytes() == before
    assert change.action == "updated"
    diff = change.diff()
    assert diff.startswith(f"--- {path}\n+++ {path}\n")
    assert any(line.startswith("+") and CMD in line for line in diff.splitlines())
    lines = diff.splitlines()
    removed = [line[1:] for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")]
    assert all(line + "," in added for line in removed)  # at most a comma appended to a neighbour


@pytest.mark.parametrize("client", CLIENTS)
def test_global_scope_writes_only_under_the_temporary_home(client: str, project: Path, home: Path):
    [change] = install(target(client, None, home), CMD)
    assert home in change.path.parents
    entry = servers(client, change.path)["lazy-intel"]
    assert "env" not in entry  # global registration follows the client's working directory
    assert list(project.iterdir()) == []


def test_global_locations(home: Path):
    expected = {
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor" / "mcp.json",
        "zed": home / ".config" / "zed" / "settings.json",
        "codex": home / ".codex" / "config.toml",
    }
    for client, path in expected.items():
        assert target(client, None, home).server_location().path == path
    xdg = Target("zed", None, home, {"XDG_CONFIG_HOME": str(home / "xdg"), "CODEX_HOME": str(home / "cx")})
    assert xdg.server_location().path == home / "xdg" / "zed" / "settings.json"
    assert Target("codex", None, home, xdg.env).server_location().path == home / "cx" / "config.toml"


def test_claude_global_keeps_the_rest_of_claude_json(home: Path):
    path = home / ".claude.json"
    before = json.dumps(
        {
            "numStartups": 42,
            "projects": {"/src/app": {"allowedTools": []}},
            "mcpServers": {"x": {"command": "x"}},
        },
        indent=2,
    )
    path.write_text(before)
    install(target("claude-code", None, home), CMD)
    assert_only_inserted(before, path.read_text())
    uninstall(target("claude-code", None, home))
    assert path.read_text() == before


@pytest.mark.parametrize("client", CLIENTS)
def test_symlinked_config_pointing_outside_is_refused(client: str, project: Path, home: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim"
    victim.write_text(EXISTING[client][1])
    link = project / EXISTING[client][0]
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim)
    for action in (
        lambda: install(target(client, project, home), CMD),
        lambda: uninstall(target(client, project, home)),
    ):
        with pytest.raises(InvalidArgument) as err:
            action()
        assert "outside" in err.value.message
    assert victim.read_text() == EXISTING[client][1]


def test_symlinked_config_directory_pointing_outside_is_refused(project: Path, home: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".cursor").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InvalidArgument):
        install(target("cursor", project, home), CMD)
    assert list(outside.iterdir()) == []


def test_symlink_inside_the_target_directory_is_followed(project: Path, home: Path):
    real = project / "config" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {}}')
    (project / ".mcp.json").symlink_to(real)
    [change] = install(target("claude-code", project, home), CMD)
    assert change.path == real
    assert (project / ".mcp.json").is_symlink()
    assert "lazy-intel" in json.loads(real.read_text())["mcpServers"]


@pytest.mark.parametrize("client", CLIENTS)
def test_malformed_config_is_refused_and_left_alone(client: str, project: Path, home: Path):
    path = project / EXISTING[client][0]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ this is not valid = [\n")
    with pytest.raises(InvalidArgument):
        install(target(client, project, home), CMD)
    assert path.read_text() == "{ this is not valid = [\n"


# -- Claude Code hooks ----------------------------------------------------------------------------------
SETTINGS = """{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  }
}
"""


def test_hooks_are_added_beside_the_users_own_and_removed_cleanly(project: Path, home: Path):
    settings_path = project / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text(SETTINGS)
    changes = install(target("claude-code", project, home), CMD, hooks=True)
    assert [(c.kind, c.action) for c in changes] == [("mcp-server", "created"), ("hooks", "updated")]
    doc = json.loads(settings_path.read_text())
    assert doc["permissions"] == {"allow": ["Bash(npm test)"]}
    hooks = doc["hooks"]
    assert sorted(hooks) == ["PostToolUse", "PostToolUseFailure", "SessionStart", "Stop", "UserPromptSubmit"]
    assert hooks["PostToolUse"][0]["hooks"][0]["command"] == "prettier --write"
    assert hooks["PostToolUse"][1] == {
        "matcher": "*",
        "hooks": [{"type": "command", "command": f"{CMD} loop hook post-tool-use", "timeout": 30}],
    }
    assert hooks["Stop"][0]["hooks"][0]["command"] == "notify-send done"
    assert hooks["Stop"][1]["hooks"][0]["command"] == f"{CMD} loop hook stop"
    assert hooks["SessionStart"] == [
        {"hooks": [{"type": "command", "command": f"{CMD} loop hook session-start", "timeout": 30}]}
    ]
    assert mode(settings_path) == 0o600
    installed = settings_path.read_text()
    again = install(target("claude-code", project, home), CMD, hooks=True)
    assert [c.action for c in again] == ["unchanged", "unchanged"]
    assert settings_path.read_text() == installed
    # a new executable path replaces our hooks rather than adding a second set
    install(target("claude-code", project, home), "/new/bin/lazy-intel", hooks=True)
    stop_hooks = json.loads(settings_path.read_text())["hooks"]["Stop"]
    assert [g["hooks"][0]["command"] for g in stop_hooks] == [
        "notify-send done",
        "/new/bin/lazy-intel loop hook stop",
    ]
    uninstall(target("claude-code", project, home))
    assert settings_path.read_text() == SETTINGS
    assert not (project / ".mcp.json").exists()


def test_hook_commands_quote_paths_with_spaces(project: Path, home: Path):
    install(target("claude-code", project, home), "/Applications/My Tools/lazy-intel", hooks=True)
    doc = json.loads((project / ".claude" / "settings.json").read_text())
    assert (
        doc["hooks"]["Stop"][0]["hooks"][0]["command"] == "'/Applications/My Tools/lazy-intel' loop hook stop"
    )
    uninstall(target("claude-code", project, home))
    assert not (project / ".claude" / "settings.json").exists()


def test_global_hooks_go_to_the_users_claude_settings(home: Path):
    changes = install(target("claude-code", None, home), CMD, hooks=True)
    assert changes[1].path == home / ".claude" / "settings.json"


@pytest.mark.parametrize("client", ["cursor", "vscode", "zed", "codex"])
def test_hooks_are_claude_code_only(client: str, project: Path, home: Path):
    with pytest.raises(InvalidArgument):
        install(target(client, project, home), CMD, hooks=True)
    assert list(project.iterdir()) == []


def test_unknown_client(project: Path, home: Path):
    with pytest.raises(InvalidArgument):
        install(target("emacs", project, home), CMD)

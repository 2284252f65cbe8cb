from __future__ import annotations

import json
from pathlib import Path

import pytest

from lazy_intel.install import registration_checks, registrations_found
from lazy_intel.install.register import Target, install


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    exe = tmp_path / "bin" / "lazy-intel"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    return home, project, exe


def test_nothing_registered(layout: tuple[Path, Path, Path]):
    home, project, _ = layout
    assert registrations_found(project, home=home, env={}) == []
    [check] = registration_checks(project, home=home, env={})
    assert check.status == "info" and check.name == "install.registrations"


def test_finds_every_client_and_scope(layout: tuple[Path, Path, Path]):
    home, project, exe = layout
    for client in ("claude-code", "cursor", "vscode", "zed", "codex"):
        install(Target(client, project, home, {}), str(exe), hooks=client == "claude-code")
    install(Target("codex", None, home, {}), str(exe))
    found = registrations_found(project, home=home, env={})
    servers = {(r.client, r.scope) for r in found if r.kind == "mcp-server"}
    assert servers == {
        ("claude-code", "project"),
        ("cursor", "project"),
        ("vscode", "project"),
        ("zed", "project"),
        ("codex", "project"),
        ("codex", "global"),
    }
    assert all(r.status == "ok" and r.command == str(exe) for r in found)
    assert all(r.args == ("serve",) for r in found if r.kind == "mcp-server")
    [hooks] = [r for r in found if r.kind == "hooks"]
    assert hooks.scope == "project"
    assert hooks.events == ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop")
    assert {c.status for c in registration_checks(project, home=home, env={})} == {"ok"}


def test_reports_missing_command_legacy_name_and_unreadable(layout: tuple[Path, Path, Path]):
    home, project, exe = layout
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"lazy-intel": {"command": "/gone/lazy-intel"}}})
    )
    (project / ".cursor").mkdir()
    (project / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"lazy_intel": {"command": str(exe)}}})
    )
    (home / ".claude.json").write_text("{broken")
    found = {(r.client, r.scope): r for r in registrations_found(project, home=home, env={})}
    assert found[("claude-code", "project")].status == "command-missing"
    assert found[("cursor", "project")].status == "legacy-name"
    assert found[("claude-code", "global")].status == "unreadable"
    statuses = {c.name: c.status for c in registration_checks(project, home=home, env={})}
    assert statuses["install.claude-code.project.mcp-server"] == "fail"
    assert statuses["install.cursor.project.mcp-server"] == "warn"
    assert statuses["install.claude-code.global.mcp-server"] == "fail"

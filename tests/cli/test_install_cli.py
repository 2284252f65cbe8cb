"""``lazy-intel install`` / ``uninstall`` through the click entry point, with a temporary HOME."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lazy_intel.cli.install_cmds import install_cmd, uninstall_cmd
from lazy_intel.cli.main import main

EXE = "/opt/lazy/bin/lazy-intel"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def run(*args: str) -> tuple[int, Any, str]:
    result = CliRunner().invoke(main, list(args))
    out = result.stdout
    try:
        parsed = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        return result.exit_code, out, result.stderr
    return result.exit_code, unwrap(parsed), result.stderr


def unwrap(answer: Any) -> Any:
    """An Answer's ``data`` for ok answers; the error Answer (``data`` as ``details``) otherwise."""
    if not isinstance(answer, dict) or "operation" not in answer:
        return answer
    assert answer["view"]["generation"] == 0 and answer["items"] == []
    if answer["status"] == "error":
        return {**answer, "details": answer.get("data")}
    assert answer["status"] == "ok"
    return {**answer["data"], "status": "ok"}


def test_global_install_and_uninstall_use_the_temporary_home(home: Path):
    code, out, _ = run("install", "--client", "codex", "--global", "--command", EXE, "--json")
    assert code == 0 and out["scope"] == "global" and out["project"] is None
    [change] = out["changes"]
    config = home / ".codex" / "config.toml"
    assert change == {"path": str(config), "kind": "mcp-server", "action": "created", "diff": change["diff"]}
    assert f'command = "{EXE}"' in config.read_text()
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
    assert any("Restart codex" in n for n in out["notes"])
    code, out, _ = run("uninstall", "--client", "codex", "--global", "--json")
    assert code == 0 and out["changes"][0]["action"] == "deleted" and not config.exists()


def test_project_defaults_to_the_current_directory(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(project)
    code, out, _ = run("install", "--client", "cursor", "--command", EXE, "--json")
    assert code == 0 and out["project"] == str(project)
    entry = json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]["lazy-intel"]
    assert entry == {"command": EXE, "args": ["serve"], "env": {"LAZY_INTEL_ROOT": str(project)}}


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path, project: Path):
    code, out, _ = run(
        "install", "--client", "vscode", "--project", str(project), "--command", EXE, "--dry-run"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{project / '.vscode' / 'mcp.json'} (mcp-server): would be created"
    assert lines[1] == "--- /dev/null"
    assert '+    "lazy-intel": {' in lines
    assert not (project / ".vscode").exists()


def test_default_command_is_an_absolute_executable(home: Path, project: Path):
    code, out, _ = run("install", "--client", "zed", "--project", str(project), "--json")
    assert code == 0
    assert os.path.isabs(out["command"]) and os.access(out["command"], os.X_OK)
    assert Path(out["command"]).name == "lazy-intel"


@pytest.mark.parametrize(
    ("args", "code_name"),
    [
        (("install", "--client", "cursor", "--global", "--project", "."), "INVALID_ARGUMENT"),
        (("install", "--client", "cursor", "--hooks"), "INVALID_ARGUMENT"),
        (("install", "--client", "cursor", "--project", "/definitely/not/here"), "NOT_FOUND"),
    ],
)
def test_refusals_have_stable_codes(home: Path, project: Path, args: tuple[str, ...], code_name: str):
    code, out, _ = run(*args, "--json")
    assert code == (2 if code_name == "INVALID_ARGUMENT" else 1)
    assert out["status"] == "error" and out["code"] == code_name


def test_home_itself_is_refused_as_a_project(home: Path):
    code, out, _ = run("install", "--client", "claude-code", "--project", str(home), "--json")
    assert code == 2 and out["code"] == "INVALID_ARGUMENT"
    assert list(home.iterdir()) == []


def test_symlink_refusal_reaches_the_cli(home: Path, project: Path, tmp_path: Path):
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (project / ".mcp.json").symlink_to(outside)
    code, out, _ = run("install", "--client", "claude-code", "--project", str(project))
    assert code == 2 and out.startswith("error INVALID_ARGUMENT: config path")
    assert outside.read_text() == "{}"


def test_claude_hooks_via_cli(home: Path, project: Path):
    code, out, _ = run(
        "install", "--client", "claude-code", "--project", str(project), "--hooks", "--command", EXE, "--json"
    )
    assert code == 0 and [c["kind"] for c in out["changes"]] == ["mcp-server", "hooks"]
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"] == f"{EXE} loop hook user-prompt-submit"
    code, out, _ = run("uninstall", "--client", "claude-code", "--project", str(project), "--json")
    assert [c["action"] for c in out["changes"]] == ["deleted", "deleted"]


def test_install_commands_have_json():
    for command in (install_cmd, uninstall_cmd):
        assert any("--json" in p.opts for p in command.params)

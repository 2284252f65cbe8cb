"""``lazy-intel lsp …``: status (starts nothing), qualify (checks, then a real initialize), operations."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from lazy_intel.cli.main import main
from tests.semantic.conftest import INSTALL_HINT, FakeSetup, locate_server, write_config


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.output


def test_status_shows_metadata_and_starts_nothing(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok")
    code, out = run("lsp", "status", "--config", str(setup.config), "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["configured"] is True and report["source"]["label"] == f"file:{setup.config.name}"
    (server,) = report["servers"]
    assert server["id"] == "fake"
    assert "executable" not in server and "arguments" not in server
    assert not setup.log.exists()  # nothing was started
    code, text = run("lsp", "status", "--config", str(setup.config))
    assert code == 0 and "fake: fake server" in text


def test_status_without_configuration_is_an_answer() -> None:
    """Nothing configured is the default install's state: reported, exit 0 (issue 18, class 3)."""
    unset = {"LAZY_INTEL_LSP_CONFIG": "", "LAZY_INTEL_LSP": ""}
    code, out = run("lsp", "status", "--json", env=unset)
    assert code == 0, out
    report = json.loads(out)
    assert report["configured"] is False and report["servers"] == [] and report["source"] is None
    assert "LAZY_INTEL_LSP_CONFIG" in report["next_step"]
    code, text = run("lsp", "status", env=unset)
    assert code == 0 and "no language servers configured" in text
    # a configuration that is given but wrong is still an error
    code, out = run("lsp", "status", "--config", "relative.json")
    assert code == 1 and "not an absolute path" in out


def test_qualify_initializes_for_real(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok")
    code, out = run("lsp", "qualify", "--config", str(setup.config), "--workspace", str(setup.root), "--json")
    assert code == 0, out
    (server,) = json.loads(out)["servers"]
    assert server["qualified"] and server["started"]
    assert server["checks"] == {
        "workspace": "ok",
        "reviewed": "ok",
        "executable": "ok",
        "outside_workspace": "ok",
    }
    assert server["operations"] == ["definition", "references", "hover", "document_symbols", "diagnostics"]
    assert server["server_version"] == "ok"
    assert len(server["capability_fingerprint"]) == 64
    assert "initialize" in setup.methods() and "shutdown" in setup.methods()


def test_qualify_no_start_and_tampered_executable(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok")
    code, out = run(
        "lsp", "qualify", "--config", str(setup.config), "-w", str(setup.root), "--no-start", "--json"
    )
    assert code == 0, out
    assert json.loads(out)["servers"][0]["started"] is False
    assert not setup.log.exists()
    exe = Path(json.loads(setup.config.read_text())["servers"][0]["executable"])
    exe.write_text(exe.read_text() + "\n")
    code, out = run("lsp", "qualify", "--config", str(setup.config), "-w", str(setup.root), "--json")
    assert code == 1
    assert "not the reviewed" in out


def test_operation_commands(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", extra="3")
    base = ["--config", str(setup.config), "-w", str(setup.root)]
    code, out = run("lsp", "hover", "mod.fake", "--line", "0", "--character", "4", *base, "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["status"] == "ok" and answer["items"][0]["text"] == "hover from ok"
    code, out = run("lsp", "definition", "mod.fake", "--line", "0", "--character", "4", *base)
    assert code == 0 and "mod.fake:1-1 [definition]" in out
    code, out = run("lsp", "document-symbols", "mod.fake", *base, "--limit", "2")
    assert code == 0 and "--cursor" in out
    code, out = run("lsp", "call-hierarchy", "mod.fake", "--line", "0", "--character", "0", *base, "--json")
    assert code == 1 and json.loads(out)["code"] == "UNSUPPORTED"
    code, out = run("lsp", "workspace-symbols", "alpha", *base, "--json")
    assert code == 1 and json.loads(out)["code"] == "UNSUPPORTED"


def test_qualify_a_real_server(tmp_path: Path, make_repo: Callable[..., Path]) -> None:
    server = locate_server("jedi")
    if server is None:
        pytest.skip(f"jedi is not installed: {INSTALL_HINT}")
    operator = tmp_path / "operator"
    operator.mkdir()
    config = write_config(Path(os.path.realpath(operator)) / "c.json", [server.entry()])
    root = make_repo({"a.py": "def f():\n    return 1\n"})
    code, out = run("lsp", "qualify", "--config", str(config), "-w", str(root), "--json")
    assert code == 0, out
    (report,) = json.loads(out)["servers"]
    assert {"definition", "references", "hover", "diagnostics"} <= set(report["operations"])
    assert report["position_encoding"] in ("utf-8", "utf-16")


def test_every_lsp_command_and_setting_is_documented() -> None:
    from lazy_intel.cli.lsp_cmds import lsp
    from lazy_intel.settings import SETTINGS

    reference = (Path(__file__).resolve().parents[2] / "docs" / "reference.md").read_text(encoding="utf-8")
    headings = {line[4:].strip() for line in reference.splitlines() if line.startswith("### ")}
    assert "lazy-intel lsp" in headings
    for name in lsp.commands:  # type: ignore[attr-defined]
        assert f"lazy-intel lsp {name}" in headings, name
    for setting in SETTINGS:
        if setting.name.startswith("lsp"):
            assert f"`{setting.env}`" in reference

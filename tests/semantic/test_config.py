"""code-intel-config.v1: strict bounded validation, trust checks, the short form, settings."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.errors import InvalidArgument
from lazy_intel.semantic.config import config_from_short_form, load_config_file, load_lsp_config
from lazy_intel.settings import load_settings
from tests.semantic.conftest import install_fake_server, sha256_of, write_config


@pytest.fixture
def entry(config_dir: Path) -> Callable[..., dict[str, Any]]:
    exe = install_fake_server(config_dir)

    def build(**overrides: Any) -> dict[str, Any]:
        base: dict[str, Any] = {
            "protocol_version": "code-intel-lsp.v1",
            "id": "fake",
            "name": "Fake",
            "languages": [{"id": "python", "extensions": [".py"]}],
            "executable": str(exe),
            "arguments": ["ok", "/dev/null"],
            "executable_sha256": sha256_of(exe),
            "reviewed_by": "operator",
            "reviewed_at": "2026-08-20T00:00:00Z",
        }
        base.update(overrides)
        return {k: v for k, v in base.items() if v is not None}

    return build


def load(config_dir: Path, entries: list[dict[str, Any]]) -> Any:
    return load_config_file(str(write_config(config_dir / "c.json", entries)))


def test_valid_config_loads_with_source_label_and_hash(
    config_dir: Path, entry: Callable[..., dict[str, Any]]
) -> None:
    config = load(config_dir, [entry(request_timeout_ms=2000, initialization_options={"a": {"b": 1}})])
    assert config.source_label == "file:c.json"
    assert len(config.source_sha256) == 64
    (server,) = config.servers
    assert server.request_timeout_ms == 2000
    assert server.language_for("pkg/mod.py") == "python"
    assert server.language_for("pkg/mod.ts") is None
    assert "executable" not in server.metadata()
    assert "arguments" not in server.metadata()


@pytest.mark.parametrize(
    ("overrides", "field", "problem"),
    [
        ({"id": "Bad Id"}, "servers[0].id", "must match"),
        ({"name": "x\x07y"}, "servers[0].name", "must match"),
        ({"languages": []}, "servers[0].languages", "1..16"),
        (
            {"languages": [{"id": "python", "extensions": ["py"]}]},
            "servers[0].languages[0].extensions[0]",
            ".py",
        ),
        (
            {"languages": [{"id": "python", "extensions": [".py"], "x": 1}]},
            "servers[0].languages[0]",
            "only id",
        ),
        ({"arguments": ["a\x00b"]}, "servers[0].arguments[0]", "string"),
        ({"arguments": ["x"] * 65}, "servers[0].arguments", "at most 64"),
        ({"executable_sha256": "ABC"}, "servers[0].executable_sha256", "must match"),
        ({"request_timeout_ms": 50}, "servers[0].request_timeout_ms", "100..120000"),
        ({"request_timeout_ms": True}, "servers[0].request_timeout_ms", "integer"),
        ({"reviewed_at": "yesterday"}, "servers[0].reviewed_at", "RFC 3339"),
        ({"reviewed_at": "2026-08-20T00:00:00"}, "servers[0].reviewed_at", "no time zone"),
        ({"reviewed_by": None}, "servers[0].reviewed_by", "must match"),
        ({"initialization_options": [1]}, "servers[0].initialization_options", "JSON object"),
        ({"initialization_options": {"x": "y" * 70_000}}, "servers[0].initialization_options", "exceeds"),
        ({"environment": {"A": "b"}}, "servers[0].environment", "not a code-intel-lsp.v1 field"),
        ({"protocol_version": "v2"}, "servers[0].protocol_version", "code-intel-lsp.v1"),
        ({"executable": "relative/server"}, "servers[0].executable", "not an absolute path"),
        ({"executable": "/nonexistent/server"}, "servers[0].executable", "does not exist"),
        ({"executable": "/tmp"}, "servers[0].executable", "not a regular file"),
    ],
)
def test_invalid_fields_are_named(
    config_dir: Path,
    entry: Callable[..., dict[str, Any]],
    overrides: dict[str, Any],
    field: str,
    problem: str,
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        load(config_dir, [entry(**overrides)])
    assert field in caught.value.message
    assert problem in caught.value.message


def test_nesting_limit(config_dir: Path, entry: Callable[..., dict[str, Any]]) -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(20):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(InvalidArgument, match="levels of nesting"):
        load(config_dir, [entry(initialization_options=deep)])


def test_at_most_32_servers_and_no_duplicates(config_dir: Path, entry: Callable[..., dict[str, Any]]) -> None:
    many = [entry(id=f"s{i}", languages=[{"id": "l", "extensions": [f".e{i}"]}]) for i in range(33)]
    with pytest.raises(InvalidArgument, match=r"servers: must be a list of 1\.\.32"):
        load(config_dir, many)
    assert len(load(config_dir, many[:32]).servers) == 32
    with pytest.raises(InvalidArgument, match="configured twice"):
        load(config_dir, [entry(), entry(languages=[{"id": "x", "extensions": [".x"]}])])
    with pytest.raises(InvalidArgument, match=r"extension \.py is already served by 'fake'"):
        load(config_dir, [entry(), entry(id="other")])


def test_document_level_checks(config_dir: Path) -> None:
    path = config_dir / "doc.json"
    path.write_text(json.dumps({"protocol_version": "code-intel-config.v0", "servers": []}))
    with pytest.raises(InvalidArgument, match=r"protocol_version: must be code-intel-config\.v1"):
        load_config_file(str(path))
    path.write_text("{not json")
    with pytest.raises(InvalidArgument, match="not UTF-8 JSON"):
        load_config_file(str(path))
    path.write_text(json.dumps({"protocol_version": "code-intel-config.v1", "servers": [], "source": "x"}))
    with pytest.raises(InvalidArgument, match=r"source: is not a code-intel-config\.v1 field"):
        load_config_file(str(path))


def test_config_file_must_be_canonical_regular_file(
    config_dir: Path, entry: Callable[..., dict[str, Any]]
) -> None:
    real = write_config(config_dir / "real.json", [entry()])
    link = config_dir / "link.json"
    link.symlink_to(real)
    with pytest.raises(InvalidArgument, match="is a symbolic link"):
        load_config_file(str(link))
    with pytest.raises(InvalidArgument, match="not an absolute path"):
        load_config_file("real.json")
    (config_dir / "sub").mkdir()
    with pytest.raises(InvalidArgument, match="not canonical"):
        load_config_file(str(config_dir / "sub" / ".." / "real.json"))
    linked_dir = config_dir / "linkdir"
    linked_dir.symlink_to(config_dir)
    with pytest.raises(InvalidArgument, match="not canonical"):
        load_config_file(str(linked_dir / "real.json"))


def test_executable_under_node_modules_bin_is_refused(
    config_dir: Path, entry: Callable[..., dict[str, Any]]
) -> None:
    bin_dir = config_dir / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    exe = install_fake_server(bin_dir)
    with pytest.raises(InvalidArgument, match=r"node_modules/\.bin"):
        load(config_dir, [entry(executable=str(exe), executable_sha256=sha256_of(exe))])


def test_non_executable_file_is_refused(config_dir: Path, entry: Callable[..., dict[str, Any]]) -> None:
    plain = config_dir / "plain"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(InvalidArgument, match="is not executable"):
        load(config_dir, [entry(executable=str(plain), executable_sha256=sha256_of(plain))])


def test_short_form_pins_the_hash_it_saw(config_dir: Path) -> None:
    exe = install_fake_server(config_dir)
    config = config_from_short_form({"python": str(exe)})
    (server,) = config.servers
    assert server.executable_sha256 == sha256_of(exe)
    assert server.language_for("a.py") == "python"
    assert config.source_label == "env:LAZY_INTEL_LSP"
    with pytest.raises(InvalidArgument, match=r"LAZY_INTEL_LSP\.cobol: unknown language"):
        config_from_short_form({"cobol": str(exe)})
    with pytest.raises(InvalidArgument, match="not an absolute path"):
        config_from_short_form({"python": "pyright-langserver"})


def test_settings_select_the_configuration(config_dir: Path, entry: Callable[..., dict[str, Any]]) -> None:
    path = write_config(config_dir / "env.json", [entry()])
    assert load_lsp_config(load_settings({})) is None
    from_env = load_lsp_config(load_settings({"LAZY_INTEL_LSP_CONFIG": str(path)}))
    assert from_env is not None and from_env.source_label == "file:env.json"
    exe = entry()["executable"]
    short = load_lsp_config(load_settings({"LAZY_INTEL_LSP": json.dumps({"python": exe})}))
    assert short is not None and short.source_label == "env:LAZY_INTEL_LSP"
    explicit = load_lsp_config(
        load_settings({"LAZY_INTEL_LSP": json.dumps({"python": exe})}), config_path=str(path)
    )
    assert explicit is not None and explicit.source_label == "file:env.json"
    assert os.path.isabs(str(path))


def test_arguments_naming_node_modules_bin_are_refused(
    config_dir: Path, entry: Callable[..., dict[str, Any]]
) -> None:
    with pytest.raises(InvalidArgument, match=r"servers\[0\]\.arguments\[0\]: names a node_modules/\.bin"):
        load(config_dir, [entry(arguments=["/repo/node_modules/.bin/tsserver"])])

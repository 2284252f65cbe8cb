"""docs/reference.md describes ``lazy-intel ui`` and the picture formats as the code has them."""

from __future__ import annotations

from pathlib import Path

import click

from lazy_intel.cli.main import main
from lazy_intel.ui.assets import VIS_DISTRIBUTION, VIS_DISTRIBUTION_VERSION, VIS_NETWORK_VERSION
from lazy_intel.ui.formats import FORMATS
from lazy_intel.ui.picture import MAX_PER_ROW, MAX_ROW_WIDTH
from lazy_intel.ui.publication import POLL_S
from lazy_intel.ui.server import ENDPOINTS, MAX_ACTIVE_REQUESTS, MAX_STREAMS

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def section(command: str) -> str:
    text = REFERENCE.read_text()
    start = text.index(f"### lazy-intel {command}\n")
    end = text.find("\n### ", start + 1)
    return text[start:end]


def options(command: click.Command) -> list[str]:
    out = []
    for param in command.params:
        if isinstance(param, click.Option):
            out.extend(o for o in param.opts if o.startswith("--"))
            out.extend(o for o in param.secondary_opts if o.startswith("--"))
    return out


def test_every_ui_and_architecture_option_is_documented() -> None:
    for name in ("ui", "architecture"):
        text = section(name)
        missing = [o for o in options(main.commands[name]) if o not in text and o not in ("--help",)]
        if name == "architecture":  # the shared query options are documented once, above
            missing = [
                o
                for o in missing
                if o not in ("--root", "--state-dir", "--json", "--cursor", "--freshness", "--max-chars")
            ]
        assert not missing, f"{name}: undocumented options {missing}"


def test_the_documented_figures_match_the_code() -> None:
    arch, ui = section("architecture"), section("ui")
    assert all(f in arch for f in FORMATS)
    assert f"more than {MAX_PER_ROW} packages or wider than {MAX_ROW_WIDTH} px" in arch
    assert f"every {POLL_S:g} s" in ui
    assert f"at most {MAX_ACTIVE_REQUESTS} API requests" in ui and f"{MAX_STREAMS} event streams" in ui
    for endpoint in ENDPOINTS:
        assert f"`{endpoint}" in ui, endpoint
    assert f"vis-network {VIS_NETWORK_VERSION}" in ui
    assert f"`{VIS_DISTRIBUTION}=={VIS_DISTRIBUTION_VERSION}`" in ui
    assert (
        f'"{VIS_DISTRIBUTION}=={VIS_DISTRIBUTION_VERSION}"' in PYPROJECT.read_text()
    )  # the pin is the dependency

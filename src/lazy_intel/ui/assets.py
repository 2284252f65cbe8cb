"""The files the page loads: our own (``ui/static/``) and vis-network, from the installed package.

vis-network is not copied into this repository: the pinned PyPI release ``pyvis==0.3.2`` (a
dependency in pyproject.toml, so the one install command brings it) installs vis-network 9.1.2 as
``pyvis/lib/vis-9.1.2/``; we serve those files from where pip put them, found through the
distribution's metadata (``pyvis`` itself is never imported). Their SHA-256 is checked against the
pinned values before the first byte is served, so the page never runs anything but the release we
tested. Nothing is fetched at run time.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.errors import Unsupported

VIS_DISTRIBUTION = "pyvis"
VIS_DISTRIBUTION_VERSION = "0.3.2"
VIS_NETWORK_VERSION = "9.1.2"
VIS_FILES: dict[str, str] = {  # served name -> SHA-256 of the file pyvis 0.3.2 installs
    "vis-network.min.js": "1f20f0736f32cb9bedf8f6383b25cfea2f839e1abe80d6e8040b4d5bea378c69",
    "vis-network.css": "2e82d445ad5878ea881652470ce632601f8f55f1b99e6ebecdff8614600e6d0e",
}
OWN_FILES: dict[str, str] = {  # served name -> content type
    "app.js": "text/javascript; charset=utf-8",
    "graphs.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "page.html": "text/html; charset=utf-8",
}
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@dataclass(frozen=True)
class Asset:
    name: str
    content_type: str
    data: bytes


def _vis_path(name: str) -> Path:
    try:
        dist = importlib.metadata.distribution(VIS_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise Unsupported(
            f"the UI needs vis-network {VIS_NETWORK_VERSION}, installed by {VIS_DISTRIBUTION}=="
            f"{VIS_DISTRIBUTION_VERSION}, which is not installed",
            next_step="reinstall lazy-intel (pip install -e .), which brings it",
        ) from None
    return Path(str(dist.locate_file(f"{VIS_DISTRIBUTION}/lib/vis-{VIS_NETWORK_VERSION}/{name}")))


def vis_asset(name: str) -> Asset:
    """One vis-network file, checked against its pinned hash."""
    expected = VIS_FILES[name]
    path = _vis_path(name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise Unsupported(
            f"vis-network {VIS_NETWORK_VERSION} is missing from the installed {VIS_DISTRIBUTION} ({path}: "
            f"{exc.strerror})",
            next_step=f"pip install --force-reinstall {VIS_DISTRIBUTION}=={VIS_DISTRIBUTION_VERSION}",
        ) from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise Unsupported(
            f"{path} is not the vis-network {VIS_NETWORK_VERSION} this version was tested with "
            f"(sha256 {actual[:12]}, expected {expected[:12]})",
            next_step=f"pip install --force-reinstall {VIS_DISTRIBUTION}=={VIS_DISTRIBUTION_VERSION}",
        )
    return Asset(name, CONTENT_TYPES[Path(name).suffix], data)


def own_asset(name: str) -> Asset:
    data = importlib.resources.files("lazy_intel.ui").joinpath("static", name).read_bytes()
    return Asset(name, OWN_FILES[name], data)


def load_assets() -> dict[str, Asset]:
    """Every file the page may load, read and checked once at start (a missing one fails early)."""
    out = {name: vis_asset(name) for name in VIS_FILES}
    out.update({name: own_asset(name) for name in OWN_FILES})
    return out

"""lazy-intel: local code intelligence for AI coding agents.

The Python API is :func:`open_workspace`; the CLI and the MCP server are thin layers over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from lazy_intel.service.workspace import Workspace


def open_workspace(root: str, **kwargs: Any) -> Workspace:
    """Open (without indexing) the workspace rooted at ``root``; see :class:`Workspace`."""
    from lazy_intel.service.workspace import Workspace

    return Workspace.open(root, **kwargs)


__all__ = ["__version__", "open_workspace"]

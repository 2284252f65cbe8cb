"""Open workspaces of one process, bounded by ``LAZY_INTEL_MAX_ROOTS`` (least recently used closes first)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.workspace.root import canonical_root


class WorkspaceRegistry:
    def __init__(self, settings: Settings, default_root: str | None) -> None:
        self.settings = settings
        self.default_root = default_root
        self._open: OrderedDict[Path, Workspace] = OrderedDict()
        self._lock = threading.Lock()

    def resolve(self, root: str | None) -> Workspace:
        raw = root or self.default_root
        if not raw:
            from lazy_intel.errors import InvalidArgument

            raise InvalidArgument("root is required (the server has no default root)")
        canonical = canonical_root(
            raw, allowed_roots=self.settings.allowed_roots, deny_roots=self.settings.deny_roots
        )
        with self._lock:
            workspace = self._open.get(canonical)
            if workspace is None:
                workspace = Workspace.open(canonical, settings=self.settings)
                self._open[canonical] = workspace
                self._evict()
            self._open.move_to_end(canonical)
            return workspace

    def _evict(self) -> None:
        while len(self._open) > self.settings.max_roots:
            for path, workspace in list(self._open.items()):
                if not workspace.is_building():
                    del self._open[path]
                    break
            else:
                return

    def workspaces(self) -> list[Workspace]:
        with self._lock:
            return list(self._open.values())

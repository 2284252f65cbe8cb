"""Open workspaces of one server, bounded by ``LAZY_INTEL_MAX_ROOTS``.

A root is opened on first use (and, when serving, starts its watcher); beyond the bound the least
recently used idle workspace is closed — its watcher and sync thread stop and its writer lock is
released. A workspace in the middle of a sync is not interrupted: the bound is enforced again on the
next request. Workspaces unused for ``LAZY_INTEL_ROOT_IDLE_MS`` are closed by :meth:`close_idle`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from pathlib import Path

from lazy_intel.errors import InvalidArgument
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.workspace.root import canonical_root

logger = logging.getLogger(__name__)


class WorkspaceRegistry:
    def __init__(self, settings: Settings, default_root: str | None, *, serving: bool = False) -> None:
        self.settings = settings
        self.default_root = default_root
        self.serving = serving
        self._open: OrderedDict[Path, Workspace] = OrderedDict()
        self._lock = threading.Lock()
        self.closed = False

    def resolve(self, root: str | None) -> Workspace:
        raw = root or self.default_root
        if not raw:
            raise InvalidArgument("root is required (the server has no default root)")
        canonical = canonical_root(
            raw, allowed_roots=self.settings.allowed_roots, deny_roots=self.settings.deny_roots
        )
        closing: list[Workspace] = []
        opened = False
        with self._lock:
            if self.closed:
                raise InvalidArgument("the server is shutting down")
            workspace = self._open.get(canonical)
            if workspace is None:
                workspace = Workspace.open(canonical, settings=self.settings)
                self._open[canonical] = workspace
                opened = True
            # a root that was mid-sync when the bound was passed is closed by a later request
            closing = self._evict(keep=canonical)
            self._open.move_to_end(canonical)
            workspace.last_used = time.monotonic()
        for old in closing:
            old.close()
        if opened and self.serving:
            workspace.start_serving()
        return workspace

    def _evict(self, keep: Path) -> list[Workspace]:
        out: list[Workspace] = []
        while len(self._open) > self.settings.max_roots:
            victim = next((p for p, w in self._open.items() if p != keep and not w.is_building()), None)
            if victim is None:
                break  # every other root is mid-sync: over the bound until one finishes
            logger.info("closing workspace %s (more than %d roots open)", victim, self.settings.max_roots)
            out.append(self._open.pop(victim))
        return out

    def close_idle(self, now: float | None = None) -> list[Path]:
        """Close workspaces unused for ``LAZY_INTEL_ROOT_IDLE_MS`` (0 disables); returns their roots."""
        idle_s = self.settings.root_idle_ms / 1000
        if idle_s <= 0:
            return []
        now = time.monotonic() if now is None else now
        with self._lock:
            stale = [p for p, w in self._open.items() if now - w.last_used >= idle_s and not w.is_building()]
            victims = [self._open.pop(p) for p in stale]
        for workspace in victims:
            workspace.close()
        return stale

    def close_all(self) -> bool:
        """Close every workspace; True when all stopped in time."""
        with self._lock:
            self.closed = True
            victims = list(self._open.values())
            self._open.clear()
        return all([w.close() for w in victims])

    def workspaces(self) -> list[Workspace]:
        with self._lock:
            return list(self._open.values())

"""What an operation handler receives."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lazy_intel.evidence.model import View
from lazy_intel.service.ops.requests import Request
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.store.reader import ReadView

if TYPE_CHECKING:
    from lazy_intel.semantic import SemanticLayer


@dataclass
class OperationContext:
    workspace: Workspace
    request: Request
    view: ReadView | None
    view_info: View
    warnings: list[str] = field(default_factory=list)
    settings: Settings | None = None  # set by execute; None only in hand-built contexts
    deadline: float | None = None  # time.monotonic() by which the request must answer
    semantic: SemanticLayer | None = None

    def __post_init__(self) -> None:
        if self.settings is None:
            self.settings = self.workspace.settings

    def need_view(self) -> ReadView:
        assert self.view is not None, "operation declared reads_view"
        return self.view

    def remaining_s(self) -> float | None:
        """Seconds left before the request's deadline (``None``: no deadline, e.g. the CLI)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

"""What an operation handler receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lazy_intel.evidence.model import View
from lazy_intel.service.requests import Request
from lazy_intel.service.workspace import Workspace
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
    semantic: SemanticLayer | None = None

    def need_view(self) -> ReadView:
        assert self.view is not None, "operation declared reads_view"
        return self.view

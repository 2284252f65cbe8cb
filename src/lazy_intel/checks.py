"""One health-check record shared by ``doctor`` and every package that contributes checks."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

CHECK_STATUSES: tuple[str, ...] = ("ok", "info", "warn", "fail")
OK, INFO, WARN, FAIL = CHECK_STATUSES


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | info | warn | fail
    message: str
    next_step: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

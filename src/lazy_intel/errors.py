"""One exception base for the whole product, each subclass carrying a stable code.

Codes are part of the public contract (CLI ``--json``, the MCP tool, the docs): never rename one.
Every error names the object it is about and, where there is one, the next step to take.
"""

from __future__ import annotations


class LazyIntelError(Exception):
    """Base error. ``code`` is stable; ``message`` names the object; ``next_step`` says what to do."""

    code = "INTERNAL"

    def __init__(self, message: str, *, next_step: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.next_step = next_step
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class InvalidArgument(LazyIntelError):
    """A request argument is missing, malformed or out of range."""

    code = "INVALID_ARGUMENT"


class NotFound(LazyIntelError):
    """A named object (symbol, file, anchor) does not exist in the view."""

    code = "NOT_FOUND"


class IndexBuilding(LazyIntelError):
    """No published view exists yet; a build has been scheduled."""

    code = "INDEX_BUILDING"


class WorkspaceOwned(LazyIntelError):
    """Another process holds the writer lock for this workspace."""

    code = "WORKSPACE_OWNED"

    def __init__(self, message: str, *, pid: int | None = None, next_step: str | None = None) -> None:
        super().__init__(message, next_step=next_step)
        self.pid = pid


class Unsupported(LazyIntelError):
    """The operation cannot be served here (language, capability, projection)."""

    code = "UNSUPPORTED"


class SourceChanged(LazyIntelError):
    """Files the answer was built from changed on disk while it was being read."""

    code = "SOURCE_CHANGED"


class StoreError(LazyIntelError):
    """The store is missing, corrupt or of an incompatible schema."""

    code = "STORE_CORRUPT"


class StoreCorrupt(StoreError):
    """The store fails an integrity check or cannot be read: it must be rebuilt, never served."""


class Busy(LazyIntelError):
    """The server's request queue is full."""

    code = "BUSY"


class Timeout(LazyIntelError):
    """A bounded operation ran out of time."""

    code = "TIMEOUT"


class GateRefused(LazyIntelError):
    """A goal-loop gate refused a transition; ``code`` names the gate (see ``LOOP_GATE_CODES``)."""

    code = "LOOP_STATE"

    def __init__(
        self,
        message: str,
        *,
        code: str,
        next_step: str | None = None,
        details: dict[str, object] | None = None,
    ) -> None:
        if code not in LOOP_GATE_CODES:
            raise ValueError(f"unknown gate code {code!r}")
        super().__init__(message, next_step=next_step, code=code)
        self.details = dict(details or {})


LOOP_GATE_CODES: tuple[str, ...] = (
    "LOOP_NOT_REGISTERED",
    "LOOP_EXISTS",
    "LOOP_STATE",
    "PLAN_NOT_APPROVED",
    "DIRTY_TREE",
    "EVIDENCE_MISSING",
    "EVIDENCE_STALE",
    "NOT_A_GIT_REPO",
    "LOOP_STATE_CORRUPT",
)

ERROR_CODES: tuple[str, ...] = (
    "INTERNAL",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "INDEX_BUILDING",
    "WORKSPACE_OWNED",
    "UNSUPPORTED",
    "SOURCE_CHANGED",
    "STORE_CORRUPT",
    "BUSY",
    "TIMEOUT",
    "CURSOR_STALE",
    *LOOP_GATE_CODES,
    "UNAVAILABLE",
    "FORBIDDEN",
)


class Unavailable(LazyIntelError):
    """A live backend (a language server) is not running, crashed or broke its protocol."""

    code = "UNAVAILABLE"


class Forbidden(LazyIntelError):
    """A request to the ``lazy-intel ui`` server without its token, or not addressed to loopback."""

    code = "FORBIDDEN"

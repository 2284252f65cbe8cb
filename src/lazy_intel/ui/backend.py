"""What the page asks for, answered by the same operations the CLI and MCP serve.

Each method runs operations through :func:`lazy_intel.service.operations.execute` on the published
view (``freshness: fast`` — the page shows what is published; a new publication is pushed to it) and
returns JSON-ready dicts. Source text comes from the captured bytes in the store (never the disk), for
a path the view holds.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from lazy_intel.errors import IndexBuilding, InvalidArgument, LazyIntelError, NotFound
from lazy_intel.evidence.model import Answer
from lazy_intel.service.operations import execute
from lazy_intel.ui.graphs import call_graph, impact_graph
from lazy_intel.ui.picture import picture_from_answer, picture_to_dict

if TYPE_CHECKING:
    from lazy_intel.semantic import SemanticLayer
    from lazy_intel.service.workspace import Workspace

logger = logging.getLogger(__name__)

CENTRAL_LIMIT = 25
SEARCH_LIMIT = 20
GRAPH_LIMIT = 60  # call sites per direction in one step of the symbol graph
IMPACT_LIMIT = 120
IMPACT_DEPTH = 2
MAX_SOURCE_BYTES = 2 * 1024 * 1024
MODES = ("calls", "impact")


class UIBackend:
    def __init__(self, workspace: Workspace, *, semantic: SemanticLayer | None = None) -> None:
        self.workspace = workspace
        self.settings = workspace.settings
        self.semantic = semantic

    def _run(self, args: dict[str, Any]) -> Answer:
        clean = {k: v for k, v in args.items() if v is not None}
        deadline = time.monotonic() + self.settings.timeout_ms / 1000
        return execute(
            {"freshness": "fast", **clean},
            lambda _root: self.workspace,
            self.settings,
            deadline=deadline,
            semantic=self.semantic,
        )

    # ---- the view
    def view(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "root": str(self.workspace.root),
            "name": self.workspace.root.name,
            "building": self.workspace.is_building(),
            "watching": self.workspace.watching(),
        }
        try:
            with self.workspace.read() as view:
                info.update(status="ok", generation=view.generation, published_at=view.published_at)
        except LazyIntelError as exc:
            info.update(status="ok" if isinstance(exc, IndexBuilding) else "error", generation=0)
            info.update(code=exc.code, message=exc.message, next_step=exc.next_step)
        return info

    def generation(self) -> tuple[int, str | None]:
        with self.workspace.read() as view:
            return view.generation, view.published_at

    # ---- operations
    def architecture(self, path: str | None) -> dict[str, Any]:
        answer = self._run(
            {
                "operation": "architecture",
                "relativePath": path,
                "limit": CENTRAL_LIMIT,
                "maxChars": self.settings.max_output_chars,
            }
        ).to_dict()
        if answer["status"] == "error":
            return answer
        return {
            "status": answer["status"],
            "view": answer["view"],
            "warnings": answer.get("warnings", []),
            "picture": picture_to_dict(picture_from_answer(answer, self.workspace.root.name)),
        }

    def search(self, query: str) -> dict[str, Any]:
        return self._run({"operation": "search", "query": query, "limit": SEARCH_LIMIT}).to_dict()

    def symbol(self, name: str, path: str | None) -> dict[str, Any]:
        return self._run({"operation": "symbol", "symbol": name, "relativePath": path, "limit": 20}).to_dict()

    def graph(self, name: str, path: str | None, mode: str) -> dict[str, Any]:
        if mode not in MODES:
            raise InvalidArgument(f"mode={mode!r} is not one of {', '.join(MODES)}")
        common = {"symbol": name, "relativePath": path, "maxChars": self.settings.max_output_chars}
        if mode == "impact":
            answer = self._run(
                {"operation": "impact", "depth": IMPACT_DEPTH, "limit": IMPACT_LIMIT, **common}
            ).to_dict()
            return answer if answer["status"] == "error" else {"status": "ok", **impact_graph(answer)}
        callers = self._run({"operation": "callers", "limit": GRAPH_LIMIT, **common}).to_dict()
        if callers["status"] == "error":
            return callers
        callees = self._run({"operation": "callees", "limit": GRAPH_LIMIT, **common}).to_dict()
        if callees["status"] == "error":
            return callees
        return {"status": "ok", **call_graph(callers, callees)}

    # ---- captured bytes
    def source(self, path: str, sha256: str | None) -> dict[str, Any]:
        """The captured text of ``path``: the bytes with hash ``sha256`` when the store still holds
        them, else the path's current capture (``current`` says which)."""
        with self.workspace.read() as view:
            row = view.file(path)
            if row is None:
                raise NotFound(f"{path!r} is not a file of generation {view.generation}")
            wanted = sha256 or row.sha256
            data = view.content(wanted) if wanted else None
            note = None
            if data is None and wanted != row.sha256:
                note = f"the bytes {wanted[:12]} are no longer in the store; showing the current capture"
                wanted, data = row.sha256, view.content(row.sha256)
            if data is None:
                raise NotFound(f"{path} has no captured text ({row.status})")
            if len(data) > MAX_SOURCE_BYTES:
                raise InvalidArgument(
                    f"{path} is {len(data)} bytes; the page shows at most {MAX_SOURCE_BYTES}"
                )
            try:
                text, lossy = data.decode("utf-8"), False
            except UnicodeDecodeError:
                text, lossy = data.decode("utf-8", errors="replace"), True
            return {
                "status": "ok",
                "path": path,
                "sha256": wanted,
                "current": wanted == row.sha256,
                "generation": view.generation,
                "text": text,
                "lossy": lossy,
                "note": note,
            }

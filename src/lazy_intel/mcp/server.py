"""``lazy-intel serve``: the MCP stdio server with exactly one tool, ``code_intel``.

Requests are admitted by :class:`~lazy_intel.mcp.admission.Admission`: at most 4 run at once and
32 wait; beyond that the call answers ``BUSY`` at once. A request that exceeds
``LAZY_INTEL_TIMEOUT_MS`` answers ``TIMEOUT``; the work it started (a shared sync) goes on for the
other callers, and a client's cancellation only ends that client's wait. Inputs over
``LAZY_INTEL_MAX_INPUT_CHARS`` are refused; outputs are bounded by ``maxChars``.

When stdin closes the server stops: every workspace closes (watchers, sync threads, writer locks),
the language servers are shut down, parse pools are terminated, and the process exits without waiting for abandoned request threads.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from lazy_intel import __version__
from lazy_intel.errors import LazyIntelError
from lazy_intel.evidence.budget import error_answer, serialize
from lazy_intel.evidence.model import NO_VIEW, Answer
from lazy_intel.mcp.admission import MAX_ACTIVE, MAX_QUEUED, Admission, deadline_after, run_in_daemon_thread
from lazy_intel.mcp.frames import AnswerUnreadableFrames, client_gone
from lazy_intel.mcp.memory_trace import MemoryTrace
from lazy_intel.semantic import SemanticLayer
from lazy_intel.service.operations import OPERATIONS, execute
from lazy_intel.service.parse_pool import terminate_parse_pools
from lazy_intel.service.registry import WorkspaceRegistry
from lazy_intel.service.requests import argument_depth_problem, operation_name, requested_budget
from lazy_intel.service.schema import tool_description, tool_input_schema
from lazy_intel.settings import Settings

logger = logging.getLogger(__name__)

TOOL_NAME = "code_intel"
SHUTDOWN_S = 10.0
IDLE_SWEEP_S = 60.0


class CodeIntelServer:
    """Holds the registry and the admission state; builds the SDK ``Server``."""

    def __init__(
        self,
        settings: Settings,
        default_root: str | None,
        semantic: SemanticLayer | None = None,
        *,
        serving: bool = True,
    ) -> None:
        self.settings = settings
        self.registry = WorkspaceRegistry(settings, default_root, serving=serving)
        self.admission = Admission(MAX_ACTIVE, MAX_QUEUED)
        self.semantic = semantic
        self._negotiated: dict[str, tuple[str, ...]] | None = None

    def negotiated(self) -> dict[str, tuple[str, ...]]:
        """Semantic operations some configured server negotiated for the default root (cached).

        Starting the servers is the only way to learn their capabilities; it happens once, on the
        first tools/list, in a worker thread. No configured server: nothing is started.
        """
        if self._negotiated is None:
            found: dict[str, tuple[str, ...]] = {}
            if self.semantic is not None and self.semantic.configured:
                try:
                    root = self.registry.resolve(None).root
                    found = self.semantic.available_operations(root)
                except LazyIntelError as exc:
                    logger.warning("language servers not listed: %s", exc)
            self._negotiated = found
        return self._negotiated

    def operations(self) -> dict[str, str]:
        """What the tool offers: every index operation, and the semantic ones a server negotiated."""
        negotiated = self.negotiated()
        return {
            name: spec.summary for name, spec in OPERATIONS.items() if not spec.semantic or name in negotiated
        }

    def tool(self) -> types.Tool:
        ops = self.operations()
        return types.Tool(
            name=TOOL_NAME,
            description=tool_description(ops),
            input_schema=tool_input_schema(ops),
        )

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tool = await anyio.to_thread.run_sync(self.tool)
        return types.ListToolsResult(tools=[tool])

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name != TOOL_NAME:
            answer = error_answer(
                "unknown",
                "INVALID_ARGUMENT",
                f"unknown tool {params.name[:64]!r}; the tool is {TOOL_NAME}",
                view=NO_VIEW,
                max_chars=self.settings.default_max_chars,
            )
            return self._result(answer)
        args = params.arguments or {}
        operation = operation_name(args, tuple(OPERATIONS))
        budget = requested_budget(args, self.settings)
        refusal = argument_depth_problem(args)
        if refusal is None:
            size = len(json.dumps(args, ensure_ascii=False))
            if size > self.settings.max_input_chars:
                refusal = f"request is {size} characters; the limit is {self.settings.max_input_chars}"
        if refusal is not None:
            return self._result(
                error_answer(operation, "INVALID_ARGUMENT", refusal, view=NO_VIEW, max_chars=budget)
            )
        return self._result(await self.run(args))

    async def run(self, args: dict[str, Any]) -> Answer:
        operation = operation_name(args, tuple(OPERATIONS))
        budget = requested_budget(args, self.settings)
        if self.admission.full():
            return error_answer(
                operation,
                "BUSY",
                f"{MAX_ACTIVE} requests are running and {MAX_QUEUED} waiting",
                view=NO_VIEW,
                next_step="retry shortly",
                max_chars=budget,
            )
        timeout_s = self.settings.timeout_ms / 1000
        deadline = deadline_after(timeout_s)
        finished, answer = await self.admission.run(
            lambda: execute(
                args, self.registry.resolve, self.settings, deadline=deadline, semantic=self.semantic
            ),
            timeout_s,
        )
        if finished and answer is not None:
            return answer
        return error_answer(
            operation,
            "TIMEOUT",
            f"{operation} did not finish within {timeout_s:.1f}s (LAZY_INTEL_TIMEOUT_MS)",
            view=NO_VIEW,
            next_step="retry; shared index work continues in the background",
            max_chars=budget,
        )

    async def sweep_idle(self) -> None:
        """Close workspaces unused for ``LAZY_INTEL_ROOT_IDLE_MS`` (runs for the server's life)."""
        while True:
            await anyio.sleep(IDLE_SWEEP_S)
            await run_in_daemon_thread(self.registry.close_idle, name="lazy-intel-idle-sweep")

    async def shutdown(self) -> None:
        """Close every workspace (bounded) and the language servers, then make sure no parse worker
        outlives the server."""
        with anyio.move_on_after(SHUTDOWN_S):
            await run_in_daemon_thread(self.registry.close_all, name="lazy-intel-shutdown")
        try:
            if self.semantic is not None:
                self.semantic.close()  # shutdown/exit, then the process groups of every language server
        finally:
            terminate_parse_pools()

    @staticmethod
    def _result(answer: Answer) -> types.CallToolResult:
        data = answer.to_dict()
        return types.CallToolResult(
            # the compact form: exactly the text budget.used_chars counts
            content=[types.TextContent(type="text", text=serialize(answer))],
            structured_content=data,
            is_error=answer.status == "error",
        )

    def build(self) -> Server[Any]:
        return Server(
            "lazy-intel",
            version=__version__,
            instructions="One tool, code_intel: search, symbol, status, verify … with anchored evidence.",
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )


async def serve_stdio(
    settings: Settings, default_root: str | None, semantic: SemanticLayer | None = None
) -> None:
    app = CodeIntelServer(settings, default_root, semantic)
    server = app.build()
    trace = MemoryTrace(settings.trace_memory_s) if settings.trace_memory_s else None
    if trace is not None:
        trace.start()
    try:
        async with anyio.create_task_group() as group:
            app.admission.attach(group)
            group.start_soon(app.sweep_idle)
            async with stdio_server() as (read_stream, write_stream):
                await server.run(
                    AnswerUnreadableFrames(read_stream, write_stream),
                    write_stream,
                    server.create_initialization_options(),
                )
            group.cancel_scope.cancel()  # the client went away: stop waiting for anything
    except BaseExceptionGroup as group_error:
        if not client_gone(group_error):
            raise
        # the client closed its pipes with an answer still to write: the same as stdin closing
        logger.info("the client closed its pipes; shutting down")
    except OSError as exc:
        if not client_gone(exc):
            raise
        logger.info("the client closed its pipes; shutting down")
    finally:
        await app.shutdown()
        if trace is not None:
            trace.stop()

"""Agent clients' hook contracts: their stdin JSON in, their stdout JSON out.

The loop logic (``hooks.py``) speaks only ``HookEvent`` and ``HookReply``; a client contract
turns the client's JSON into a ``HookEvent`` and a ``HookReply`` into the client's output. Add a
client by adding a class with ``parse`` and ``render`` to ``CONTRACTS``.

Claude Code (checked against its hooks reference): every event carries ``session_id``,
``transcript_path``, ``cwd`` and ``hook_event_name``; ``UserPromptSubmit`` adds ``prompt``;
``PostToolUse`` adds ``tool_name``, ``tool_input``, ``tool_response``; ``PostToolUseFailure``
adds ``tool_name``, ``tool_input`` and ``error``; ``Stop`` adds ``stop_hook_active``. Output on
exit 0: ``{"hookSpecificOutput": {"hookEventName": E, "additionalContext": text}}`` injects
context (SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure); on ``Stop``,
``{"decision": "block", "reason": text}`` makes the agent continue with ``reason`` as its
instruction; ``systemMessage`` is shown to the user. Empty output changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

MAX_HOOK_INPUT_BYTES = 4 * 1024 * 1024
HOOK_EVENTS: tuple[str, ...] = ("session-start", "user-prompt-submit", "post-tool-use", "stop")


class HookInputError(ValueError):
    """The client's hook input is not what its contract promises (the hook then fails open)."""


@dataclass(frozen=True)
class HookEvent:
    event: str  # one of HOOK_EVENTS
    client_event: str  # the client's own event name, echoed back where its contract wants it
    session_id: str | None
    cwd: str | None
    prompt: str | None = None
    tool_name: str | None = None
    tool_failed: bool = False
    stop_hook_active: bool = False


@dataclass(frozen=True)
class HookReply:
    context: str | None = None  # injected into the agent's context
    continue_reason: str | None = None  # stop only: keep working, with this as the instruction
    user_message: str | None = None  # shown to the user, not to the model

    @property
    def empty(self) -> bool:
        return not (self.context or self.continue_reason or self.user_message)


class HookContract(Protocol):
    name: str

    def parse(self, event: str, raw: bytes) -> HookEvent: ...

    def render(self, event: HookEvent, reply: HookReply) -> str: ...


def _optional_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise HookInputError(f"{key} is not a string")
    return value


class ClaudeCodeContract:
    name = "claude-code"
    CLIENT_EVENTS: dict[str, tuple[str, ...]] = {
        "session-start": ("SessionStart",),
        "user-prompt-submit": ("UserPromptSubmit",),
        "post-tool-use": ("PostToolUse", "PostToolUseFailure"),
        "stop": ("Stop",),
    }
    CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"})

    def parse(self, event: str, raw: bytes) -> HookEvent:
        if event not in self.CLIENT_EVENTS:
            raise HookInputError(f"unknown hook event {event!r}")
        if len(raw) > MAX_HOOK_INPUT_BYTES:
            raise HookInputError("hook input is too large")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HookInputError(f"hook input is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise HookInputError("hook input is not a JSON object")
        allowed = self.CLIENT_EVENTS[event]
        client_event = data.get("hook_event_name", allowed[0])
        if client_event not in allowed:
            raise HookInputError(f"hook_event_name {client_event!r} does not belong to `{event}`")
        prompt = _optional_str(data, "prompt") if event == "user-prompt-submit" else None
        tool_name = _optional_str(data, "tool_name") if event == "post-tool-use" else None
        failed = False
        if client_event == "PostToolUseFailure":
            failed = True
        elif client_event == "PostToolUse":
            response = data.get("tool_response")
            failed = isinstance(response, dict) and (
                response.get("is_error") is True or response.get("success") is False
            )
        stop_active = data.get("stop_hook_active") is True
        return HookEvent(
            event=event,
            client_event=client_event,
            session_id=_optional_str(data, "session_id") or None,
            cwd=_optional_str(data, "cwd") or None,
            prompt=prompt,
            tool_name=tool_name,
            tool_failed=failed,
            stop_hook_active=stop_active,
        )

    def render(self, event: HookEvent, reply: HookReply) -> str:
        out: dict[str, Any] = {}
        if reply.continue_reason and event.client_event == "Stop":
            out["decision"] = "block"
            out["reason"] = reply.continue_reason
        if reply.context and event.client_event in self.CONTEXT_EVENTS:
            out["hookSpecificOutput"] = {
                "hookEventName": event.client_event,
                "additionalContext": reply.context,
            }
        if reply.user_message:
            out["systemMessage"] = reply.user_message
        return json.dumps(out) if out else ""


CONTRACTS: dict[str, HookContract] = {"claude-code": ClaudeCodeContract()}

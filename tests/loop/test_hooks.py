"""Agent hooks fed the JSON shapes Claude Code sends, checked against its output contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.loop import operations
from lazy_intel.loop.hooks import run_hook, trigger_matches
from lazy_intel.loop.store import LoopStore

TRANSCRIPT = "/home/u/.claude/projects/-work-app/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl"


def base(cwd: Path, event: str, session: str = "00893aaf-19fa-41d2-8238-13269b9b3ca0") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": TRANSCRIPT,
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
    }


def session_start(cwd: Path, **kw: Any) -> dict[str, Any]:
    return {**base(cwd, "SessionStart", **kw), "source": "startup", "model": "claude-sonnet-4-6"}


def prompt(cwd: Path, text: str, **kw: Any) -> dict[str, Any]:
    return {**base(cwd, "UserPromptSubmit", **kw), "prompt": text}


def tool_ok(cwd: Path, tool: str = "Bash", **kw: Any) -> dict[str, Any]:
    return {
        **base(cwd, "PostToolUse", **kw),
        "tool_name": tool,
        "tool_input": {"command": "pytest -q", "description": "Run tests"},
        "tool_response": {"stdout": "3 passed", "stderr": "", "interrupted": False, "isImage": False},
        "tool_use_id": "toolu_01ABC123",
    }


def tool_failed(cwd: Path, tool: str = "Bash", **kw: Any) -> dict[str, Any]:
    return {
        **base(cwd, "PostToolUseFailure", **kw),
        "tool_name": tool,
        "tool_input": {"command": "pytest -q", "description": "Run tests"},
        "tool_use_id": "toolu_01ABC124",
        "error": "Exit code 1\nFAILED tests/test_app.py::test_export",
        "is_interrupt": False,
    }


def stop(cwd: Path, active: bool = False, **kw: Any) -> dict[str, Any]:
    return {**base(cwd, "Stop", **kw), "stop_hook_active": active, "last_assistant_message": "All done."}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home)}


def call(event: str, payload: dict[str, Any] | bytes, env: dict[str, str]) -> dict[str, Any] | None:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    out = run_hook(event, raw, env=env)
    return json.loads(out) if out else None


def context_of(out: dict[str, Any] | None, event: str) -> str:
    assert out is not None
    assert set(out) == {"hookSpecificOutput"}
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    assert isinstance(specific["additionalContext"], str) and specific["additionalContext"]
    return specific["additionalContext"]


# -- session-start --------------------------------------------------------------------------------------
def test_session_start_reinjects_an_unfinished_loop(executing: Path, env: dict[str, str]):
    operations.step_done(executing, "F1", "curl -> 200")
    text = context_of(call("session-start", session_start(executing / "sub"), env), "SessionStart")
    assert "`export-csv`" in text and "executing" in text
    assert "F1 fresh, F2 missing" in text
    assert "step done F2" in text


def test_session_start_is_silent_without_an_active_loop(repo: Path, env: dict[str, str]):
    assert call("session-start", session_start(repo), env) is None
    assert not (repo / ".lazy-intel").exists()  # hooks never create state


# -- user-prompt-submit ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "fires"),
    [
        ("zw add a CSV export", True),
        ("  ZW: add a CSV export", True),
        ("zw", True),
        ("please zw this", False),
        ("zwift is slow", False),
        ("zw-mode on", False),
        ("run it lazy-intel:zw please", True),
        ("lazy-intel\uff1azw", True),
        ("carry on with export-csv", True),
        ("carry on with export-csv2", False),
        ("nothing to see", False),
    ],
)
def test_trigger_matching(text: str, fires: bool):
    assert trigger_matches(text, "zw", "export-csv") is fires


def test_prompt_trigger_injects_bootstrap_with_loop_state(executing: Path, env: dict[str, str]):
    text = context_of(call("user-prompt-submit", prompt(executing, "zw keep going"), env), "UserPromptSubmit")
    assert "lazy-intel loop register" in text and "lazy-intel loop finish" in text
    assert "HEAD^{tree}" in text
    assert "`export-csv`" in text and "F1 missing" in text
    assert call("user-prompt-submit", prompt(executing, "what time is it"), env) is None


def test_prompt_trigger_without_a_loop_bootstraps_and_creates_nothing(repo: Path, env: dict[str, str]):
    text = context_of(
        call("user-prompt-submit", prompt(repo, "zw build the export"), env), "UserPromptSubmit"
    )
    assert "No active goal loop" in text
    assert not (repo / ".lazy-intel").exists()


def test_trigger_word_is_a_setting(executing: Path, env: dict[str, str]):
    custom = {**env, "LAZY_INTEL_LOOP_TRIGGER": "goal"}
    assert call("user-prompt-submit", prompt(executing, "zw go"), custom) is None
    context_of(call("user-prompt-submit", prompt(executing, "goal: go"), custom), "UserPromptSubmit")
    bad = {**env, "LAZY_INTEL_LOOP_TRIGGER": "has space"}
    assert call("user-prompt-submit", prompt(executing, "has space go"), bad) is None


# -- post-tool-use ---------------------------------------------------------------------------------------
def test_same_tool_failure_streak_warns_once_per_streak(executing: Path, env: dict[str, str]):
    assert call("post-tool-use", tool_failed(executing), env) is None
    assert call("post-tool-use", tool_failed(executing), env) is None
    text = context_of(call("post-tool-use", tool_failed(executing), env), "PostToolUseFailure")
    assert "`Bash` has failed 3 times in a row" in text
    assert call("post-tool-use", tool_failed(executing), env) is None  # once per streak
    assert call("post-tool-use", tool_ok(executing), env) is None  # success ends the streak
    for _ in range(2):
        assert call("post-tool-use", tool_failed(executing), env) is None
    assert "3 times" in context_of(call("post-tool-use", tool_failed(executing), env), "PostToolUseFailure")


def test_failures_of_different_tools_are_not_a_streak(executing: Path, env: dict[str, str]):
    for tool in ("Bash", "Read", "Bash", "Edit", "Bash"):
        assert call("post-tool-use", tool_failed(executing, tool), env) is None


def test_streaks_are_per_session_and_threshold_is_a_setting(executing: Path, env: dict[str, str]):
    two = {**env, "LAZY_INTEL_LOOP_FAILURE_STREAK": "2"}
    assert call("post-tool-use", tool_failed(executing, session="a"), two) is None
    assert call("post-tool-use", tool_failed(executing, session="b"), two) is None
    context_of(call("post-tool-use", tool_failed(executing, session="a"), two), "PostToolUseFailure")


def test_post_tool_use_error_response_counts_as_failure(executing: Path, env: dict[str, str]):
    payload = tool_ok(executing, "mcp__lazy-intel__code_intel")
    payload["tool_response"] = {"is_error": True, "content": "INDEX_BUILDING"}
    for _ in range(2):
        assert call("post-tool-use", payload, env) is None
    context_of(call("post-tool-use", payload, env), "PostToolUse")


# -- stop -----------------------------------------------------------------------------------------------
def test_stop_asks_to_continue_at_most_twice_then_hands_off(executing: Path, env: dict[str, str]):
    outs = [call("stop", stop(executing, active=i > 0), env) for i in range(4)]
    for n, out in enumerate(outs[:2], start=1):
        assert out is not None and set(out) == {"decision", "reason"}
        assert out["decision"] == "block"
        assert f"[lazy-intel loop {n}/2]" in out["reason"] and "F1, F2" in out["reason"]
    assert outs[2] is not None and set(outs[2]) == {"systemMessage"}
    assert "handing off" in outs[2]["systemMessage"]
    assert outs[3] is None
    # another session has its own budget
    other = call("stop", stop(executing, session="another-session"), env)
    assert other is not None and other["decision"] == "block"


def test_stop_lets_go_when_required_evidence_is_fresh(executing: Path, env: dict[str, str]):
    operations.step_done(executing, "F1", "a")
    operations.step_done(executing, "F2", "b")
    assert call("stop", stop(executing), env) is None


def test_stop_is_silent_outside_execution_and_without_session(executing: Path, env: dict[str, str]):
    payload = stop(executing)
    del payload["session_id"]
    assert call("stop", payload, env) is None
    operations.register(executing, "new", "New", replace_active=True)
    assert call("stop", stop(executing), env) is None


def test_stop_budget_setting_is_bounded(executing: Path, env: dict[str, str]):
    zero = {**env, "LAZY_INTEL_LOOP_STOP_CONTINUATIONS": "0"}
    out = call("stop", stop(executing), zero)
    assert out is not None and "systemMessage" in out and "decision" not in out
    too_many = {**env, "LAZY_INTEL_LOOP_STOP_CONTINUATIONS": "5"}  # above the cap of 2: fails open
    assert call("stop", stop(executing, session="s2"), too_many) is None


# -- fail open ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"garbage{",
        b"\xff\xfe\x00",
        b"[1, 2, 3]",
        b'"just a string"',
        b'{"hook_event_name": "SessionStart", "session_id": "s"}',
        b'{"hook_event_name": "Stop", "session_id": 7, "cwd": "/"}',
        b'{"hook_event_name": "Stop", "session_id": "s", "cwd": "relative/dir"}',
    ],
)
def test_garbage_input_fails_open(raw: bytes, executing: Path, env: dict[str, str]):
    for event in ("session-start", "user-prompt-submit", "post-tool-use", "stop"):
        assert run_hook(event, raw, env=env) == ""


def test_unknown_event_or_client_fails_open(executing: Path, env: dict[str, str]):
    raw = json.dumps(stop(executing)).encode()
    assert run_hook("pre-tool-use", raw, env=env) == ""
    assert run_hook("stop", raw, client="nope", env=env) == ""


def test_corrupt_state_fails_open(executing: Path, env: dict[str, str]):
    LoopStore(executing).loop_file.write_text("{broken")
    for event, payload in (("stop", stop(executing)), ("session-start", session_start(executing))):
        assert run_hook(event, json.dumps(payload).encode(), env=env) == ""


def test_symlinked_sessions_dir_fails_open_and_writes_nothing_outside(
    executing: Path, env: dict[str, str], tmp_path: Path
):
    outside = tmp_path / "outside-sessions"
    outside.mkdir()
    sessions = executing / ".lazy-intel" / "loop" / "sessions"
    sessions.rmdir()
    sessions.symlink_to(outside, target_is_directory=True)
    assert call("stop", stop(executing), env) is None
    for _ in range(3):
        assert call("post-tool-use", tool_failed(executing), env) is None
    assert list(outside.iterdir()) == []

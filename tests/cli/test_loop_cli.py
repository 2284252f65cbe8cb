"""``lazy-intel loop …`` through the real click entry point (CliRunner) and a real process (hooks)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from lazy_intel.cli.loop_cmds import loop_group
from lazy_intel.cli.main import main
from tests.conftest import git

PLAN = "# Plan\n- [ ] F1: GET /export -> 200 CSV\n- [ ] T1: tests\n"


@pytest.fixture
def repo(make_repo: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return make_repo({"app.py": "x = 1\n", "plan.md": PLAN}, use_git=True)


def run(*args: str, input: str | bytes | None = None) -> tuple[int, Any, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    out = result.stdout
    try:
        parsed = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        return result.exit_code, out, result.stderr
    return result.exit_code, unwrap(parsed), result.stderr


def unwrap(answer: Any) -> Any:
    """An Answer's ``data`` for ok answers; the error Answer (``data`` as ``details``) otherwise."""
    if not isinstance(answer, dict) or "operation" not in answer:
        return answer
    assert answer["view"]["generation"] == 0 and answer["items"] == []
    if answer["status"] == "error":
        return {**answer, "details": answer.get("data")}
    assert answer["status"] == "ok"
    return {**answer["data"], "status": "ok"}


def test_full_loop_with_json_output(repo: Path):
    root = ["--root", str(repo), "--json"]
    code, out, _ = run("loop", "register", "export-csv", "--title", "Export CSV", *root)
    assert code == 0 and out["status"] == "ok" and out["loop"]["state"] == "registered"
    code, out, _ = run("loop", "plan", str(repo / "plan.md"), "--review", "bob: REVISE no error path", *root)
    assert code == 1 and out["code"] == "PLAN_NOT_APPROVED" and out["next_step"]
    code, out, _ = run("loop", "plan", str(repo / "plan.md"), *root)
    assert code == 1 and out["code"] == "PLAN_NOT_APPROVED"
    code, out, _ = run("loop", "plan", str(repo / "plan.md"), "--review", "bob: PASS ok", *root)
    assert code == 0 and out["loop"]["required"] == ["F1"]
    code, out, _ = run("loop", "start", *root)
    assert code == 0 and out["loop"]["state"] == "executing"
    code, out, _ = run("loop", "step", "done", "F1", "--evidence", "curl -> 200", *root)
    assert code == 0 and out["evidence"]["tree"] == git(repo, "rev-parse", "HEAD^{tree}").strip()

    (repo / "app.py").write_text("x = 2\n")
    git(repo, "commit", "-qam", "change")
    code, out, _ = run("loop", "finish", *root)
    assert code == 1 and out["code"] == "EVIDENCE_STALE" and out["details"]["stale"][0]["id"] == "F1"
    code, out, _ = run("loop", "status", *root)
    assert code == 0 and out["items"][0]["evidence"] == "stale"
    run("loop", "step", "done", "F1", "--evidence", "curl -> 200 again", *root)
    code, out, _ = run("loop", "finish", *root)
    assert code == 0 and out["loop"]["state"] == "done"


def test_json_is_an_answer_with_the_result_as_data(repo: Path):
    result = CliRunner().invoke(
        main, ["loop", "register", "export-csv", "--title", "T", "--root", str(repo), "--json"]
    )
    answer = json.loads(result.stdout)
    assert answer["status"] == "ok" and answer["operation"] == "loop.register"
    assert answer["data"]["loop"]["slug"] == "export-csv"
    result = CliRunner().invoke(main, ["loop", "finish", "--root", str(repo), "--json"])
    answer = json.loads(result.stdout)
    assert result.exit_code == 1
    assert (answer["status"], answer["operation"], answer["code"]) == ("error", "loop.finish", "LOOP_STATE")
    assert answer["next_step"] and answer["data"] == {"state": "registered", "allowed": ["executing"]}


def test_text_output_and_errors(repo: Path):
    code, out, _ = run("loop", "start", "--root", str(repo))
    assert code == 1
    assert out.startswith("error LOOP_NOT_REGISTERED: ") and "\nnext: " in out
    code, out, _ = run("loop", "register", "export-csv", "--title", "Export CSV", "--root", str(repo))
    assert code == 0 and out.startswith("registered loop export-csv (Export CSV): registered\nnext: ")
    code, out, _ = run("loop", "status", "--root", str(repo))
    assert code == 0 and out.splitlines()[0] == "loop export-csv (Export CSV): registered"


def test_root_is_found_from_a_subdirectory(repo: Path, monkeypatch: pytest.MonkeyPatch):
    sub = repo / "pkg" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    code, out, _ = run("loop", "register", "export-csv", "--title", "Export CSV", "--json")
    assert code == 0
    assert (repo / ".lazy-intel" / "loop" / "loop.json").is_file()
    code, out, _ = run("loop", "status", "--json")
    assert out["root"] == str(repo) and out["loop"]["slug"] == "export-csv"


def test_home_is_refused_as_root(repo: Path, tmp_path: Path):
    code, out, _ = run("loop", "status", "--root", str(tmp_path / "home"), "--json")
    assert code == 2 and out["code"] == "INVALID_ARGUMENT"


def test_doctor_json(repo: Path):
    run("loop", "register", "export-csv", "--title", "Export CSV", "--root", str(repo))
    code, out, _ = run("loop", "doctor", "--root", str(repo), "--json")
    assert code == 0
    assert {c["name"]: c["status"] for c in out["checks"]} == {
        "loop.state_dir": "ok",
        "loop.state": "ok",
        "loop.git": "ok",
    }


def test_hook_command_reads_stdin_and_answers_the_contract(repo: Path):
    for args in (
        ("loop", "register", "export-csv", "--title", "Export CSV"),
        ("loop", "plan", str(repo / "plan.md"), "--review", "bob: PASS"),
        ("loop", "start"),
    ):
        assert run(*args, "--root", str(repo))[0] == 0
    payload = {
        "session_id": "abc",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    code, out, _ = run("loop", "hook", "stop", input=json.dumps(payload))
    assert code == 0 and out["decision"] == "block"
    code, out, _ = run("loop", "hook", "stop", input=b"\x00garbage")
    assert code == 0 and out is None


def test_hook_in_a_real_process_fails_open(repo: Path, tmp_path: Path):
    command = [sys.executable, "-c", "from lazy_intel.cli.main import main; main()", "loop", "hook"]
    for event, stdin in (("stop", b"not json"), ("session-start", b""), ("user-prompt-submit", b"[]")):
        done = subprocess.run([*command, event], input=stdin, capture_output=True, timeout=60, check=False)
        assert done.returncode == 0 and done.stdout == b""
    prompt = json.dumps(
        {"session_id": "s", "cwd": str(repo), "hook_event_name": "UserPromptSubmit", "prompt": "zw go"}
    )
    done = subprocess.run(
        [*command, "user-prompt-submit"], input=prompt.encode(), capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


def _commands(group: click.Group, prefix: tuple[str, ...]) -> list[tuple[tuple[str, ...], click.Command]]:
    found = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append(((*prefix, name), command))
    return found


def test_every_loop_command_has_json():
    for path, command in _commands(loop_group, ("loop",)):
        assert any("--json" in p.opts for p in command.params), path

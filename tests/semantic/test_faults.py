"""Fault tests: a fake server that crashes, hangs, lies, leaks, or breaks the protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from lazy_intel.semantic import operations
from lazy_intel.semantic.operations import SemanticRequest, semantic_answer
from tests.semantic.conftest import FakeSetup


def hover(setup: FakeSetup, **kwargs: object):
    request = SemanticRequest("hover", relative_path="mod.fake", line=0, character=4, **kwargs)  # type: ignore[arg-type]
    return semantic_answer(setup.layer, setup.root, request)


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        if predicate():
            return True
        pause.wait(0.02)
    return predicate()


def test_healthy_fake_answers_with_observation(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok")
    answer = hover(setup)
    assert answer.status == "ok", answer.to_dict()
    (item,) = answer.items
    assert item.text == "hover from ok"
    assert item.text_kind == "description"
    assert item.observation is not None
    assert item.observation.server_id == "fake"
    assert item.observation.session_epoch == 1
    assert item.observation.document_version == 1
    assert item.observation.position_encoding == "utf-16"
    assert answer.data["semantic"]["evidence_state"] == "current"
    methods = setup.methods()
    assert methods.index("textDocument/didOpen") < methods.index("textDocument/hover")


def test_crash_mid_request_is_unavailable_then_restarts_with_new_epoch(
    fake_layer: Callable[..., FakeSetup],
) -> None:
    setup = fake_layer("crash")
    answer = hover(setup)
    assert answer.status == "error"
    assert answer.code == "UNAVAILABLE"
    assert "exited with status 3" in (answer.message or "")
    assert answer.data == {"semantic": {"evidence_state": "unavailable"}}
    follow = semantic_answer(
        setup.layer, setup.root, SemanticRequest("definition", relative_path="mod.fake", line=0, character=4)
    )
    assert follow.status == "ok", follow.to_dict()
    assert follow.items[0].observation is not None
    assert follow.items[0].observation.session_epoch == 2
    assert sum(1 for m in setup.methods() if m.startswith("start ")) == 2


def test_repeated_crashes_stop_restarting(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("crash")
    codes = [hover(setup).code for _ in range(4)]
    assert codes == ["UNAVAILABLE"] * 4
    last = hover(setup)
    assert "not restarted" in (last.message or "")
    assert sum(1 for m in setup.methods() if m.startswith("start ")) == 3


def test_hang_times_out_and_cancels(fake_layer: Callable[..., FakeSetup]) -> None:
    # the bound covers every request, initialize included: 300 ms was missed by the fake's own start
    # and by the follow-up below on a loaded machine, so the test gives them 1.5 s
    setup = fake_layer("hang", timeout_ms=1500)
    started = time.monotonic()
    answer = hover(setup)
    elapsed = time.monotonic() - started
    assert answer.code == "TIMEOUT"
    assert "hover within 1500 ms" in (answer.message or "")
    assert elapsed < 8
    assert wait_until(lambda: any(m.startswith("$/cancelRequest ") for m in setup.methods()))
    # the session survives a timeout: another operation still works on the same epoch
    follow = semantic_answer(
        setup.layer, setup.root, SemanticRequest("definition", relative_path="mod.fake", line=0, character=0)
    )
    assert follow.status == "ok"
    assert follow.items[0].observation is not None
    assert follow.items[0].observation.session_epoch == 1


@pytest.mark.parametrize(
    ("mode", "reason"),
    [("invalid-json", "frame body is not JSON"), ("oversize", "exceeds the")],
)
def test_protocol_breach_kills_the_session(
    fake_layer: Callable[..., FakeSetup], mode: str, reason: str
) -> None:
    setup = fake_layer(mode)
    answer = hover(setup)
    assert answer.code == "UNAVAILABLE"
    assert reason in (answer.message or "")
    session = setup.layer.sessions()[0]
    assert not session.running
    pid = int(setup.methods()[0].split()[1])
    assert wait_until(
        lambda: not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    )


def test_uris_outside_the_workspace_are_dropped(fake_layer: Callable[..., FakeSetup], tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0\n")
    setup = fake_layer("outside-uri")
    (setup.root / "escape").symlink_to(outside)
    answer = semantic_answer(
        setup.layer, setup.root, SemanticRequest("definition", relative_path="mod.fake", line=0, character=4)
    )
    assert answer.status == "partial"
    assert [item.anchor.path for item in answer.items] == ["mod.fake"]
    semantic = answer.data["semantic"]
    assert semantic["dropped"] == 6
    assert semantic["evidence_state"] == "partial"
    warning = " ".join(answer.warnings)
    for reason in (
        "outside the workspace",
        "non-file URI",
        "remote file URI",
        "symbolic link",
        "'..'",
        "line 999",
    ):
        assert reason in warning
    assert "root:x" not in json.dumps(answer.to_dict())


def test_symlinked_executable_is_refused(fake_layer: Callable[..., FakeSetup], config_dir: Path) -> None:
    from lazy_intel.errors import InvalidArgument
    from lazy_intel.semantic.config import load_config_file

    setup = fake_layer("ok")
    document = json.loads(setup.config.read_text())
    link = config_dir / "linked-server"
    link.symlink_to(document["servers"][0]["executable"])
    document["servers"][0]["executable"] = str(link)
    setup.config.write_text(json.dumps(document))
    with pytest.raises(InvalidArgument, match=r"servers\[0\]\.executable .* is a symbolic link"):
        load_config_file(str(setup.config))


def test_hash_mismatch_is_refused_at_load_and_before_launch(fake_layer: Callable[..., FakeSetup]) -> None:
    from lazy_intel.errors import InvalidArgument
    from lazy_intel.semantic.config import load_config_file

    setup = fake_layer("ok")
    document = json.loads(setup.config.read_text())
    good = document["servers"][0]["executable_sha256"]
    document["servers"][0]["executable_sha256"] = "0" * 64
    setup.config.write_text(json.dumps(document))
    with pytest.raises(InvalidArgument, match="not the reviewed 0000"):
        load_config_file(str(setup.config))
    # the loaded layer pinned the good hash; replacing the binary afterwards is caught at launch
    exe = Path(document["servers"][0]["executable"])
    exe.write_text(exe.read_text() + "\n# tampered\n")
    answer = hover(setup)
    assert answer.code == "UNAVAILABLE"
    assert f"not the reviewed {good}" in (answer.message or "")
    assert not setup.log.exists()  # nothing was launched


def test_secret_shaped_hover_text_is_scrubbed(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("secret-hover")
    answer = hover(setup)
    assert answer.status == "ok"
    text = answer.items[0].text or ""
    for leaked in ("ghp_", "AKIA", "hunter2", "https://", "evil.example", "\x1b", "\x07", "\u202e"):
        assert leaked not in text
    assert "Returns the key." in text
    assert "the docs" in text
    assert "[redacted]" in text


def test_non_utf8_output_is_replaced_and_partial(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("non-utf8")
    answer = hover(setup)
    assert answer.status == "partial"
    assert "not UTF-8" in " ".join(answer.warnings)
    assert answer.items[0].text == "caf\ufffd \ufffd ok"
    assert answer.data["semantic"]["evidence_state"] == "partial"
    assert setup.layer.sessions()[0].running


def test_undeclared_operation_is_unsupported_not_empty(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("no-hover")
    answer = hover(setup)
    assert answer.status == "error"
    assert answer.code == "UNSUPPORTED"
    assert "did not negotiate hover" in (answer.message or "")
    assert "textDocument/hover" not in setup.methods()
    assert "hover" not in setup.layer.available_operations(setup.root)


def test_server_environment_is_minimal(
    fake_layer: Callable[..., FakeSetup], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
    monkeypatch.setenv("PATH", "/tmp/repo/node_modules/.bin:" + os.environ["PATH"])
    setup = fake_layer("env")
    answer = hover(setup)
    env = json.loads(answer.items[0].text or "{}")
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    home = Path(env["HOME"])
    assert home != Path.home()
    assert env["XDG_CACHE_HOME"].startswith(env["HOME"])
    setup.layer.close()
    assert not home.exists()


def test_close_kills_the_whole_process_group(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("spawn")
    answer = hover(setup)
    pids = json.loads(answer.items[0].text or "{}")
    assert psutil.pid_exists(pids["child"])
    setup.layer.close()
    assert "shutdown" in setup.methods()
    assert "exit" in setup.methods()

    def gone(pid: int) -> bool:
        return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE

    assert wait_until(lambda: gone(pids["pid"]) and gone(pids["child"]))


def test_idle_session_is_shut_down_and_restarts_on_use(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", idle_ms=200)
    assert hover(setup).status == "ok"
    session = setup.layer.sessions()[0]
    assert wait_until(lambda: not session.running)
    # `running` turns false when the stop begins; the server logs the shutdown request it receives
    assert wait_until(lambda: "shutdown" in setup.methods())
    again = hover(setup)
    assert again.status == "ok"
    assert again.items[0].observation is not None
    assert again.items[0].observation.session_epoch == 2


def test_published_diagnostics_are_waited_for_and_scrubbed(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("publish")
    answer = semantic_answer(
        setup.layer, setup.root, SemanticRequest("diagnostics", relative_path="mod.fake")
    )
    assert answer.status == "ok", answer.to_dict()
    semantic = answer.data["semantic"]
    assert semantic["diagnostics"] == "completed"
    assert semantic["mode"] == "publish"
    assert semantic["evidence_state"] == "partial"  # publish fallback is never "current"
    (item,) = answer.items
    assert item.text == "error: bad thing  here"
    assert item.observation is not None
    assert item.observation.diagnostics == "completed"


def test_silent_server_diagnostics_are_not_reported(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", diagnostics_wait_ms=200)
    answer = semantic_answer(
        setup.layer, setup.root, SemanticRequest("diagnostics", relative_path="mod.fake")
    )
    assert answer.status == "partial"
    assert answer.data["semantic"]["diagnostics"] == "not_reported"
    assert "silence is not an empty result" in (answer.message or "")


def test_edit_sends_did_change_with_new_version(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok")
    first = hover(setup)
    (setup.root / "mod.fake").write_text("def beta():\n    return 2\n")
    second = hover(setup)
    assert first.items[0].observation is not None and second.items[0].observation is not None
    assert first.items[0].observation.document_version == 1
    assert second.items[0].observation.document_version == 2
    assert first.items[0].anchor.sha256 != second.items[0].anchor.sha256
    assert "textDocument/didChange" in setup.methods()


CHILD = """
import sys
from pathlib import Path
from lazy_intel.semantic import SemanticLayer, SemanticRequest, load_config_file, semantic_answer
layer = SemanticLayer(load_config_file(sys.argv[1]))
answer = semantic_answer(layer, Path(sys.argv[2]), SemanticRequest("hover", relative_path="mod.fake", line=0, character=1))
print(answer.status, flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux-only")
def test_server_dies_with_its_parent(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("immortal")
    parent = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(setup.config), str(setup.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    server_pid = 0
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "ok"
        # the fake ignores a closed stdin and SIGTERM: only the parent-death SIGKILL can end it
        server_pid = int(setup.methods()[0].split()[1])
        assert psutil.pid_exists(server_pid)
        parent.kill()
        parent.wait(timeout=10)
        assert wait_until(
            lambda: (
                not psutil.pid_exists(server_pid)
                or psutil.Process(server_pid).status() == psutil.STATUS_ZOMBIE
            )
        )
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(timeout=10)
        for stream in (parent.stdin, parent.stdout):
            if stream is not None:
                stream.close()
        if server_pid and psutil.pid_exists(server_pid):  # the immortal fake must not outlive a failure
            psutil.Process(server_pid).kill()


def test_server_files_inside_the_workspace_are_refused(fake_layer: Callable[..., FakeSetup]) -> None:
    from lazy_intel.semantic.config import load_config_file
    from lazy_intel.semantic.layer import SemanticLayer

    setup = fake_layer("ok")
    document = json.loads(setup.config.read_text())
    document["servers"][0]["arguments"] = ["ok", str(setup.root / "server-script.js")]
    setup.config.write_text(json.dumps(document))
    with SemanticLayer(load_config_file(str(setup.config))) as layer:
        answer = semantic_answer(
            layer, setup.root, SemanticRequest("document_symbols", relative_path="mod.fake")
        )
    assert answer.code == "UNAVAILABLE"
    assert "lies inside the workspace" in (answer.message or "")
    assert not setup.log.exists()


def references(setup: FakeSetup):
    request = SemanticRequest("references", relative_path="mod.fake", line=0, character=4)
    return semantic_answer(setup.layer, setup.root, request)


def test_a_cross_file_request_waits_once_per_server_start_for_the_workspace(
    fake_layer: Callable[..., FakeSetup],
) -> None:
    """The first request answering from other files after a start is preceded by one hover (the
    barrier a lazily enumerating server answers only once it holds the workspace); later ones are not,
    and a server without hover gets none."""
    setup = fake_layer("ok")
    for _ in range(3):
        assert references(setup).code != "UNAVAILABLE"
    methods = [m for m in setup.methods() if m.startswith("textDocument/")]
    assert methods.count("textDocument/hover") == 1, methods
    assert methods.index("textDocument/hover") < methods.index("textDocument/references")
    assert methods.count("textDocument/references") == 3
    bare = fake_layer("no-hover")
    references(bare)
    assert "textDocument/hover" not in bare.methods()


def test_a_barrier_that_hangs_does_not_fail_the_request_behind_it_and_one_that_kills_does(
    fake_layer: Callable[..., FakeSetup],
) -> None:
    hung = fake_layer("hang", timeout_ms=500)
    answer = references(hung)
    # the fake does not implement references: that answer is the server's, to the request behind
    # the barrier (not a timeout of the barrier)
    assert answer.code == "UNSUPPORTED" and "textDocument/references" in (answer.message or ""), (
        answer.to_dict()
    )
    methods = hung.methods()
    assert methods.index("textDocument/hover") < methods.index("textDocument/references")
    crashed = fake_layer("crash")  # dies on the hover: UNAVAILABLE, as a crash mid-request is
    answer = references(crashed)
    assert answer.code == "UNAVAILABLE", answer.to_dict()
    assert "textDocument/references" not in crashed.methods()


def test_an_empty_cross_file_answer_about_a_fresh_document_is_asked_again(
    fake_layer: Callable[..., FakeSetup],
) -> None:
    """A server still indexing what it was just sent answers empty (clangd's outgoing calls before
    its header index is built): the answer is asked again, and the late one is the answer."""
    late = fake_layer("late-index", extra="2")
    answer = references(late)
    assert answer.status == "ok", answer.to_dict()
    assert answer.data["semantic"]["evidence_state"] == "current"
    assert [i.anchor.path for i in answer.items] == ["mod.fake"]
    assert late.methods().count("textDocument/references") == 3


def test_an_answer_that_stays_empty_is_partial_and_the_retries_are_bounded(
    fake_layer: Callable[..., FakeSetup],
) -> None:
    empty = fake_layer("empty-references")
    answer = references(empty)
    assert answer.status == "partial" and not answer.items, answer.to_dict()
    assert answer.data["semantic"]["evidence_state"] == "partial"
    assert any("may still be indexing" in w for w in answer.warnings), answer.warnings
    assert empty.methods().count("textDocument/references") == 1 + len(operations.EMPTY_RETRY_PAUSES_S)


def test_an_empty_answer_about_a_settled_document_is_not_asked_again(
    fake_layer: Callable[..., FakeSetup], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(operations, "YOUNG_DOCUMENT_S", 0.0)
    empty = fake_layer("empty-references")
    answer = references(empty)
    assert not answer.items and not answer.warnings, answer.to_dict()
    assert answer.data["semantic"]["evidence_state"] == "current"
    assert empty.methods().count("textDocument/references") == 1

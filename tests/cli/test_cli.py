from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from lazy_intel.cli.main import main

FILES = {
    "app/retry.py": (
        "RETRY_LIMIT = 3\n\n\n"
        "class Session:\n"
        "    def request(self, url):\n"
        '        """Request with retries."""\n'
        "        return fetch(url, retries=RETRY_LIMIT)\n\n\n"
        "def fetch(url, retries):\n"
        "    return url\n"
    ),
    "README.md": "# App\n\nRetries are configured in app/retry.py.\n",
}


def test_index_search_symbol_status_verify(make_repo) -> None:
    root = make_repo(FILES)
    runner = CliRunner()
    indexed = runner.invoke(main, ["index", str(root), "--json"])
    assert indexed.exit_code == 0, indexed.output
    status = json.loads(indexed.output)
    assert status["status"] == "ok" and status["data"]["counts"]["files"] == 2

    text = runner.invoke(
        main, ["search", "where are retries configured", "--root", str(root), "--limit", "2"]
    )
    assert text.exit_code == 0, text.output
    assert "app/retry.py:" in text.output and "generation 1" in text.output
    # several words without quotes are one query (they were "unexpected extra arguments")
    for command in ("search", "context", "auto"):
        words = runner.invoke(
            main, [command, "where", "are", "retries", "configured", "--root", str(root), "--json"]
        )
        quoted = runner.invoke(main, [command, "where are retries configured", "--root", str(root), "--json"])
        assert words.exit_code == 0, words.output
        assert json.loads(words.output)["items"] == json.loads(quoted.output)["items"], command
    assert runner.invoke(main, ["search", "--root", str(root)]).exit_code == 2  # a query is required

    sym = runner.invoke(main, ["symbol", "Session.request", "--root", str(root), "--json"])
    answer = json.loads(sym.output)
    (item,) = answer["items"]
    data = (root / "app/retry.py").read_bytes()
    assert item["text"] == data[item["anchor"]["start_byte"] : item["anchor"]["end_byte"]].decode()

    verified = runner.invoke(main, ["verify", "--root", str(root), "--json"], input=sym.output)
    assert json.loads(verified.output)["items"][0]["verdict"] == "current"
    (root / "app/retry.py").write_text("# moved down\n" + FILES["app/retry.py"])
    moved = runner.invoke(main, ["verify", "--root", str(root), "--json"], input=sym.output)
    assert json.loads(moved.output)["items"][0]["verdict"] == "moved"

    missing = runner.invoke(main, ["symbol", "Nope", "--root", str(root)])
    assert missing.exit_code == 1 and "error NOT_FOUND" in missing.output
    bad = runner.invoke(main, ["search", "x", "--root", str(root), "--limit", "-4"])
    assert bad.exit_code == 2 and "INVALID_ARGUMENT" in bad.output


def test_refused_roots(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["index", "/", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.output)["code"] == "INVALID_ARGUMENT"
    result = runner.invoke(main, ["status", "--root", str(tmp_path / "missing")])
    assert result.exit_code == 1 and "NOT_FOUND" in result.output


def test_doctor_reports_grammars_and_store(make_repo) -> None:
    root = make_repo(FILES)
    runner = CliRunner()
    runner.invoke(main, ["index", str(root)])
    result = runner.invoke(main, ["doctor", "--root", str(root), "--json"])
    checks = {c["name"]: c for c in json.loads(result.output)["data"]["checks"]}
    assert all(
        checks[f"grammar {lang}"]["status"] == "ok" for lang in ("python", "typescript", "kotlin", "scala")
    )
    assert checks["sqlite"]["status"] == "ok" and "FTS5" in checks["sqlite"]["message"]
    assert checks["store"]["status"] == "ok" and "generation 1" in checks["store"]["message"]
    assert any(name.startswith("loop") for name in checks)  # the goal loop contributes its checks


def test_console_script_on_a_fresh_root_builds_then_answers(make_repo) -> None:
    root = make_repo(FILES, use_git=True)
    exe = Path(sys.executable).parent / "lazy-intel"
    done = subprocess.run(
        [str(exe), "search", "fetch url retries", "--root", str(root), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # stdout holds only the answer; no progress bar without a TTY
    assert answer["status"] == "ok" and answer["view"]["generation"] == 1
    assert done.stderr == ""


def test_no_progress_when_stdout_is_not_a_terminal(make_repo) -> None:
    import os
    import pty

    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(40)}
    exe = str(Path(sys.executable).parent / "lazy-intel")
    root = make_repo(files)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [exe, "index", str(root)], stdout=subprocess.PIPE, stderr=follower, timeout=120, check=False
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(leader)
    assert done.returncode == 0
    # stdout is piped: no progress, even with stderr on a terminal (issue 17; both on a terminal draw
    # it, see tests/cli/test_progress.py)
    assert b"index:" not in b"".join(chunks) and b"parsing" not in b"".join(chunks)
    assert b"parsing" not in done.stdout
    quiet = subprocess.run(
        [exe, "index", str(make_repo(files)), "--json"], capture_output=True, timeout=120, check=False
    )
    assert quiet.returncode == 0 and quiet.stderr == b""


def test_a_state_directory_of_another_root_is_refused_not_rebuilt(make_repo, tmp_path: Path) -> None:
    """``--state-dir`` given from the wrong directory: a strict query synced the current directory into
    it, replacing the other root's published index with this one's. Refused with INVALID_ARGUMENT
    (exit 2) by every command; the other root's index stays; ``index --rebuild`` takes it over."""
    first = make_repo(FILES)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.py").write_text("def unrelated():\n    return 1\n")
    state = tmp_path / "state"
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(first), "--state-dir", str(state)]).exit_code == 0
    published = json.loads((state / "catalog.json").read_text())["store"]

    for args in (
        ["search", "retries", "--root", str(other)],
        ["status", "--root", str(other)],
        ["index", str(other)],
    ):
        refused = runner.invoke(main, [*args, "--state-dir", str(state), "--json"])
        assert refused.exit_code == 2, (args, refused.output)
        answer = json.loads(refused.output)
        assert answer["code"] == "INVALID_ARGUMENT" and str(first.resolve()) in answer["message"], args
    assert json.loads((state / "catalog.json").read_text())["store"] == published
    kept = runner.invoke(main, ["symbol", "Session.request", "--root", str(first), "--state-dir", str(state)])
    assert kept.exit_code == 0 and "app/retry.py" in kept.output

    taken = runner.invoke(main, ["index", str(other), "--rebuild", "--state-dir", str(state)])
    assert taken.exit_code == 0, taken.output
    found = runner.invoke(main, ["symbol", "unrelated", "--root", str(other), "--state-dir", str(state)])
    assert found.exit_code == 0 and "notes.py" in found.output

"""Operations through ``execute``: the Answer contract, errors with stable codes, freshness."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.evidence.budget import serialize
from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "pkg/__init__.py": "",
    "pkg/sessions.py": (
        "class Session:\n"
        '    """An HTTP session."""\n\n'
        "    def request(self, method, url):\n"
        '        """Send a request with retries."""\n'
        "        return self.send(method, url)\n\n"
        "    def send(self, method, url):\n"
        "        return (method, url)\n\n\n"
        "def request(method, url):\n"
        "    return Session().request(method, url)\n"
    ),
    "pkg/adapters.py": "".join(
        f"def adapter_{i}(retries):\n    return retries * {i}  # retry adapter\n\n\n" for i in range(30)
    ),
    "pkg/latin.py": b"def caf\xe9_retries():\n    return 'r\xe9try'\n",
}


@pytest.fixture
def indexed(make_repo, backend_env) -> tuple[Path, Any]:
    root = make_repo(FILES)
    settings = load_settings(env=backend_env)
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        answer = execute(args, lambda _root: ws, settings)
        data = answer.to_dict()
        assert answer.used_chars == len(serialize(answer)) <= max(answer.max_chars, answer.used_chars)
        return data

    return root, run


def assert_anchored(root: Path, item: dict[str, Any]) -> None:
    anchor = item["anchor"]
    data = (root / anchor["path"]).read_bytes()
    assert anchor["sha256"] == hashlib.sha256(data).hexdigest()
    piece = data[anchor["start_byte"] : anchor["end_byte"]]
    if item.get("text_lossy"):
        assert item["text"] == piece.decode("utf-8", "replace")
    else:
        assert item["text"] == piece.decode("utf-8")
    assert anchor["start_line"] == data[: anchor["start_byte"]].count(b"\n") + 1


def test_search_items_are_anchored_verbatim(indexed) -> None:
    root, run = indexed
    answer = run(operation="search", query="send request retries", limit=10, freshness="fast")
    assert answer["status"] == "ok" and answer["items"]
    for item in answer["items"]:
        assert item["text_kind"] == "source"
        assert_anchored(root, item)
        signals = item["signals"]
        # every item says which signal ranked it, with a positive rank
        assert any(signals.get(f"{name}_rank", 0) >= 1 for name in ("lexical", "dense", "symbol"))
        assert signals.get("lexical", 1) > 0
    assert answer["view"]["generation"] == 1
    assert any("not exhaustive" in c for c in answer["coverage"])


def test_symbol_returns_exact_definition(indexed) -> None:
    root, run = indexed
    answer = run(operation="symbol", symbol="Session.request")
    assert answer["status"] == "ok"
    (item,) = answer["items"]
    assert_anchored(root, item)
    assert item["symbol"] == {
        "name": "request",
        "qualified_name": "Session.request",
        "kind": "method",
        "language": "python",
        "signature": "def request(self, method, url):",
        "doc": "Send a request with retries.",
        "parent": "Session",
    }
    both = run(operation="symbol", symbol="request")
    assert {i["symbol"]["qualified_name"] for i in both["items"]} == {"request", "Session.request"}
    by_module = run(operation="symbol", symbol="pkg.sessions.Session.send")
    assert [i["symbol"]["qualified_name"] for i in by_module["items"]] == ["Session.send"]
    in_file = run(operation="symbol", symbol="request", relativePath="pkg/sessions.py", limit=1)
    assert len(in_file["items"]) == 1 and in_file["next_cursor"]


def test_invalid_utf8_file_is_searchable_with_lossy_text(indexed) -> None:
    root, run = indexed
    answer = run(operation="search", query="retries", path="pkg/latin.py")
    (item,) = answer["items"]
    assert item["text_lossy"] is True and "\ufffd" in item["text"]
    assert_anchored(root, item)


def test_budget_omits_bodies_but_keeps_anchors(indexed) -> None:
    _root, run = indexed
    answer = run(operation="symbol", symbol="Session", maxChars=900)
    (item,) = answer["items"]
    assert item["body_omitted"] is True and item["needed_chars"] > 900 - 500
    assert "text" not in item and answer["status"] == "partial"
    assert answer["budget"]["used_chars"] <= 900
    assert item["anchor"]["start_line"] == 1 and item["symbol"]["qualified_name"] == "Session"


def test_pagination_and_stale_cursor(indexed) -> None:
    root, run = indexed
    first = run(operation="search", query="retry adapter", limit=5)
    second = run(operation="search", query="retry adapter", limit=5, cursor=first["next_cursor"])
    keys = lambda a: [(i["anchor"]["path"], i["anchor"]["start_byte"]) for i in a["items"]]  # noqa: E731
    assert len(keys(first)) == len(keys(second)) == 5 and not set(keys(first)) & set(keys(second))
    other = run(operation="search", query="something else", cursor=first["next_cursor"])
    assert other["code"] == "INVALID_ARGUMENT" and "different request" in other["message"]
    (root / "pkg" / "extra.py").write_text("def extra():\n    pass\n")
    synced = run(operation="sync")
    assert synced["status"] == "ok" and synced["data"]["generation"] == 2
    stale = run(
        operation="search", query="retry adapter", limit=5, cursor=first["next_cursor"], freshness="fast"
    )
    assert stale["code"] == "CURSOR_STALE"


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        ({"operation": "explode"}, "INVALID_ARGUMENT", "unknown operation 'explode'"),
        ({}, "INVALID_ARGUMENT", "operation is required"),
        ({"operation": "search"}, "INVALID_ARGUMENT", "search needs query"),
        ({"operation": "search", "query": "x", "limit": -1}, "INVALID_ARGUMENT", "limit=-1"),
        ({"operation": "search", "query": "x", "maxChars": 10**9}, "INVALID_ARGUMENT", "maxChars=1000000000"),
        ({"operation": "search", "query": "x", "limit": "3"}, "INVALID_ARGUMENT", "limit must be an integer"),
        ({"operation": "search", "query": "x", "bogus": 1}, "INVALID_ARGUMENT", "unknown argument(s) bogus"),
        ({"operation": "search", "query": "!!! ???"}, "INVALID_ARGUMENT", "no searchable terms"),
        (
            {"operation": "symbol", "symbol": "x", "relativePath": "../../etc/passwd"},
            "INVALID_ARGUMENT",
            "escapes",
        ),
        ({"operation": "symbol", "symbol": "NoSuchThing"}, "NOT_FOUND", "NoSuchThing"),
        (
            {"operation": "symbol", "symbol": "x", "relativePath": "pkg/missing.py"},
            "NOT_FOUND",
            "pkg/missing.py",
        ),
        ({"operation": "search", "query": "x", "freshness": "eventually"}, "INVALID_ARGUMENT", "freshness"),
        ({"operation": "verify", "anchors": [{"path": "a"}]}, "INVALID_ARGUMENT", "anchors[0]"),
    ],
)
def test_bad_inputs_are_clear_errors(indexed, args: dict[str, Any], code: str, fragment: str) -> None:
    _, run = indexed
    answer = run(**args)
    assert answer["status"] == "error" and answer["code"] == code
    assert fragment in answer["message"], answer["message"]
    assert answer["items"] == []


def test_root_outside_limits_is_refused(make_repo, tmp_path: Path) -> None:
    root = make_repo(FILES)
    settings = load_settings(env={"LAZY_INTEL_ALLOWED_ROOTS": str(tmp_path / "elsewhere")})
    answer = execute(
        {"operation": "status", "root": str(root)},
        lambda r: Workspace.open(r or "", settings=settings),
        settings,
    )
    assert answer.code == "INVALID_ARGUMENT" and "allowed roots" in (answer.message or "")


def test_symlink_loop_in_the_tree_does_not_hang_or_crash(make_repo) -> None:
    root = make_repo(FILES)
    os.symlink(root / "pkg", root / "pkg" / "loop")
    os.symlink(root / "a", root / "b")
    os.symlink(root / "b", root / "a")
    settings = load_settings(env={})
    ws = Workspace.open(root, settings=settings)
    report = ws.sync()
    assert report.added == 7  # 4 files + 3 symlinks recorded as excluded
    with ws.read() as view:
        assert {f.path for f in view.files() if f.reason == "symlink"} == {"a", "b", "pkg/loop"}
    answer = execute({"operation": "symbol", "symbol": "x", "relativePath": "a"}, lambda _r: ws, settings)
    assert answer.code == "INVALID_ARGUMENT"


def test_verify_operation(indexed) -> None:
    root, run = indexed
    sym = run(operation="symbol", symbol="Session.send")["items"][0]
    anchor = {**sym["anchor"], "text": sym["text"]}
    gone = {"path": "pkg/adapters.py", "sha256": "0" * 64, "start_byte": 0, "end_byte": 3}
    current = run(operation="verify", anchors=[anchor])
    assert current["items"][0]["verdict"] == "current"
    path = root / "pkg" / "sessions.py"
    path.write_text("# a new first line\n" + path.read_text())
    (root / "pkg" / "adapters.py").unlink()
    result = run(operation="verify", anchors=[anchor, gone, {**anchor, "text": "def vanished(): pass"}])
    verdicts = [i["verdict"] for i in result["items"]]
    assert verdicts == ["moved", "gone", "stale"]
    moved = result["items"][0]["anchor"]
    assert moved["start_line"] == sym["anchor"]["start_line"] + 1
    data = path.read_bytes()
    assert data[moved["start_byte"] : moved["end_byte"]].decode() == sym["text"]


def test_auto_freshness_answers_index_building_at_once_then_serves(make_repo) -> None:
    root = make_repo(FILES)
    settings = load_settings(env={})
    ws = Workspace.open(root, settings=settings)
    first = execute({"operation": "search", "query": "retries"}, lambda _r: ws, settings)
    assert first.code == "INDEX_BUILDING"
    assert ws.wait_background(60)
    answer = execute({"operation": "search", "query": "retries"}, lambda _r: ws, settings)
    assert answer.status == "ok"
    # an edit makes the view dirty: served as is, marked, and a background sync is started
    (root / "pkg" / "sessions.py").write_text(FILES["pkg/sessions.py"] + "\n# retries edited\n")
    dirty = execute({"operation": "search", "query": "retries"}, lambda _r: ws, settings).to_dict()
    assert dirty["view"]["dirty"] is True and "pkg/sessions.py" in dirty["view"]["dirty_paths"]
    assert ws.wait_background(60)
    clean = execute({"operation": "search", "query": "retries"}, lambda _r: ws, settings).to_dict()
    assert clean["view"]["dirty"] is False and clean["view"]["generation"] == 2


def test_strict_freshness_sees_edits_immediately(indexed) -> None:
    root, run = indexed
    (root / "pkg" / "late.py").write_text("def just_written():\n    return 'fresh'\n")
    answer = run(operation="symbol", symbol="just_written", freshness="strict")
    assert answer["status"] == "ok" and answer["view"]["generation"] == 2
    fast = run(operation="status", freshness="fast")
    assert fast["data"]["counts"]["files"] == 5


def test_status_answer(indexed) -> None:
    _, run = indexed
    answer = run(operation="status")
    assert answer["status"] == "ok"
    assert answer["data"]["projections"]["lexical"]["verdict"] == "ready"
    dense = answer["data"]["projections"]["dense"]
    # dense is opt-in (LAZY_INTEL_EMBEDDING=none by default): absent, and status says why
    assert dense["verdict"] == "absent"
    assert "LAZY_INTEL_EMBEDDING" in json.dumps(dense)
    json.dumps(answer)

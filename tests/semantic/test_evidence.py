"""Evidence binding (git commit, branch, dirty digest), pagination and input positions."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from lazy_intel.semantic.binding import binding_state, capture_binding
from lazy_intel.semantic.operations import SemanticRequest, semantic_answer
from tests.conftest import git
from tests.semantic.conftest import FakeSetup


def test_binding_tracks_commit_branch_and_dirty_set(make_repo: Callable[..., Path]) -> None:
    root = Path(os.path.realpath(make_repo({"a.py": "x = 1\n", "b.py": "y = 2\n"}, use_git=True)))
    clean = capture_binding(root)
    assert clean.git and clean.branch == "main" and not clean.dirty and len(clean.commit or "") == 40
    assert binding_state(clean, capture_binding(root)) == "current"
    (root / "a.py").write_text("x = 3\n")
    dirty = capture_binding(root)
    assert dirty.dirty and dirty.dirty_digest
    assert binding_state(clean, dirty) == "stale"
    (root / "a.py").write_text("x = 4\n")
    assert capture_binding(root).dirty_digest != dirty.dirty_digest  # same dirty path, new content
    (root / ".lazy-intel").mkdir()
    (root / ".lazy-intel" / "store.db").write_text("state")
    (root / "a.py").write_text("x = 3\n")
    assert capture_binding(root) == dirty  # the state directory never dirties the binding
    git(root, "checkout", "-q", "-b", "feature")
    assert capture_binding(root).branch == "feature"


def test_binding_outside_git(make_repo: Callable[..., Path]) -> None:
    root = Path(os.path.realpath(make_repo({"a.py": "x\n"})))
    binding = capture_binding(root)
    assert not binding.git and binding.commit is None


def test_pages_follow_a_stable_cursor_until_the_file_changes(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", extra="7")
    request = SemanticRequest("document_symbols", relative_path="mod.fake", limit=3)
    seen: list[str] = []
    answer = semantic_answer(setup.layer, setup.root, request)
    pages = 1
    while answer.next_cursor:
        assert answer.data["semantic"]["evidence_state"] == "partial"  # a truncated page
        seen.extend(item.symbol.name for item in answer.items if item.symbol)
        answer = semantic_answer(
            setup.layer,
            setup.root,
            SemanticRequest("document_symbols", relative_path="mod.fake", limit=3, cursor=answer.next_cursor),
        )
        pages += 1
    seen.extend(item.symbol.name for item in answer.items if item.symbol)
    assert pages == 3
    assert sorted(seen) == [f"sym{i}" for i in range(7)]
    assert len(set(seen)) == 7
    first = semantic_answer(setup.layer, setup.root, request)
    (setup.root / "mod.fake").write_text("changed\n")
    stale = semantic_answer(
        setup.layer,
        setup.root,
        SemanticRequest("document_symbols", relative_path="mod.fake", limit=3, cursor=first.next_cursor),
    )
    assert stale.code == "CURSOR_STALE"


def test_git_binding_in_answers(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok")
    git(setup.root, "init", "-q", "-b", "main")
    git(setup.root, "add", "-A")
    git(setup.root, "commit", "-q", "-m", "init")
    answer = semantic_answer(
        setup.layer, setup.root, SemanticRequest("hover", relative_path="mod.fake", line=0, character=1)
    )
    semantic = answer.data["semantic"]
    assert semantic["evidence_state"] == "current"
    assert semantic["binding"]["branch"] == "main"
    assert semantic["binding"]["dirty"] is False
    assert semantic["document"]["sha256"] == answer.items[0].anchor.sha256


def test_input_positions_are_validated(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", files={"mod.fake": "a😀b\n"})

    def ask(**kwargs: object):
        return semantic_answer(
            setup.layer, setup.root, SemanticRequest("hover", relative_path="mod.fake", **kwargs)
        )  # type: ignore[arg-type]

    assert ask(line=0, character=3).status == "ok"  # after the astral character in UTF-16
    assert ask(line=0, character=2, encoding="utf-32").status == "ok"
    between = ask(line=0, character=2)
    assert between.code == "INVALID_ARGUMENT" and "inside a character" in (between.message or "")
    past = ask(line=0, character=9)
    assert past.code == "INVALID_ARGUMENT" and "past the end of line 0" in (past.message or "")
    assert ask(line=5, character=0).code == "INVALID_ARGUMENT"
    assert ask(line=None, character=None).code == "INVALID_ARGUMENT"
    escape = semantic_answer(
        setup.layer, setup.root, SemanticRequest("hover", relative_path="../x.fake", line=0, character=0)
    )
    assert escape.code == "INVALID_ARGUMENT"
    missing = semantic_answer(
        setup.layer, setup.root, SemanticRequest("hover", relative_path="nope.fake", line=0, character=0)
    )
    assert missing.code == "NOT_FOUND"
    unknown = semantic_answer(
        setup.layer, setup.root, SemanticRequest("hover", relative_path="x.rs", line=0, character=0)
    )
    assert unknown.code == "UNSUPPORTED" and "no trusted language server" in (unknown.message or "")


def test_symbol_input_goes_through_the_resolver(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", files={"mod.fake": "def alpha():\n    return 1\n"})
    calls: list[tuple[str, str | None]] = []

    def resolver(symbol: str, relative_path: str | None) -> tuple[str, int]:
        calls.append((symbol, relative_path))
        return "mod.fake", 4

    answer = semantic_answer(
        setup.layer,
        setup.root,
        SemanticRequest("hover", symbol="alpha", relative_path="mod.fake"),
        resolver=resolver,
    )
    assert calls == [("alpha", "mod.fake")]
    assert answer.status == "ok"
    assert answer.data["semantic"]["position"] == {"line": 0, "character": 4, "encoding": "utf-16"}
    without = semantic_answer(setup.layer, setup.root, SemanticRequest("hover", symbol="alpha"))
    assert without.code == "INVALID_ARGUMENT"


def test_non_utf8_source_is_unsupported(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", files={"mod.fake": b"caf\xe9\n"})
    answer = semantic_answer(
        setup.layer, setup.root, SemanticRequest("document_symbols", relative_path="mod.fake")
    )
    assert answer.code == "UNSUPPORTED" and "not UTF-8" in (answer.message or "")


def test_utf32_server_encoding_is_used_for_anchors(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("encoding-utf32", files={"mod.fake": "😀😀x = 1\n"})
    answer = semantic_answer(
        setup.layer, setup.root, SemanticRequest("definition", relative_path="mod.fake", line=0, character=4)
    )
    assert answer.status == "ok"
    (item,) = answer.items
    assert item.observation is not None and item.observation.position_encoding == "utf-32"
    assert item.extra is not None
    assert item.extra["match"]["end_byte"] == 9  # three code points: two emoji (4 bytes each) and "x"
    assert answer.data["semantic"]["position"]["character"] == 2  # UTF-16 4 == UTF-32 2


def test_layer_reports_what_it_can_answer_and_its_status(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("no-hover")
    layer = setup.layer
    assert layer.status(setup.root)[0]["health"] == "stopped"
    assert not setup.log.exists()  # status starts nothing
    assert layer.can_answer(setup.root, "mod.fake", "definition")
    assert not layer.can_answer(setup.root, "mod.fake", "hover")
    assert not layer.can_answer(setup.root, "mod.py", "definition")
    assert layer.available_operations(setup.root) == {
        op: ("fake",) for op in ("definition", "references", "document_symbols", "diagnostics")
    }
    (entry,) = layer.status(setup.root)
    assert entry["health"] == "ready"
    assert entry["sessions"][0]["epoch"] == 1
    assert "hover" not in entry["sessions"][0]["operations"]


def test_evidence_is_current_only_while_its_bindings_hold(fake_layer: Callable[..., FakeSetup]) -> None:
    setup = fake_layer("ok", files={"mod.fake": "def alpha():\n    return 1\n", "other.fake": "x\n"})
    git(setup.root, "init", "-q", "-b", "main")
    git(setup.root, "add", "-A")
    git(setup.root, "commit", "-q", "-m", "init")

    def hover_semantic() -> dict:
        answer = semantic_answer(
            setup.layer, setup.root, SemanticRequest("hover", relative_path="mod.fake", line=0, character=4)
        )
        return answer.data["semantic"]

    semantic = hover_semantic()
    assert setup.layer.evidence_state(setup.root, semantic) == "current"
    (setup.root / "other.fake").write_text("y\n")  # another file: the dirty set moved
    assert setup.layer.evidence_state(setup.root, semantic) == "stale"
    semantic = hover_semantic()
    assert setup.layer.evidence_state(setup.root, semantic) == "current"
    git(setup.root, "checkout", "-q", "-b", "topic")  # a branch switch
    assert setup.layer.evidence_state(setup.root, semantic) == "stale"
    semantic = hover_semantic()
    setup.layer.sessions()[0].close()  # the server restarts on next use: a new epoch
    assert setup.layer.evidence_state(setup.root, semantic) == "stale"
    semantic = hover_semantic()
    assert semantic["server"]["epoch"] == 2
    assert setup.layer.evidence_state(setup.root, semantic) == "current"

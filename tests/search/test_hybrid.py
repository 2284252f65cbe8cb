"""Hybrid search over a real store: signals, file ranking, test down-weighting, filters, the graph seam."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lazy_intel.search.embedders import OnnxEmbedder
from lazy_intel.search.fusion import FusionWeights
from lazy_intel.search.hybrid import (
    DEFAULT_CONFIG,
    DENSE_ONLY,
    LEXICAL_ONLY,
    Filters,
    StructuralPriors,
    hybrid_search,
)
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.search.models import make_onnx_model, need_onnx

FILES = {
    "pkg/__init__.py": "",
    "pkg/models.py": (
        "class Request:\n"
        '    """A user request."""\n\n'
        "    def register_hook(self, event, hook):\n"
        '        """Register one hook for an event."""\n'
        "        self.hooks[event].append(hook)\n\n"
        "    def prepare(self):\n        return self\n"
    ),
    "pkg/sessions.py": (
        "class Session:\n"
        "    def resolve_redirects(self, resp, req):\n"
        "        # follow the redirect chain, copying the request each time\n"
        "        while resp.is_redirect:\n            req = req.copy()\n        return req\n"
    ),
    "pkg/utils.py": (
        "def stream_decode_response_unicode(iterator, r):\n"
        '    """Stream decodes an iterator of response chunks."""\n'
        "    for item in iterator:\n        yield item\n"
    ),
    "tests/test_models.py": (
        "from pkg.models import Request\n\n"
        "def test_register_hook_fails_with_a_list_of_hooks():\n"
        "    Request().register_hook('response', [print])\n"
    ),
    "docs/hooks.md": "# Hooks\n\nCall register_hook to register a hook.\n",
}

BUG = "Request.register_hook() fails when hooks is a list\n\nThe hooks argument of register_hook breaks."


@pytest.fixture
def workspace(make_repo: Callable[..., Path]) -> Workspace:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    return ws


def _paths(result_files: list) -> list[str]:
    return [f.path for f in result_files]


def test_default_ranks_the_named_method_and_its_file_first(workspace: Workspace) -> None:
    with workspace.read() as view:
        result = hybrid_search(view, BUG)
        rows = view.chunks_by_ids([c.chunk_id for c in result.chunks[:3]])
        top = rows[result.chunks[0].chunk_id]
    assert top.qualified_name == "Request.register_hook"
    assert _paths(result.files)[0] == "pkg/models.py"
    signals = result.chunks[0].signals
    # the test function mentions more of the words; naming the method and its file decide
    assert signals["lexical_rank"] <= 2 and signals["symbol_rank"] == 1 and "file_score" in signals
    assert {"lexical", "symbol"} <= set(result.used)
    assert "dense" not in result.used and any(c.startswith("dense:") for c in result.coverage)


def test_test_files_are_down_weighted_for_bug_reports_only(workspace: Workspace) -> None:
    with workspace.read() as view:
        bug = hybrid_search(view, BUG)
        question = hybrid_search(view, "where is register_hook tested with a list of hooks")
    bug_paths = _paths(bug.files)
    assert bug_paths.index("pkg/models.py") < bug_paths.index("tests/test_models.py")
    test_file = next(f for f in bug.files if f.path == "tests/test_models.py")
    assert test_file.signals["test_file_factor"] == 0.5
    assert not question.analysis.locate_bug
    assert all("test_file_factor" not in f.signals for f in question.files)


def test_path_and_module_mentions_rank_that_file(workspace: Workspace) -> None:
    with workspace.read() as view:
        by_path = hybrid_search(view, "something is off in pkg/utils.py")
        by_module = hybrid_search(view, "something is off in pkg.sessions")
    assert by_path.files[0].path == "pkg/utils.py" and "path" in by_path.files[0].signals
    assert by_module.files[0].path == "pkg/sessions.py" and "path" in by_module.files[0].signals


def test_a_missing_method_still_names_its_class(workspace: Workspace) -> None:
    # Request has no ``__init__``: the report's ``Request.__init__`` points at the class itself
    with workspace.read() as view:
        result = hybrid_search(view, "TypeError: Request.__init__() got an unexpected keyword argument")
        rows = view.chunks_by_ids([c.chunk_id for c in result.chunks if "symbol" in c.signals])
    assert "Request" in {r.qualified_name for r in rows.values()}


def test_lexical_only_config_uses_one_signal(workspace: Workspace) -> None:
    with workspace.read() as view:
        result = hybrid_search(view, BUG, config=LEXICAL_ONLY)
    assert result.used == ("lexical",)
    assert all(set(c.signals) == {"lexical", "lexical_rank"} for c in result.chunks)


def test_filters_apply_to_every_signal(workspace: Workspace) -> None:
    with workspace.read() as view:
        result = hybrid_search(view, BUG, filters=Filters(path_glob="pkg/sessions.py"))
        typed = hybrid_search(view, "register hook", filters=Filters(lang="markdown"))
        methods = hybrid_search(view, BUG, filters=Filters(kind="class"))
        rows = view.chunks_by_ids([c.chunk_id for c in methods.chunks])
    assert {f.path for f in result.files} <= {"pkg/sessions.py"}
    assert [f.path for f in typed.files] == ["docs/hooks.md"]
    assert rows and {r.kind for r in rows.values()} == {"class"}


def test_structural_priors_are_one_more_signal(workspace: Workspace) -> None:
    with workspace.read() as view:
        plain = hybrid_search(view, "stream chunks of a response")
        symbol_id = view.symbols_by_qualified("Session.resolve_redirects")[0].id
        # the first stage's mechanism (the shipped graph weight is 0: held out, it changed nothing)
        primed = hybrid_search(
            view,
            "stream chunks of a response",
            config=replace(DEFAULT_CONFIG, rerank=False),
            priors=StructuralPriors(files={"pkg/sessions.py": 1.0}, symbols={symbol_id: 1.0}),
            weights=FusionWeights(graph=1.0),
        )
    assert "graph" in primed.used and "graph" not in plain.used
    plain_rank = (
        _paths(plain.files).index("pkg/sessions.py") if "pkg/sessions.py" in _paths(plain.files) else 99
    )
    assert _paths(primed.files).index("pkg/sessions.py") < plain_rank
    assert next(f for f in primed.files if f.path == "pkg/sessions.py").signals["graph_rank"] == 1


@need_onnx
def test_dense_signal_and_profile_mismatch(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    root = make_repo(FILES)
    model = make_onnx_model(tmp_path / "m8", dim=8, seed=1)
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": f"onnx:{model}"}))
    ws.sync()
    embedder = ws.embedder()
    with ws.read() as view:
        dense = hybrid_search(view, "follow the redirect request copy", config=DENSE_ONLY, embedder=embedder)
        both = hybrid_search(view, BUG, config=DEFAULT_CONFIG, embedder=embedder)
        other = OnnxEmbedder(make_onnx_model(tmp_path / "m16", dim=16, seed=2))
        mismatch = hybrid_search(view, BUG, config=DENSE_ONLY, embedder=other)
    assert dense.used == ("dense",) and dense.chunks
    assert all(-1.0 <= c.signals["dense"] <= 1.0 for c in dense.chunks)
    assert "dense" in both.used and "lexical" in both.used
    # vectors of another model are never compared with this query's vector
    assert mismatch.chunks == [] and any("rebuild the dense projection" in w for w in mismatch.warnings)


def test_the_path_index_follows_the_published_generation(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"pkg/a/util.py": "x = 1\n", "pkg/b/util.py": "y = 2\n"})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    with ws.read() as view:
        assert sorted(view.indexed_paths_by_name()["util.py"]) == ["pkg/a/util.py", "pkg/b/util.py"]
        first = view.generation
    (root / "pkg" / "c").mkdir()
    (root / "pkg" / "c" / "util.py").write_text("z = 3\n")
    ws.sync()
    with ws.read() as view:
        assert view.generation > first
        assert len(view.indexed_paths_by_name()["util.py"]) == 3  # a new generation, a new index
        result = hybrid_search(view, 'File "/home/me/proj/pkg/c/util.py", line 1, in <module>')
    assert result.files[0].path == "pkg/c/util.py"
    ws.close()


def test_term_counts_follow_the_published_generation(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"pkg/a.py": "def frobnicate():\n    return 1\n"})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    with ws.read() as view:
        first = view.term_document_counts(["frobnicate", "quuxify", "frobnicate"])
        assert first == {"frobnicate": 1}  # absent terms are left out, duplicates asked once
        assert view.term_document_counts(["frobnicate", "quuxify"]) == first  # the kept counts
        generation = view.generation
    (root / "pkg" / "b.py").write_text("def frobnicate_again():\n    frobnicate()\n    quuxify()\n")
    ws.sync()
    with ws.read() as view:
        assert view.generation > generation
        # a new generation counts again: the new file's chunks, and a term absent before
        counts = view.term_document_counts(["quuxify", "frobnicate"])
        fresh = dict(
            view.conn.execute(
                "SELECT term, doc FROM temp.chunks_vocab WHERE term IN ('quuxify', 'frobnicate')"
            ).fetchall()
        )
    assert counts == fresh and counts["frobnicate"] > 1 and counts["quuxify"] >= 1
    ws.close()

"""What the function stage reads (search/function_facts.py) and how search uses it, over a real store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lazy_intel.search.function_facts import read_callpath, read_definitions
from lazy_intel.search.function_rank import CALLPATH_SECOND_HOP
from lazy_intel.search.hybrid import DEFAULT_CONFIG, hybrid_search
from lazy_intel.search.query import analyze_query
from lazy_intel.search.rerank_facts import read_query_facts
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "pkg/__init__.py": "",
    "pkg/sessions.py": (
        "class Session:\n"
        "    def resolve_redirects(self, response):\n"
        "        # follow the redirect, keep the method\n"
        "        return response.redirect_target\n\n"
        "    def close(self):\n"
        "        return None\n\n"
        "LIMIT = 30\n"
    ),
    "pkg/models.py": "def prepare(request):\n    return request.url\n",
    "tests/test_sessions.py": (
        "from pkg.sessions import Session\n\ndef test_redirect():\n    assert Session().resolve_redirects\n"
    ),
}
QUERY = "Session.resolve_redirects drops the method on a redirect"


@pytest.fixture
def workspace(make_repo: Callable[..., Path]) -> Workspace:
    ws = Workspace.open(make_repo(FILES), settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    return ws


def test_definitions_of_files_and_symbols_with_their_first_chunk_and_tokens(workspace: Workspace) -> None:
    with workspace.read() as view:
        files = {str(p): int(i) for i, p in view.conn.execute("SELECT id, path FROM files")}
        symbols = {str(q): int(i) for i, q in view.conn.execute("SELECT id, qualified_name FROM symbols")}
        found = read_definitions(
            view, [files["pkg/sessions.py"]], [symbols["prepare"]], ["redirect", "method", "nowhere"]
        )
        first = {
            int(s): int(c)
            for s, c in view.conn.execute(
                "SELECT symbol_id, min(id) FROM chunks WHERE symbol_id IS NOT NULL GROUP BY symbol_id"
            )
        }
        only_classes = read_definitions(view, [files["pkg/sessions.py"]], [], [], kinds=("class",))
    by_name = {d.qualified_name: d for d in found}
    # every function, method and class of the file (not the constant), and the symbol asked for
    assert set(by_name) == {"Session", "Session.resolve_redirects", "Session.close", "prepare"}
    resolve = by_name["Session.resolve_redirects"]
    assert resolve.kind == "method" and resolve.path == "pkg/sessions.py" and resolve.lines == 3
    assert resolve.tokens == {"redirect", "method"} and by_name["Session.close"].tokens == frozenset()
    assert resolve.chunk_id == first[resolve.symbol_id]
    assert resolve.key == "pkg/sessions.py:Session.resolve_redirects"
    assert [d.symbol_id for d in found] == sorted(d.symbol_id for d in found)
    assert [d.qualified_name for d in only_classes] == ["Session"]
    with workspace.read() as view:
        assert read_definitions(view, [], [], ["redirect"]) == []


def test_search_orders_functions_by_the_function_stage(workspace: Workspace) -> None:
    with workspace.read() as view:
        staged = hybrid_search(view, QUERY)
        today = hybrid_search(view, QUERY, config=replace(DEFAULT_CONFIG, functions=False))
        no_rerank = hybrid_search(view, QUERY, config=replace(DEFAULT_CONFIG, rerank=False))
        rows = view.chunks_by_ids([c.chunk_id for c in staged.chunks])
    assert "functions" in staged.used and "functions" not in today.used
    assert "functions" not in no_rerank.used  # the stage needs the second stage's file ranking
    scores = [c.score for c in staged.chunks]
    assert scores == sorted(scores, reverse=True)  # one ranking, best first
    assert staged.chunks[0].score == 1.0 and "function_stage" in staged.chunks[0].signals
    # the definitions come first, one chunk each; the named method leads
    staged_symbols = [rows[c.chunk_id].qualified_name for c in staged.chunks if "function_stage" in c.signals]
    assert staged_symbols[0] == "Session.resolve_redirects"
    assert len(staged_symbols) == len(set(staged_symbols))
    # the file ranking is not changed by the function stage
    assert [f.path for f in staged.files] == [f.path for f in today.files]
    # every chunk today's search ranks is still ranked
    assert {c.chunk_id for c in today.chunks} <= {c.chunk_id for c in staged.chunks}


CALLS = {
    "pkg/__init__.py": "",
    "pkg/api.py": (
        "from pkg.merge import merge_core\n\n"
        "def update(data):\n"
        "    return merge_core(data)\n\n"
        "def unrelated():\n"
        "    return 1\n"
    ),
    "pkg/merge.py": (
        "def merge_core(data):\n"
        "    return as_variable(data)\n\n"
        "def as_variable(data):\n"
        "    return list(data)\n\n"
        "def never_called():\n"
        "    return 0\n"
    ),
    "tests/test_api.py": ("from pkg.merge import never_called\n\ndef update():\n    return never_called()\n"),
}


def test_callpath_follows_resolved_calls_out_of_the_named_function(make_repo: Callable[..., Path]) -> None:
    ws = Workspace.open(make_repo(CALLS), settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    analysis = analyze_query("Calling `update()` on my data loses the order")
    with ws.read() as view:
        files = [int(i) for (i,) in view.conn.execute("SELECT id FROM files WHERE path LIKE 'pkg/%'")]
        definitions = read_definitions(view, files, [], [])
        starts = {
            f"{p}:{q}": int(b)
            for p, q, b in view.conn.execute(
                "SELECT f.path, s.qualified_name, s.start_byte FROM symbols s JOIN files f ON f.id = s.file_id"
            )
        }
        counts = read_query_facts(view, analysis, []).definition_counts  # as search reads them
        values = read_callpath(view, analysis, counts, definitions)
        nothing = analyze_query("nothing named here")
        assert (
            read_callpath(view, nothing, read_query_facts(view, nothing, []).definition_counts, definitions)
            == {}
        )
        assert read_callpath(view, analysis, counts, []) == {}
    assert all(d.start_byte == starts[d.key] for d in definitions)
    by_name = {d.qualified_name: values.get(d.symbol_id, 0.0) for d in definitions}
    assert by_name["merge_core"] > 0  # update (pkg/api.py) calls it
    assert by_name["as_variable"] == CALLPATH_SECOND_HOP * by_name["merge_core"]  # two calls away
    assert by_name["update"] == 0.0  # the seed itself: `named` scores that
    assert by_name["unrelated"] == 0.0
    assert by_name["never_called"] == 0.0  # only the test's `update` calls it: tests are no seeds

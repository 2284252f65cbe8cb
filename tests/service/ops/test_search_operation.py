"""``search`` through ``execute``: granularities, backends, signals, paging, the dense verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lazy_intel.search.fusion import RRF_K, WEIGHT_PRIOR, WEIGHT_SYMBOL
from lazy_intel.search.hybrid import GRAPH_PRIOR_DEFAULT
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.search.models import make_onnx_model, need_onnx

FILES = {
    "pkg/__init__.py": "",
    "pkg/models.py": (
        "class Request:\n"
        "    def register_hook(self, event, hook):\n        self.hooks[event].append(hook)\n\n"
        "    def deregister_hook(self, event, hook):\n        self.hooks[event].remove(hook)\n"
    ),
    "pkg/hooks.py": "def dispatch_hook(key, hooks, data):\n    for hook in hooks.get(key, []):\n        hook(data)\n",
    "pkg/config.py": "def load_config(path):\n    return open(path).read()\n",
}
QUERY = "register_hook fails when hooks is a list"


def _runner(root: Path, embedding: str) -> tuple[Workspace, Any]:
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": embedding})
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        return execute({"freshness": "fast", **args}, lambda _root: ws, settings).to_dict()

    return ws, run


def test_granularities(make_repo) -> None:
    _, run = _runner(make_repo(FILES), "none")
    chunks = run(operation="search", query=QUERY)
    symbols = run(operation="search", query=QUERY, granularity="symbol")
    files = run(operation="search", query=QUERY, granularity="file")
    assert chunks["items"][0]["kind"] == "chunk"
    assert chunks["items"][0]["symbol"]["qualified_name"] == "Request.register_hook"
    assert symbols["items"][0]["kind"] == "symbol"
    names = [i["symbol"]["qualified_name"] for i in symbols["items"]]
    assert len(names) == len(set(names))  # one item per symbol
    assert [i["kind"] for i in files["items"]] == ["file"] * len(files["items"])
    paths = [i["anchor"]["path"] for i in files["items"]]
    assert paths[0] == "pkg/models.py" and len(paths) == len(set(paths))
    top = files["items"][0]
    assert top["best_chunk"]["symbol"] == "Request.register_hook"
    assert top["signals"]["lexical_rank"] >= 1 and top["anchor"]["start_byte"] == 0


def test_paging_covers_the_file_ranking_once(make_repo) -> None:
    _, run = _runner(make_repo(FILES), "none")
    first = run(operation="search", query="hook hooks config", granularity="file", limit=1)
    seen = [first["items"][0]["anchor"]["path"]]
    cursor = first.get("next_cursor")
    while cursor:
        page = run(operation="search", query="hook hooks config", granularity="file", limit=1, cursor=cursor)
        seen.extend(i["anchor"]["path"] for i in page["items"])
        cursor = page.get("next_cursor")
    assert len(seen) == len(set(seen)) == 3


def test_backends(make_repo) -> None:
    _, run = _runner(make_repo(FILES), "none")
    lexical = run(operation="search", query=QUERY, backend="lexical")
    assert all(set(i["signals"]) == {"lexical", "lexical_rank"} for i in lexical["items"])
    dense = run(operation="search", query=QUERY, backend="dense")
    assert dense["status"] == "partial" and dense["items"] == []
    assert any("no embedding provider" in w for w in dense["warnings"])
    semantic = run(operation="search", query=QUERY, backend="semantic")
    assert semantic["status"] == "error" and semantic["code"] == "UNSUPPORTED"


@need_onnx
def test_dense_backend_and_status_with_a_local_model(make_repo, tmp_path: Path) -> None:
    model = make_onnx_model(tmp_path / "m", dim=8, seed=4)
    _, run = _runner(make_repo(FILES), f"onnx:{model}")
    status = run(operation="status")["data"]["projections"]["dense"]
    assert status["verdict"] == "ready" and status["chunks_with_vectors"] == status["chunks"] > 0
    assert status["provider"] == f"onnx:{model}"
    dense = run(operation="search", query="register hook event", backend="dense")
    assert dense["status"] == "ok" and dense["items"]
    assert all(set(i["signals"]) == {"dense", "dense_rank"} for i in dense["items"])
    both = run(operation="search", query=QUERY)
    assert any("dense_rank" in i["signals"] for i in both["items"])
    assert any(c.startswith("dense: exact cosine") for c in both["coverage"])


def test_a_broken_provider_fails_dense_only(make_repo) -> None:
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "onnx:/nonexistent/model-dir"})
    ws = Workspace.open(make_repo(FILES), settings=settings)
    assert ws.sync().published  # the lexical index is built all the same
    answer = execute({"operation": "status"}, lambda _root: ws, settings).to_dict()
    dense = answer["data"]["projections"]["dense"]
    assert dense["verdict"] == "failing" and "model" in dense["error"]
    assert answer["data"]["projections"]["lexical"]["verdict"] == "ready"
    found = execute({"operation": "search", "query": QUERY, "freshness": "fast"}, lambda _root: ws, settings)
    assert found.status == "ok"


def test_a_malformed_provider_is_refused_with_the_variable_named(make_repo) -> None:
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "word2vec:x"})
    ws = Workspace.open(make_repo(FILES), settings=settings)
    answer = execute({"operation": "status"}, lambda _root: ws, settings).to_dict()
    assert answer["data"]["projections"]["dense"]["verdict"] == "failing"
    assert "LAZY_INTEL_EMBEDDING" in answer["data"]["projections"]["dense"]["error"]


def test_backend_graph_adds_the_graph_signals_and_says_so(make_repo) -> None:
    files = {
        **FILES,
        "pkg/session.py": (
            "from pkg.hooks import dispatch_hook\n\ndef send(data, table):\n"
            "    return dispatch_hook('response', table, data)\n"
        ),
    }
    _, run = _runner(make_repo(files), "none")
    query = "dispatch_hook drops data"
    plain = run(operation="search", query=query, granularity="file", backend="lexical")
    default = run(operation="search", query=query, granularity="file")
    graph = run(operation="search", query=query, granularity="file", backend="graph")
    assert all("graph" not in i["signals"] for i in plain["items"])
    assert not any(c.startswith("graph:") for c in plain["coverage"])
    in_default = any(c.startswith("graph: proximity") for c in default["coverage"])
    assert in_default == (GRAPH_PRIOR_DEFAULT and WEIGHT_PRIOR > 0)  # not computed at weight 0
    caller = next(i for i in graph["items"] if i["anchor"]["path"] == "pkg/session.py")
    assert caller["signals"]["graph_rank"] == 1 and caller["signals"]["graph"] > 0
    assert any(c.startswith("graph: proximity") for c in graph["coverage"])


def test_the_fusion_setting_chooses_how_signals_combine(make_repo) -> None:
    root = make_repo(FILES)
    scores = {}
    for method in ("score", "rrf"):
        # the first stage's scores (the second stage would report its own)
        settings = load_settings(
            env={"LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_FUSION": method, "LAZY_INTEL_RERANK": "0"}
        )
        ws = Workspace.open(root, settings=settings)
        ws.sync()
        answer = execute(
            {"operation": "search", "query": "load_config", "granularity": "file", "freshness": "fast"},
            lambda _root, ws=ws: ws,
            settings,
        ).to_dict()
        top = answer["items"][0]
        assert top["anchor"]["path"] == "pkg/config.py"
        assert top["signals"]["lexical_rank"] == 1 and top["signals"]["symbol_rank"] == 1
        scores[method] = top["score"]
        ws.close()
    # first of both signals: rescaled 1 + 0.1, or 1/(10 + 1) + 0.1/(10 + 1)
    assert scores["score"] == pytest.approx(1.0 + WEIGHT_SYMBOL)
    assert scores["rrf"] == pytest.approx((1.0 + WEIGHT_SYMBOL) / (RRF_K + 1))


@pytest.mark.parametrize("rerank", ["1", "0"])
def test_the_second_stage_setting(make_repo, rerank: str) -> None:
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_RERANK": rerank})
    ws = Workspace.open(make_repo(FILES), settings=settings)
    ws.sync()
    run = lambda **a: execute({"freshness": "fast", **a}, lambda _r: ws, settings).to_dict()  # noqa: E731
    files = run(operation="search", query=QUERY, granularity="file")
    lexical = run(operation="search", query=QUERY, granularity="file", backend="lexical")
    reranked = any(c.startswith("rerank:") for c in files["coverage"])
    assert reranked is (rerank == "1")
    top = files["items"][0]
    assert top["anchor"]["path"] == "pkg/models.py"
    assert ("rerank_first" in top["signals"]) is (rerank == "1")  # why it ranked: the features
    assert not any(c.startswith("rerank:") for c in lexical["coverage"])  # a lexical search stays one
    ws.close()

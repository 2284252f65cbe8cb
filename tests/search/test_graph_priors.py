"""Graph priors over a real indexed store: proximity to named identifiers, centrality, caps, no graph."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lazy_intel.search import graph_priors
from lazy_intel.search.fusion import FusionWeights
from lazy_intel.search.graph_priors import (
    NO_GRAPH_COVERAGE,
    Neighbour,
    compute_priors,
    score_centrality,
    score_proximity,
    seed_identifiers,
)
from lazy_intel.search.hybrid import DEFAULT_CONFIG, hybrid_search
from lazy_intel.search.query import analyze_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "pkg/__init__.py": "",
    # defines the function the query names
    "pkg/checksums.py": "def compute_checksum(data):\n    return sum(data) % 251\n",
    # calls it, and shares no word with the query
    "pkg/archive.py": (
        "from pkg.checksums import compute_checksum\n\n"
        "def pack(blob):\n    header = compute_checksum(blob)\n    return header\n"
    ),
    # unrelated to the function, but shares the query's plain words
    "pkg/render.py": (
        "def paint(canvas):\n    # a wrong value here is a wrong value everywhere: check the value\n"
        "    return canvas.fill()\n"
    ),
}
QUERY = "Wrong value from `compute_checksum`"
GRAPH_ON = replace(DEFAULT_CONFIG, graph=True)
GRAPH_OFF = replace(DEFAULT_CONFIG, graph=False)


def _open(make_repo: Callable[..., Path], files: dict[str, str]) -> Workspace:
    ws = Workspace.open(make_repo(files), settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    return ws


@pytest.fixture
def workspace(make_repo: Callable[..., Path]) -> Workspace:
    return _open(make_repo, FILES)


def test_a_query_naming_a_function_ranks_its_caller_above_an_unrelated_file(workspace: Workspace) -> None:
    with workspace.read() as view:
        # the shipped weight makes proximity a tie-breaker; a vote equal to BM25's shows the mechanism
        primed = hybrid_search(view, QUERY, config=GRAPH_ON, weights=FusionWeights(graph=1.0))
        plain = hybrid_search(view, QUERY, config=GRAPH_OFF, weights=FusionWeights(graph=1.0))
    paths = [f.path for f in primed.files]
    before = [f.path for f in plain.files]
    # without the graph the file sharing the query's words outranks the caller; with it, the caller wins
    assert before.index("pkg/render.py") < before.index("pkg/archive.py")
    assert paths.index("pkg/archive.py") < paths.index("pkg/render.py")
    caller = next(f for f in primed.files if f.path == "pkg/archive.py")
    assert caller.signals["graph_rank"] == 1 and caller.signals["graph"] > 0
    assert "graph" in primed.used and any(c.startswith("graph: proximity") for c in primed.coverage)
    # the caller's chunk (pack) carries the graph signal too
    assert any("graph" in c.signals for c in primed.chunks)
    assert "graph" not in plain.used
    assert all("graph" not in f.signals for f in plain.files)


def test_proximity_maps_nodes_to_symbols(workspace: Workspace) -> None:
    with workspace.read() as view:
        priors = compute_priors(view, analyze_query(QUERY))
        pack = view.symbols_by_name("pack")[0]
    assert set(priors.files) == {"pkg/archive.py"}
    assert pack.id in priors.symbols and priors.symbols[pack.id] > 0


def test_no_graph_means_no_graph_signal_and_a_coverage_line(workspace: Workspace) -> None:
    with workspace.read() as view:
        conn = sqlite3.connect(view.store_path)
    with conn:
        conn.execute("DELETE FROM edges")
        conn.execute("DELETE FROM nodes")
    conn.close()
    with workspace.read() as view:
        result = hybrid_search(view, QUERY, config=GRAPH_ON, weights=FusionWeights(graph=1.0))
        priors = compute_priors(view, analyze_query(QUERY), ["pkg/archive.py"])
    assert NO_GRAPH_COVERAGE in result.coverage
    assert "graph" not in result.used and "centrality" not in result.used
    assert not priors.files and not priors.symbols and not priors.central_files


def test_centrality_is_the_in_degree_of_candidate_files_only(make_repo: Callable[..., Path]) -> None:
    files = dict(FILES)
    files["pkg/more.py"] = (
        "from pkg.checksums import compute_checksum\n\n"
        "def twice(x):\n    return compute_checksum(x) + compute_checksum(x)\n"
    )
    ws = _open(make_repo, files)
    with ws.read() as view:
        analysis = analyze_query("paint")
        only_render = compute_priors(view, analysis, ["pkg/render.py"])
        both = compute_priors(view, analysis, ["pkg/checksums.py", "pkg/render.py"])
    assert only_render.central_files == {}  # render.py is called by nobody; checksums.py not a candidate
    assert set(both.central_files) == {"pkg/checksums.py"}
    assert both.central_files["pkg/checksums.py"] > 0


def test_caps_bound_identifiers_and_edges(
    make_repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    callers = {
        f"pkg/c{i}.py": f"from pkg.checksums import compute_checksum\n\ndef f{i}(x):\n    return compute_checksum(x)\n"
        for i in range(6)
    }
    ws = _open(make_repo, {**FILES, **callers})
    monkeypatch.setattr(graph_priors, "MAX_EDGES_PER_NAME", 3)
    with ws.read() as view:
        priors = compute_priors(view, analyze_query(QUERY))
    assert len(priors.files) <= 3
    assert any("capped at 3 edges" in c for c in priors.coverage)
    monkeypatch.setattr(graph_priors, "MAX_SEEDS_PER_NAME", 0)
    with ws.read() as view:
        skipped = compute_priors(view, analyze_query(QUERY))
    assert not skipped.files and any("skipped" in c for c in skipped.coverage)
    many = analyze_query(" ".join(f"`name_{i}`" for i in range(40)))
    assert len(seed_identifiers(many)) == graph_priors.MAX_PRIOR_IDENTIFIERS


def test_scores_weight_mentions_specificity_and_confidence() -> None:
    near = [
        Neighbour("a_fn", "CALLS", 1.0, "x.py", 0, 1),
        Neighbour("a_fn", "CALLS", 0.5, "y.py", 0, 2),
        Neighbour("b_fn", "REFERENCES", 1.0, "x.py", 10, None),
    ]
    files, symbols = score_proximity(near, {"a_fn": (2.0, 1), "b_fn": (1.0, 3)})
    assert files["x.py"] > files["y.py"] and symbols[1] == 2 * symbols[2]
    assert files["x.py"] == pytest.approx(2.0 + 1.0 / (1.0 + 1.0986122886681098))
    assert score_centrality({"a.py": 0, "b.py": 3}) == {"b.py": pytest.approx(1.3862943611198906)}

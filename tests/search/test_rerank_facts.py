"""What the second stage reads (search/rerank_facts.py), over a real indexed store."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from lazy_intel.search.fusion import FusionWeights, fuse_files, rank_stage
from lazy_intel.search.graph_priors import capped_in_degree_sql, compute_priors
from lazy_intel.search.hybrid import DEFAULT_CONFIG, gather_evidence, hybrid_search
from lazy_intel.search.query import analyze_query
from lazy_intel.search.rerank import CENTRAL_SATURATION, COEFFICIENTS, RERANK_FILE_CONTEXT
from lazy_intel.search.rerank_facts import (
    capped_in_degrees,
    read_file_facts,
    read_query_facts,
    second_stage,
)
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

FILES = {
    "pkg/__init__.py": "",
    "pkg/checksums.py": "def compute_checksum(data):\n    return sum(data) % 251\n",
    "pkg/archive.py": (
        "from pkg.checksums import compute_checksum\n\ndef pack(blob):\n    return compute_checksum(blob)\n"
    ),
    "pkg/more.py": (
        "from pkg.checksums import compute_checksum\n\n"
        "def twice(x):\n    return compute_checksum(x) + compute_checksum(x)\n"
    ),
    "pkg/render.py": "def paint(canvas):\n    return canvas.fill()\n",
    # more references to one function than the in-degree is counted to (CENTRAL_SATURATION)
    "pkg/hot.py": "def hot():\n    return 1\n",
    "pkg/busy.py": "from pkg.hot import hot\n\ndef busy():\n    return [" + ", ".join(["hot()"] * 60) + "]\n",
    "CHANGES": "compute_checksum is faster\n",
    "tests/test_pack.py": "from pkg.hot import hot\n\ndef pack():\n    return hot()\n",
}


@pytest.fixture
def workspace(make_repo: Callable[..., Path]) -> Workspace:
    ws = Workspace.open(make_repo(FILES), settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    return ws


def test_file_facts_hold_definitions_and_the_resolved_in_degree(workspace: Workspace) -> None:
    analysis = analyze_query("Wrong value from `compute_checksum`")
    with workspace.read() as view:
        paths = {int(i): str(p) for i, p in view.conn.execute("SELECT id, path FROM files")}
        ids = sorted(paths)
        facts = read_file_facts(view, analysis, ids, paths, [])
        without = read_file_facts(view, analysis, ids, paths, [], in_degrees=False)
        # the count the centrality prior reads, up to where the central feature saturates
        priors = compute_priors(view, analysis, list(paths.values()))
    by_path = {f.path: f for f in facts.values()}
    assert by_path["pkg/checksums.py"].definitions == (("compute_checksum", "compute_checksum"),)
    assert by_path["pkg/checksums.py"].in_degree >= 2  # called from archive.py and more.py
    assert by_path["pkg/render.py"].in_degree == 0 and by_path["CHANGES"].in_degree == 0
    assert by_path["pkg/hot.py"].in_degree == CENTRAL_SATURATION  # 60 calls, counted up to the cap
    assert priors.central_files["pkg/hot.py"] >= math.log1p(60)
    for path, value in priors.central_files.items():
        expected = math.log1p(by_path[path].in_degree)
        assert (
            value == pytest.approx(expected) if value < math.log1p(CENTRAL_SATURATION) else value >= expected
        )
    assert all(f.in_degree == 0 for f in without.values())


def test_callees_are_the_files_a_named_definition_reaches(workspace: Workspace) -> None:
    """``callee``: an edge out of a definition the report names (``pack`` in archive.py calls
    compute_checksum in checksums.py) marks the callee's file; a named definition in a test file
    (tests/test_pack.py's ``pack`` calls hot) does not; the caller's own file is not its callee;
    search reads nothing unless the feature counts."""
    analysis = analyze_query("`pack` returns the wrong checksum")
    with workspace.read() as view:
        asked = read_query_facts(view, analysis, [], callees=True)
        unasked = read_query_facts(view, analysis, [])
        found = gather_evidence(view, "`pack` returns the wrong checksum")
        stage = fuse_files(found.evidence)
        _, features = second_stage(
            view,
            found.analysis,
            found.evidence,
            found.terms,
            stage,
            coefficients={**COEFFICIENTS, "callee": 1.0},
        )
    assert set(asked.callees) == {"pkg/checksums.py"}
    # two definitions of ``pack``: the mention's full weight x specificity 1 / (1 + ln 2)
    assert asked.callees["pkg/checksums.py"] == pytest.approx(1 / (1 + math.log(2)))
    assert unasked.callees == {}
    by_path = {found.evidence.file_path[f]: v for f, v in features.items()}
    assert by_path["pkg/checksums.py"]["callee"] > 0
    assert all(v["callee"] == 0.0 for p, v in by_path.items() if p != "pkg/checksums.py")


def test_in_degrees_are_read_once_per_generation(workspace: Workspace) -> None:
    """A generation's capped in-degrees are counted once in a process and reused (equal to a count of
    the same view); an edit's new generation counts afresh and sees the new references."""
    paths = ["pkg/checksums.py", "pkg/render.py", "pkg/hot.py", "CHANGES"]
    with workspace.read() as view:
        first = capped_in_degrees(view, paths)
        statements: list[str] = []
        view.conn.set_trace_callback(statements.append)
        again = capped_in_degrees(view, [*paths, paths[0]])
        view.conn.set_trace_callback(None)
        sql, fixed = capped_in_degree_sql()
        direct = {p: view.conn.execute(sql, (p, *fixed, CENTRAL_SATURATION)).fetchone()[0] for p in paths}
    assert first == again == {p: n for p, n in direct.items() if n}
    assert first["pkg/checksums.py"] >= 2 and first["pkg/hot.py"] == CENTRAL_SATURATION
    assert statements == [], "the second read of the same generation counted nothing"
    (workspace.root / "pkg/render.py").write_text(
        "from pkg.checksums import compute_checksum\n\ndef paint(canvas):\n    return compute_checksum(canvas)\n"
    )
    workspace.sync()
    with workspace.read() as view:
        after = capped_in_degrees(view, paths)
    assert after["pkg/checksums.py"] > first["pkg/checksums.py"], (
        "the new generation counted the new reference"
    )


def test_search_reads_in_degrees_only_when_central_counts(workspace: Workspace) -> None:
    query = "Wrong value from `compute_checksum`"
    with workspace.read() as view:
        found = gather_evidence(view, query)
        stage = fuse_files(found.evidence)
        runs = {
            weight: second_stage(
                view,
                found.analysis,
                found.evidence,
                found.terms,
                stage,
                coefficients={**COEFFICIENTS, "central": weight},
            )
            for weight in (0.0, 1.0)
        }
    checksums = next(f for f, p in found.evidence.file_path.items() if p == "pkg/checksums.py")
    assert runs[1.0][1][checksums]["central"] > 0
    assert runs[0.0][1][checksums]["central"] == 0.0  # not read: the feature does not count


def test_search_ranks_chunks_with_the_second_stages_file_context_weight(workspace: Workspace) -> None:
    query = "Wrong value from `compute_checksum` in pack"
    with workspace.read() as view:
        # the chunks as the stages before the function stage rank them (test_function_facts.py)
        result = hybrid_search(view, query, config=replace(DEFAULT_CONFIG, functions=False))
        found = gather_evidence(view, query)
        stage = fuse_files(found.evidence)
        second, _ = second_stage(view, found.analysis, found.evidence, found.terms, stage)
    expected = {
        weight: rank_stage(found.evidence, stage, FusionWeights(file_context=weight), file_scores=second)[0]
        for weight in (RERANK_FILE_CONTEXT, RERANK_FILE_CONTEXT + 3.0)
    }
    got = [(c.chunk_id, c.score) for c in result.chunks]
    assert got == [(c.chunk_id, pytest.approx(c.score)) for c in expected[RERANK_FILE_CONTEXT]]
    other = expected[RERANK_FILE_CONTEXT + 3.0]
    assert got != [(c.chunk_id, pytest.approx(c.score)) for c in other]  # the weight matters here

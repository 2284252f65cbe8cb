"""Both store backends answer alike: the same operations on the same fixture repositories give the
same answers item for item (SQLite, the embedded default, against a real PostgreSQL server), and
the stores they build are the same rows (the canonical, id-free dump)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from tests.conftest import pg_env
from tests.graph.test_incremental import Repo as GraphRepo
from tests.service.indexing.test_sync import BASE_FILES, _random_edit
from tests.service.ops.test_operations import FILES as SEARCH_FILES
from tests.service.ops.test_ops_graph import LAYERED, POLYGLOT, PYTHON, ROUTES

# what legitimately differs between two stores of the same tree: when and where they were written,
# and timings (the budget counts their digits)
VOLATILE_KEYS = frozenset(
    {"published_at", "store", "elapsed_ms", "seconds", "captured_at", "age_ms", "used_chars"}
)

OPERATIONS: tuple[dict[str, Any], ...] = (
    {"operation": "search", "query": "send request retries", "limit": 10},
    {"operation": "search", "query": "adapter retry", "limit": 20},
    {"operation": "search", "query": '"Send a request with retries"', "limit": 10},
    {"operation": "search", "query": "retries", "path": "pkg/*.py", "kind": "function"},
    {"operation": "search", "query": "helper", "lang": "python"},
    # names defined symbols: the graph priors' neighbourhood queries run
    {"operation": "search", "query": "Session.send fails when request raises ValueError in helper"},
    {"operation": "symbol", "symbol": "request"},
    {"operation": "symbol", "symbol": "Session.request"},
    {"operation": "context", "symbol": "Session.send"},
    {"operation": "callers", "symbol": "Session.send", "depth": 3},
    {"operation": "callees", "symbol": "request", "depth": 2},
    {"operation": "impact", "symbol": "Session.send", "depth": 3},
    {"operation": "references", "symbol": "Session"},
    {"operation": "auto", "query": "Session.request"},
    {
        "operation": "auto",
        "query": 'File "pkg/sessions.py", line 6, in request\n    return self.send(method, url)',
    },
    {"operation": "query", "query": "MATCH (a)-[:CALLS]->(b) RETURN a.qualified_name AS a, b.name AS b"},
    {"operation": "query", "query": "MATCH (a:Function)-[:CALLS*1..3]->(b) RETURN a, b.qualified_name"},
    {"operation": "query", "query": "MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS n ORDER BY n DESC"},
    {"operation": "query", "query": "MATCH (c:Class) WHERE c.name =~ 'S.*' RETURN c.name, labels(c)"},
    {"operation": "architecture"},
    {"operation": "routes"},
    {"operation": "implementations", "symbol": "Base"},
)


def _normalized(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def _answers(root: Path, env: dict[str, str], state: Path) -> tuple[list[dict[str, Any]], Any]:
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none", **env})
    ws = Workspace.open(root, settings=settings, state_dir=state)
    try:
        ws.sync()
        out = [
            _normalized(execute({**op, "freshness": "fast"}, lambda _r: ws, settings).to_dict())
            for op in OPERATIONS
        ]
        with ws.read() as view:
            dump = canonical_dump(view.conn)
        return out, dump
    finally:
        ws.close()


FIXTURES = {
    "search": SEARCH_FILES,
    "python": PYTHON,
    "polyglot": POLYGLOT,
    "layered": LAYERED,
    "routes": ROUTES,
}


@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_answers_are_equal_item_for_item(fixture: str, make_repo, pg_dsn: str, tmp_path: Path) -> None:
    root = make_repo(FIXTURES[fixture])
    lite, lite_dump = _answers(root, {}, tmp_path / "state-sqlite")
    pg, pg_dump = _answers(root, pg_env(pg_dsn), tmp_path / "state-pg")
    assert any(a["status"] == "ok" and a["items"] for a in lite), "the fixture answers nothing"
    for op, a, b in zip(OPERATIONS, lite, pg, strict=True):
        assert a == b, f"{op} differs between SQLite and PostgreSQL"
    assert lite_dump == pg_dump


def _dump(ws: Workspace) -> dict[str, list[tuple[object, ...]]]:
    with ws.read() as view:
        return canonical_dump(view.conn)


def _open(root: Path, env: dict[str, str], state: Path) -> Workspace:
    return Workspace.open(
        root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none", **env}), state_dir=state
    )


# one seed: the random edit classes are the SQLite incremental tests' (three seeds there); this one
# checks that the PostgreSQL store follows them as SQLite does (CI's 20-minute budget)
@pytest.mark.parametrize("seed", [1])
def test_incremental_equals_clean_on_postgresql(make_repo, pg_dsn: str, tmp_path: Path, seed: int) -> None:
    """Random edits (files and the graph's callee files), each synced incrementally into PostgreSQL,
    give the store a clean PostgreSQL rebuild gives — and the store a clean SQLite build gives."""
    root = make_repo(BASE_FILES)
    graph_repo = GraphRepo(root / "graph")
    ws = _open(root, pg_env(pg_dsn), tmp_path / "state")
    ws.sync()
    rng = random.Random(seed)
    try:
        for step in range(5):
            for _ in range(rng.randint(1, 2)):
                _random_edit(root, rng, step)
            graph_repo.random_step(rng)
            assert ws.sync().full_rebuild is False
            incremental = _dump(ws)
            clean_ws = _open(root, pg_env(pg_dsn, f"clean-{seed}-{step}"), tmp_path / f"clean-{step}")
            clean_ws.sync(rebuild=True)
            lite_ws = _open(root, {}, tmp_path / f"lite-{step}")
            lite_ws.sync(rebuild=True)
            try:
                assert incremental == _dump(clean_ws), f"seed {seed} step {step}"
                assert incremental == _dump(lite_ws), f"seed {seed} step {step}: PostgreSQL != SQLite"
            finally:
                clean_ws.close()
                lite_ws.close()
    finally:
        ws.close()

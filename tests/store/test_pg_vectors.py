"""Dense vectors through pgvector on a real PostgreSQL server (the ``pgserver`` wheel's PostgreSQL 16
with pgvector), against SQLite's NumPy search of the same fixture repositories: the same chunks in
the same order, item for item; a profile change re-embeds only the vectors; a store without the
column (a server without pgvector, a store written before) is searched in NumPy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.search import vector_search, vectors
from lazy_intel.search.hybrid import DENSE_ONLY, hybrid_search
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.pg import vectors as pg_vectors
from lazy_intel.store.pg.vectors import META_COLUMN, NUMPY, PGVECTOR
from tests.conftest import pg_env
from tests.search.models import make_onnx_model, need_onnx
from tests.service.ops.test_operations import FILES as SEARCH_FILES
from tests.service.ops.test_ops_graph import LAYERED, POLYGLOT, PYTHON
from tests.service.test_backend_equality import _normalized

pytestmark = need_onnx

FIXTURES = {"search": SEARCH_FILES, "python": PYTHON, "polyglot": POLYGLOT, "layered": LAYERED}
QUERIES = (
    "send the request with retries",
    "register a hook for the session",
    "parse the config file and load json data",
    "error",
)


@pytest.fixture(autouse=True)
def server_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every dense query in the server (no matrix loaded after a first answer), so that the equality
    tests below compare pgvector with NumPy, not NumPy with NumPy; the policy has its own test."""
    monkeypatch.setattr(vector_search, "PG_MATRIX_LOAD_MAX_BYTES", 0)
    monkeypatch.setattr(vector_search, "_server_answered", {})


@pytest.fixture(scope="module")
def pgvector_dsn(pgvector_server: Any) -> str:
    return str(pgvector_server.create_database("lazy_intel_pgvector"))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_onnx_model(tmp_path_factory.mktemp("m8") / "m8", dim=8, seed=1)


def _open(root: Path, env: dict[str, str], state: Path, model: Path) -> Workspace:
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": f"onnx:{model}", **env})
    return Workspace.open(root, settings=settings, state_dir=state)


@pytest.fixture
def workspaces(make_repo, pgvector_dsn: str, tmp_path: Path, model: Path) -> Iterator[Any]:
    opened: list[Workspace] = []

    def open_pair(files: dict[str, str]) -> tuple[Workspace, Workspace]:
        root = make_repo(files)
        lite = _open(root, {}, tmp_path / f"lite{len(opened)}", model)
        pg = _open(root, pg_env(pgvector_dsn), tmp_path / f"pg{len(opened)}", model)
        opened.extend((lite, pg))
        lite.sync()
        pg.sync()
        return lite, pg

    yield open_pair
    for ws in opened:
        ws.close()


def _dense(ws: Workspace, query: str) -> tuple[list[tuple[str, int]], list[float], list[str]]:
    """The dense-only ranking: chunks as (path, start byte) (ids differ between stores), their
    cosines, and the coverage notes."""
    with ws.read() as view:
        found = hybrid_search(view, query, config=DENSE_ONLY, embedder=ws.embedder())
        where = {
            int(cid): (str(path), int(start))
            for cid, path, start in view.conn.execute(
                "SELECT c.id, f.path, c.start_byte FROM chunks c JOIN files f ON f.id = c.file_id"
            )
        }
    keys = [where[c.chunk_id] for c in found.chunks]
    return keys, [c.signals["dense"] for c in found.chunks], list(found.coverage)


def _dense_status(ws: Workspace) -> dict[str, Any]:
    status = execute({"operation": "status"}, lambda _r: ws, ws.settings).to_dict()
    return dict(status["data"]["projections"]["dense"])


def _assert_same_dense(lite: Workspace, pg: Workspace) -> None:
    for query in QUERIES:
        keys_a, scores_a, _ = _dense(lite, query)
        keys_b, scores_b, _ = _dense(pg, query)
        assert keys_a, f"{query!r}: the fixture has no dense answer"
        assert keys_a == keys_b, f"{query!r}: pgvector ranks other chunks than NumPy"
        assert scores_a == scores_b  # bit for bit: the server's candidates are scored as NumPy scores


@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_pgvector_ranks_chunks_as_numpy_does_item_for_item(fixture: str, workspaces) -> None:
    lite, pg = workspaces(FIXTURES[fixture])
    _assert_same_dense(lite, pg)
    _, _, notes = _dense(pg, QUERIES[0])
    assert any("pgvector" in n for n in notes), notes
    assert _dense_status(pg)["search"] == PGVECTOR
    assert _dense_status(lite)["search"] == NUMPY, _dense_status(lite)
    for query in QUERIES:  # the fused search answers, dense signal included, item for item
        search = {"operation": "search", "query": query, "limit": 10, "freshness": "fast"}
        a = _normalized(execute(search, lambda _r: lite, lite.settings).to_dict())
        b = _normalized(execute(search, lambda _r: pg, pg.settings).to_dict())
        notes_a, notes_b = a.pop("coverage"), b.pop("coverage")
        assert a["items"] and a == b
        # the one difference: where the exact cosine ran
        assert [n.replace(", pgvector in PostgreSQL", "") for n in notes_b] == notes_a


def test_a_profile_change_reembeds_only_the_vectors_in_the_new_dimension(
    workspaces, tmp_path: Path, pgvector_dsn: str
) -> None:
    lite, pg = workspaces(SEARCH_FILES)
    with pg.read() as view:
        before = (pg.pg.live(), view.generation)
    other = make_onnx_model(tmp_path / "m16", dim=16, seed=2)
    for ws in (lite, pg):
        ws.settings = load_settings(
            env={**_env_of(ws, pgvector_dsn), "LAZY_INTEL_EMBEDDING": f"onnx:{other}"}
        )
        ws.sync()
        assert ws.last_vectors is not None and ws.last_vectors.decision == "rebuild"
        assert ws.last_vectors.embedded == ws.last_vectors.total > 0
    with pg.read() as view:  # the lexical store is the same generation of the same schema
        assert (pg.pg.live(), view.generation) == before
        assert str(view.meta(META_COLUMN)).endswith("|16")
    _assert_same_dense(lite, pg)


def _env_of(ws: Workspace, dsn: str) -> dict[str, str]:
    return pg_env(dsn) if ws.settings.store.startswith("postgresql") else {}


def test_the_servers_top_k_is_numpys_for_every_k(workspaces, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small k: the candidates are k plus a margin, and near-ties at the boundary (the tiny model
    gives many chunks the same vector up to the last bits) need the second, distance-bounded scan."""
    _, pg = workspaces(POLYGLOT)
    scans: list[str] = []
    real = pg_vectors.nearest_candidates

    def counted(*args: Any, **kwargs: Any) -> Any:
        scans.append("within" if kwargs.get("within") is not None else "limit")
        return real(*args, **kwargs)

    monkeypatch.setattr(pg_vectors, "nearest_candidates", counted)
    monkeypatch.setattr(vector_search, "SERVER_MARGIN_MIN", 1)
    embedder = pg.embedder()
    with pg.read() as view:
        column = pg_vectors.EmbeddingColumn.parse(str(view.meta(META_COLUMN)))
        index = vectors.load_vector_index(view.conn, "pg", view.generation, embedder.profile.id)
        assert index is not None
        for query in QUERIES:
            q = embedder.embed([query])[0]
            for k in range(1, len(index.chunk_ids) + 2):
                rows, scores = vectors.nearest(index.matrix, q, k)
                hits = vector_search.nearest_in_server(view.conn, column, embedder.profile.id, q, k)
                assert hits.chunk_ids == [int(index.chunk_ids[r]) for r in rows], (query, k)
                assert hits.scores == scores.tolist() and hits.searched == len(index.chunk_ids)
    assert "within" in scans and "limit" in scans


def test_a_store_without_the_column_is_searched_in_numpy_then_filled(workspaces) -> None:
    lite, pg = workspaces(PYTHON)
    raw = pg.pg.writer_raw()
    schema = pg.pg.live().schema
    with raw.transaction():
        raw.execute(f'ALTER TABLE "{schema}".vectors DROP COLUMN embedding')
        raw.execute(f'DELETE FROM "{schema}".meta WHERE key = %s', [META_COLUMN])
    assert _dense_status(pg)["search"] == NUMPY
    _assert_same_dense(lite, pg)
    pg.sync()  # nothing changed: the next vector refresh adds the column and fills it from data
    assert pg.last_vectors is not None and pg.last_vectors.embedded == 0
    assert _dense_status(pg)["search"] == PGVECTOR
    _assert_same_dense(lite, pg)


def test_a_rebuild_carries_the_column_over_without_embedding_again(workspaces) -> None:
    lite, pg = workspaces(LAYERED)
    before = pg.pg.live()
    pg.sync(rebuild=True)
    assert pg.pg.live() != before
    assert pg.last_vectors is not None and pg.last_vectors.embedded == 0
    assert _dense_status(pg)["search"] == PGVECTOR
    _assert_same_dense(lite, pg)


def test_a_server_without_pgvector_searches_in_numpy(
    make_repo, pg_dsn: str, tmp_path: Path, model: Path
) -> None:
    root = make_repo(SEARCH_FILES)
    lite = _open(root, {}, tmp_path / "lite", model)
    pg = _open(root, pg_env(pg_dsn), tmp_path / "pg", model)
    try:
        lite.sync()
        pg.sync()
        raw = pg.pg.writer_raw()
        if raw.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
            pytest.skip("this Debian server has pgvector: the NumPy fallback is tested by the column test")
        assert _dense_status(pg)["search"] == NUMPY
        _assert_same_dense(lite, pg)
    finally:
        lite.close()
        pg.close()


def test_a_reader_asks_the_server_first_then_answers_from_the_matrix_it_loaded(
    workspaces, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite, pg = workspaces(SEARCH_FILES)
    monkeypatch.setattr(vector_search, "PG_MATRIX_LOAD_MAX_BYTES", 64 * 1024 * 1024)

    def where(notes: list[str]) -> str:
        return "server" if any("pgvector" in n for n in notes) else "numpy"

    ran = []
    for query in QUERIES:
        keys_a, scores_a, _ = _dense(lite, query)
        keys_b, scores_b, notes = _dense(pg, query)
        assert (keys_a, scores_a) == (keys_b, scores_b), query
        ran.append(where(notes))
    assert ran == ["server"] + ["numpy"] * (len(QUERIES) - 1)
    # a store whose matrix would not fit the budget is always searched in the server
    monkeypatch.setattr(vector_search, "_server_answered", {})
    monkeypatch.setattr(vector_search, "PG_MATRIX_LOAD_MAX_BYTES", 1)
    assert [where(_dense(pg, q)[2]) for q in QUERIES[:2]] == ["server", "server"]
    assert not vector_search.loads_matrix(1, 8)  # 32 bytes over a 1-byte budget
    monkeypatch.setattr(vector_search, "PG_MATRIX_LOAD_MAX_BYTES", 320)
    assert vector_search.loads_matrix(10, 8) and not vector_search.loads_matrix(11, 8)
    assert not vector_search.loads_matrix(0, 8)  # no vectors: nothing to load

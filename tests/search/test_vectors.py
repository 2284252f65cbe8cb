"""The vector projection: cached by text hash, rebuilt (alone) when the model changes, never mixed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from lazy_intel.search.vectors import (
    DROP,
    EMBED_BATCH,
    KEEP,
    NOTHING,
    REBUILD,
    nearest,
    plan_projection,
    row_scores,
    stored_profile,
    vector_coverage,
)
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect
from tests.search.models import make_onnx_model, need_onnx

FILES = {
    "pkg/session.py": (
        "class Session:\n"
        "    def send(self, request):\n        return request\n\n"
        "    def resolve_redirects(self, resp):\n        return resp\n"
    ),
    "pkg/hooks.py": "def register_hook(hooks, name, hook):\n    hooks[name].append(hook)\n",
    "pkg/config.py": "def load_config(path):\n    return open(path).read()\n",
}


@pytest.mark.parametrize(
    ("stored", "configured", "decision"),
    [
        (None, None, NOTHING),
        ("a|m|8|r1", None, DROP),
        (None, "a|m|8|r1", KEEP),
        ("a|m|8|r1", "a|m|8|r1", KEEP),
        ("a|m|8|r1", "a|m2|8|r1", REBUILD),
        ("a|m|8|r1", "a|m|8|r2", REBUILD),  # a new text recipe is a new projection too
    ],
)
def test_plan_projection(stored: str | None, configured: str | None, decision: str) -> None:
    assert plan_projection(stored, configured) == decision


def test_nearest_is_exact_and_ordered() -> None:
    matrix = np.eye(4, dtype=np.float32)
    query = np.array([0.1, 0.9, 0.5, 0.0], dtype=np.float32)
    rows, scores = nearest(matrix, query, 3)
    assert rows.tolist() == [1, 2, 0]
    assert scores.tolist() == pytest.approx([0.9, 0.5, 0.1])
    assert nearest(matrix, query, 0)[0].size == 0


def test_nearest_breaks_ties_at_the_boundary_by_row_index() -> None:
    # 300 equal rows around one better row: whichever k, the tied rows kept are the first ones
    matrix = np.tile(np.array([[0.6, 0.8]], dtype=np.float32), (301, 1))
    matrix[150] = [0.0, 1.0]
    query = np.array([0.0, 1.0], dtype=np.float32)
    for k in (1, 2, 5, 64, 300, 301, 400):
        rows, _ = nearest(matrix, query, k)
        assert rows.tolist() == ([150] + [i for i in range(301) if i != 150])[:k]


def test_a_rows_score_does_not_depend_on_the_other_rows() -> None:
    # what lets PostgreSQL's candidate rows be scored to the same bits as the whole matrix
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((2001, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[7]
    full = row_scores(matrix, query)
    for n in (1, 3, 17, 250):
        rows = np.sort(rng.choice(2001, n, replace=False))
        subset = np.frombuffer(b"".join(matrix[r].tobytes() for r in rows), dtype=np.float32).reshape(n, -1)
        assert row_scores(subset, query).tolist() == full[rows].tolist()


def _open(root: Path, model_dir: Path | None) -> Workspace:
    spec = f"onnx:{model_dir}" if model_dir is not None else "none"
    return Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": spec}))


def _vectors(ws: Workspace) -> dict[str, bytes]:
    path = ws.store_path()
    assert path is not None
    conn = connect(str(path), readonly=True)
    try:
        return {sha: bytes(data) for sha, data in conn.execute("SELECT embed_sha, data FROM vectors")}
    finally:
        conn.close()


def _meta(ws: Workspace) -> tuple[str | None, int, int, int]:
    path = ws.store_path()
    assert path is not None
    conn = connect(str(path), readonly=True)
    try:
        profile = stored_profile(conn)
        covered, total = vector_coverage(conn, profile) if profile else (0, 0)
        generation = int(conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
        return profile, covered, total, generation
    finally:
        conn.close()


@need_onnx
def test_unchanged_chunks_are_never_re_embedded(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    root = make_repo(FILES)
    ws = _open(root, make_onnx_model(tmp_path / "m8", dim=8, seed=1))
    ws.sync()
    assert ws.last_vectors is not None and ws.last_vectors.embedded == ws.last_vectors.total > 0
    before = _vectors(ws)
    (root / "pkg" / "config.py").write_text("def load_config(path):\n    return open(path).read().strip()\n")
    ws.sync()
    assert ws.last_vectors.embedded == 1  # only the edited function
    after = _vectors(ws)
    assert len(set(after) - set(before)) == 1 and len(set(before) - set(after)) == 1
    assert all(after[k] == before[k] for k in set(before) & set(after))
    ws.sync()
    assert ws.last_vectors.embedded == 0


@need_onnx
def test_a_different_model_rebuilds_only_the_vector_projection(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_repo(FILES)
    first = _open(root, make_onnx_model(tmp_path / "m8", dim=8, seed=1))
    first.sync()
    profile8, covered, total, generation = _meta(first)
    assert covered == total > 0
    store = first.store_path()

    second = _open(root, make_onnx_model(tmp_path / "m16", dim=16, seed=2))
    report = second.sync()
    assert not report.published and not report.full_rebuild  # lexical projection untouched
    assert second.store_path() == store
    profile16, covered16, total16, generation16 = _meta(second)
    assert profile16 != profile8 and "|16|" in profile16
    assert (covered16, total16, generation16) == (total, total, generation)
    assert second.last_vectors is not None and second.last_vectors.decision == REBUILD
    assert {len(v) for v in _vectors(second).values()} == {16 * 4}  # no 8-dim vector left: no mix

    third = _open(root, None)
    third.sync()
    assert _meta(third)[0] is None and _vectors(third) == {}


@need_onnx
def test_full_rebuild_reuses_vectors_of_the_previous_store(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_repo(FILES)
    ws = _open(root, make_onnx_model(tmp_path / "m8", dim=8, seed=1))
    ws.sync()
    before = _vectors(ws)
    report = ws.sync(rebuild=True)
    assert report.full_rebuild
    assert ws.last_vectors is not None
    assert ws.last_vectors.embedded == 0 and ws.last_vectors.reused == len(before)
    assert _vectors(ws) == before


@need_onnx
def test_incremental_equals_clean_with_vectors(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    model = make_onnx_model(tmp_path / "m8", dim=8, seed=1)
    root = make_repo(FILES)
    ws = _open(root, model)
    ws.sync()
    (root / "pkg" / "hooks.py").unlink()
    (root / "pkg" / "new.py").write_text("def parse(data):\n    return data\n")
    (root / "pkg" / "session.py").write_text(FILES["pkg/session.py"].replace("return resp", "return None"))
    ws.sync()
    clean_root = make_repo(
        {p: (root / p).read_text() for p in ("pkg/session.py", "pkg/config.py", "pkg/new.py")}
    )
    clean = _open(clean_root, model)
    clean.sync()

    def dump(w: Workspace) -> dict[str, list[tuple[object, ...]]]:
        path = w.store_path()
        assert path is not None
        conn = connect(str(path), readonly=True)
        try:
            out = canonical_dump(conn)
        finally:
            conn.close()
        out["meta"] = [row for row in out["meta"] if row[0] != "root"]
        return out

    assert dump(ws) == dump(clean)
    assert dump(ws)["vectors"]


@need_onnx
def test_embedding_runs_in_batches_and_reports_progress(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    many = {"pkg/many.py": "".join(f"def handler_{i}(event):\n    return event + {i}\n\n" for i in range(80))}
    root = make_repo(many)
    ws = _open(root, make_onnx_model(tmp_path / "m8", dim=8, seed=1))
    seen: list[tuple[str, int, int]] = []
    ws.sync(progress=lambda stage, done, total: seen.append((stage, done, total)))
    embed = [(done, total) for stage, done, total in seen if stage == "embed"]
    assert ws.last_vectors is not None
    total = ws.last_vectors.embedded
    assert total > EMBED_BATCH  # more than one batch
    expected = [
        (0, total),
        *((min(n, total), total) for n in range(EMBED_BATCH, total + EMBED_BATCH, EMBED_BATCH)),
    ]
    assert embed == expected
    again: list[tuple[str, int, int]] = []
    ws.sync(progress=lambda stage, done, total: again.append((stage, done, total)))
    assert not [s for s in again if s[0] == "embed"]  # nothing left to embed: no embedding progress


@pytest.mark.xdist_group("static_table")
@pytest.mark.slow
def test_switching_between_the_torch_model_and_the_static_table_rebuilds_only_vectors(
    make_repo: Callable[..., Path], static_table_cache: Path
) -> None:
    """The model-change rule across the old provider (the [dense] extra's all-MiniLM-L6-v2 on torch)
    and the static table of the base install, both real."""
    from lazy_intel.search.embedders import dense_extra_available

    if not dense_extra_available():
        pytest.skip("the [dense] extra (torch, sentence-transformers) is not installed")
    root = make_repo(FILES)

    def open_with(spec: str) -> Workspace:
        return Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": spec}))

    static = open_with("static")
    static.sync()
    profile_static, covered, total, generation = _meta(static)
    assert profile_static is not None and profile_static.startswith("static|minilm-l6-256@")
    assert covered == total > 0
    store = static.store_path()

    torch_ws = open_with("sentence-transformers:all-MiniLM-L6-v2")
    report = torch_ws.sync()
    assert not report.published and torch_ws.store_path() == store  # lexical projection untouched
    assert torch_ws.last_vectors is not None and torch_ws.last_vectors.decision == REBUILD
    profile_torch, covered_t, total_t, generation_t = _meta(torch_ws)
    assert profile_torch == "sentence-transformers|all-MiniLM-L6-v2|384|r1"
    assert (covered_t, total_t, generation_t) == (total, total, generation)
    assert {len(v) for v in _vectors(torch_ws).values()} == {384 * 4}

    back = open_with("static")
    back.sync()
    assert back.last_vectors is not None and back.last_vectors.decision == REBUILD
    assert _meta(back)[:3] == (profile_static, total, total)
    assert {len(v) for v in _vectors(back).values()} == {256 * 4}  # no 384-d vector left: no mix
    (root / "pkg" / "config.py").write_text("def load_config(path):\n    return open(path).read().strip()\n")
    back.sync()
    assert back.last_vectors.embedded == 1  # the static table keys vectors by content hash too

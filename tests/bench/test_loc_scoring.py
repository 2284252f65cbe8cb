"""In-memory re-scoring (bench/loc_scoring.py) ranks exactly as fusion.fuse_evidence does."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.search.fusion import Evidence, FusionWeights, fuse_evidence, fuse_files, rank_stage
from tests.bench import load_bench

scoring = load_bench("loc_scoring")

PATHS = ["pkg/a.py", "pkg/b.py", "tests/test_a.py", "doc/example.py", "pkg/c.py", "pkg/d.py"]
scores = st.floats(min_value=0.0, max_value=50.0, allow_nan=False).map(lambda x: round(x, 1))
weights = st.builds(
    FusionWeights,
    lexical=st.sampled_from([0.0, 0.5, 1.0]),
    symbol=st.sampled_from([0.0, 0.1, 0.4]),
    path=st.sampled_from([0.0, 0.3]),
    phrase=st.sampled_from([0.0, 0.2]),
    graph=st.sampled_from([0.0, 0.05, 1.0]),
    file_context=st.sampled_from([0.0, 1.0, 2.0]),
    floor_rank=st.sampled_from([0, 2, 50]),
    test_file_factor=st.sampled_from([0.25, 1.0]),
    auxiliary_file_factor=st.sampled_from([0.5, 1.0]),
)


@st.composite
def evidence(draw: st.DrawFn) -> Evidence:
    n_chunks = draw(st.integers(1, 30))
    chunk_file = {c: draw(st.integers(0, len(PATHS) - 1)) for c in range(n_chunks)}
    chunk_signals = {}
    for name in ("lexical", "phrase", "symbol", "graph"):
        chosen = draw(st.lists(st.sampled_from(range(n_chunks)), unique=True, max_size=n_chunks))
        if chosen:
            chunk_signals[name] = {c: draw(scores) for c in chosen}
    file_signals = {}
    for name in ("path", "graph"):
        files = sorted({chunk_file[c] for c in chunk_signals.get("lexical", {})} | {0})
        chosen = draw(st.lists(st.sampled_from(files), unique=True))
        if chosen:
            file_signals[name] = {f: draw(scores) + 0.1 for f in chosen}
    return Evidence(chunk_signals, file_signals, chunk_file, dict(enumerate(PATHS)), draw(st.booleans()))


@settings(max_examples=150, deadline=None)
@given(evidence(), weights, st.booleans())
def test_table_ranks_as_fusion_does(ev: Evidence, w: FusionWeights, file_context: bool) -> None:
    keys = {c: (f"{ev.file_path[f]}:f{c % 4}" if c % 3 else None) for c, f in ev.chunk_file.items()}
    table = scoring.FusionTable(ev, keys, floor_rank=w.floor_rank, ranked_files=20, ranked_functions=5)
    got = table.rank(w, file_context=file_context)
    chunks, files = fuse_evidence(ev, w, file_context=file_context)
    assert got.files == [f.path for f in files[:20]]
    assert got.file_scores == [f.score for f in files[:20]]
    functions: dict[str, None] = {}
    for chunk in chunks[:20]:
        if keys.get(chunk.chunk_id) is not None:
            functions.setdefault(keys[chunk.chunk_id])  # type: ignore[arg-type]
    assert got.functions == list(functions)[:5]


def test_rank_refuses_rank_fusion() -> None:
    ev = Evidence({"lexical": {1: 1.0}}, {}, {1: 0}, {0: "a.py"}, False)
    table = scoring.FusionTable(ev, {1: None}, floor_rank=50)
    with pytest.raises(ValueError, match="score fusion"):
        table.rank(FusionWeights(method="rrf"))


@settings(max_examples=100, deadline=None)
@given(evidence(), weights, st.data())
def test_second_stage_file_scores_rank_as_rank_stage_does(
    ev: Evidence, w: FusionWeights, data: st.DataObject
) -> None:
    keys = {c: f"{ev.file_path[f]}:f{c % 4}" for c, f in ev.chunk_file.items()}
    table = scoring.FusionTable(ev, keys, floor_rank=w.floor_rank, ranked_files=20, ranked_functions=5)
    stage = fuse_files(ev, w)
    assert table.stage_scores(w) == pytest.approx(stage.file_scores)
    assert (
        table.top_files(w, 3)
        == [f for f in sorted(stage.file_scores, key=lambda f: (-stage.file_scores[f], ev.file_path[f]))][:3]
    )
    override = {f: data.draw(st.floats(0.0, 1.0)) for f in stage.file_scores}
    got = table.rank(w, file_scores=override)
    chunks, files = rank_stage(ev, stage, w, file_scores=override)
    assert got.files == [f.path for f in files[:20]]
    functions: dict[str, None] = {}
    for chunk in chunks[:20]:
        functions.setdefault(keys[chunk.chunk_id])
    assert got.functions == list(functions)[:5]

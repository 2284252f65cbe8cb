"""Phrase scores carried across generations equal a fresh FTS5 read to the bit (store/phrase_carry.py)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.search.lexical import ColumnWeights, build_lexical_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.bm25 import recovered_freqs, weight_grid
from lazy_intel.store.fts_stats import read_lengths
from lazy_intel.store.phrase_source import read_phrase_scores
from lazy_intel.store.postings import PostingsCache, memory_lexical
from lazy_intel.store.schema import FTS_COLUMNS, connect

WORDS = ("alpha", "beta", "gamma", "delta", "query", "model", "field", "self", "x_1", "café", "rare_one")
BIG = 1 << 30
# the ranking's own weights, and other grid weights (multiples of 2**-10: F(p) recoverable)
WEIGHT_SETS = (
    ColumnWeights(),
    ColumnWeights(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    ColumnWeights(7.25, 0.125, 3.0, 1.5, 0.75, 2.0, 0.375),
)


def _module(rng: random.Random, n: int) -> str:
    lines = []
    for j in range(rng.randrange(1, 5)):
        body = " + ".join(rng.choice(WORDS[:-2]) for _ in range(rng.randrange(1, 30)))
        doc = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 12)))
        lines.append(f'def {rng.choice(WORDS[:-2])}_{n}_{j}(self):\n    """{doc}"""\n    return {body}\n')
    return "\n".join(lines)


def _fresh(
    conn: object, query: object, cache: PostingsCache, key: tuple[str, int]
) -> list[tuple[int, int, float]]:
    sql = [(int(a), int(b), float(c)) for a, b, c in conn.execute(query.sql, query.args)]  # type: ignore[attr-defined]
    assert memory_lexical(conn, key, query, BIG, cache) == sql  # type: ignore[arg-type]
    return sql


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10_000), weights=st.sampled_from(WEIGHT_SETS))
def test_carried_scores_equal_a_fresh_read_across_random_edits(
    make_repo: Callable[..., Path], seed: int, weights: ColumnWeights
) -> None:
    rng = random.Random(seed)
    root = make_repo({f"pkg/m{i}.py": _module(rng, i) for i in range(10)})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    cache = PostingsCache()
    texts = ["alpha beta", "gamma self model", "café field x_1", "rare_one delta"]
    try:
        ws.sync()
        carried_any = False
        for step in range(5):
            path = ws.store_path()
            assert path is not None
            conn = connect(str(path), readonly=True)
            try:
                generation = int(conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0])
                key = (str(path), generation)
                for text in texts:
                    query = build_lexical_query(text, limit=rng.randrange(1, 40), column_weights=weights)
                    assert query is not None
                    _fresh(conn, query, cache, key)
                    for part in query.parts:  # each held phrase equals a fresh read bit for bit
                        entry = cache._phrases[(str(path), tuple(query.weights), part)]
                        fresh = read_phrase_scores(conn, part, query.weights)
                        assert entry.generation == generation
                        assert np.array_equal(entry.scores.docs, fresh.docs)
                        assert entry.scores.scores.tobytes() == fresh.scores.tobytes()
                        carried_any |= entry.freqs is not None
            finally:
                conn.close()
            # random edits: change, add and remove files, one publication
            for i in rng.sample(range(10), rng.randrange(1, 4)):
                target = root / "pkg" / f"m{i}.py"
                if target.exists() and rng.random() < 0.2:
                    target.unlink()
                else:
                    target.write_text(_module(rng, 100 * step + i))
            ws.sync()
        assert carried_any  # the scores were carried over, not read afresh each generation
    finally:
        ws.close()


def test_a_generation_missing_from_the_log_is_read_afresh(make_repo: Callable[..., Path]) -> None:
    rng = random.Random(5)
    root = make_repo({f"pkg/m{i}.py": _module(rng, i) for i in range(6)})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    cache = PostingsCache()
    query = build_lexical_query("alpha gamma", limit=20)
    assert query is not None
    try:
        ws.sync()
        path = ws.store_path()
        assert path is not None
        with closing(connect(str(path), readonly=True)) as conn:
            _fresh(conn, query, cache, (str(path), 1))
        (root / "pkg" / "m1.py").write_text(_module(rng, 50))
        ws.sync()
        # as if the log had lost generation 2 (a batched write deletes it): read afresh, still exact
        with closing(connect(str(path), readonly=True)) as conn:
            _fresh(conn, query, cache, (str(path), 3))
            assert all(e.freqs is None for e in cache._phrases.values())
    finally:
        ws.close()


def test_weights_off_the_grid_are_not_carried() -> None:
    assert weight_grid((10.0, 5.0, 3.0, 2.0, 1.0, 2.5, 0.5)) == 0.5
    assert weight_grid((0.3, 1.0)) is None
    scores = np.array([1.0, 2.0])
    assert recovered_freqs(scores, np.array([3, 4]), 0.5, 3.0, 0.5) is None  # not summands of that table


@pytest.mark.parametrize("tokens", [1, 3])
def test_recovered_counts_survive_a_summand_round_trip(tokens: int) -> None:
    from lazy_intel.store.bm25 import fts5_idf, phrase_summands

    rng = np.random.default_rng(tokens)
    freqs = rng.integers(1, 400, 5000) * 0.5
    lengths = rng.integers(1, 20_000, 5000) * tokens
    idf, avgdl = fts5_idf(886_688, 79_310), 97.25
    scores = phrase_summands(freqs, lengths, idf, avgdl)
    got = recovered_freqs(scores, lengths, idf, avgdl, 0.5)
    assert got is not None and np.array_equal(got, freqs)


def test_primed_lengths_follow_the_change_log(make_repo: Callable[..., Path]) -> None:
    from lazy_intel.store.postings import prime_row_lengths

    rng = random.Random(9)
    root = make_repo({f"pkg/m{i}.py": _module(rng, i) for i in range(6)})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    cache = PostingsCache()
    query = build_lexical_query("alpha gamma self", limit=20)
    assert query is not None
    try:
        ws.sync()
        path = ws.store_path()
        assert path is not None
        with closing(connect(str(path), readonly=True)) as conn:
            assert prime_row_lengths(conn, (str(path), 1), len(FTS_COLUMNS), BIG, cache)
            assert not prime_row_lengths(conn, (str(path), 1), len(FTS_COLUMNS), 0, cache)
            _fresh(conn, query, cache, (str(path), 1))
        (root / "pkg" / "m2.py").write_text(_module(rng, 70))
        ws.sync()
        with closing(connect(str(path), readonly=True)) as conn:
            _fresh(conn, query, cache, (str(path), 2))
            ids, lengths = read_lengths(conn, len(FTS_COLUMNS))
        generation, held = cache._lengths[str(path)]
        assert generation == 2 and held[ids].tolist() == lengths.tolist()
        assert all(e.freqs is not None for e in cache._phrases.values())
    finally:
        ws.close()


def test_a_change_log_that_lies_is_caught_by_fts5s_own_summands(make_repo: Callable[..., Path]) -> None:
    """A log that names none of the rows an edit added (a fault: never written so) leaves the phrases the edit added
    rows for with the wrong row count; the unchanged rows read back from FTS5 disagree, and those
    phrases are read afresh: the answers stay FTS5's."""
    rng = random.Random(11)
    root = make_repo({f"pkg/m{i}.py": _module(rng, i) for i in range(8)})
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    cache = PostingsCache()
    queries = [build_lexical_query(t, limit=30) for t in ("alpha beta", "gamma self model", "rare_one")]
    try:
        ws.sync()
        path = ws.store_path()
        assert path is not None
        with closing(connect(str(path), readonly=True)) as conn:
            for query in queries:
                _fresh(conn, query, cache, (str(path), 1))
        (root / "pkg" / "m3.py").write_text(
            _module(rng, 80) + "\ndef alpha_beta_gamma(self):\n    return alpha\n"
        )
        ws.sync()
        with closing(connect(str(path))) as conn:  # the log as written, less the rows it added
            (text,) = conn.execute("SELECT value FROM meta WHERE key = 'chunk_changes'").fetchone()
            entries = json.loads(text)
            assert entries[-1][0] == 2 and entries[-1][2]
            entries[-1][2] = []
            conn.execute("UPDATE meta SET value = ? WHERE key = 'chunk_changes'", (json.dumps(entries),))
            conn.commit()
        with closing(connect(str(path), readonly=True)) as conn:
            for query in queries:
                _fresh(conn, query, cache, (str(path), 2))
            alpha = cache._phrases[(str(path), tuple(queries[0].weights), "alpha")]
        assert alpha.freqs is None  # read afresh, not carried
    finally:
        ws.close()

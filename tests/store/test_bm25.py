"""Ranked full-text queries from in-memory phrase scores answer exactly what FTS5's bm25() SQL answers."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lazy_intel.search.hybrid import DEFAULT_CONFIG, hybrid_search
from lazy_intel.search.lexical import ColumnWeights, build_lexical_query, build_phrase_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.bm25 import PhraseScores, ranked, summed_scores
from lazy_intel.store.postings import (
    PostingsCache,
    memory_lexical,
    servable,
)
from lazy_intel.store.reader import open_view
from lazy_intel.store.schema import FTS_COLUMNS, connect, create_schema

# few words, so rows share terms, scores tie and common terms reach the IDF floor
WORDS = ("alpha", "beta", "gamma", "delta", "query", "set", "model", "field", "self", "x_1", "café")
RARE = tuple(f"w{i}" for i in range(40))  # each in fewer than half the rows
ROWS = 160
BIG = 1 << 30


def _text(rng: random.Random, most: int) -> str:
    return " ".join(rng.choice(WORDS if rng.random() < 0.7 else RARE) for _ in range(rng.randrange(0, most)))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A store whose chunks_fts rows are random words; some rows deleted, some with no chunk row."""
    path = tmp_path_factory.mktemp("bm25") / "store.sqlite"
    conn = connect(str(path))
    create_schema(conn)
    rng = random.Random(13)
    for file_id in range(1, 9):
        conn.execute(
            "INSERT INTO files(id, path, sha256, size, mtime_ns, captured_ns, lang, status) "
            "VALUES (?, ?, '', 0, 0, 0, ?, 'indexed')",
            (file_id, f"pkg/m{file_id}.py", "python" if file_id % 2 else "c"),
        )
    for chunk_id in range(1, ROWS + 1):
        if chunk_id % 17 != 0:  # a full-text row whose chunk is gone: the SQL's join drops it
            conn.execute(
                "INSERT INTO chunks(id, file_id, symbol_id, start_byte, end_byte, start_line, end_line, "
                "window, content_sha, embed_sha) VALUES (?, ?, NULL, 0, 0, 1, 1, 0, '', '')",
                (chunk_id, 1 + chunk_id % 8),
            )
        texts = [_text(rng, 4), _text(rng, 4), _text(rng, 6), _text(rng, 8), _text(rng, 40), "pkg m", ""]
        conn.execute(
            f"INSERT INTO chunks_fts(rowid, {', '.join(FTS_COLUMNS)}) VALUES (?, {', '.join('?' * 7)})",
            (chunk_id, *texts),
        )
    for chunk_id in range(5, ROWS, 23):  # deletions change the table's statistics
        conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (chunk_id,))
        conn.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))
    conn.commit()
    conn.close()
    yield path


def _both(path: Path, query: object, cache: PostingsCache) -> tuple[object, list[tuple[int, int, float]]]:
    conn = connect(str(path), readonly=True)
    try:
        memory = memory_lexical(conn, (str(path), 0), query, BIG, cache)  # type: ignore[arg-type]
        sql = [(int(a), int(b), float(c)) for a, b, c in conn.execute(query.sql, query.args)]  # type: ignore[attr-defined]
        return memory, sql
    finally:
        conn.close()


weights = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)
terms = st.lists(
    st.tuples(
        st.sampled_from((*WORDS, *RARE[:8], "absent", "Model", "x")), st.floats(min_value=0.2, max_value=7.0)
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    terms=terms,
    column_weights=st.lists(weights, min_size=7, max_size=7),
    limit=st.integers(min_value=1, max_value=ROWS + 10),
    within=st.none() | st.lists(st.integers(min_value=0, max_value=ROWS + 5), max_size=60),
)
def test_random_weighted_queries_rank_exactly_as_fts5(
    store: Path,
    terms: list[tuple[str, float]],
    column_weights: list[float],
    limit: int,
    within: list[int] | None,
) -> None:
    query = build_lexical_query(
        terms, limit=limit, column_weights=ColumnWeights(*column_weights), within=within
    )
    assert query is not None and servable(query)
    memory, sql = _both(store, query, PostingsCache())
    assert memory == sql  # same rows, same order (ties by id), same doubles


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    phrases=st.lists(
        st.tuples(
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), st.floats(min_value=0.5, max_value=4.0)
        ),
        min_size=1,
        max_size=5,
    ),
    limit=st.integers(min_value=1, max_value=50),
)
def test_random_phrase_queries_rank_exactly_as_fts5(
    store: Path, phrases: list[tuple[list[str], float]], limit: int
) -> None:
    query = build_phrase_query(phrases, limit=limit)
    assert query is not None
    memory, sql = _both(store, query, PostingsCache())
    assert memory == sql


def test_a_shared_cache_answers_repeated_and_overlapping_queries_alike(store: Path) -> None:
    cache = PostingsCache()
    rng = random.Random(5)
    for _ in range(40):
        picked = [(rng.choice(WORDS), rng.choice((1.0, 2.0, 3.0, 6.0))) for _ in range(rng.randrange(1, 8))]
        query = build_lexical_query(picked, limit=rng.choice((5, 50, 1000)))
        assert query is not None
        memory, sql = _both(store, query, cache)
        assert memory == sql
    assert len(cache) <= len(WORDS)  # one entry per phrase and weights, read once


def test_filters_and_zero_weights_are_left_to_fts5(store: Path) -> None:
    cache = PostingsCache()
    for query in (
        build_lexical_query("alpha beta", limit=10, lang="python"),
        build_lexical_query("alpha beta", limit=10, path_glob="pkg/m1*"),
        build_lexical_query("alpha beta", limit=10, kind="function"),
        build_lexical_query("alpha beta", limit=10, column_weights=ColumnWeights(body=0.0)),
    ):
        assert query is not None and not servable(query)
        memory, _ = _both(store, query, cache)
        assert memory is None  # the view then runs the SQL
    assert cache.nbytes == 0


def test_the_bound_holds_and_an_oversized_query_falls_back(store: Path) -> None:
    query = build_lexical_query("alpha beta gamma delta query set model field self", limit=20)
    assert query is not None
    conn = connect(str(store), readonly=True)
    try:
        sql = [(int(a), int(b), float(c)) for a, b, c in conn.execute(query.sql, query.args)]
        roomy = PostingsCache()
        assert memory_lexical(conn, (str(store), 0), query, BIG, roomy) == sql
        need = roomy.nbytes
        tight = PostingsCache()
        assert memory_lexical(conn, (str(store), 0), query, need - 1, tight) is None  # FTS5 answers
        assert tight.nbytes <= need - 1
        # a bound for about half the phrases: each query fits, older phrases leave first
        small = PostingsCache()
        bound = need // 2
        for word in WORDS:
            one = build_lexical_query(word, limit=20)
            assert one is not None
            found = memory_lexical(conn, (str(store), 0), one, bound, small)
            assert found == [(int(a), int(b), float(c)) for a, b, c in conn.execute(one.sql, one.args)]
            assert small.nbytes <= bound
        assert 0 < len(small) < len(WORDS)
        # a new generation of the store is read afresh, the old one's phrases stay until pushed out
        assert memory_lexical(conn, (str(store), 1), query, BIG, roomy) == sql
        assert memory_lexical(conn, (str(store), 0), query, 0, roomy) is None  # 0: off
    finally:
        conn.close()


def test_summed_scores_add_in_phrase_order_and_rank_ties_by_id() -> None:
    a = PhraseScores(np.array([1, 3], dtype=np.int64), np.array([0.1, 0.2]))
    b = PhraseScores(np.array([3, 4], dtype=np.int64), np.array([0.3, 0.3]))
    score, matched = summed_scores([a, b, a], 6)
    assert score[3] == (0.0 + 0.2 + 0.3) + 0.2 and score[1] == 0.1 + 0.1
    assert matched.tolist() == [False, True, False, True, True, False]
    eligible = np.ones(6, dtype=bool)
    ids, values = ranked(score, matched, eligible, 2)
    assert ids.tolist() == [3, 4] and values.tolist() == [score[3], 0.3]
    tied = np.array([0.0, 1.0, 1.0, 1.0, 2.0])
    ids, _ = ranked(tied, tied > 0, np.array([True, True, False, True, True]), 2)
    assert ids.tolist() == [4, 1]  # the tie at the cut goes to the lower id; 2 is not eligible


def test_search_answers_are_identical_with_and_without_memory(make_repo: Callable[..., Path]) -> None:
    rng = random.Random(3)
    files = {
        f"pkg/mod{i}.py": "\n".join(
            f"def {rng.choice(WORDS[:-1])}_{j}(self, {rng.choice(WORDS[:-1])}):\n"
            f'    """{_text(rng, 12)}"""\n    return {rng.choice(WORDS[:-1])}.{rng.choice(WORDS[:-1])}()\n'
            for j in range(6)
        )
        for i in range(12)
    }
    root = make_repo(files)
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    ws.sync()
    path = ws.store_path()
    assert path is not None
    queries = [
        "alpha_3 returns the wrong model field",
        'calling "query set" twice breaks self.gamma',
        "delta delta delta beta",
        "Traceback: File pkg/mod3.py, in beta_2\n    return field.model()",
    ]
    for text in queries:
        with open_view(path, postings_bytes=0) as view:
            plain = hybrid_search(view, text, config=DEFAULT_CONFIG)
        with open_view(path, postings_bytes=BIG) as view:
            cached = hybrid_search(view, text, config=DEFAULT_CONFIG)
        assert cached == plain and plain.files
    ws.close()


def test_a_newer_generation_of_a_store_drops_the_older_ones(store: Path) -> None:
    query = build_lexical_query("alpha beta", limit=10)
    assert query is not None
    cache = PostingsCache()
    conn = connect(str(store), readonly=True)
    try:
        first = memory_lexical(conn, (str(store), 1), query, BIG, cache)
        held = cache.nbytes
        assert first is not None and len(cache) == 2
        assert memory_lexical(conn, (str(store), 2), query, BIG, cache) == first
        assert len(cache) == 2 and cache.nbytes == held  # generation 1's arrays are gone
    finally:
        conn.close()


def test_a_consistent_store_is_answered_without_reading_every_chunks_file(
    make_repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the best rows' files are looked up (at 100k files the map of every chunk to its file was
    1-2 s on the first search after each edit); the whole map is read only when a matched row has
    no chunk, which the fixture store above exercises."""
    from lazy_intel.store import postings

    root = make_repo(
        {f"pkg/m{i}.py": f"def alpha_{i}(beta):\n    return beta.gamma({i})\n" for i in range(6)}
    )
    ws = Workspace.open(root, settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}))
    try:
        ws.sync()
        path = ws.store_path()
        assert path is not None
    finally:
        ws.close()

    def every_chunk(_conn: object) -> np.ndarray:
        raise AssertionError("read every chunk's file")

    monkeypatch.setattr(postings, "read_chunk_files", every_chunk)
    conn = connect(str(path), readonly=True)
    try:
        for text in ("alpha beta", "gamma", "beta gamma alpha_3"):
            query = build_lexical_query(text, limit=4)
            assert query is not None
            sql = [(int(a), int(b), float(c)) for a, b, c in conn.execute(query.sql, query.args)]
            assert memory_lexical(conn, (str(path), 1), query, BIG, PostingsCache()) == sql and sql
    finally:
        conn.close()

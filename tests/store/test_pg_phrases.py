"""A PostgreSQL store's searches ranked from the in-memory postings equal its BM25 SQL, row for row
and double for double — on the generation the phrases were read in, and carried over to later ones
after incremental edits (store/pg/phrases.py, store/postings.py); and SQLite answers alike."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.search.lexical import ColumnWeights, build_lexical_query, build_phrase_query
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.pg.phrases import PgPhrases
from lazy_intel.store.postings import PostingsCache, memory_lexical, servable
from tests.conftest import pg_env

WORDS = ("alpha", "beta", "gamma", "delta", "query", "model", "field", "self", "x_1", "value", "error")
RARE = tuple(f"w{i}" for i in range(30))
BIG = 1 << 30
QUERIES = 40


def _module(rng: random.Random, name: str) -> str:
    out = []
    for f in range(rng.randint(1, 4)):
        words = " ".join(rng.choice(WORDS if rng.random() < 0.7 else RARE) for _ in range(rng.randint(0, 25)))
        body = rng.choice(WORDS)
        out.append(f'def {name}_{f}_{rng.choice(WORDS)}(x):\n    """{words}"""\n    return {body}(x)\n')
    return "\n".join(out)


def _write_tree(root: Path, rng: random.Random, files: int = 24) -> None:
    for i in range(files):
        path = root / "pkg" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_module(rng, f"f{i}"), encoding="utf-8")


def _random_query(rng: random.Random, weights_on_grid: bool = True) -> Any:
    if rng.random() < 0.3:
        phrases = [
            ([rng.choice(WORDS) for _ in range(rng.randint(1, 3))], rng.uniform(0.5, 4.0))
            for _ in range(rng.randint(1, 4))
        ]
        return build_phrase_query(phrases, limit=rng.randint(1, 60))
    terms = [
        (rng.choice((*WORDS, *RARE[:6], "absent")), rng.uniform(0.2, 7.0)) for _ in range(rng.randint(1, 10))
    ]
    weights = ColumnWeights(
        *(rng.choice((0.5, 1.0, 2.0, 3.25, 0.75) if weights_on_grid else (0.3, 1.1, 2.0)) for _ in range(7))
    )
    within = sorted(rng.sample(range(1, 200), rng.randint(1, 60))) if rng.random() < 0.2 else None
    return build_lexical_query(terms, limit=rng.randint(1, 80), column_weights=weights, within=within)


class CountingSource(PgPhrases):
    """Counts the phrases read whole (not carried over)."""

    reads = 0

    def many(self, parts: Any, weights: Any) -> Any:
        CountingSource.reads += len(parts)
        return super().many(parts, weights)


def _compare(ws: Workspace, queries: list[Any], cache: PostingsCache) -> int:
    """Every query ranked from memory equals the SQL of the same view; how many were answered."""
    answered = 0
    with ws.read() as view:
        assert view.dialect == "postgresql"
        key = (str(view.store_path), view.generation)
        for query in queries:
            if query is None or not servable(query) or query.columns != view.fts_columns:
                continue
            source = CountingSource(view.conn, query.columns)
            memory = memory_lexical(view.conn, key, query, BIG, cache, source=source)
            sql = view.lexical_sql(query)  # the BM25 SQL of store/pg/fulltext.py
            assert memory == sql, query.parts
            answered += bool(sql)
    return answered


def test_memory_ranking_equals_the_sql_and_carries_over_edits(pg_dsn: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    root = tmp_path / "repo"
    _write_tree(root, rng)
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none", **pg_env(pg_dsn)})
    ws = Workspace.open(root, settings=settings, state_dir=tmp_path / "state")
    try:
        ws.sync()
        queries = [_random_query(rng) for _ in range(QUERIES)]
        # column weights off the 2**-10 grid: F(p) cannot be solved back, the phrases are read again
        off_grid = [_random_query(rng, weights_on_grid=False) for _ in range(QUERIES // 4)]
        cache = PostingsCache()
        assert _compare(ws, queries, cache) >= QUERIES // 2, "the queries match too little"
        assert _compare(ws, off_grid, PostingsCache()) >= len(off_grid) // 2
        read_fresh = CountingSource.reads
        assert read_fresh > 0
        for step in range(3):  # small edits: the phrases are carried over, not read again
            for path in rng.sample(sorted((root / "pkg").glob("*.py")), 2):
                path.write_text(_module(rng, path.stem + f"s{step}"), encoding="utf-8")
            (root / "pkg" / f"new{step}.py").write_text(_module(rng, f"n{step}"), encoding="utf-8")
            assert ws.sync().full_rebuild is False
            before = CountingSource.reads
            _compare(ws, queries, cache)
            assert CountingSource.reads == before, "phrases were read again, not carried over"
            _compare(ws, off_grid, cache)
            assert CountingSource.reads > before  # read again, and still equal to the SQL
    finally:
        ws.close()


def test_searches_through_the_workspace_use_the_postings_and_match_sqlite(
    pg_dsn: str, tmp_path: Path
) -> None:
    """The operation layer's search on PostgreSQL (postings on, the default bound) equals SQLite's."""
    from lazy_intel.service.ops.operations import execute

    rng = random.Random(11)
    root = tmp_path / "repo"
    _write_tree(root, rng, files=12)
    answers = []
    for name, env in (("sqlite", {}), ("pg", pg_env(pg_dsn))):
        settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none", **env})
        ws = Workspace.open(root, settings=settings, state_dir=tmp_path / f"state-{name}")
        try:
            ws.sync()
            with ws.read() as view:
                assert view.postings_bytes > 0
            out = []
            for text in ("alpha beta value", "model field error", "self x_1 gamma delta", "w3 w4 query"):
                for _ in range(2):  # the second time from phrases already held
                    answer = execute(
                        {"operation": "search", "query": text, "freshness": "fast"},
                        lambda _r, ws=ws: ws,
                        settings,
                    )
                    out.append([(i.get("path"), i.get("score")) for i in answer.to_dict()["items"]])
            answers.append(out)
        finally:
            ws.close()
    assert answers[0] == answers[1]
    assert any(answers[0])


def test_row_lengths_read_in_batches_are_every_row(
    pg_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lazy_intel.store.pg import phrases

    rng = random.Random(5)
    root = tmp_path / "repo"
    _write_tree(root, rng, files=8)
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none", **pg_env(pg_dsn)})
    ws = Workspace.open(root, settings=settings, state_dir=tmp_path / "state")
    try:
        ws.sync()
        with ws.read() as view:
            expected = view.conn.execute("SELECT rowid, doc_len FROM chunks_fts ORDER BY rowid").fetchall()
            assert len(expected) > 10
            monkeypatch.setattr(phrases, "LENGTH_BATCH", 3)
            ids, lengths = PgPhrases(view.conn, view.fts_columns).lengths(len(view.fts_columns))
            assert list(zip(ids.tolist(), lengths.tolist(), strict=True)) == [tuple(r) for r in expected]
            some_ids, _ = PgPhrases(view.conn, view.fts_columns).lengths(7, [(0, 2), (5, 6)])
            assert some_ids.tolist() == [r[0] for r in expected if r[0] <= 2 or 5 <= r[0] <= 6]
    finally:
        ws.close()

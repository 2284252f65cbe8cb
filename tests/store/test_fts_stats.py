"""FTS5's table totals and row lengths read from its own records (store/fts_stats.py)."""

from __future__ import annotations

import random
from pathlib import Path

from lazy_intel.store.fts_stats import decode_varints, read_lengths, read_totals, row_lengths
from lazy_intel.store.schema import FTS_COLUMNS, connect

WORDS = ("alpha", "beta", "gamma", "café", "x_1")


def test_row_lengths_and_totals_are_what_fts5_counts(tmp_path: Path) -> None:
    from lazy_intel.store.schema import create_schema

    conn = connect(str(tmp_path / "s.sqlite"))
    create_schema(conn)
    rng = random.Random(2)
    texts = {}
    for rowid in range(1, 60):
        # long columns too: column sizes of 2 and 3 varint bytes
        cols = [
            " ".join(rng.choice(WORDS) for _ in range(rng.choice((0, 3, 200, 20_000)))) for _ in FTS_COLUMNS
        ]
        texts[rowid] = cols
        conn.execute(
            f"INSERT INTO chunks_fts(rowid, {', '.join(FTS_COLUMNS)}) VALUES (?, {', '.join('?' * 7)})",
            (rowid, *cols),
        )
    conn.commit()
    ids, lengths = read_lengths(conn, len(FTS_COLUMNS))
    assert ids.tolist() == sorted(texts)
    assert lengths.tolist() == [sum(len(c.split()) for c in texts[i]) for i in ids.tolist()]
    some_ids, some = read_lengths(conn, len(FTS_COLUMNS), [(3, 5), (40, 40)])
    assert some_ids.tolist() == [3, 4, 5, 40] and some.tolist() == lengths[[2, 3, 4, 39]].tolist()
    totals = read_totals(conn)
    assert totals.rows == 59 and totals.tokens == int(lengths.sum())
    blob = bytes([0x81, 0x00, 0x05, 0x82, 0x80, 0x01])
    assert decode_varints(blob) == [128, 5, 32769]
    assert row_lengths([blob], 3).tolist() == [128 + 5 + 32769]
    conn.close()

"""What the function-level stage reads from the index (``search/function_rank.py`` scores it).

Bounded, batched queries over one read view: the definitions of the best files (every one of
``DEFINITION_KINDS``) and the symbols of the best chunks (any kind: they are today's function order),
and which of the query's terms occur in each definition's chunks (their ``body`` and ``stems``
full-text rows, space-separated token streams).
"""

from __future__ import annotations

from collections.abc import Sequence

from lazy_intel.search.function_rank import DEFINITION_KINDS, Definition
from lazy_intel.store.reader import ReadView

BATCH = 400  # ids per IN (...) list


def _marks(n: int) -> str:
    return ",".join("?" * n)


def read_definitions(
    view: ReadView,
    file_ids: Sequence[int],
    symbol_ids: Sequence[int],
    tokens: Sequence[str],
    *,
    kinds: Sequence[str] = DEFINITION_KINDS,
) -> list[Definition]:
    """Definitions of ``file_ids`` (of ``kinds``) and the symbols ``symbol_ids``, each with its first
    chunk and the ``tokens`` its chunks hold; in symbol id order."""
    rows: dict[int, tuple[int, str, str, str, str, int]] = {}
    select = (
        "SELECT s.id, s.file_id, f.path, s.name, s.qualified_name, s.kind, s.end_line - s.start_line + 1 "
        "FROM symbols s JOIN files f ON f.id = s.file_id WHERE "
    )
    files = list(dict.fromkeys(file_ids))
    for start in range(0, len(files), BATCH):
        batch = files[start : start + BATCH]
        sql = select + f"s.file_id IN ({_marks(len(batch))}) AND s.kind IN ({_marks(len(kinds))})"
        for r in view.conn.execute(sql, [*batch, *kinds]) if kinds else ():
            rows[int(r[0])] = (int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), int(r[6]))
    symbols = [s for s in dict.fromkeys(symbol_ids) if s not in rows]
    for start in range(0, len(symbols), BATCH):
        batch = symbols[start : start + BATCH]
        for r in view.conn.execute(select + f"s.id IN ({_marks(len(batch))})", batch):
            rows[int(r[0])] = (int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), int(r[6]))
    texts: dict[int, list[str]] = {s: [] for s in rows}
    first: dict[int, int] = {}
    columns = "".join(f", t.{c}" for c in ("body", "stems") if c in view.fts_columns) if tokens else ""
    joined_fts = " JOIN chunks_fts t ON t.rowid = c.id" if columns else ""
    ids = sorted(rows)
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        for r in view.conn.execute(
            f"SELECT c.symbol_id, c.id{columns} FROM chunks c{joined_fts} "
            f"WHERE c.symbol_id IN ({_marks(len(batch))})",
            batch,
        ):
            symbol, chunk = int(r[0]), int(r[1])
            first[symbol] = min(first.get(symbol, chunk), chunk)
            texts[symbol].extend(text for text in r[2:] if text)
    out = []
    for s in ids:
        file_id, path, name, qualified, kind, lines = rows[s]
        words = set(" ".join(texts[s]).split(" "))  # a token is looked up whole, between spaces
        present = frozenset(t for t in tokens if t in words)
        out.append(Definition(s, file_id, path, name, qualified, kind, lines, present, first.get(s)))
    return out

"""Which full-text rows each recent publication removed and added, recorded in meta (pure).

A phrase's scores read at one generation carry over to a later one when the rows that changed in
between are known (:mod:`.postings`): the writer records, under meta :data:`CHUNK_CHANGES_KEY`, for
each of the last :data:`CHANGE_LOG_GENERATIONS` generations it published, the chunk ids (the
``chunks_fts`` rowids) it deleted and inserted, as inclusive id ranges. A publication that changed
more than :data:`CHANGE_LOG_MAX_ROWS` rows, or rebuilt everything, records no ids ("unknown"), and a
write that bypasses the log (a batched build) deletes it: a reader that cannot find every
generation between the one it holds and the one it reads reads its phrases afresh.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

CHUNK_CHANGES_KEY = "chunk_changes"
CHANGE_LOG_GENERATIONS = 16  # publications kept in the log
CHANGE_LOG_MAX_ROWS = 20_000  # rows one publication may change and still be recorded


@dataclass(frozen=True)
class ChunkChanges:
    """Rows gone since a generation (``removed``) and rows there now that were not (``added``),
    sorted int64 rowids."""

    removed: np.ndarray
    added: np.ndarray
    net_rows: int = 0  # rows added less rows removed, publication by publication: the row count's move


def id_ranges(ids: Iterable[int]) -> list[int]:
    """Sorted distinct ``ids`` as a flat list of inclusive ranges ``[low, high, low, high, ...]``."""
    out: list[int] = []
    for i in sorted(set(ids)):
        if out and out[-1] + 1 == i:
            out[-1] = i
        else:
            out.extend((i, i))
    return out


def range_pairs(flat: Sequence[int]) -> list[tuple[int, int]]:
    return [(int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2)]


def expand(flat: Sequence[int]) -> np.ndarray:
    parts = [np.arange(low, high + 1, dtype=np.int64) for low, high in range_pairs(flat)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def logged(previous: str | None, generation: int, removed: Sequence[int], added: Sequence[int]) -> str:
    """The log text after publishing ``generation`` with these rows deleted and inserted."""
    entries = _entries(previous)
    if len(removed) + len(added) > CHANGE_LOG_MAX_ROWS:
        entries.append([generation, None, None])
    else:
        entries.append([generation, id_ranges(removed), id_ranges(added)])
    return json.dumps(entries[-CHANGE_LOG_GENERATIONS:], separators=(",", ":"))


def _entries(text: str | None) -> list[list[object]]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def changes_between(text: str | None, since: int, now: int) -> ChunkChanges | None:
    """The rows removed and added from generation ``since`` to ``now``; ``None`` unless the log holds
    every generation in between, each with its ids."""
    if now < since:
        return None
    steps: dict[int, tuple[Sequence[int], Sequence[int]]] = {}
    for entry in _entries(text):
        if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int):
            if isinstance(entry[1], list) and isinstance(entry[2], list):
                steps[entry[0]] = (entry[1], entry[2])
            else:
                steps.pop(entry[0], None)
    removed = np.zeros(0, dtype=np.int64)
    added = np.zeros(0, dtype=np.int64)
    net = 0
    for generation in range(since + 1, now + 1):
        if generation not in steps:
            return None
        gone, new = (expand(flat) for flat in steps[generation])
        removed = np.union1d(removed, gone)
        added = np.union1d(np.setdiff1d(added, gone), new)
        net += len(new) - len(gone)
    return ChunkChanges(removed, added, net)

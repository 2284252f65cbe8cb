"""The chunk change log of meta (store/chunk_changes.py)."""

from __future__ import annotations

from lazy_intel.store.chunk_changes import CHANGE_LOG_GENERATIONS, changes_between, id_ranges, logged


def test_the_change_log_chains_generations_and_forgets_unknown_ones() -> None:
    text = logged(None, 2, [5, 6, 7], [20, 21])
    text = logged(text, 3, [20], [22])
    changes = changes_between(text, 1, 3)
    assert changes is not None
    assert changes.removed.tolist() == [5, 6, 7, 20] and changes.added.tolist() == [21, 22]
    assert changes.net_rows == (2 - 3) + (1 - 1)
    assert changes_between(text, 0, 3) is None  # generation 1 is not in the log
    assert changes_between(logged(text, 4, list(range(30_000)), []), 1, 4) is None  # too many: unknown
    assert changes_between(text, 3, 3) is not None


def test_ranges_and_the_kept_generations() -> None:
    assert id_ranges([9, 3, 4, 5, 9, 12]) == [3, 5, 9, 9, 12, 12]
    text = None
    for generation in range(1, CHANGE_LOG_GENERATIONS + 3):
        text = logged(text, generation, [generation], [100 + generation])
    assert changes_between(text, 1, 3) is None  # older than the log keeps
    kept = changes_between(text, CHANGE_LOG_GENERATIONS - 1, CHANGE_LOG_GENERATIONS + 2)
    assert kept is not None and kept.added.tolist() == [
        100 + g for g in range(CHANGE_LOG_GENERATIONS, CHANGE_LOG_GENERATIONS + 3)
    ]

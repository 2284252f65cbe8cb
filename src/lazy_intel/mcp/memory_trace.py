"""Debug aid: where the server's memory goes, off unless ``LAZY_INTEL_TRACE_MEMORY_S`` > 0.

When on, ``serve`` starts :mod:`tracemalloc` (which slows every allocation and costs memory of its
own) and every interval logs, at WARNING, the traced total, what glibc's arenas hold (from the
system and free: :mod:`lazy_intel.allocator`) and the allocation sites that grew most since the
first snapshot. Used to tell a leak from allocator growth in ``bench/soak.py``.
"""

from __future__ import annotations

import logging
import threading
import tracemalloc

from lazy_intel.allocator import arena_usage

logger = logging.getLogger(__name__)

TOP_SITES = 15
TRACE_FRAMES = 3


def growth_report(first: tracemalloc.Snapshot, now: tracemalloc.Snapshot, top: int = TOP_SITES) -> list[str]:
    """One line for the traced totals, then the ``top`` sites by bytes grown since ``first``.

    A site is its last :data:`TRACE_FRAMES` frames, caller first: ``a.py:1 -> b.py:2`` allocated at
    ``b.py:2``.
    """
    filters = [tracemalloc.Filter(False, tracemalloc.__file__)]
    first, now = first.filter_traces(filters), now.filter_traces(filters)
    total_first = sum(s.size for s in first.statistics("filename"))
    total_now = sum(s.size for s in now.statistics("filename"))
    lines = [
        f"traced {total_now / 1e6:.2f} MB ({(total_now - total_first) / 1e6:+.2f} MB since the first snapshot)"
    ]
    for diff in now.compare_to(first, "traceback")[:top]:
        if diff.size_diff <= 0:
            break
        where = " -> ".join(f"{frame.filename}:{frame.lineno}" for frame in diff.traceback)
        lines.append(
            f"{diff.size_diff / 1e3:+.1f} kB ({diff.count_diff:+d} blocks, now {diff.size / 1e3:.1f} kB) {where}"
        )
    return lines


class MemoryTrace:
    """A daemon thread that snapshots every ``interval_s`` and logs the growth (see module doc)."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lazy-intel-memory-trace", daemon=True)

    def start(self) -> None:
        if not tracemalloc.is_tracing():
            tracemalloc.start(TRACE_FRAMES)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2.0)
        tracemalloc.stop()

    def _run(self) -> None:
        first = tracemalloc.take_snapshot()
        while not self._stop.wait(self.interval_s):
            lines = growth_report(first, tracemalloc.take_snapshot())
            usage = arena_usage()
            if usage is not None:
                lines.insert(
                    1,
                    f"malloc: {usage.arenas} arenas, {usage.system_bytes / 1e6:.2f} MB from the system, "
                    f"{usage.free_bytes / 1e6:.2f} MB of it free, {usage.mmap_bytes / 1e6:.2f} MB mapped blocks",
                )
            logger.warning("memory trace: %s", "\n  ".join(lines))

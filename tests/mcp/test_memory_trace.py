import tracemalloc

from lazy_intel.mcp.memory_trace import growth_report


def hold_memory(blocks: int) -> list[bytearray]:
    return [bytearray(1000) for _ in range(blocks)]


def test_growth_report_names_the_site_that_grew() -> None:
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start(3)
    try:
        first = tracemalloc.take_snapshot()
        kept = hold_memory(2000)
        now = tracemalloc.take_snapshot()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    lines = growth_report(first, now, top=5)
    assert lines[0].startswith("traced ")
    grown = [line for line in lines[1:] if "test_memory_trace.py" in line]
    assert grown, lines
    kilobytes = float(grown[0].split(" kB", 1)[0])
    assert kilobytes >= 2000
    assert len(kept) == 2000

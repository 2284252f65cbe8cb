"""What one scoped one-file sync and the first search of a generation still pay on a large tree, by
statement — for whichever lazy-intel is on ``PYTHONPATH`` (run it once per snapshot, in turn).

Usage:
    PYTHONPATH=<snapshot>/src:<snapshot> python bench/scale_sync_trace.py TREE STATE_DIR [--edits 6]

``TREE`` / ``STATE_DIR``: a build made earlier (``bench/scale.py --files 15000 --work W``, or an
``index`` of the 100k tree). Each round edits one more parsed file (a function appended), runs the
sync ``serve`` runs for it (``run_sync`` with the watcher's hint: a scoped sync) and restores it
(another scoped sync); every statement of those syncs' store connections is timed by its text
(``sql_trace.py``). Printed as JSON: per sync wall and CPU medians, the statements that took
longest (wall, calls, rows, summed over all syncs), and, in the published view after the edits, a
``SELECT count(*) FROM chunks`` and the chunk -> file map a generation's first in-memory search reads
(``store/postings.py`` ``read_chunk_files``), each timed once. The edited files are restored.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lazy_intel.service.indexing.sync as sync_module  # noqa: E402
from lazy_intel.service.indexing.sync import run_sync  # noqa: E402
from lazy_intel.settings import load_settings  # noqa: E402
from lazy_intel.store.postings import read_chunk_files  # noqa: E402
from lazy_intel.store.reader import open_view  # noqa: E402
from lazy_intel.workspace.state import StateDir  # noqa: E402
from sql_trace import statement_costs, traced  # noqa: E402

ADDED = "\n\ndef scale_trace_added_{0}(x):\n    return x\n"


def _targets(tree: Path, state: StateDir, count: int) -> list[str]:
    store = state.published_store()
    assert store is not None, f"no published store in {state.path}"
    with open_view(store) as view:
        rows = view.conn.execute(
            "SELECT path FROM files WHERE status='indexed' AND lang='python' AND size > 2000 ORDER BY path"
        ).fetchall()
    paths = [r[0] for r in rows]
    return paths[:: max(1, len(paths) // count)][:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("state", type=Path)
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none"})
    state = StateDir(args.state)
    costs = statement_costs()
    walls: list[float] = []
    cpus: list[float] = []
    scoped = 0
    for n, rel in enumerate(_targets(args.tree, state, args.edits)):
        path = args.tree / rel
        original = path.read_bytes()
        try:
            for content in (original + ADDED.format(n).encode(), original):
                path.write_bytes(content)
                wall, cpu = time.perf_counter(), time.process_time()
                with traced(sync_module, costs):
                    report = run_sync(
                        args.tree,
                        state,
                        max_file_bytes=settings.max_file_bytes,
                        parse_workers=settings.parse_workers,
                        only=(rel,),
                    )
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
                scoped += report.scoped
        finally:
            path.write_bytes(original)
    store = state.published_store()
    assert store is not None
    with open_view(store) as view:
        started = time.perf_counter()
        chunks = view.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        count_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        read_chunk_files(view.conn)
        map_ms = (time.perf_counter() - started) * 1000
    top = sorted(costs.items(), key=lambda kv: -kv[1].wall_s)[: args.top]
    result: dict[str, Any] = {
        "syncs": len(walls),
        "scoped": scoped,
        "sync_wall_median_s": round(statistics.median(walls), 3),
        "sync_cpu_median_s": round(statistics.median(cpus), 3),
        "sync_wall_each_s": [round(w, 3) for w in walls],
        "statements": [
            {"sql": sql, "wall_ms": round(c.wall_s * 1000, 1), "calls": c.calls, "rows": c.rows}
            for sql, c in top
        ],
        "chunks": chunks,
        "count_chunks_ms": round(count_ms, 1),
        "chunk_file_map_ms": round(map_ms, 1),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

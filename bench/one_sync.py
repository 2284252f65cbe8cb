"""One sync of a tree into a state with the code on ``PYTHONPATH``, and its figures: files added,
modified and removed, files re-resolved, resolve workers, graph seconds, the writer's and the child
processes' CPU, wall, peak RSS of the writer and of the largest child. Two snapshots run one after
the other on copies of one state compare a change (issue 15).

Usage:
    PYTHONPATH=<snapshot>/src python bench/one_sync.py <tree> <state> <label>

Figures: docs/design/scale.md, *A large incremental change resolves in workers*.
"""

import resource
import sys
import time
from pathlib import Path


def main() -> None:
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    root, state, label = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=state)
    t, w = time.process_time(), time.perf_counter()
    r = ws.sync()
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    g = r.graph
    print(
        label,
        f"full={r.full_rebuild} added={r.added} modified={r.modified} removed={r.removed}",
        f"changed={g.changed if g else None} dependents={g.dependents if g else None}",
        f"resolve_workers={g.resolve_workers if g else None} graph_s={g.seconds if g else 0:.1f}",
        f"writer_cpu={time.process_time() - t:.1f} children_cpu={c.ru_utime + c.ru_stime:.1f}",
        f"wall={time.perf_counter() - w:.1f}",
        f"peak_rss_MB writer={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} child={c.ru_maxrss / 1024:.0f}",
        flush=True,
    )
    ws.close()


if __name__ == "__main__":
    main()

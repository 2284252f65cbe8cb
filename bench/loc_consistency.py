"""Does the real ``search`` rank as the benchmark scores it? (issue 13)

``swebench_loc.py`` scores every configuration in memory from the evidence it gathered once per
issue; its collection checks that the in-memory ranking of the shipped configuration equals a real
``hybrid_search`` of the same index. When only the shipped constants change (coefficients, the
features search scores) a runs cache can be scored again without indexing, but that check was made
with the old constants. This script makes it again with the code on ``PYTHONPATH``: for every issue of
the runs cache it opens the indexed checkout the cache was gathered from (``--work``; no sync, so the
index is the one the evidence came from), runs the real search and compares its files and functions
with ``outcome_of(run, CONFIGS["default"])``.

Usage:
    python bench/loc_consistency.py --runs-cache RUNS.pickle --work WORK
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> int:
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings
    from loc_checkout import index_profile
    from loc_collect import real_search
    from loc_protocol import CONFIGS
    from loc_scoring import outcome_of

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-cache", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--scope", default="whole")
    args = parser.parse_args()
    with args.runs_cache.open("rb") as fh:
        runs, _stats = pickle.load(fh)  # our own file (swebench_loc.py --runs-cache)
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none"})
    profile = args.work / index_profile(args.scope)
    differ = []
    for run in runs["default"]:
        run.tables.clear()
        issue = run.issue
        slot = profile / issue.repo.replace("/", "+") / issue.base_commit[:12]
        ws = Workspace.open(slot / "src", settings=settings, state_dir=slot / "state")
        try:
            search = real_search(ws, issue.query, None)
        finally:
            ws.close()
        memory = outcome_of(run, CONFIGS["default"])
        if (memory.files, memory.functions) != (search.files, search.functions):
            differ.append(issue.instance_id)
    total = len(runs["default"])
    print("command: python " + " ".join(sys.argv))
    print(
        f"consistency: the in-memory ranking equals the real search on {total - len(differ)}/{total} issues"
        + (f" (differs: {', '.join(differ)})" if differ else "")
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

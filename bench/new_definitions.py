"""What one new file of common definitions costs an indexed tree, for the code on ``PYTHONPATH``:
the tree is copied, fully indexed, then a file with one class of plain methods named like the
tree's commonest attribute reads is added and synced. Prints the files the sync re-resolved
besides the new one (``dependent_files``) and the sync's CPU and wall seconds, so that two
snapshots run one after the other compare what a new definition of a common name invalidates.

Usage:
    PYTHONPATH=<snapshot>/src python bench/new_definitions.py --tree Django-5.1.4 --work /tmp/nd

Figures: docs/design/indexing.md, *A new plain method no longer re-resolves every reader of its
name*.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

# Django's commonest looked-up attribute names (graph_deps of a Django build)
NAMES = (
    "name",
    "get",
    "objects",
    "pk",
    "model",
    "path",
    "filter",
    "create",
    "all",
    "items",
    "count",
    "id",
    "features",
    "ops",
    "engine",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (emptied)")
    parser.add_argument("--package", default="django", help="folder of the tree the new file goes in")
    args = parser.parse_args()

    import lazy_intel
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings

    shutil.rmtree(args.work, ignore_errors=True)
    root, state = args.work / "tree", args.work / "state"
    shutil.copytree(args.tree, root, ignore=shutil.ignore_patterns(".lazy-intel"))
    ws = Workspace.open(root, settings=load_settings(env={}), state_dir=state)
    try:
        ws.sync()
        body = "class Extra:\n" + "".join(f"    def {n}(self):\n        return 1\n\n" for n in NAMES)
        (root / args.package / "extra_new_definitions.py").write_text(body, encoding="utf-8")
        used, started = time.process_time(), time.perf_counter()
        report = ws.sync()
        cpu, wall = time.process_time() - used, time.perf_counter() - started
    finally:
        ws.close()
    dependents = report.graph.dependents if report.graph is not None else 0
    print(f"code: {Path(lazy_intel.__file__).parent}")
    print(f"dependent_files {dependents}  sync cpu {cpu:.2f} s  wall {wall:.2f} s")


if __name__ == "__main__":
    main()

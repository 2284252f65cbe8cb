"""CPU of one file's graph resolution, split into the value-flow fixpoint and the edge extraction.

Usage:
    python bench/resolve_split.py --root DIR django/db/models/fields/__init__.py django/test/testcases.py

``DIR`` is an indexed tree (``lazy-intel index DIR``); its store is opened read-only. Each file is
resolved ``--repeat`` times as an edit's sync resolves it (``resolve_file`` with a fresh
``FactStore``: the other files' interfaces are loaded from the store each time) and the CPU
seconds of ``Analysis.run`` (the fixpoint over every flow, call site and decorated definition of
the file) are told apart from the rest (the edges read from the fixpoint's result). A partial
re-resolution that kept the fixpoint whole could save at most the second share.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sqlite3
import sys
import time
from pathlib import Path

from lazy_intel.graph.analysis import Analysis
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.program import FactStore
from lazy_intel.graph.resolve import resolve_file
from lazy_intel.parse.languages import is_parsed_language


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, required=True, help="an indexed tree")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("paths", nargs="+", help="files to resolve, relative to the root")
    args = parser.parse_args()
    state = args.root.resolve() / ".lazy-intel"
    catalog = json.loads((state / "catalog.json").read_text())
    conn = sqlite3.connect(f"file:{state / catalog['store']}?mode=ro", uri=True)
    files = {
        path: lang
        for path, lang in conn.execute(
            "SELECT path, lang FROM files WHERE status='indexed' AND lang IS NOT NULL"
        )
        if is_parsed_language(lang)
    }
    fixpoint_cpu: list[float] = []
    run = Analysis.run

    def timed_run(self: Analysis) -> None:
        started = time.process_time()
        run(self)
        fixpoint_cpu.append(time.process_time() - started)

    Analysis.run = timed_run  # type: ignore[method-assign]
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{'file':48} {'total CPU s':>11} {'fixpoint':>9} {'edges':>9} {'share':>6} {'sites':>6}")
    for path in args.paths:
        totals, fixpoints = [], []
        model = None
        for _ in range(args.repeat):
            store = FactStore(conn, PathIndex(files))
            model = store.model(path)
            if model is None:
                raise SystemExit(f"{path}: not in the store")
            started = time.process_time()
            resolve_file(store, model)
            totals.append(time.process_time() - started)
            fixpoints.append(fixpoint_cpu.pop())
        total, fixpoint = min(totals), min(fixpoints)
        assert model is not None
        sites = len(model.flows) + len(model.refs)
        print(
            f"{path[-48:]:48} {total:11.3f} {fixpoint:9.3f} {total - fixpoint:9.3f} "
            f"{fixpoint / total:6.0%} {sites:6}"
        )
    print(f"(fastest of {args.repeat} each)")
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"load average before {load_before}, after " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()

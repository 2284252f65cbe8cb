"""CPU seconds of one phase of a full index, in this process, for the code on ``PYTHONPATH``.

Usage:
    python bench/phase_cpu.py parse --tree DIR [--every N]           # read, parse, extract, chunk, FTS texts
    python bench/phase_cpu.py transfer --tree DIR [--every N]        # a parse record's trip worker -> writer
    python bench/phase_cpu.py describe --state STATE_DIR [--every N] # nodes + interface records
    python bench/phase_cpu.py outline --state STATE_DIR --tree DIR [--every N]  # the same, from parsed rows
    python bench/phase_cpu.py resolve --state STATE_DIR [--every N]  # graph resolution of every Nth file

``parse`` runs what a parse worker runs per file (``parsing.parse_path``) on every Nth file of the
tree (sorted walk), one record at a time with the collector set as in a worker; ``transfer`` pickles and unpickles those records as a parse worker sends them
(``store.writer.for_transfer`` where the code has it); ``describe`` runs ``graph.build.describe_file``
on every Nth parsed file of the store in STATE_DIR (built by ``lazy-intel index``); ``outline`` parses
those files of DIR (untimed) and times what a full build's parse worker adds to describe them from its
rows (``parsing.with_outline``; its digest equals ``describe``'s when the outlines are the same);
``resolve`` resolves every Nth file of the store in one process as one resolve worker does
(``resolve_file`` with one ``FactStore``, shared results kept across files). Each prints the
process CPU seconds of the phase (``time.process_time``) and a digest of what it produced, so that
two snapshots of the code, run alternately on the same input, compare both cost and output:

    PYTHONPATH=<snapshot>/src python bench/phase_cpu.py parse --tree DIR --every 2
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import pickle
import shlex
import sqlite3
import sys
import time
from pathlib import Path

RECORD_FIELDS = (
    "path",
    "sha256",
    "size",
    "lang",
    "status",
    "reason",
    "encoding",
    "line_count",
    "syntax_errors",
    "facts",
    "chunks",
    "fts_rows",
    "embed_shas",
)


def tree_paths(tree: Path, every: int) -> list[str]:
    paths = []
    for directory, dirs, files in os.walk(tree):
        dirs.sort()
        paths += sorted(os.path.relpath(os.path.join(directory, f), tree) for f in files)
    return paths[::every]


def parse_phase(tree: Path, every: int) -> tuple[float, str, int]:
    from lazy_intel.service.indexing.parsing import parse_path

    paths = tree_paths(tree, every)
    digest = hashlib.sha256()
    seconds = 0.0
    for rel in paths:  # as a parse worker: one record at a time, none held
        started = time.process_time()
        record = parse_path(str(tree), rel, 1 << 20)
        seconds += time.process_time() - started
        fields = None if record is None else tuple(getattr(record, f) for f in RECORD_FIELDS)
        digest.update(repr(fields).encode())
    return seconds, digest.hexdigest()[:16], len(paths)


def transfer_phase(tree: Path, every: int) -> tuple[float, str, int]:
    from lazy_intel.service.indexing.parsing import parse_path
    from lazy_intel.store import writer

    compact = getattr(writer, "for_transfer", lambda record: record)
    records = [r for rel in tree_paths(tree, every) if (r := parse_path(str(tree), rel, 1 << 20))]
    started = time.process_time()
    received = [pickle.loads(pickle.dumps(compact(r))) for r in records]
    seconds = time.process_time() - started
    size = sum(len(pickle.dumps(compact(r))) for r in records)
    return seconds, f"{size / 1e6:.1f} MB pickled", len(received)


def _described_files(state: Path, every: int) -> tuple[sqlite3.Connection, list[tuple[str, str, int, int]]]:
    from lazy_intel.parse.languages import is_parsed_language

    store_path = sorted(glob.glob(f"{state}/**/store-*.sqlite", recursive=True))[-1]
    conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    rows = [
        (path, lang, size, lines)
        for path, lang, size, lines in conn.execute(
            "SELECT path, lang, size, line_count FROM files WHERE status='indexed' AND lang IS NOT NULL "
            "ORDER BY path"
        )
        if is_parsed_language(lang)
    ][::every]
    return conn, rows


def outline_phase(state: Path, tree: Path, every: int) -> tuple[float, str, int]:
    from lazy_intel.service.indexing.parsing import parse_path, with_outline
    from lazy_intel.store.writer import for_transfer

    conn, rows = _described_files(state, every)
    conn.close()
    digest = hashlib.sha256()
    seconds = 0.0
    for path, _, _, _ in rows:  # as a parse worker: one record at a time, none held
        record = parse_path(str(tree), path, 1 << 20)
        assert record is not None, path
        record = for_transfer(record)
        started = time.process_time()
        outline = with_outline(record).outline
        seconds += time.process_time() - started
        digest.update(repr(outline).encode())
    return seconds, digest.hexdigest()[:16], len(rows)


def describe_phase(state: Path, every: int) -> tuple[float, str, int]:
    from lazy_intel.graph.build import describe_file
    from lazy_intel.graph.modules import PathIndex
    from lazy_intel.graph.program import FactStore

    conn, rows = _described_files(state, every)
    store = FactStore(conn, PathIndex({path: lang for path, lang, _, _ in rows}))
    digest = hashlib.sha256()
    started = time.process_time()
    outlines = [describe_file(store, path, size, lines) for path, _, size, lines in rows]
    seconds = time.process_time() - started
    for outline in outlines:
        digest.update(repr(outline).encode())
    return seconds, digest.hexdigest()[:16], len(rows)


def resolve_phase(state: Path, every: int) -> tuple[float, str, int]:
    from lazy_intel.graph.build import ResolvedFile
    from lazy_intel.graph.modules import PathIndex
    from lazy_intel.graph.program import FactStore
    from lazy_intel.graph.resolve import resolve_file

    conn, rows = _described_files(state, 1)
    store = FactStore(conn, PathIndex({path: lang for path, lang, _, _ in rows}))
    digest = hashlib.sha256()
    seconds = 0.0
    for path, _, _, _ in rows[::every]:  # as one resolve worker: shared results kept across files
        started = time.process_time()
        model = store.model(path)
        resolved = ResolvedFile.of(path, resolve_file(store, model)) if model is not None else None
        seconds += time.process_time() - started
        digest.update(repr(resolved).encode())
    return seconds, digest.hexdigest()[:16], len(rows[::every])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("phase", choices=("parse", "transfer", "describe", "outline", "resolve"))
    parser.add_argument("--tree", type=Path, help="the tree to parse (parse, transfer, outline)")
    parser.add_argument(
        "--state", type=Path, help="a state directory holding a built store (describe, outline)"
    )
    parser.add_argument("--every", type=int, default=1, help="every Nth file")
    args = parser.parse_args()
    from lazy_intel.allocator import relax_collection

    relax_collection()  # the collector as in an index worker
    if args.phase in ("describe", "resolve"):
        if args.state is None:
            raise SystemExit(f"{args.phase} needs --state")
        run_state = describe_phase if args.phase == "describe" else resolve_phase
        seconds, digest, files = run_state(args.state, args.every)
    elif args.phase == "outline":
        if args.state is None or args.tree is None:
            raise SystemExit("outline needs --state and --tree")
        seconds, digest, files = outline_phase(args.state, args.tree.resolve(), args.every)
    else:
        if args.tree is None:
            raise SystemExit(f"{args.phase} needs --tree")
        run = parse_phase if args.phase == "parse" else transfer_phase
        seconds, digest, files = run(args.tree.resolve(), args.every)
    code = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or "installed"
    print(f"command: PYTHONPATH={code} {shlex.join([sys.executable, *sys.argv])}")
    print(f"{args.phase}: {files} files, {seconds:.2f} CPU-s, {digest} (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()

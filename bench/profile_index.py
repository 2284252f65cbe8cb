"""Where the CPU of a full index goes: ``lazy-intel index`` under the py-spy sampling profiler.

Usage:
    python bench/profile_index.py                       # the Django 5.1.4 sdist (bench/.cache)
    python bench/profile_index.py --tree /path/to/repo --rate 50 --raw /tmp/profile.txt
    python bench/profile_index.py --summarize /tmp/profile.txt   # sort an earlier run's stacks again

Runs a full index into a fresh state directory under ``py-spy record --subprocesses`` (py-spy comes
with the ``bench`` extra) and sorts every sample into a stage by the frames on its stack: capture,
parse (tree-sitter), tree-sitter query, extract, chunk, tokenize, FTS row texts, worker/pool plumbing,
facts writes, FTS insert, graph nodes, graph facts loading, graph resolve, graph writes, index builds,
startup imports. Samples are per process role (the writer, the workers). A sample is taken while a
thread is on CPU or runnable; on a loaded machine runnable time counts too, so read the shares, and
the CPU seconds that ``bench/index_speed.py`` reports, rather than the sample counts as seconds.
"""

from __future__ import annotations

import argparse
import collections
import linecache
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import django_tree

SRC = Path(__file__).resolve().parents[1] / "src"


def _function(frame: str) -> str:
    return frame.split(" (", 1)[0]


def _line(frame: str) -> str:
    """The source line a ``func (path:line)`` frame points at (our own files only)."""
    try:
        location = frame[frame.rindex("(") + 1 : -1]
        path, number = location.rsplit(":", 1)
    except ValueError:
        return ""
    full = SRC / path
    if not full.exists():
        return ""
    # a call spread over lines is sampled at its first line: read the next one too
    return linecache.getline(str(full), int(number)) + linecache.getline(str(full), int(number) + 1)


# Leaf frames that block (a lock, a pipe, a selector): py-spy's idle detection misses some of these on a
# loaded machine, so they are counted apart rather than charged to the stage that waits.
WAITING_LEAVES = frozenset(
    {"Condition.wait", "Event.wait", "_PollLikeSelector.select", "Connection._recv", "Connection._send"}
)


def stage(frames: list[str]) -> str:
    """The stage a stack (outermost first) belongs to."""
    if not frames:
        return "native (no Python frame)"
    if _function(frames[-1]) in WAITING_LEAVES:
        return "waiting (lock, pipe, selector)"
    names = {_function(f) for f in frames}
    names |= {name.rsplit(".", 1)[-1] for name in names}  # methods appear as Class.method

    def has(*wanted: str) -> bool:
        return any(w in names for w in wanted)

    if has("_find_and_load") and not has("run_sync"):
        return "startup imports"
    if has("check_store"):
        return "store checks (quick_check, counts, hashes)"
    if has("op_status"):
        return "status answer"
    if has("capture_all", "list_scope"):
        return "capture (scope + hash)"
    if has("load_model", "load_interface"):
        return "graph: load facts from SQLite (JSON decode)"
    if has("resolve_file"):
        return "graph: resolve"
    if has("_insert_edges", "_insert_nodes") or (has("update_graph") and "INSERT_EDGE" in _line(frames[-1])):
        return "graph: write nodes/edges"
    if has("file_nodes"):
        return "graph: nodes"
    if has("update_graph"):
        return (
            "graph: index builds, other" if "execute(sql)" not in _line(frames[-1]) else "graph: index builds"
        )
    if has("with_fts_rows"):
        return "tokenize (FTS texts)" if has("index_text", "path_text") else "FTS rows: embed text + sha"
    if has("chunk_code", "chunk_text"):
        return "chunk"
    if has("extract_facts"):
        line = _line(frames[-1]) if _function(frames[-1]) == "_extract" else ""
        if ".parse(" in line:
            return "parse (tree-sitter)"
        if "QueryCursor" in line or "matches(" in line:
            return "tree-sitter query"
        return "extract (facts)"
    if has("record_for_bytes", "parse_path"):
        return "read, hash, decode"
    if has("_insert_chunks"):
        return "write: FTS insert" if "chunks_fts" in _line(frames[-1]) else "write: chunks"
    if has("_insert_file", "_insert_symbols", "_insert_refs", "_delete_file"):
        return "write: files, symbols, refs, flows, imports"
    if has("finish_bulk", "_fsync_file"):
        return "finish (WAL switch, checkpoint, fsync)"
    if has("publish"):
        return "write: other"
    if any("multiprocessing" in f or "concurrent/futures" in f or "pickle" in f for f in frames):
        return "worker pool plumbing (pickling, queues)"
    return "other"


def summarize(raw: Path) -> dict[str, collections.Counter[str]]:
    roles: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        processes = [f for f in frames if f.startswith("process ")]
        role = "writer" if len(processes) <= 1 else "workers"
        frames = [f for f in frames if not f.startswith(("process ", "thread "))]
        roles[role][stage(frames)] += int(count)
    return roles


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="directory to index (default: the Django 5.1.4 sdist)")
    parser.add_argument("--rate", type=int, default=50, help="samples per second")
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw (collapsed) stacks here")
    parser.add_argument("--summarize", type=Path, help="only sort the stacks of an earlier --raw file")
    args = parser.parse_args()
    if args.summarize is not None:
        report(summarize(args.summarize), f"{args.summarize} ({args.rate}/s)")
        return
    tree = (args.tree or django_tree()).resolve()
    pyspy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    if pyspy is None:
        raise SystemExit("py-spy not found: pip install -e '.[bench]'")
    with tempfile.TemporaryDirectory() as tmp:
        raw = args.raw or Path(tmp) / "profile.txt"
        cmd = [pyspy, "record", "--subprocesses", "--rate", str(args.rate), "--format", "raw", "-o", str(raw)]
        cmd += ["--", exe, "index", str(tree), "--state-dir", str(Path(tmp) / "state"), "--json"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        roles = summarize(raw)
    report(roles, f"{tree} at {args.rate}/s")


def report(roles: dict[str, collections.Counter[str]], what: str) -> None:
    total = sum(sum(c.values()) for c in roles.values()) or 1
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(f"{what}: {total} samples")
    for role, counts in sorted(roles.items()):
        print(f"\n{role}: {sum(counts.values())} samples")
        for name, count in counts.most_common():
            print(f"  {name:48} {count:7} {100 * count / total:5.1f}%")


if __name__ == "__main__":
    main()

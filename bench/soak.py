"""Soak: ``lazy-intel serve`` under a stream of random edits and concurrent queries, for a bounded time.

Usage:
    python bench/soak.py                         # 60 s, 200 files, 4 query workers
    python bench/soak.py --seconds 300 --files 500 --workers 6 --seed 7
    python bench/soak.py --seconds 3600 --files 200 --seed 2 --steady --warmup 120   # bounded corpus, an hour
    python bench/soak.py --seconds 900 --files 60 --steady --wrap "heaptrack -o /tmp/soak"   # a malloc profile

With ``--steady`` the corpus stays the same size (creates balanced by deletes, rewrites instead of
appends, at most 3 new directories alive), so memory that still grows is the server's, not the
corpus's. ``LAZY_INTEL_TRACE_MEMORY_S=60`` in the environment makes the server log where its Python
memory grew and what glibc's arenas hold (tracemalloc; slows it and inflates RSS, so not for the
figures). ``--wrap`` runs the server under another command, a profiler such as heaptrack (keep
``--files`` under 64 so that no parse worker inherits it).

One editor applies random edits (modify a body, add a function, create, delete, rename a file, create
a directory) and, after each batch, waits until a unique symbol it introduced is published: that is
the publish latency (watcher debounce + sync). Query workers keep asking ``search``/``symbol``/
``status`` with ``auto``/``fast``/``strict`` freshness over the real MCP client. Every answer is
checked: each ``source`` item's text must be the exact slice of the bytes its anchor names (every
version of every file ever written is kept, by SHA-256, with every path that held it), the anchor's
path must have held those bytes, and each anchor must carry the generation of the answer's view.
The server's memory is sampled every second (``soak_memory.py``): resident with its children and
alone, anonymous vs file-backed, open descriptors (to deleted files, into the state directory),
threads and mappings.

Prints edits applied, the corpus shape at start and end, publications seen, queries answered, wrong
answers (must be 0), p50/p95 publish latency and RSS over time: first vs last quarter after
``--warmup`` (must stay within 25%, or 10% with ``--steady``), the least-squares slope in MB/min,
the mean and slope of each quarter after warm-up (server alone; anonymous and file-backed), and the
tail: the slope over the second half after warm-up and the growth it makes over that half, which
with ``--steady`` must stay within 2% (memory that levels off passes whatever it did while warming
up; memory that keeps rising does not, on a run long enough to show it: half an hour or more). Then
the breakdown after warm-up and at the end, and the mappings that changed most; exits 1 when a
check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import os
import random
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import ClientSession, StdioServerParameters, stdio_client

from soak_memory import (
    MemorySample,
    after_warmup,
    breakdown_line,
    describe_segments,
    group_changes,
    sample_process,
    slope_mb_per_min,
    smaps_groups,
    tail,
)

RSS_GROWTH_LIMIT = 0.25  # last quarter vs first quarter (after warm-up)
RSS_STEADY_LIMIT = 0.10  # the same with --steady: the corpus does not grow, neither may the server
RSS_TAIL_LIMIT = 0.02  # --steady: growth over the second half after warm-up, by its fitted slope
WARMUP_S = 5.0
PUBLISH_WAIT_S = 20.0
STEADY_SLACK = 5  # --steady: the file count stays within target +- this
STEADY_DIRS = 3  # --steady: new directories alive at once
FIELDS_MOST = ("fds", "deleted_fds", "state_fds", "threads", "mappings", "state_mappings")  # printed: max


@dataclass
class Tally:
    history: dict[str, bytes] = field(default_factory=dict)  # sha256 -> bytes, every version written
    paths: dict[str, set[str]] = field(default_factory=dict)  # sha256 -> every path that held it
    root: Path | None = None
    names: set[str] = field(default_factory=set)
    edits: int = 0
    latencies: list[float] = field(default_factory=list)
    unpublished: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    generations: set[int] = field(default_factory=set)
    memory: list[MemorySample] = field(default_factory=list)  # one a second
    smaps: dict[str, Counter[str]] = field(default_factory=dict)  # "start" / "warm" / "end" -> groups


def remember(tally: Tally, path: Path, data: bytes) -> None:
    sha = hashlib.sha256(data).hexdigest()
    tally.history[sha] = data
    if tally.root is not None:
        tally.paths.setdefault(sha, set()).add(path.relative_to(tally.root).as_posix())


def write(tally: Tally, path: Path, text: str) -> None:
    data = text.encode()
    remember(tally, path, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def module_text(n: int, marker: str | None = None) -> str:
    body = [f'"""Soak module {n}."""\n\n']
    body.append(f"class Worker{n}:\n    def run(self, value):\n        return value * {n}\n\n\n")
    body.append(f"def compute_{n}(x):\n    return Worker{n}().run(x) + {n}\n")
    if marker:
        body.append(f"\n\ndef {marker}(a, b):\n    return compute_{n}(a) - b\n")
    return "".join(body)


def make_tree(root: Path, files: int, tally: Tally) -> None:
    for n in range(files):
        write(tally, root / f"pkg{n % 10}" / f"mod_{n}.py", module_text(n))
        tally.names.update({f"compute_{n}", f"Worker{n}"})


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if ".lazy-intel" not in p.parts)


def edit_once(root: Path, rng: random.Random, tally: Tally, step: int) -> str:
    """One random edit; returns a symbol name it introduced (to wait for)."""
    marker = f"soak_marker_{step}"
    files = python_files(root)
    action = rng.choice(["modify", "modify", "append", "create", "delete", "rename", "newdir"])
    if action == "delete" and len(files) > 20:
        rng.choice(files).unlink()
        action = "create"  # and introduce the marker somewhere
    if action == "rename" and files:
        source = rng.choice(files)
        target = source.with_name(f"renamed_{step}.py")
        remember(tally, target, source.read_bytes())
        source.rename(target)
        action = "append"
        files = python_files(root)
    if action in ("modify", "append") and files:
        path = rng.choice(files)
        text = path.read_text()
        if action == "modify":
            text = text.replace("return value *", f"return {step} + value *", 1)
        write(tally, path, text + f"\n\ndef {marker}(x):\n    return x + {step}\n")
    elif action == "newdir":
        write(tally, root / f"dir_{step}" / "deep" / f"mod_{step}.py", module_text(10_000 + step, marker))
    else:
        write(tally, root / f"pkg{step % 10}" / f"new_{step}.py", module_text(20_000 + step, marker))
    tally.names.add(marker)
    tally.edits += 1
    return marker


def steady_edit(root: Path, rng: random.Random, tally: Tally, step: int, target: int) -> str:
    """One random edit that keeps the corpus bounded; returns a symbol name it introduced.

    Every file is always one ``module_text`` (a rewrite replaces the previous marker instead of
    appending), a create is paired with a delete once ``target`` files exist, and at most
    ``STEADY_DIRS`` new directories exist at once (the oldest is removed with its watch).
    """
    marker = f"soak_marker_{step}"
    files = python_files(root)
    action = rng.choice(["modify", "modify", "create", "delete", "rename", "newdir"])
    if action == "delete" and len(files) <= target - STEADY_SLACK:
        action = "create"
    if action in ("create", "newdir") and len(files) >= target + STEADY_SLACK:
        victim = rng.choice(files)
        victim.unlink()
        files.remove(victim)
    if action == "delete":
        victim = rng.choice(files)
        victim.unlink()
        files.remove(victim)
        action = "modify"  # and introduce the marker somewhere
    if action == "rename":
        source = rng.choice(files)
        target_path = source.with_name(f"renamed_{step}.py")
        remember(tally, target_path, source.read_bytes())
        source.rename(target_path)
        files = python_files(root)
        action = "modify"
    if action == "modify":
        write(tally, rng.choice(files), module_text(30_000 + step, marker))
    elif action == "newdir":
        write(tally, root / f"dir_{step}" / "deep" / f"mod_{step}.py", module_text(10_000 + step, marker))
        made = sorted((p for p in root.glob("dir_*") if p.is_dir()), key=lambda p: int(p.name[4:]))
        for old in made[:-STEADY_DIRS]:
            shutil.rmtree(old)
    else:
        write(tally, root / f"pkg{step % 10}" / f"new_{step}.py", module_text(20_000 + step, marker))
    tally.names.add(marker)
    tally.edits += 1
    return marker


def check_answer(answer: dict[str, Any], tally: Tally) -> None:
    status = answer.get("status")
    tally.answers[status if status != "error" else f"error:{answer.get('code')}"] += 1
    view = answer.get("view", {})
    generation = view.get("generation")
    if isinstance(generation, int) and generation > 0:
        tally.generations.add(generation)
    for item in answer.get("items", []):
        anchor = item["anchor"]
        if item.get("text_kind") != "source" or item.get("text") is None:
            continue
        data = tally.history.get(anchor["sha256"])
        if data is None:
            tally.wrong.append(f"{anchor['path']}: sha {anchor['sha256'][:12]} was never written")
            continue
        if anchor["path"] not in tally.paths.get(anchor["sha256"], set()):
            tally.wrong.append(f"{anchor['path']}: never held the bytes of sha {anchor['sha256'][:12]}")
        piece = data[anchor["start_byte"] : anchor["end_byte"]].decode("utf-8", "replace")
        if piece != item["text"]:
            tally.wrong.append(f"{anchor['path']}@{generation}: text differs from its bytes")
        if anchor.get("generation") != generation:
            tally.wrong.append(
                f"{anchor['path']}: anchor generation {anchor.get('generation')} != {generation}"
            )


async def call(session: ClientSession, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool("code_intel", args)
    return result.structured_content or {}


async def editor(
    session: ClientSession, root: Path, rng: random.Random, tally: Tally, end: float, *, steady: int
) -> None:
    step = 0
    while time.monotonic() < end:
        count = rng.randint(1, 3)
        if steady:
            markers = [steady_edit(root, rng, tally, step + i, steady) for i in range(count)]
        else:
            markers = [edit_once(root, rng, tally, step + i) for i in range(count)]
        step += len(markers)
        written = time.monotonic()
        wanted = markers[-1]
        deadline = written + PUBLISH_WAIT_S
        while True:
            answer = await call(session, {"operation": "symbol", "symbol": wanted, "freshness": "fast"})
            if answer.get("status") == "ok":
                tally.latencies.append(time.monotonic() - written)
                break
            if time.monotonic() > deadline:
                tally.unpublished += 1
                break
            await anyio.sleep(0.01)
        await anyio.sleep(rng.uniform(0.0, 0.2))


async def querier(session: ClientSession, rng: random.Random, tally: Tally, end: float) -> None:
    while time.monotonic() < end:
        freshness = rng.choice(["auto", "auto", "fast", "strict"])
        kind = rng.random()
        if kind < 0.45:
            name = rng.choice(sorted(tally.names))
            args = {"operation": "symbol", "symbol": name, "freshness": freshness}
        elif kind < 0.9:
            words = rng.sample(["compute", "worker", "run", "value", "soak", "marker", "module"], 2)
            args = {"operation": "search", "query": " ".join(words), "limit": 5, "freshness": freshness}
        else:
            args = {"operation": "status", "freshness": freshness}
        check_answer(await call(session, args), tally)


def tree_rss(pid: int) -> tuple[float, float]:
    """(the server with its children, the server alone), MB."""
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0, 0.0
    total = alone = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            rss = p.memory_info().rss
            total += rss
            alone = alone or rss
    return total / 1e6, alone / 1e6


async def sampler(
    pid_box: list[int], tally: Tally, started: float, end: float, *, state_dir: str, warmup_s: float
) -> None:
    while time.monotonic() < end:
        if pid_box:
            now = time.monotonic() - started
            total, _ = tree_rss(pid_box[0])
            sample = sample_process(pid_box[0], now, total, state_dir)
            if sample is not None:
                tally.memory.append(sample)
            if "start" not in tally.smaps:
                tally.smaps["start"] = smaps_groups(pid_box[0], state_dir)
            if "warm" not in tally.smaps and now >= warmup_s:
                tally.smaps["warm"] = smaps_groups(pid_box[0], state_dir)
        await anyio.sleep(1.0)
    if pid_box:
        tally.smaps["end"] = smaps_groups(pid_box[0], state_dir)


def find_server(before: set[int], exe: str) -> int | None:
    """The server process: the new child that runs ``exe serve`` itself (not a ``--wrap`` command)."""
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            line = child.cmdline()
            if child.pid not in before and exe in line[:2] and "serve" in line:
                return child.pid
    return None


async def soak(args: argparse.Namespace, root: Path, tally: Tally) -> None:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    env = {**os.environ, "LAZY_INTEL_LOG_LEVEL": "WARNING", "LAZY_INTEL_DEBOUNCE_MS": str(args.debounce_ms)}
    command = [*shlex.split(args.wrap), exe, "serve", "--root", str(root)]
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(root), env=env)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    rng = random.Random(args.seed)
    async with stdio_client(params) as (read, write_stream), ClientSession(read, write_stream) as session:
        await session.initialize()
        pid_box: list[int] = []
        server = find_server(before, exe)
        if server is not None:
            pid_box.append(server)
        with anyio.fail_after(600):  # the first build
            while (await call(session, {"operation": "status"})).get("status") != "ok":
                await anyio.sleep(0.1)
        started = time.monotonic()
        end = started + args.seconds
        async with anyio.create_task_group() as group:
            group.start_soon(
                functools.partial(sampler, state_dir=str(root / ".lazy-intel"), warmup_s=args.warmup),
                pid_box,
                tally,
                started,
                end,
            )
            steady = args.files if args.steady else 0
            group.start_soon(
                functools.partial(editor, steady=steady),
                session,
                root,
                random.Random(rng.random()),
                tally,
                end,
            )
            for _ in range(args.workers):
                group.start_soon(querier, session, random.Random(rng.random()), tally, end)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_summary(points: list[tuple[float, float]], warmup_s: float) -> tuple[float, float, float, float]:
    """(first-quarter mean, last-quarter mean, growth, slope MB/min) of the points after warm-up."""
    kept = after_warmup(points, warmup_s)
    if not kept:
        return float("nan"), float("nan"), 0.0, float("nan")
    quarter = max(1, len(kept) // 4)
    first = statistics.mean(mb for _, mb in kept[:quarter])
    last = statistics.mean(mb for _, mb in kept[-quarter:])
    growth = (last - first) / first if first else 0.0
    return first, last, growth, slope_mb_per_min(kept)


def tail_growth(points: list[tuple[float, float]], warmup_s: float) -> tuple[float, float]:
    """(slope MB/min, growth that slope makes over the tail as a fraction of its mean) of the second
    half of the points after warm-up: 0 for memory that has levelled off, whatever it did before."""
    half = tail(after_warmup(points, warmup_s))
    if len(half) < 2:
        return float("nan"), 0.0
    slope = slope_mb_per_min(half)
    level = statistics.mean(mb for _, mb in half)
    return slope, slope * (half[-1][0] - half[0][0]) / 60 / level if level else 0.0


def corpus_shape(root: Path) -> tuple[int, int, float]:
    """(source files, directories, MB) outside the state directory."""
    files = python_files(root)
    dirs = {p.parent for p in files}
    return len(files), len(dirs), sum(p.stat().st_size for p in files) / 1e6


def directory_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--debounce-ms", type=int, default=250)
    parser.add_argument(
        "--wrap",
        default="",
        help="a command to run the server under, e.g. 'heaptrack -o /tmp/soak' (its RSS is then the "
        "wrapper's tree: for the profile, not for the figures)",
    )
    parser.add_argument(
        "--steady",
        action="store_true",
        help="keep the corpus bounded: file count within --files +- 5, each file one module, at most "
        "3 new directories alive (the oldest removed)",
    )
    parser.add_argument(
        "--warmup", type=float, default=WARMUP_S, help="seconds of RSS samples left out of the flatness check"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lazy-intel-soak-") as tmp:
        root = Path(tmp) / "repo"
        tally = Tally(root=root)
        make_tree(root, args.files, tally)
        shape_before = corpus_shape(root)
        anyio.run(soak, args, root, tally)
        state_mb = directory_mb(root / ".lazy-intel")
        shape_after = corpus_shape(root)
    answered = sum(tally.answers.values())
    tree = [(m.seconds, m.tree_mb) for m in tally.memory]
    alone = [(m.seconds, m.rss_mb) for m in tally.memory]
    first, last, growth, slope = rss_summary(tree, args.warmup)
    s_first, s_last, s_growth, s_slope = rss_summary(alone, args.warmup)
    tree_tail_slope, tree_tail = tail_growth(tree, args.warmup)
    tail_slope, alone_tail = tail_growth(alone, args.warmup)
    flat = growth <= (RSS_STEADY_LIMIT if args.steady else RSS_GROWTH_LIMIT)
    tail_flat = not args.steady or max(tree_tail, alone_tail) <= RSS_TAIL_LIMIT
    step = max(1, len(tree) // 12)
    series = " ".join(f"{t:.0f}s:{mb:.0f}" for t, mb in tree[::step])
    mode = "steady corpus" if args.steady else "growing corpus"
    print(
        f"soak: {args.seconds:g} s, {args.files} files, {args.workers} query workers, seed {args.seed}, {mode}"
    )
    print(
        f"edits applied: {tally.edits} (markers never published within {PUBLISH_WAIT_S:g} s: {tally.unpublished})"
    )
    print(
        "corpus files / directories / MB: "
        f"{shape_before[0]} / {shape_before[1]} / {shape_before[2]:.3f} at start -> "
        f"{shape_after[0]} / {shape_after[1]} / {shape_after[2]:.3f} at the end"
    )
    print(f"publications seen by queries: {len(tally.generations)} generations")
    print(f"queries answered: {answered} ({', '.join(f'{k} {v}' for k, v in sorted(tally.answers.items()))})")
    print(f"wrong answers: {len(tally.wrong)}")
    for line in tally.wrong[:10]:
        print(f"  {line}")
    print(
        f"publish latency (edit written -> visible, debounce {args.debounce_ms} ms): "
        f"p50 {percentile(tally.latencies, 0.5):.3f} s, p95 {percentile(tally.latencies, 0.95):.3f} s, "
        f"max {max(tally.latencies, default=float('nan')):.3f} s over {len(tally.latencies)} batches"
    )
    print(f"server RSS (MB, with children) over time: {series}")
    print(
        f"RSS with children, first -> last quarter after {args.warmup:g} s: {first:.1f} -> {last:.1f} MB "
        f"({growth:+.1%}, {'flat' if flat else 'GROWING'}); slope {slope:+.3f} MB/min"
    )
    print(
        f"RSS of the server alone: {s_first:.1f} -> {s_last:.1f} MB ({s_growth:+.1%}); slope {s_slope:+.3f} MB/min"
    )
    kept = after_warmup(alone, args.warmup)
    print(f"server alone by quarter after warm-up: {describe_segments(kept) or 'too few samples'}")
    for label, points in (
        ("anonymous", [(m.seconds, m.anon_mb) for m in tally.memory]),
        ("file-backed", [(m.seconds, m.file_mb) for m in tally.memory]),
    ):
        print(f"  {label}: {describe_segments(after_warmup(points, args.warmup)) or 'too few samples'}")
    print(
        f"tail (second half after warm-up): slope {tree_tail_slope:+.3f} MB/min with children "
        f"({tree_tail:+.1%} over the tail), {tail_slope:+.3f} MB/min alone ({alone_tail:+.1%}); "
        + (
            f"limit {RSS_TAIL_LIMIT:.0%}, {'flat' if tail_flat else 'GROWING'}"
            if args.steady
            else "not judged without --steady"
        )
    )
    warm = next((m for m in tally.memory if m.seconds >= args.warmup), None)
    if warm is not None:
        print(f"server after warm-up ({warm.seconds:.0f} s): {breakdown_line(warm)}")
    if tally.memory:
        print(f"server at the end ({tally.memory[-1].seconds:.0f} s): {breakdown_line(tally.memory[-1])}")
        most = {k: max(getattr(m, k) for m in tally.memory) for k in FIELDS_MOST}
        print(f"most at any sample: {', '.join(f'{k} {v}' for k, v in most.items())}")
    if "warm" in tally.smaps and "end" in tally.smaps:
        print(
            f"mappings that changed most, warm-up -> end: {group_changes(tally.smaps['warm'], tally.smaps['end'])}"
        )
    print(f"state directory at the end: {state_mb:.2f} MB for a {shape_after[2]:.2f} MB corpus")
    print("command: python bench/soak.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    return 0 if not tally.wrong and flat and tail_flat and tally.unpublished == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

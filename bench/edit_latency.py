"""Edit -> visible in a running ``lazy-intel serve``, for widely imported files and for leaf files.

Usage:
    python bench/edit_latency.py                       # the Django 5.1.4 sdist (bench/.cache)
    python bench/edit_latency.py --tree DIR --files 20 --seed 1

Copies the tree, indexes it (not measured), starts ``lazy-intel serve`` over the MCP SDK's stdio
client, picks the ``--files`` most-imported Python files (most distinct importing files, by resolved
IMPORTS edges) and as many leaf files (imported by none, seeded choice), then edits them one at a
time, a widely imported file and a leaf file in turn: each edit appends a new function (a new
definition: the edit that changes a file's interface) and the time until ``symbol`` (``freshness:
fast``) finds it is its latency. Prints p50/p95/max per group and overall, and the server's RSS (with
its children) when warm, after the edits of the widely imported files, and at the end. The baseline is
the server's own warm RSS; latency is absolute (it includes the watcher's debounce,
``--debounce-ms``). The client asks again every ``--poll-ms`` until the answer has it; each ask costs
the server CPU (and the GIL) that the sync in the same process then waits for.

``--source LABEL=DIR`` (repeatable) compares versions in one run: DIR is a source tree (a checkout or
a ``git archive`` of a commit, with ``src/``); each version gets its own copy of the tree, indexed by
that version, and its own server (``PYTHONPATH=DIR/src``), and the edits go to the servers in turn
(the same file, then the next), so they share the machine's load. For every edit the server's
``status`` afterwards gives the sync that published it (its seconds, the graph's share, how many
unchanged files it re-resolved), printed as medians beside the latency, and the CPU seconds the server
process spent from the write to the status answer (its polling by this client included).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import ClientSession, StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import django_tree
from soak import find_server, tree_rss

WAIT_S = 60.0


def most_imported_and_leaves(store: Path, count: int, rng: random.Random) -> tuple[list[str], list[str]]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        importers = dict(
            conn.execute(
                "SELECT n.path, count(DISTINCT e.path) FROM edges e JOIN nodes n ON n.id = e.dst "
                "WHERE e.type = 'IMPORTS' AND n.path LIKE '%.py' GROUP BY n.path"
            ).fetchall()
        )
        python = [
            p for (p,) in conn.execute("SELECT path FROM files WHERE lang = 'python' AND status = 'indexed'")
        ]
    finally:
        conn.close()
    hot = sorted(importers, key=lambda p: (-importers[p], p))[:count]
    leaves = sorted(p for p in python if p not in importers and not p.endswith("__init__.py"))
    return hot, rng.sample(leaves, min(count, len(leaves)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def call(session: ClientSession, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool("code_intel", args)
    return result.structured_content or {}


@dataclass
class Server:
    """One version under test: its tree copy, environment and, while running, its session."""

    label: str
    root: Path
    env: dict[str, str]
    poll_s: float = 0.01  # --poll-ms
    session: ClientSession | None = None
    pid: int | None = None
    out: dict[str, Any] = field(
        default_factory=lambda: {
            "hot": [],
            "leaf": [],
            "rss": {},
            "syncs": [],
            "rss_per_edit": [],
            "cpu_per_edit": [],
            "published": [],
        }
    )


async def start(stack: AsyncExitStack, server: Server, exe: str) -> None:
    params = StdioServerParameters(
        command=exe, args=["serve", "--root", str(server.root)], cwd=str(server.root), env=server.env
    )
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    read, write = await stack.enter_async_context(stdio_client(params))
    server.session = await stack.enter_async_context(ClientSession(read, write))
    await server.session.initialize()
    server.pid = find_server(before, exe)


async def wait_clean(server: Server) -> None:
    assert server.session is not None
    with anyio.fail_after(1800):
        while True:
            status = await call(server.session, {"operation": "status", "freshness": "fast"})
            if status.get("status") == "ok" and status.get("view", {}).get("dirty") is False:
                return
            await anyio.sleep(0.5)


def cpu_seconds(server: Server) -> float:
    """User + system CPU seconds of the server process so far (its own threads; not its children)."""
    if not server.pid:
        return 0.0
    times = psutil.Process(server.pid).cpu_times()
    return times.user + times.system


def rss(server: Server) -> float:
    return tree_rss(server.pid)[0] if server.pid else 0.0


async def edit_once(server: Server, group: str, rel: str, number: int) -> None:
    assert server.session is not None
    marker = f"bench_edit_marker_{number}"
    cpu_before = cpu_seconds(server)
    path = server.root / rel
    path.write_text(path.read_text() + f"\n\ndef {marker}():\n    return {number}\n")
    written, written_wall = time.monotonic(), time.time()
    while True:
        answer = await call(server.session, {"operation": "symbol", "symbol": marker, "freshness": "fast"})
        if answer.get("status") == "ok":
            server.out[group].append(time.monotonic() - written)
            published = (answer.get("view") or {}).get("published_at")
            if published:  # when the generation holding the edit was published: no polling in it
                stamp = datetime.fromisoformat(published.replace("Z", "+00:00")).timestamp()
                server.out["published"].append((group, stamp - written_wall))
            break
        if time.monotonic() - written > WAIT_S:
            server.out[group].append(float("inf"))
            break
        await anyio.sleep(server.poll_s)
    status = await call(server.session, {"operation": "status", "freshness": "fast"})
    last = (status.get("data") or {}).get("last_sync") or {}
    graph = last.get("graph") or {}
    server.out["syncs"].append(
        (
            group,
            last.get("seconds", float("nan")),
            graph.get("seconds", float("nan")),
            graph.get("dependent_files", 0),
        )
    )
    server.out["rss_per_edit"].append(rss(server))
    server.out["cpu_per_edit"].append(cpu_seconds(server) - cpu_before)


async def run(servers: list[Server], hot: list[str], leaves: list[str]) -> None:
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    mixed: list[tuple[str, str]] = []
    for index in range(max(len(hot), len(leaves))):
        if index < len(hot):
            mixed.append(("hot", hot[index]))
        if index < len(leaves):
            mixed.append(("leaf", leaves[index]))
    last_hot = max(i for i, (g, _) in enumerate(mixed) if g == "hot") if hot else -1
    async with AsyncExitStack() as stack:
        for server in servers:
            await start(stack, server, exe)
        for server in servers:
            await wait_clean(server)
        await anyio.sleep(2.0)
        for server in servers:
            server.out["rss"]["warm"] = rss(server)
        for number, (group, rel) in enumerate(mixed):
            for server in servers:
                await edit_once(server, group, rel, number)
                await anyio.sleep(0.3)
            if number == last_hot:
                for server in servers:
                    server.out["rss"]["after hot edits"] = rss(server)
        await anyio.sleep(2.0)
        for server in servers:
            server.out["rss"]["end"] = rss(server)


def parse_sources(values: list[str]) -> list[tuple[str, Path | None]]:
    if not values:
        return [("current", None)]
    out: list[tuple[str, Path | None]] = []
    for value in values:
        label, _, directory = value.partition("=")
        if not directory:
            raise SystemExit(f"--source wants LABEL=DIR, got {value!r}")
        out.append((label, Path(directory).resolve()))
    return out


def report(server: Server) -> None:
    result = server.out
    print(f"\n[{server.label}]")
    print(
        f"{'edits':24} {'n':>4} {'p50 s':>8} {'p95 s':>8} {'max s':>8} {'sync p50':>9} {'graph p50':>9} {'deps p50':>8}"
    )
    groups = [
        ("widely imported", result["hot"], {"hot"}),
        ("leaf", result["leaf"], {"leaf"}),
        ("all", result["hot"] + result["leaf"], {"hot", "leaf"}),
    ]
    for name, values, kinds in groups:
        syncs = [s for s in result["syncs"] if s[0] in kinds]
        print(
            f"{name:24} {len(values):4} {statistics.median(values):8.3f} {percentile(values, 0.95):8.3f} "
            f"{max(values):8.3f} {statistics.median(s[1] for s in syncs):9.3f} "
            f"{statistics.median(s[2] for s in syncs):9.3f} {statistics.median(s[3] for s in syncs):8.1f}"
        )
    for name, kinds in (("widely imported", {"hot"}), ("leaf", {"leaf"}), ("all", {"hot", "leaf"})):
        published = [seconds for group, seconds in result["published"] if group in kinds]
        if published:
            print(
                f"{'  edit -> published, ' + name:34} p50 {statistics.median(published):.3f} "
                f"p95 {percentile(published, 0.95):.3f} max {max(published):.3f} (the answer's published_at)"
            )
    cpu = result["cpu_per_edit"]
    if cpu:
        print(
            f"server CPU-s per edit (edit -> visible -> status, polling included): p50 "
            f"{statistics.median(cpu):.3f}, max {max(cpu):.3f}, total {sum(cpu):.2f}"
        )
    print("server RSS after each edit, MB: " + " ".join(f"{v:.0f}" for v in result["rss_per_edit"]))
    rss_mb = result["rss"]
    print("server RSS with children, MB: " + ", ".join(f"{k} {v:.1f}" for k, v in rss_mb.items()))
    if rss_mb.get("warm"):
        print(
            f"after the widely imported edits vs warm: "
            f"{100 * (rss_mb.get('after hot edits', 0) / rss_mb['warm'] - 1):+.1f}%"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, help="directory (default: the Django 5.1.4 sdist)")
    parser.add_argument("--files", type=int, default=20, help="widely imported files, and as many leaf files")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--debounce-ms", type=int, default=250)
    parser.add_argument(
        "--poll-ms", type=int, default=10, help="how often the client asks whether the edit is visible"
    )
    parser.add_argument(
        "--source", action="append", default=[], metavar="LABEL=DIR", help="a version to compare (repeatable)"
    )
    parser.add_argument(
        "--reuse-index",
        action="store_true",
        help="copy the tree's own .lazy-intel too (each version then syncs it instead of indexing anew)",
    )
    args = parser.parse_args()
    tree = (args.tree or django_tree()).resolve()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        servers: list[Server] = []
        for number, (label, source) in enumerate(parse_sources(args.source)):
            env = {
                **os.environ,
                "LAZY_INTEL_LOG_LEVEL": "WARNING",
                "LAZY_INTEL_DEBOUNCE_MS": str(args.debounce_ms),
            }
            if source is not None:
                env["PYTHONPATH"] = str(source / "src")
            root = Path(tmp) / f"copy{number}"
            skipped = (".codegraph",) if args.reuse_index else (".lazy-intel", ".codegraph")
            shutil.copytree(tree, root, ignore=shutil.ignore_patterns(*skipped))
            subprocess.run([exe, "index", str(root), "--json"], check=True, capture_output=True, env=env)
            servers.append(Server(label, root, env, poll_s=args.poll_ms / 1000))
        first = servers[0].root
        catalog = json.loads((first / ".lazy-intel" / "catalog.json").read_text())
        hot, leaves = most_imported_and_leaves(
            first / ".lazy-intel" / catalog["store"], args.files, random.Random(args.seed)
        )
        anyio.run(run, servers, hot, leaves)
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    print(
        f"tree: {tree}; debounce {args.debounce_ms} ms; poll {args.poll_ms} ms; load average before {load_before}, after "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print(f"widely imported files: {', '.join(hot[:5])}, …")
    for server in servers:
        report(server)


if __name__ == "__main__":
    main()

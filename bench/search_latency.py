"""Search latency in a warm ``lazy-intel serve``: both stages against the first stage alone, same run.

Usage:
    python bench/search_latency.py                       # the django 5.1.4 sdist (downloaded once)
    python bench/search_latency.py --tree /path/to/repo --rounds 3

The tree is indexed once (``lazy-intel index``, into its ``.lazy-intel`` state directory: use a copy,
the default django sdist lives under ``bench/.cache``). Then, per round, one ``lazy-intel serve``
with the second stage on (``LAZY_INTEL_RERANK=1``) and one with it off are started in turn over a
real MCP stdio client; each answers a few warm-up searches, then every query once (``search``,
default freshness ``auto``, limit 10). Queries are the 63 issue texts of the SWE-bench Lite dev set
(long bug reports: the shapes agents send; other repositories' words make them hard for django's
index) plus short ones made of django identifiers. Rounds alternate the two configurations so that
load from other jobs on the machine falls on both. Prints p50 / p95 / max per configuration, the
ratio of both stages to the first stage alone, and the exact command. Beside wall-clock times, the
CPU time the server process spent on each request (user + system, from ``/proc/<pid>/stat``, 10 ms
ticks): on a shared machine wall-clock time is mostly waiting for a core, CPU time is the work. Also
the server's resident memory after its last search and its peak (``/proc/<pid>/status``), and a
digest of every answer's items per configuration: two builds that answer alike print the same one.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

CACHE = Path(__file__).resolve().parent / ".cache"
DJANGO = "django==5.1.4"
SHORT_QUERIES = (
    "QuerySet.annotate with a Subquery",
    "select_related follows a nullable foreign key",
    "migrations autodetector renames a field",
    "ModelAdmin.get_search_results",
    "CSRF cookie not set",
    "URLValidator rejects IPv6 hosts",
    "template filter floatformat rounding",
    "ManyToManyField through model clear()",
)
DATA = Path("shared") / "bench" / "swebench-lite-dev.jsonl"
MAX_QUERY_CHARS = 19_000


def django_tree(cache: Path = CACHE) -> Path:
    """The django 5.1.4 sdist, downloaded (pip, from the package index) and extracted once."""
    cache.mkdir(parents=True, exist_ok=True)
    for tree in (cache / "django-5.1.4", cache / "Django-5.1.4"):
        if tree.is_dir():
            return tree
    archive = next(iter(cache.glob("[Dd]jango-5.1.4.tar.gz")), None)
    if archive is None:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                DJANGO,
                "-d",
                str(cache),
            ],
            check=True,
        )
        archive = next(iter(cache.glob("[Dd]jango-5.1.4.tar.gz")))
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    return next(t for t in (cache / "django-5.1.4", cache / "Django-5.1.4") if t.is_dir())


def queries(data: Path | None) -> list[str]:
    out = list(SHORT_QUERIES)
    path = data
    if path is None:
        for parent in Path(__file__).resolve().parents:
            if (parent / DATA).is_file():
                path = parent / DATA
                break
    if path is not None and path.is_file():
        out += [json.loads(line)["query"] for line in path.read_text().splitlines() if line.strip()]
    # a request holds at most LAZY_INTEL_MAX_INPUT_CHARS (20,000): an agent cuts a longer report
    return [q[:MAX_QUERY_CHARS] for q in out]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def server_pid(exe: str) -> int | None:
    """The ``lazy-intel serve`` child of this process (``None`` without ``/proc``)."""
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"serve" in cmdline and any(part.endswith(b"lazy-intel") for part in cmdline):
                return int(pid)
    return None


def memory_kib(pid: int | None) -> tuple[int, int]:
    """``(VmRSS, VmHWM)`` of process ``pid`` in KiB: resident now, and its peak (0 when unknown)."""
    if pid is None:
        return 0, 0
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    return tuple(int(fields.get(k, "0 kB").split()[0]) for k in ("VmRSS", "VmHWM"))  # type: ignore[return-value]


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 when unknown)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def serve_round(
    tree: Path, exe: str, rerank: bool, texts: list[str], warmup: int, *, digest: hashlib._Hash
) -> tuple[list[float], list[float], tuple[int, int]]:
    """Wall and CPU seconds of each search, the server's ``(VmRSS, VmHWM)`` after the last one; every
    answer's items go into ``digest`` (the same answers hash the same)."""
    env = {**os.environ, "LAZY_INTEL_LOG_LEVEL": "WARNING", "LAZY_INTEL_RERANK": "1" if rerank else "0"}
    params = StdioServerParameters(command=exe, args=["serve", "--root", str(tree)], cwd=str(tree), env=env)
    times: list[float] = []
    cpu: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        pid = server_pid(exe)
        with anyio.fail_after(600):
            while True:
                status = await session.call_tool("code_intel", {"operation": "status"})
                if (status.structured_content or {}).get("status") == "ok":
                    break
                await anyio.sleep(0.2)
        for text in texts[:warmup]:
            await session.call_tool("code_intel", {"operation": "search", "query": text, "limit": 10})
        for text in texts:
            began, used = time.perf_counter(), cpu_seconds(pid)
            result = await session.call_tool(
                "code_intel", {"operation": "search", "query": text, "limit": 10}
            )
            times.append(time.perf_counter() - began)
            cpu.append(cpu_seconds(pid) - used)
            answer = result.structured_content or {}
            digest.update(json.dumps(answer.get("items"), sort_keys=True).encode())
            if answer.get("status") not in ("ok", "partial"):
                raise RuntimeError(f"search failed: {answer.get('code')} {answer.get('message')}")
            used_rerank = any(c.startswith("rerank:") for c in answer.get("coverage", []))
            if used_rerank != rerank:
                raise RuntimeError(
                    f"LAZY_INTEL_RERANK={int(rerank)} but the answer's coverage says otherwise"
                )
        memory = memory_kib(pid)
    return times, cpu, memory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tree", type=Path, default=None, help="tree to index and search (default: django sdist)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="rounds; each runs both configurations")
    parser.add_argument("--warmup", type=int, default=5, help="searches before timing, per server")
    parser.add_argument("--data", type=Path, default=None, help="the dev set (its issue texts are queries)")
    args = parser.parse_args(argv)
    tree = (args.tree or django_tree()).resolve()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    began = time.perf_counter()
    subprocess.run(
        [exe, "index", str(tree)],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "LAZY_INTEL_LOG_LEVEL": "WARNING"},
    )
    indexed = time.perf_counter() - began
    texts = queries(args.data)
    times: dict[str, list[float]] = {"both stages": [], "first stage": []}
    cpu: dict[str, list[float]] = {"both stages": [], "first stage": []}
    memory: dict[str, list[tuple[int, int]]] = {"both stages": [], "first stage": []}
    digests = {name: hashlib.sha256() for name in times}
    for _ in range(args.rounds):
        for rerank, name in ((True, "both stages"), (False, "first stage")):
            wall, used, rss = anyio.run(
                functools.partial(serve_round, digest=digests[name]), tree, exe, rerank, texts, args.warmup
            )
            times[name] += wall
            cpu[name] += used
            memory[name].append(rss)
    print(
        f"tree {tree} (indexed in {indexed:.0f} s); {len(texts)} queries x {args.rounds} rounds per configuration"
    )
    print("| configuration | p50 ms | p95 ms | max ms | mean ms | CPU p50 ms | CPU p95 ms | CPU mean ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        used = [v * 1000 for v in cpu[name]]
        print(
            f"| {name} | {percentile(ms, 0.5):.0f} | {percentile(ms, 0.95):.0f} | {max(ms):.0f} | "
            f"{statistics.fmean(ms):.0f} | {percentile(used, 0.5):.0f} | {percentile(used, 0.95):.0f} | "
            f"{statistics.fmean(used):.0f} |"
        )
    for name, rounds in memory.items():
        print(
            f"{name}: server RSS after the last search {max(r for r, _ in rounds) / 1024:.0f} MiB, "
            f"peak {max(h for _, h in rounds) / 1024:.0f} MiB; answers sha256 "
            f"{digests[name].hexdigest()[:16]} (over {args.rounds} rounds)"
        )
    for label, table in (("wall", times), ("CPU", cpu)):
        both, first = table["both stages"], table["first stage"]
        if percentile(first, 0.5) > 0 and percentile(first, 0.95) > 0:
            print(
                f"ratio both / first ({label}): p50 {percentile(both, 0.5) / percentile(first, 0.5):.2f}x, "
                f"p95 {percentile(both, 0.95) / percentile(first, 0.95):.2f}x, "
                f"mean {statistics.fmean(both) / statistics.fmean(first):.2f}x"
            )
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

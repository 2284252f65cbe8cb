"""What ``bench/soak.py`` measures of the server's memory, and how it judges that RSS stays flat.

Linux only: it reads ``/proc/<pid>``. One :class:`MemorySample` a second splits the server's resident
memory into anonymous (malloc heap and arenas, thread stacks) and file-backed pages (libraries,
mapped store files and their ``-shm`` indexes), and counts what could pile up without the Python heap
noticing: open descriptors (and those to deleted files), threads, memory mappings, mappings of the
state directory. :func:`smaps_groups` splits one snapshot of ``/proc/<pid>/smaps`` by what is
mapped, to compare the start and the end of a run.

RSS growth is judged on segments: the samples after warm-up are cut into :data:`SEGMENTS` equal
parts, each with its own least-squares slope, so that memory which rises and then levels off
(allocator warm-up, a cache filling to its limit) can be told from memory that keeps rising. The
verdict is about the tail: the slope over the second half of the samples after warm-up.
"""

from __future__ import annotations

import os
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SEGMENTS = 4
KB = 1024


@dataclass(frozen=True)
class MemorySample:
    seconds: float
    tree_mb: float  # the server with its children (parse workers)
    rss_mb: float  # the server alone
    anon_mb: float  # the server's anonymous resident pages (RssAnon)
    file_mb: float  # the server's file-backed resident pages (RssFile)
    shmem_mb: float  # the server's shared-memory pages (RssShmem)
    fds: int
    deleted_fds: int  # descriptors whose file was unlinked
    state_fds: int  # descriptors into the state directory (store files, WAL, -shm)
    threads: int
    mappings: int
    state_mappings: int  # mappings of files in the state directory


@dataclass(frozen=True)
class Segment:
    start_s: float
    end_s: float
    mean_mb: float
    slope: float  # MB per minute


def _status_kb(pid: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            out[key] = int(parts[0])
    return out


def _fd_targets(pid: int) -> list[str]:
    targets = []
    fd_dir = f"/proc/{pid}/fd"
    for name in os.listdir(fd_dir):
        try:
            targets.append(os.readlink(f"{fd_dir}/{name}"))
        except OSError:  # closed between the listing and the readlink
            continue
    return targets


def sample_process(pid: int, seconds: float, tree_mb: float, state_dir: str) -> MemorySample | None:
    """One sample of process ``pid``; ``None`` once it is gone."""
    try:
        status = _status_kb(pid)
        targets = _fd_targets(pid)
        maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    except (OSError, ValueError):
        return None
    return MemorySample(
        seconds=seconds,
        tree_mb=tree_mb,
        rss_mb=status.get("VmRSS", 0) * KB / 1e6,
        anon_mb=status.get("RssAnon", 0) * KB / 1e6,
        file_mb=status.get("RssFile", 0) * KB / 1e6,
        shmem_mb=status.get("RssShmem", 0) * KB / 1e6,
        fds=len(targets),
        deleted_fds=sum(t.endswith(" (deleted)") for t in targets),
        state_fds=sum(t.startswith(state_dir) for t in targets),
        threads=status.get("Threads", 0),
        mappings=len(maps),
        state_mappings=sum(state_dir in line for line in maps),
    )


def smaps_groups(pid: int, state_dir: str) -> Counter[str]:
    """Resident kB of process ``pid`` by what is mapped: ``[heap]``, ``[anon]`` (unnamed anonymous
    mappings: malloc arenas, thread stacks, mmap'd allocations), ``[stack]``, ``state:<name>`` for
    files of the state directory, otherwise the mapped file's name. Empty once the process is gone."""
    groups: Counter[str] = Counter()
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except OSError:
        return groups
    name = "[anon]"
    for line in text.splitlines():
        head = line.split(maxsplit=5)
        if head and "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            path = head[5].strip() if len(head) == 6 else ""
            if not path:
                name = "[anon]"
            elif path.startswith("["):
                name = path.split(":")[0] if path.startswith("[anon:") else path
            elif path.startswith(state_dir):
                name = (
                    "state:"
                    + Path(path.removesuffix(" (deleted)")).name
                    + (" (deleted)" if path.endswith(" (deleted)") else "")
                )
            else:
                name = Path(path).name
        elif line.startswith("Rss:"):
            groups[name] += int(line.split()[1])
    return groups


def slope_mb_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) points, in MB per minute."""
    if len(points) < 2:
        return float("nan")
    mean_t = statistics.mean(t for t, _ in points)
    mean_mb = statistics.mean(mb for _, mb in points)
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if not var:
        return float("nan")
    return 60 * sum((t - mean_t) * (mb - mean_mb) for t, mb in points) / var


def segments(points: list[tuple[float, float]], count: int = SEGMENTS) -> list[Segment]:
    """``points`` cut into ``count`` parts of equal sample count, each with its mean and slope."""
    size = len(points) // count
    if size < 2:
        return []
    out = []
    for i in range(count):
        part = points[i * size : (i + 1) * size if i < count - 1 else len(points)]
        out.append(
            Segment(part[0][0], part[-1][0], statistics.mean(mb for _, mb in part), slope_mb_per_min(part))
        )
    return out


def tail(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The second half of ``points`` (by count)."""
    return points[len(points) // 2 :]


def after_warmup(points: list[tuple[float, float]], warmup_s: float) -> list[tuple[float, float]]:
    return [(t, mb) for t, mb in points if t >= warmup_s] or points


def describe_segments(points: list[tuple[float, float]]) -> str:
    return ", ".join(
        f"{s.start_s:.0f}-{s.end_s:.0f} s {s.mean_mb:.1f} MB {s.slope:+.3f}/min" for s in segments(points)
    )


def breakdown_line(sample: MemorySample) -> str:
    return (
        f"RSS {sample.rss_mb:.1f} MB = anon {sample.anon_mb:.1f} + file {sample.file_mb:.1f} + "
        f"shmem {sample.shmem_mb:.1f}; fds {sample.fds} ({sample.deleted_fds} deleted, {sample.state_fds} "
        f"in the state dir), threads {sample.threads}, mappings {sample.mappings} "
        f"({sample.state_mappings} of state files)"
    )


def group_changes(start: Counter[str], end: Counter[str], top: int = 8) -> str:
    """The ``top`` mapping groups that changed most between two :func:`smaps_groups` snapshots."""
    names = set(start) | set(end)
    moved = sorted((n for n in names if end[n] != start[n]), key=lambda n: -abs(end[n] - start[n]))[:top]
    return ", ".join(f"{n} {start[n] / 1e3:.1f} -> {end[n] / 1e3:.1f} MB" for n in moved)

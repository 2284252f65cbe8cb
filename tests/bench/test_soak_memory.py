"""The soak's memory probe and its verdict, on this test process and on made-up series."""

from __future__ import annotations

import mmap
import os
from pathlib import Path

import pytest

from tests.bench import load_bench

probe = load_bench("soak_memory")
linux_only = pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads /proc")


def _rising_then_flat(minutes: int) -> list[tuple[float, float]]:
    """One sample a second: +1 MB/min for the first quarter, then flat at the level reached."""
    points = []
    knee = minutes * 60 / 4
    for t in range(minutes * 60):
        points.append((float(t), 100.0 + min(t, knee) / 60))
    return points


def test_segments_show_memory_that_levels_off() -> None:
    parts = probe.segments(_rising_then_flat(40))
    assert [round(s.slope, 3) for s in parts] == [1.0, 0.0, 0.0, 0.0]
    assert parts[0].start_s == 0 and parts[-1].end_s == 40 * 60 - 1
    tail = probe.tail(_rising_then_flat(40))
    assert probe.slope_mb_per_min(tail) == pytest.approx(0.0, abs=1e-9)


def test_a_steady_rise_keeps_its_slope_in_every_segment() -> None:
    points = [(float(t), 100.0 + 0.5 * t / 60) for t in range(3600)]
    assert [round(s.slope, 6) for s in probe.segments(points)] == [0.5] * 4
    assert probe.slope_mb_per_min(probe.tail(points)) == pytest.approx(0.5)


def test_too_few_samples_give_no_segments() -> None:
    assert probe.segments([(0.0, 1.0), (1.0, 1.0)]) == []
    assert probe.describe_segments([(0.0, 1.0)]) == ""


def test_warmup_samples_are_left_out() -> None:
    points = [(float(t), float(t)) for t in range(10)]
    assert probe.after_warmup(points, 5.0)[0] == (5.0, 5.0)
    assert probe.after_warmup(points, 100.0) == points  # nothing after it: keep everything


@linux_only
def test_a_sample_counts_descriptors_to_deleted_files_and_the_state_dir(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    kept = open(state / "store.sqlite", "wb")  # noqa: SIM115 - must stay open across the sample
    gone = open(tmp_path / "gone.tmp", "wb")  # noqa: SIM115
    try:
        (tmp_path / "gone.tmp").unlink()
        before = probe.sample_process(os.getpid(), 1.5, 0.0, str(state))
        assert before is not None
        assert before.seconds == 1.5
        assert before.deleted_fds >= 1
        assert before.state_fds == 1
        assert before.rss_mb > 0 and before.anon_mb > 0 and before.file_mb > 0
        assert before.rss_mb == pytest.approx(before.anon_mb + before.file_mb + before.shmem_mb, abs=0.1)
        assert before.threads >= 1 and before.mappings > 10
    finally:
        kept.close()
        gone.close()
    after = probe.sample_process(os.getpid(), 2.0, 0.0, str(state))
    assert after is not None
    assert after.state_fds == 0
    assert after.deleted_fds == before.deleted_fds - 1


@linux_only
def test_smaps_groups_name_state_files_and_anonymous_memory(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    shm = state / "store.sqlite-shm"
    shm.write_bytes(b"x" * 65536)
    with open(shm, "r+b") as f, mmap.mmap(f.fileno(), 65536) as mapped:
        assert mapped[:1] == b"x"  # touched: resident
        groups = probe.smaps_groups(os.getpid(), str(state))
    assert groups["state:store.sqlite-shm"] >= 4
    assert groups["[heap]"] + groups["[anon]"] > 0
    assert "state:store.sqlite-shm" in probe.group_changes(
        groups, probe.smaps_groups(os.getpid(), str(state))
    )


def test_a_process_that_is_gone_gives_no_sample(tmp_path: Path) -> None:
    missing = 2**22 + 12345  # above the default pid_max of 4,194,304
    assert probe.sample_process(missing, 0.0, 0.0, str(tmp_path)) is None
    assert not probe.smaps_groups(missing, str(tmp_path))

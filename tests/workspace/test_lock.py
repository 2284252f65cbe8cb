"""The writer lock names its holder even when the holder has not written its pid yet."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from lazy_intel.errors import WorkspaceOwned
from lazy_intel.workspace import lock as lock_module
from lazy_intel.workspace.lock import WriterLock


def test_a_contender_that_reads_the_lock_before_the_holder_wrote_its_pid_reads_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `lazy-intel index` racing on a fresh root: the loser read the lock file between the
    winner's `flock` and its pid write, and said `pid None`. The holder here has locked an empty file;
    it writes its pid while the contender waits (the contender's first pause)."""
    path = tmp_path / "writer.lock"
    holder = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
    pauses: list[float] = []

    def pause(seconds: float) -> None:
        if not pauses:
            os.write(holder, b"4242")
        pauses.append(seconds)

    monkeypatch.setattr(lock_module.time, "sleep", pause)
    try:
        with pytest.raises(WorkspaceOwned) as raised:
            WriterLock(path).acquire()
        assert "pid 4242" in str(raised.value) and pauses == [lock_module.HOLDER_PID_PAUSE_S]
        # a holder that never writes one: named as unknown after a bounded wait, not forever
        os.ftruncate(holder, 0)
        pauses.clear()
        pauses.append(0.0)  # the holder writes nothing this time
        clock = iter(range(1_000_000))
        monkeypatch.setattr(lock_module.time, "monotonic", lambda: next(clock) * 0.1)
        with pytest.raises(WorkspaceOwned) as raised:
            WriterLock(path).acquire()
        assert "pid None" in str(raised.value)
        assert len(pauses) - 1 <= lock_module.HOLDER_PID_WAIT_S / 0.1 + 1
    finally:
        os.close(holder)

"""The fault-test helpers themselves: waiting for a process must not take its exit status from its
parent (a ``ProcessPoolExecutor`` whose reaped worker ``is_alive()`` for ever spins at exit)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from tests.faults import wait_gone


def test_wait_gone_leaves_a_killed_child_for_its_parent_to_reap() -> None:
    # the child exits on its own once its stdin closes, which a timer does while wait_gone waits
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read(); sys.exit(3)"], stdin=subprocess.PIPE
    )
    assert child.stdin is not None
    closer = threading.Timer(0.3, child.stdin.close)
    closer.start()
    try:
        assert wait_gone([child.pid], 30) == []
        pid, status = os.waitpid(child.pid, 0)  # ECHILD here if wait_gone had reaped it
        assert pid == child.pid and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3
        child.returncode = 3  # reaped here: Popen must not wait for it again
    finally:
        closer.join()
        if child.returncode is None:
            child.kill()
            child.wait()

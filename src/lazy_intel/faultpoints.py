"""Test-only pause points, so fault tests can ``kill -9`` a process at an exact step.

With ``LAZY_INTEL_TEST_PAUSE_AT=<point>`` in its environment, a process that reaches ``<point>``
writes ``LAZY_INTEL_PAUSED <point> pid=<pid>`` to its stderr (file descriptor 2, unbuffered) and
then blocks that thread forever. The test reads the marker and sends ``SIGKILL``. Unset, a pause
point costs one dictionary lookup.

Points (see :data:`PAUSE_POINTS`) are named after where they sit in a publication.
"""

from __future__ import annotations

import os
import threading

ENV_VAR = "LAZY_INTEL_TEST_PAUSE_AT"
MARKER = "LAZY_INTEL_PAUSED"

PAUSE_POINTS: dict[str, str] = {
    "parse": "half of the changed files parsed, their rows written, the transaction open",
    "batch": "half of a full build's files committed in batches to its fresh store, the rest not yet",
    "resolved": "half of a full build's files resolved, their edges committed to its fresh store",
    "commit": "every row of the publication written, just before COMMIT",
    "switch": "a rebuilt store committed, the catalog not yet switched to it",
    "retire": "the catalog switched, the replaced store not yet stamped retired, the journal not cleared",
}


def pause_point(name: str) -> None:
    """Block forever here if the environment asks for it (tests only)."""
    if os.environ.get(ENV_VAR) != name:
        return
    assert name in PAUSE_POINTS, f"unknown pause point {name}"
    os.write(2, f"{MARKER} {name} pid={os.getpid()}\n".encode())
    threading.Event().wait()

"""The suite's test ids do not depend on the interpreter's hash seed.

``scripts/test.sh`` runs the suite on every core (pytest-xdist); each worker collects the tests
itself, with its own string-hash seed, and the run errors out when two workers collected different
ids. An id built from a set's order (``next(iter(keys - {...}))``) did that at random. Collecting
the whole suite under two fixed seeds and comparing finds every such id at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _collected(seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_test_ids_are_the_same_under_any_hash_seed() -> None:
    first, second = _collected("1"), _collected("2")
    assert len(first) > 1000
    assert first == second, sorted(set(first) ^ set(second))[:10]

"""The suite's test ids do not depend on the interpreter's hash seed.

``scripts/test.sh`` runs the suite on every core (pytest-xdist); each worker collects the tests
itself, with its own string-hash seed, and the run errors out when two workers collected different
ids. An id built from a set's order (``next(iter(keys - {...}))``) did that at random. Collecting
the whole suite once more in a subprocess under a fixed seed other than this process's, and finding
every id this session collected among its ids, finds such ids at once (one collection, not two:
the session's own is the other; under xdist that one runs under a random seed, so an id that two
seeds happen to order alike can pass one run — xdist's own comparison of its workers is the other
net).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def _other_seed() -> str:
    """A fixed seed this process does not run under (it runs under a random one unless told)."""
    return "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"


def _plain_id(item: pytest.Item) -> str:
    """The id a plain collection prints: xdist's ``loadgroup`` appends ``@<group>`` to the ids of an
    ``xdist_group`` test in its workers."""
    marker = item.get_closest_marker("xdist_group")
    group = (marker.args[0] if marker.args else marker.kwargs.get("name")) if marker else None
    return item.nodeid.removesuffix(f"@{group}") if group else item.nodeid


def test_test_ids_are_the_same_under_any_hash_seed(request: pytest.FixtureRequest) -> None:
    here = [_plain_id(item) for item in request.session.items]
    other = _collected(_other_seed())
    assert len(other) > 1000
    missing = sorted(set(here) - set(other))
    assert not missing, missing[:10]
    if len(here) == len(other):  # the whole suite was collected here: the same ids, in the same order
        assert here == other

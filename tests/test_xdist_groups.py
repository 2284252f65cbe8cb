"""Tests marked with one ``xdist_group`` run in one pytest-xdist worker (scripts/test.sh's
``--dist loadgroup``): the suite relies on it to build the full static embedding table once and to
start one Ray cluster. pytest 9.2 stopped reading the id suffix pytest-xdist 3.8 writes, and no group
was kept together until ``tests/conftest.py`` wrote it where pytest reads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INNER_TESTS = """
import os
from pathlib import Path

import pytest

OUT = Path(__file__).parent / "workers"


def record(name):
    OUT.mkdir(exist_ok=True)
    (OUT / name).write_text(os.environ.get("PYTEST_XDIST_WORKER", "none"))

"""


def _inner_suite(root: Path) -> None:
    body = [INNER_TESTS]
    for i in range(6):
        body.append(
            f'@pytest.mark.xdist_group("together")\ndef test_grouped_{i}():\n    record("grouped_{i}")\n\n'
        )
        body.append(f'def test_free_{i}():\n    record("free_{i}")\n\n')
    (root / "test_inner.py").write_text("\n".join(body), encoding="utf-8")
    (root / "conftest.py").write_text(
        "from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n", encoding="utf-8"
    )
    (root / "pytest.ini").write_text("[pytest]\nmarkers =\n    xdist_group(name): one worker\n")


def test_a_group_runs_in_one_worker_and_the_rest_is_spread(tmp_path: Path) -> None:
    _inner_suite(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers = {p.name: p.read_text() for p in (tmp_path / "workers").iterdir()}
    assert len(workers) == 12
    grouped = {w for name, w in workers.items() if name.startswith("grouped_")}
    assert len(grouped) == 1, workers
    assert grouped <= {"gw0", "gw1"}
    assert set(workers.values()) == {"gw0", "gw1"}  # both workers ran something: it really was -n 2

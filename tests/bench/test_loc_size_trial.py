"""The ``size`` trial feature (bench/loc_size_trial.py): a candidate file's line count, log-scaled."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.bench import load_bench

trial = load_bench("loc_size_trial")


def test_the_value_grows_with_the_line_count_and_saturates() -> None:
    assert trial.size_value(0) == 0.0
    values = [trial.size_value(n) for n in (1, 10, 100, 1000)]
    assert values == sorted(values) and 0 < values[0] < values[-1] < 1
    assert trial.size_value(trial.SIZE_SATURATION) == 1.0 and trial.size_value(10**6) == 1.0


def test_line_counts_are_read_at_the_commit(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True
        ).stdout

    git("init", "-q")
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    (tmp_path / "b.py").write_text("")
    (tmp_path / "c.txt").write_text("no newline at the end\nsecond")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    first = git("rev-parse", "HEAD").strip()
    (tmp_path / "a.py").write_text("one\n")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two")
    counts = trial.line_counts_at(tmp_path / ".git", first, ["a.py", "b.py", "c.txt", "gone.py"])
    assert counts == {"a.py": 3, "b.py": 0, "c.txt": 2}

"""The ``size`` trial feature (bench/loc_size_trial.py): a candidate file's line count, log-scaled."""

from __future__ import annotations

from pathlib import Path

from tests.bench import load_bench, two_commits

trial = load_bench("loc_size_trial")


def test_the_value_grows_with_the_line_count_and_saturates() -> None:
    assert trial.size_value(0) == 0.0
    values = [trial.size_value(n) for n in (1, 10, 100, 1000)]
    assert values == sorted(values) and 0 < values[0] < values[-1] < 1
    assert trial.size_value(trial.SIZE_SATURATION) == 1.0 and trial.size_value(10**6) == 1.0


def test_line_counts_are_read_at_the_commit(tmp_path: Path) -> None:
    first = two_commits(
        tmp_path,
        {"a.py": "one\ntwo\nthree\n", "b.py": "", "c.txt": "no newline at the end\nsecond"},
        {"a.py": "one\n"},
    )
    counts = trial.line_counts_at(tmp_path / ".git", first, ["a.py", "b.py", "c.txt", "gone.py"])
    assert counts == {"a.py": 3, "b.py": 0, "c.txt": 2}

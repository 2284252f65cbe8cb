"""The ``literal`` trial feature (bench/loc_literal_trial.py): output literals of a file in a report."""

from __future__ import annotations

from pathlib import Path

from tests.bench import load_bench, two_commits

trial = load_bench("loc_literal_trial")

SOURCE = '''"""Module docstring: not output at all."""


def summary(ds):
    """Docstring words are prose."""
    title = "Data variables"
    log.warning("could not find %s in the index", name)
    return f"Dimensions:  ({dims}) and more words"


KEY = "utf-8"
SHORT = "a b"
'''


def test_output_literals_are_the_pieces_of_plain_strings_between_placeholders() -> None:
    got = trial.output_literals(SOURCE)
    assert "Data variables" in got
    assert "could not find" in got and "in the index" in got
    assert ") and more words" in got  # a piece keeps what the program prints around it
    assert not any("docstring" in x.lower() or "prose" in x for x in got)  # triple-quoted: left out
    assert "utf-8" not in got and "a b" not in got  # too short, or fewer than two words
    assert trial.output_literals("def broken(:\n    '''") == set()


def test_found_literals_are_matched_verbatim_with_whitespace_collapsed() -> None:
    report = "Output:\n<xarray.Dataset>\nData   variables:\n    could not find x in the index"
    literals = {"Data variables", "could not find", "in the index", "data variables never"}
    assert trial.found_in(literals, report) == ["Data variables", "could not find", "in the index"]
    assert trial.found_in({"data variables"}, report) == []  # case is kept


def test_the_value_saturates() -> None:
    assert trial.literal_value(0) == 0.0
    values = [trial.literal_value(n) for n in range(1, 8)]
    assert values == sorted(values) and 0 < values[0] < 1
    assert trial.literal_value(trial.LITERAL_SATURATION) == 1.0 and trial.literal_value(40) == 1.0


def test_blobs_are_read_at_the_commit(tmp_path: Path) -> None:
    first = two_commits(
        tmp_path, {"a.py": "X = 'first version here'\n", "b.py": ""}, {"a.py": "X = 'second version'\n"}
    )
    blobs = trial.texts_at(tmp_path / ".git", first, ["a.py", "b.py", "gone.py"])
    assert blobs == {"a.py": "X = 'first version here'\n", "b.py": ""}

"""Unseen SWE-bench issues (bench/loc_unseen.py): gold files and functions from the gold patch."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench import load_bench

unseen = load_bench("loc_unseen")

SOURCE = """import os


class Box:
    def open(self):
        return 1

    def close(self):
        x = 1
        return x


def helper():
    return os.sep
"""

PATCH = (
    "\n".join(  # context lines of a diff start with a space, blank ones too
        [
            "diff --git a/pkg/box.py b/pkg/box.py",
            "--- a/pkg/box.py",
            "+++ b/pkg/box.py",
            "@@ -7,6 +7,7 @@ def open(self):",
            " ",
            "     def close(self):",
            "         x = 1",
            "+        x += 1",
            "         return x",
            " ",
            " ",
            "@@ -13,2 +14,2 @@ def close(self):",
            " def helper():",
            "-    return os.sep",
            "+    return os.pathsep",
            "diff --git a/pkg/new.py b/pkg/new.py",
            "new file mode 100644",
            "--- /dev/null",
            "+++ b/pkg/new.py",
            "@@ -0,0 +1 @@",
            "+y = 2",
            "diff --git a/docs/notes.rst b/docs/notes.rst",
            "--- a/docs/notes.rst",
            "+++ b/docs/notes.rst",
            "@@ -1 +1 @@",
            "-old",
            "+new",
        ]
    )
    + "\n"
)


def test_patch_files_reads_paths_status_and_the_old_lines_touched() -> None:
    files = unseen.patch_files(PATCH)
    assert [(f.path, f.status) for f in files] == [
        ("pkg/box.py", "modified"),
        ("pkg/new.py", "added"),
        ("docs/notes.rst", "modified"),
    ]
    assert files[0].old_lines == (14,)  # line 14 is replaced
    assert files[0].gaps == ((9, 10),)  # a line is inserted between old lines 9 and 10
    assert files[2].old_lines == (1,)


def test_changed_functions_are_the_innermost_definitions_holding_the_lines() -> None:
    assert unseen.changed_functions(SOURCE, [14], [(9, 10)]) == ["Box.close", "helper"]  # in file order
    assert unseen.changed_functions(SOURCE, [1]) == []  # module level: no definition
    assert unseen.changed_functions("def broken(:\n", [1]) == []
    assert unseen.changed_functions(SOURCE, [], [(10, 11)]) == []  # after a method's last line
    assert unseen.changed_functions(SOURCE, [], [(6, 7)]) == []  # a new method: no change of Box
    assert unseen.changed_functions(SOURCE, [6]) == ["Box.open"]
    nested = "def outer():\n    def inner():\n        return 1\n    return inner\n"
    assert unseen.changed_functions(nested, [3]) == ["outer"]  # inner has no chunk of its own


def test_an_instance_becomes_an_issue_with_modified_files_as_gold() -> None:
    instance = {
        "instance_id": "o__r-1",
        "repo": "o/r",
        "base_commit": "abc",
        "problem_statement": "helper returns the wrong separator",
        "patch": PATCH,
    }
    at_base = {"pkg/box.py": SOURCE, "docs/notes.rst": "old\n"}
    record = unseen.issue_record(instance, at_base.get)
    assert record["gold_files"] == ["pkg/box.py", "docs/notes.rst"]  # the added file is no gold
    assert record["gold_spans"] == ["pkg/box.py:Box.close", "pkg/box.py:helper"]
    assert record["query"] == "helper returns the wrong separator"
    only_new = dict(
        instance, patch=PATCH[PATCH.index("diff --git a/pkg/new.py") : PATCH.index("diff --git a/docs")]
    )
    assert unseen.issue_record(only_new, at_base.get) is None


def test_instances_are_read_from_a_json_list_or_json_lines(tmp_path: Path) -> None:
    rows = [{"instance_id": "a"}, {"instance_id": "b"}]
    listed = tmp_path / "data.json"
    listed.write_text(json.dumps(rows))
    lines = tmp_path / "data.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert unseen.read_instances(listed) == rows == unseen.read_instances(lines)


def test_the_halves_are_stable_and_both_used() -> None:
    ids = [f"o__r-{n}" for n in range(200)]
    halves = [unseen.half_of(i) for i in ids]
    assert halves == [unseen.half_of(i) for i in ids]
    assert 60 < halves.count("A") < 140


def _scores(hits_by_id: dict[str, bool]) -> dict[str, object]:
    import loc_cv

    return {i: loc_cv.IssueScore((hit, hit, hit), None, 1.0 if hit else 0.0) for i, hit in hits_by_id.items()}


def test_the_decision_is_made_on_half_a_and_ties_keep_the_shipped_pipeline() -> None:
    ids = [f"o__r-{n}" for n in range(40)]
    a = [i for i in ids if unseen.half_of(i) == "A"]
    shipped = _scores(dict.fromkeys(ids, False) | dict.fromkeys(a[:2], True))
    better_on_b = _scores(dict.fromkeys(ids, True) | dict.fromkeys(a, False) | dict.fromkeys(a[:2], True))
    better_on_a = _scores(dict.fromkeys(ids, False) | dict.fromkeys(a[:3], True))
    rows = [("shipped", shipped), ("b", better_on_b), ("a", better_on_a)]
    assert unseen.decide(rows, "shipped") == "a"  # what half B says does not count
    assert unseen.decide(rows[:2], "shipped") == "shipped"  # tied on half A

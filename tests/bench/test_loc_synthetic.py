"""History pairs (bench/loc_synthetic.py): which commits become training reports."""

from __future__ import annotations

from pathlib import Path

from tests.bench import load_bench
from tests.conftest import git, write_tree

synthetic = load_bench("loc_synthetic")

AT_BASE = {"pkg/core.py", "pkg/util.py", "pkg/extra.py", "pkg/more.py", "tests/test_core.py"}


def test_a_fix_of_one_source_file_is_a_pair_whose_gold_is_that_file() -> None:
    message = "Fix crash when the parser sees an empty file\n\nCo-authored-by: A <a@b>\n"
    changes = [("M", "pkg/core.py"), ("M", "tests/test_core.py"), ("M", "CHANGES.rst")]
    assert synthetic.usable(message, changes, AT_BASE) == ("pkg/core.py",)
    assert "Co-authored-by" not in synthetic.report_text(message)


def test_commits_that_are_no_pair() -> None:
    fix = [("M", "pkg/core.py")]
    assert synthetic.usable("fix typo", fix, AT_BASE) is None  # too few words
    assert synthetic.usable("Bump version to 2.0.1 for the release", fix, AT_BASE) is None  # upkeep
    assert synthetic.usable("Merge pull request #12 from a/fix-parser", fix, AT_BASE) is None
    words = "Handle an empty configuration file gracefully"
    assert synthetic.usable(words, [("M", "tests/test_core.py")], AT_BASE) is None  # tests only
    assert synthetic.usable(words, [("M", "docs/index.rst")], AT_BASE) is None  # no Python
    assert synthetic.usable(words, [("A", "pkg/new.py")], AT_BASE | {"pkg/new.py"}) is None  # added
    assert synthetic.usable(words, [("M", "pkg/gone.py")], AT_BASE) is None  # not at the base commit
    four = [("M", p) for p in ("pkg/core.py", "pkg/util.py", "pkg/extra.py", "pkg/more.py")]
    assert synthetic.usable(words, four, AT_BASE) is None  # more than MAX_GOLD source files
    many = [*fix, *(("M", f"docs/p{i}.rst") for i in range(synthetic.MAX_CHANGED))]
    assert synthetic.usable(words, many, AT_BASE) is None  # a sweeping change
    assert synthetic.usable(words, [*fix, ("D", "pkg/util.py")], AT_BASE) is None  # a source file deleted


def _pair(commit: str, base: str = "b") -> object:
    return synthetic.HistoryPair("o/r", base, commit, "message of five words here", ("pkg/core.py",))


def test_pairs_are_taken_round_robin_over_base_commits_each_commit_once() -> None:
    first = [_pair("c1", "b1"), _pair("c2", "b1"), _pair("c3", "b1")]
    second = [_pair("c2", "b2"), _pair("c4", "b2")]
    chosen = synthetic.choose([first, second], limit=4)
    assert [p.commit for p in chosen] == ["c1", "c2", "c3", "c4"]
    assert [p.base_commit for p in chosen] == ["b1", "b2", "b1", "b2"]
    assert [p.commit for p in synthetic.choose([first, second], limit=2)] == ["c1", "c2"]


def _init(repo: Path) -> Path:
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    return repo


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    """Write ``files``, commit them all with ``message``; the new commit's sha."""
    write_tree(repo, files)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_pairs_after_reads_the_descendants_of_the_base_commit(tmp_path: Path) -> None:
    repo = _init(tmp_path / "r")
    base = _commit(
        repo, {"pkg/core.py": "def f():\n    return 1\n"}, "Add the core module with its first function"
    )
    fix = _commit(
        repo, {"pkg/core.py": "def f():\n    return 2\n"}, "Fix f returning the wrong value for empty input"
    )
    _commit(repo, {"pkg/new.py": "x = 1\n"}, "Add a new module holding the constant x")
    pairs = synthetic.pairs_after(repo / ".git", "o/r", base)
    assert [(p.commit, p.gold_files, p.base_commit) for p in pairs] == [(fix, ("pkg/core.py",), base)]
    assert pairs[0].message == "Fix f returning the wrong value for empty input"


SOURCE = """import os


class Parser:
    @staticmethod
    def parse(text):
        value = text.strip()
        return value

    def render(self):
        def inner():
            return 1

        return inner()


def main():
    return Parser()
"""


def test_definitions_are_named_as_the_index_names_them() -> None:
    spans = synthetic.definition_spans(SOURCE)
    assert [name for name, _, _ in spans] == [
        "Parser",
        "Parser.parse",
        "Parser.render",
        "Parser.render.inner",
        "main",
    ]
    assert ("Parser.parse", 5, 8) in spans  # from its decorator to its last line
    assert synthetic.definition_spans("def broken(:\n") == []


def test_the_changed_definitions_are_the_innermost_ones_each_once_in_order() -> None:
    diff = "\n".join(
        [
            "@@ -12 +12 @@",  # inside inner
            "@@ -7,2 +7,2 @@",  # two lines of parse
            "@@ -8,0 +9,1 @@",  # an insertion after line 8 (parse's last line)
            "@@ -1 +1 @@",  # an import: no definition
            "@@ -18,0 +19,2 @@",  # an insertion after main's last line
        ]
    )
    assert synthetic.changed_definitions(SOURCE, diff) == ["Parser.render.inner", "Parser.parse", "main"]


def test_collect_indexes_a_repository_outside_the_dev_set_and_searches_its_pairs(tmp_path: Path) -> None:
    import argparse
    import json
    import pickle

    repos = tmp_path / "repos"
    repo = _init(repos / "o+r")
    base = _commit(
        repo,
        {
            "pkg/parser.py": "def parse_header(text):\n    return text.split(':')\n",
            "pkg/render.py": "def render_page(body):\n    return '<p>' + body\n",
        },
        "Add the parser and the page renderer modules",
    )
    _commit(
        repo,
        {"pkg/parser.py": "def parse_header(text):\n    return text.split(':', 1)\n"},
        "Fix parse_header splitting a header value that holds a colon",
    )
    data = tmp_path / "outside.jsonl"
    row = {"instance_id": "outside:o/r", "repo": "o/r", "base_commit": base, "query": "-", "gold_files": []}
    data.write_text(json.dumps(row) + "\n")
    out = tmp_path / "pairs.pickle"
    args = argparse.Namespace(
        data=data,
        repos=repos,
        work=tmp_path / "work",
        out=out,
        past=False,
        index=True,
        per_repository=5,
        lookahead=10,
    )
    synthetic.collect(args)
    with out.open("rb") as fh:
        (run,) = pickle.load(fh)
    assert run.issue.gold_files == ("pkg/parser.py",)
    assert run.issue.gold_functions == ("pkg/parser.py:parse_header",)
    assert run.issue.query.startswith("Fix parse_header")
    first = max(run.static, key=lambda f: run.static[f].get("defines", 0.0))
    assert run.evidence.file_path[first] == "pkg/parser.py"  # the file defining the named function
    args.index = False  # without --index a missing checkout is skipped, not built
    args.work = tmp_path / "empty"
    synthetic.collect(args)
    with out.open("rb") as fh:
        assert pickle.load(fh) == []

"""The `recalled` trial feature (bench/loc_recall_trial.py): similar past commits -> their files."""

from __future__ import annotations

import collections
from pathlib import Path

from tests.bench import load_bench
from tests.conftest import git, write_tree

recall = load_bench("loc_recall_trial")


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    write_tree(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_bm25_ranks_the_document_with_the_rarer_shared_term_first() -> None:
    docs = [
        collections.Counter({"parser": 1, "fix": 1}),
        collections.Counter({"fix": 1, "docs": 1}),
        collections.Counter({"fix": 1, "release": 1}),
    ]
    scores = recall.bm25(["parser", "fix"], docs)
    assert scores[0] > scores[1] > 0  # "fix" is everywhere, "parser" only in the first
    assert scores[1] == scores[2]
    assert recall.bm25(["absent"], docs) == [0.0, 0.0, 0.0]
    assert recall.bm25(["fix"], []) == []


def test_terms_are_search_tokens_without_stop_words_and_stemmed() -> None:
    words = recall.terms("The parser fails on readBuffers")
    assert "the" not in words
    assert recall.stem("parser") in words and recall.stem("buffers") == "buffer"
    assert {recall.stem("readbuffers"), "read", "buffer"} <= set(words)  # the identifier whole and split


def test_a_file_gains_what_similar_commits_give_shared_by_their_file_count() -> None:
    commits = [
        recall.PastCommit(collections.Counter(recall.terms("fix the tokenizer crash")), ("pkg/tok.py",)),
        recall.PastCommit(
            collections.Counter(recall.terms("tokenizer cleanup everywhere")), ("pkg/tok.py", "pkg/a.py")
        ),
        recall.PastCommit(collections.Counter(recall.terms("update the changelog")), ("CHANGES.rst",)),
    ]
    scores = recall.recalled_scores("tokenizer crash on empty input", commits)
    sims = recall.bm25(recall.terms("tokenizer crash on empty input"), [c.tokens for c in commits])
    assert scores["pkg/tok.py"] == sims[0] + sims[1] / 2
    assert scores["pkg/a.py"] == sims[1] / 2
    assert "CHANGES.rst" not in scores  # nothing in common: no score at all


def test_the_window_ends_at_the_base_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, {"pkg/core.py": "x = 1\n"}, "Add the core module")
    base = _commit(
        repo, {"pkg/util.py": "y = 2\n", "pkg/core.py": "x = 3\n"}, "Tokenizer helpers\n\nbody words"
    )
    _commit(repo, {"pkg/later.py": "z = 3\n"}, "Tokenizer fix after the base")
    recall.past_commits.cache_clear()
    commits = recall.past_commits(repo, base, 500)
    assert [c.files for c in commits] == [("pkg/core.py", "pkg/util.py"), ("pkg/core.py",)]
    assert commits[0].tokens[recall.stem("body")] == 1  # the body is read, not only the subject
    assert recall.past_commits(repo, base, 1) == commits[:1]
    assert "pkg/later.py" not in recall.recalled_scores("tokenizer", commits)

"""The localization benchmark harness, on a small git repository the test creates (no network)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bench import load_bench
from tests.conftest import git

loc = load_bench("swebench_loc")

V1 = {
    "acme/__init__.py": "",
    "acme/models.py": (
        "class Request:\n"
        "    def register_hook(self, event, hook):\n        self.hooks[event].append(hook)\n\n"
        "    def send(self):\n        return 1\n"
    ),
    "acme/utils.py": "def stream_decode(iterator):\n    for item in iterator:\n        yield item\n",
    "acme/tests/test_models.py": "def test_register_hook():\n    assert True\n",
    "docs/index.rst": "Acme\n====\n",
}


def _repo(make_repo: Callable[..., Path], tmp_path: Path) -> tuple[Path, list[str]]:
    work = make_repo(V1, use_git=True)
    first = git(work, "rev-parse", "HEAD").strip()
    (work / "acme" / "sessions.py").write_text(
        "class Session:\n    def resolve_redirects(self, resp):\n        return resp\n"
    )
    (work / "acme" / "utils.py").unlink()
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "second")
    second = git(work, "rev-parse", "HEAD").strip()
    repos = tmp_path / "repos"
    repos.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(work), str(repos / "acme+acme"))
    return repos, [first, second]


def _issues(tmp_path: Path, commits: list[str]) -> Path:
    rows = [
        {
            "instance_id": "acme__acme-1",
            "repo": "acme/acme",
            "base_commit": commits[0],
            "query": "Request.register_hook() fails with a list of hooks",
            "gold_files": ["acme/models.py"],
            "gold_spans": ["acme/models.py:imports", "acme/models.py:Request.register_hook"],
        },
        {
            "instance_id": "acme__acme-2",
            "repo": "acme/acme",
            "base_commit": commits[1],
            "query": "Session.resolve_redirects loses the method on a 303",
            "gold_files": ["acme/sessions.py"],
            "gold_spans": ["acme/sessions.py:Session.resolve_redirects"],
        },
    ]
    path = tmp_path / "dev.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_metrics() -> None:
    ranked = ["a.py", "b.py", "c.py"]
    assert loc.all_in_top(ranked, ["b.py"], 2) and not loc.all_in_top(ranked, ["c.py"], 2)
    assert not loc.all_in_top(ranked, ["a.py", "z.py"], 3)
    assert not loc.all_in_top(ranked, [], 3)
    assert loc.reciprocal_rank(ranked, ["c.py"]) == pytest.approx(1 / 3)
    assert loc.reciprocal_rank(ranked, ["z.py"]) == 0.0
    issue = loc.Issue("i", "r", "c", "q", ("a.py",), ("a.py:imports", "a.py:impl:2", "a.py:A.f", "a.py:g"))
    assert issue.gold_functions == ("a.py:A.f", "a.py:g")


def test_git_dir_layouts(tmp_path: Path, make_repo: Callable[..., Path]) -> None:
    work = make_repo({"a.py": "x = 1\n"}, use_git=True)
    repos = tmp_path / "repos"
    (repos / "o+plain").mkdir(parents=True)
    git(tmp_path, "clone", "-q", str(work), str(repos / "o+plain"))
    git(tmp_path, "clone", "-q", "--bare", str(work), str(repos / "o+bare"))
    git(tmp_path, "clone", "-q", "--bare", str(work), str(repos / "o+nested" / "repo"))
    assert loc.git_dir_for(repos, "o/plain") == repos / "o+plain" / ".git"
    assert loc.git_dir_for(repos, "o/bare") == repos / "o+bare"
    assert loc.git_dir_for(repos, "o/nested") == repos / "o+nested" / "repo"
    assert loc.git_dir_for(repos, "o/absent") is None


def test_materialise_keeps_non_test_sources_and_skips_missing_blobs(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    work = make_repo(V1, use_git=True)
    commit = git(work, "rev-parse", "HEAD").strip()
    utils_blob = git(work, "rev-parse", f"{commit}:acme/utils.py").strip()
    loose = work / ".git" / "objects" / utils_blob[:2] / utils_blob[2:]
    loose.unlink()  # the blob is gone, as in a partial clone
    dest = tmp_path / "tree"
    kept, missing = loc.materialise(work / ".git", commit, dest)
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert files == ["acme/__init__.py", "acme/models.py"]
    assert (kept, missing) == (2, 1)
    before = (dest / "acme" / "models.py").stat().st_mtime_ns
    loc.materialise(work / ".git", commit, dest)
    assert (dest / "acme" / "models.py").stat().st_mtime_ns == before  # unchanged files are not rewritten


def test_harness_end_to_end(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repos, commits = _repo(make_repo, tmp_path)
    issues = loc.load_issues(_issues(tmp_path, commits))
    configs = ["default", "lexical"]
    if importlib.util.find_spec("bm25s") is not None:
        configs.append("bm25")
    lines: list[str] = []
    outcomes, stats = loc.run(
        issues, repos=repos, work=tmp_path / "work", configs=configs, embedding="none", log=lines.append
    )
    assert set(outcomes) == set(configs)
    for name in configs:
        assert outcomes[name]["acme__acme-1"].files[0] == "acme/models.py"
        assert outcomes[name]["acme__acme-2"].files[0] == "acme/sessions.py"
    default = outcomes["default"]
    assert default["acme__acme-1"].functions[0] == "acme/models.py:Request.register_hook"
    assert "acme/utils.py" not in default["acme__acme-2"].files  # the second commit deleted it
    summary = loc.summarise(issues, default)
    assert summary["n"] == 2 and summary["file@1"] == 100.0 and summary["mrr"] == 100.0
    assert summary["n_functions"] == 2 and summary["func@5"] == 100.0
    table = loc.format_table(issues, outcomes)
    assert "| all | default | 2 | 100.0 |" in table
    assert stats.missing_blobs == 0 and len(lines) == 2
    # the second commit was synced incrementally from a copy of the first one's state
    assert (tmp_path / "work" / "acme+acme" / commits[1][:12] / "state" / "catalog.json").is_file()


def test_main_prints_figures_and_the_command(make_repo: Callable[..., Path], tmp_path: Path, capsys) -> None:
    repos, commits = _repo(make_repo, tmp_path)
    data = _issues(tmp_path, commits)
    out_json = tmp_path / "out.json"
    code = loc.main(
        ["--repos", str(repos), "--data", str(data), "--configs", "lexical", "--json", str(out_json)]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| all | lexical | 2 |" in printed and "search latency lexical: p50" in printed
    assert "command: " in printed
    assert set(json.loads(out_json.read_text())["lexical"]) == {"acme__acme-1", "acme__acme-2"}


def test_ablation_configs_drop_one_signal(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repos, commits = _repo(make_repo, tmp_path)
    issues = loc.load_issues(_issues(tmp_path, commits))
    assert not loc.CONFIGS["no-symbol"].symbol and loc.CONFIGS["no-symbol"].lexical
    assert not loc.CONFIGS["no-path"].path and not loc.CONFIGS["no-dense"].dense
    outcomes, _ = loc.run(
        issues, repos=repos, work=tmp_path / "work", configs=["no-symbol", "no-path"], embedding="none"
    )
    assert outcomes["no-symbol"]["acme__acme-2"].files[0] == "acme/sessions.py"
    assert outcomes["no-path"]["acme__acme-1"].files[0] == "acme/models.py"


def test_unknown_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        loc.main(["--repos", str(tmp_path), "--configs", "lexical,bogus"])

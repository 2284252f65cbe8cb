"""The localization benchmark harness, on a small git repository the test creates (no network)."""

from __future__ import annotations

import importlib.util
import json
import pickle
import shutil
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


def test_materialise_whole_checkout_or_source_and_skip_missing_blobs(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    work = make_repo(V1, use_git=True)
    commit = git(work, "rev-parse", "HEAD").strip()
    utils_blob = git(work, "rev-parse", f"{commit}:acme/utils.py").strip()
    loose = work / ".git" / "objects" / utils_blob[:2] / utils_blob[2:]
    loose.unlink()  # the blob is gone, as in a partial clone
    whole = tmp_path / "whole"
    kept, missing = loc.materialise(work / ".git", commit, whole)
    files = sorted(p.relative_to(whole).as_posix() for p in whole.rglob("*") if p.is_file())
    # the whole checkout: tests and documentation as a user's clone has them
    assert files == ["acme/__init__.py", "acme/models.py", "acme/tests/test_models.py", "docs/index.rst"]
    assert (kept, missing) == (4, 1)
    before = (whole / "acme" / "models.py").stat().st_mtime_ns
    loc.materialise(work / ".git", commit, whole)
    assert (whole / "acme" / "models.py").stat().st_mtime_ns == before  # unchanged files are not rewritten
    source = tmp_path / "source"
    assert loc.materialise(work / ".git", commit, source, "source") == (2, 1)
    assert sorted(p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file()) == [
        "acme/__init__.py",
        "acme/models.py",
    ]


def _two_repositories(make_repo: Callable[..., Path], tmp_path: Path) -> tuple[Path, Path]:
    """acme/acme (two commits, two issues) and acme/other (one issue), with the dev-set file."""
    repos, commits = _repo(make_repo, tmp_path)
    other = make_repo(
        {
            "other/__init__.py": "",
            "other/parser.py": "def parse_header(line):\n    raise ValueError('bad header line')\n",
            "other/render.py": "def render_table(rows):\n    return rows\n",
            "tests/test_parser.py": "def test_parse_header():\n    parse_header('x')\n",
        },
        use_git=True,
    )
    git(tmp_path, "clone", "-q", "--bare", str(other), str(repos / "acme+other"))
    data = _issues(tmp_path, commits)
    row = {
        "instance_id": "acme__other-1",
        "repo": "acme/other",
        "base_commit": git(other, "rev-parse", "HEAD").strip(),
        "query": "parse_header raises ValueError: bad header line",
        "gold_files": ["other/parser.py"],
        "gold_spans": ["other/parser.py:parse_header"],
    }
    data.write_text(data.read_text() + json.dumps(row) + "\n")
    return repos, data


def test_harness_end_to_end(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repos, commits = _repo(make_repo, tmp_path)
    issues = loc.load_issues(_issues(tmp_path, commits))
    baselines = ["bm25", "bm25-py"] if importlib.util.find_spec("bm25s") is not None else []
    lines: list[str] = []
    work = tmp_path / "work"
    by_variant, stats = loc.collect(issues, repos=repos, work=work, baselines=baselines, log=lines.append)
    runs = by_variant["default"]
    assert [r.issue.instance_id for r in runs] == ["acme__acme-1", "acme__acme-2"]
    assert stats.inconsistent == []  # the in-memory ranking is the real search's
    assert stats.full_builds == 1  # the second commit was synced incrementally from a copy
    for name in ["default", "lexical", "no-symbol", *baselines]:
        outcomes = loc.outcomes_for(runs, name)
        assert outcomes["acme__acme-1"].files[0] == "acme/models.py", name
        assert outcomes["acme__acme-2"].files[0] == "acme/sessions.py", name
    default = loc.outcomes_for(runs, "default")
    assert default["acme__acme-1"].functions[0] == "acme/models.py:Request.register_hook"
    assert "acme/utils.py" not in default["acme__acme-2"].files  # the second commit deleted it
    # the whole checkout is indexed: the test module is a candidate too
    assert runs[0].files_indexed >= 4
    summary = loc.summarise(issues, default)
    assert summary["n"] == 2 and summary["file@1"] == 100.0 and summary["mrr"] == 100.0
    assert summary["n_functions"] == 2 and summary["func@5"] == 100.0
    slot = work / loc.index_profile("whole") / "acme+acme" / commits[1][:12]
    assert (slot / "state" / "catalog.json").is_file() and (slot / "materialised").is_file()
    assert len(lines) == 2
    # a second run re-uses the cache: no build, no materialisation, the same rankings
    (slot / "src" / "acme" / "sessions.py").unlink()  # would be restored if it materialised again
    again, stats2 = loc.collect(issues, repos=repos, work=work, baselines=baselines, log=lines.append)
    assert stats2.full_builds == 0 and not (slot / "src" / "acme" / "sessions.py").exists()
    assert (
        loc.outcomes_for(again["default"], "lexical")["acme__acme-1"]
        == loc.outcomes_for(runs, "lexical")["acme__acme-1"]
    )


def test_without_sync_the_cached_indexes_are_searched_as_they_are(
    make_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repos, commits = _repo(make_repo, tmp_path)
    issues = loc.load_issues(_issues(tmp_path, commits))
    work = tmp_path / "work"
    with pytest.raises(FileNotFoundError, match="needed without sync"):
        loc.collect(issues, repos=repos, work=work, baselines=[], sync=False)
    assert not (work / loc.index_profile("whole") / "acme+acme" / commits[1][:12] / "state").exists()
    first, _ = loc.collect(issues, repos=repos, work=work, baselines=[])
    slot = work / loc.index_profile("whole") / "acme+acme" / commits[1][:12]
    (slot / "src" / "acme" / "sessions.py").write_text("# edited after indexing\n")  # a sync would see it
    again, stats = loc.collect(issues, repos=repos, work=work, baselines=[], sync=False)
    assert stats.full_builds == 0 and stats.inconsistent == []
    assert (
        loc.outcomes_for(again["default"], "default")["acme__acme-2"]
        == loc.outcomes_for(first["default"], "default")["acme__acme-2"]
    )  # the index as it was, not the edited file


def test_cross_validation_report_on_two_repositories(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    repos, data = _two_repositories(make_repo, tmp_path)
    variants = {"default": loc.VARIANTS["default"], "no-stems": loc.VARIANTS["no-stems"]}
    space = {"symbol": (0.1, 0.0), "path": (0.3, 0.0)}
    runs, stats = loc.collect(
        loc.load_issues(data),
        repos=repos,
        work=tmp_path / "work",
        baselines=[],
        variants=variants,
        pool=loc.grid_candidates(space),
    )
    assert set(runs) == {"default", "no-stems"} and stats.inconsistent == []
    assert all(len(rs) == 3 for rs in runs.values())
    # every file a grid point hands to the second stage has its features
    for run in runs["default"]:
        for config in loc.grid_candidates(space):
            top = run.table(config.weights.floor_rank).top_files(config.weights, loc.POOL_DEPTH)
            assert set(top) <= set(run.static)  # down to the deepest candidate list a fold may choose
    names = [p.name for p in loc.pipelines(space, list(runs))]
    assert names[:2] == ["first stage", "two stages"]
    assert "two stages without breadth" in names and "two stages without the symbol signal" in names
    # the main pipeline fits every feature search uses at the shipped depth: only the penalty is chosen
    main = loc.pipelines(space, list(runs))[1]
    assert main.features == loc.FEATURES and main.optional == () and main.depths == (loc.RERANK_FILES,)
    assert loc.PER_FOLD_SUBSETS in names and loc.BEFORE_TESTED in names
    assert [p.name for p in loc.pipelines(space, list(runs), ablations=False)] == [
        "first stage",
        "two stages",
    ]
    only = [p.name for p in loc.pipelines(space, list(runs), only=["tested"])]
    assert only[-1] == "two stages without tested" and "two stages without breadth" not in only
    # the features search leaves out (they need the candidates' tokens, or are on trial) get a
    # held-out row each (the trial features one together when there are several); each is fitted
    # beside every feature
    added = {p.name: p.features for p in loc.pipelines(space, list(runs))}
    left_out = [f for f in loc.CANDIDATE_FEATURES if f not in loc.FEATURES]
    assert {"coverage", "raises", "neighbour"} <= set(left_out)
    for feature in left_out:
        assert added[f"two stages with {feature}"] == (*loc.FEATURES, feature)
    assert "two stages without coverage" not in names and "two stages with neighbour" in only
    assert (
        "two stages, no-stems evidence only" in names and "two stages without the phrase signal" not in names
    )
    text, record = loc.report(runs, ["default", "lexical"], "custom", space)
    assert "| all | held-out: first stage (grid custom) | 3 |" in text
    assert "| all | held-out: two stages (grid custom) | 3 |" in text
    assert "| all | in-sample: two stages (chosen on all 3) | 3 |" in text
    assert "| acme/other | fixed: default | 1 | 100.0 |" in text
    assert "without acme/acme: variant " in text and "coefficients first " in text
    assert "| two stages, no-stems evidence only | 3 |" in text
    assert set(record["pipelines"]["two stages"]["folds"]) == {"acme/acme", "acme/other"}  # type: ignore[index]
    # every ablation row keeps its per-issue held-out scores and its folds' choices, for comparisons
    ablation = record["pipelines"]["two stages with neighbour"]  # type: ignore[index]
    assert set(ablation["held_out"]) == set(record["pipelines"]["two stages"]["held_out"])  # type: ignore[index]
    assert set(ablation["folds"]) == {"acme/acme", "acme/other"} and "held_out_summary" in ablation


def test_main_prints_figures_and_the_command(make_repo: Callable[..., Path], tmp_path: Path, capsys) -> None:
    repos, data = _two_repositories(make_repo, tmp_path)
    out_json = tmp_path / "out.json"
    work = tmp_path / "work"
    args = ["--repos", str(repos), "--data", str(data), "--work", str(work), "--configs", "default,lexical"]
    code = loc.main([*args, "--grid", "symbol=0.1,0;path=0.3", "--no-ablations", "--json", str(out_json)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| all | held-out: two stages (grid custom) | 3 |" in printed
    # the function stage, cross-validated on each fold's file stage, read from the indexes
    assert "| all | held-out: two stages + function stage | 3 |" in printed
    assert "function stage (on both stages): penalty and coefficients per fold" in printed
    assert "| all | fixed: lexical | 3 |" in printed and "search latency (default" in printed
    assert "consistency: the in-memory ranking equals the real search on 3/3 issues" in printed
    assert "command: " in printed and "(2 full builds)" in printed
    # the gathered evidence, pickled, re-scores without indexing or searching
    cache = tmp_path / "runs.pickle"
    assert loc.main([*args, "--grid", "symbol=0.1,0", "--no-ablations", "--runs-cache", str(cache)]) == 0
    first = capsys.readouterr().out
    shutil.rmtree(work)
    assert loc.main([*args, "--grid", "symbol=0.1,0", "--no-ablations", "--runs-cache", str(cache)]) == 0
    again = capsys.readouterr().out
    assert not work.exists()
    table = lambda text: [  # noqa: E731
        line for line in text.splitlines() if line.startswith("| all |") and "function stage" not in line
    ]
    assert table(again) == table(first) and table(first)
    # without the indexes the function stage's rows are left out, and the run says so
    assert "| all | held-out: two stages + function stage |" in first
    assert "function stage: not cross-validated (its facts are read from the indexes" in again
    # the cached rankings tables are derived data: rebuilt by the loading code, never reused
    with cache.open("rb") as fh:
        runs, stats = pickle.load(fh)
    for run in (r for rs in runs.values() for r in rs):
        run.tables = {floor: "stale" for floor in (0, 2, 50)}
    with cache.open("wb") as fh:
        pickle.dump((runs, stats), fh)
    assert loc.main([*args, "--grid", "symbol=0.1,0", "--no-ablations", "--runs-cache", str(cache)]) == 0
    assert table(capsys.readouterr().out) == table(first)
    assert set(json.loads(out_json.read_text())["configs"]["lexical"]) == {
        "acme__acme-1",
        "acme__acme-2",
        "acme__other-1",
    }


def test_ablation_configs_drop_one_signal() -> None:
    assert loc.CONFIGS["no-symbol"].weights.symbol == 0 and loc.CONFIGS["no-symbol"].weights.lexical > 0
    assert loc.CONFIGS["no-path"].weights.path == 0 and loc.CONFIGS["no-dense"].weights.dense == 0
    assert not loc.CONFIGS["no-file-context"].file_context
    lexical = loc.CONFIGS["lexical"].weights
    assert (lexical.symbol, lexical.path, lexical.phrase, lexical.graph, lexical.dense) == (0, 0, 0, 0, 0)


def test_grid_specification() -> None:
    assert loc.parse_grid("small") is loc.GRIDS["small"]
    assert loc.parse_grid("symbol=0.1,0.2; floor_rank=20,50") == {
        "symbol": (0.1, 0.2),
        "floor_rank": (20.0, 50.0),
    }
    points = loc.grid_candidates({"symbol": (0.1, 0.2), "floor_rank": (20.0,)})
    assert [(c.weights.symbol, c.weights.floor_rank) for c in points] == [(0.1, 20), (0.2, 20)]
    for bad in ("", "bogus=1", "symbol="):
        with pytest.raises(ValueError):
            loc.parse_grid(bad)
    # every named grid lists the shipped weights first
    for space in loc.GRIDS.values():
        assert loc.grid_candidates(space)[0].weights == loc.FusionWeights()


def test_unknown_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        loc.main(["--repos", str(tmp_path), "--configs", "lexical,bogus"])


def test_function_stage_bench_reads_the_indexes_and_says_why_gold_is_not_a_candidate(
    make_repo: Callable[..., Path], tmp_path: Path, capsys
) -> None:
    functions = load_bench("loc_functions")
    repos, data = _two_repositories(make_repo, tmp_path)
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    rows[0]["gold_spans"].append("acme/models.py:Request.no_such_method")  # not in the index
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    work, cache = tmp_path / "work", tmp_path / "runs.pickle"
    args = ["--repos", str(repos), "--data", str(data), "--work", str(work), "--configs", "default"]
    assert loc.main([*args, "--grid", "symbol=0.1,0", "--no-ablations", "--runs-cache", str(cache)]) == 0
    capsys.readouterr()
    code = functions.main(["--runs-cache", str(cache), "--work", str(work), "--rules", "2x2", "--misses"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| all | held-out: function stage, 5 files + 80 chunks | 3 |" in printed
    assert "| all | held-out: function stage, 2 files + 2 chunks | 3 |" in printed
    assert "| all | held-out: function stage, candidate rule chosen per fold | 3 |" in printed
    assert "| acme__acme-1 | `acme/models.py:Request.no_such_method` | 1 | - | - | no definition" in printed
    assert "`acme/models.py:Request.register_hook`" not in printed.split("not candidates")[1]  # it is one
    assert "1 x no definition of that qualified name" in printed

"""The function stage's cross-validation (bench/loc_functions.py): it learns on other repositories."""

from __future__ import annotations

from dataclasses import dataclass

from lazy_intel.search.function_rank import Definition
from lazy_intel.search.fusion import Evidence, FusionWeights
from lazy_intel.search.query import analyze_query
from lazy_intel.search.rerank import FEATURES, RERANK_FILES, QueryFacts
from tests.bench import load_bench

cv = load_bench("loc_cv")
scoring = load_bench("loc_scoring")
pipes = load_bench("loc_rerank")
functions = load_bench("loc_functions")

QUERY = "the magic value is wrong"


@dataclass(frozen=True)
class _Issue:
    instance_id: str
    repo: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]
    query: str = QUERY


def _run(instance: str, repo: str, gold_at: int) -> tuple[object, object]:
    """One file, five functions (chunk i is function i); BM25 prefers f0 … f4 in order; the gold
    function ``f{gold_at}`` is the one whose body holds the query's term ``magic``."""
    paths = {0: "pkg/a.py"}
    lexical = {i: 10.0 - i for i in range(5)}
    evidence = Evidence({"lexical": lexical}, {}, dict.fromkeys(range(5), 0), paths, False)
    static = {0: dict.fromkeys(FEATURES, 0.0)}
    issue = _Issue(instance, repo, ("pkg/a.py",), (f"pkg/a.py:f{gold_at}",))
    run = scoring.IssueRun(issue, evidence, {i: f"pkg/a.py:f{i}" for i in range(5)}, static)
    tokens = {i: frozenset({"magic"} if i == gold_at else {"value"}) for i in range(5)}
    definitions = {
        100 + i: Definition(100 + i, 0, "pkg/a.py", f"f{i}", f"f{i}", "function", 5, tokens[i], i)
        for i in range(5)
    }
    facts = scoring.FunctionFacts(
        analyze_query(QUERY),
        QueryFacts((("magic", 1.0, 2), ("value", 1.0, 50)), 100, {}),
        {i: 100 + i for i in range(5)},
        definitions,
    )
    return run, facts


def test_the_function_stage_learns_a_feature_that_holds_across_repositories() -> None:
    runs, facts = {}, {}
    for r, repo in enumerate(("o/x", "o/y", "o/z")):
        for k in range(4):
            instance = f"{repo}-{k}"
            runs[instance], facts[instance] = _run(instance, repo, gold_at=2 + (k + r) % 3)
    evaluator = pipes.Evaluator({"default": runs})
    pipeline = pipes.Pipeline("two", (("default", scoring.Config(FusionWeights())),), ("first",))
    choice = pipes.Choice(0, 1.0, (("first", 1.0),), 1.0, RERANK_FILES)
    stage = functions.FunctionStage(runs, facts, pipeline, evaluator)
    # ranking by today's order reproduces the function list the evaluator scores
    for instance in runs:
        assert stage.score(choice, {"chunk_rank": 1.0}, instance) == evaluator.score(
            pipeline, choice, instance
        )
        assert stage.recall(choice, instance) is True
    held = {}
    for fold in cv.leave_one_repository_out({i: r.issue.repo for i, r in runs.items()}):
        penalty, coefficients = stage.fit(choice, fold.train)
        assert penalty in pipes.PENALTIES and coefficients["body_terms"] > 0
        held.update({i: stage.score(choice, coefficients, i) for i in fold.test})
    today = [evaluator.score(pipeline, choice, i) for i in runs]
    assert cv.summary(today)["func@5"] == 100.0 and cv.summary(today)["func@10"] == 100.0
    top1 = [functions.ranked_keys(*stage.rows(choice, i)[:2], coefficients)[0] for i in runs]
    assert top1 == [r.issue.gold_functions[0] for r in runs.values()]  # learnt: the gold one first
    assert cv.summary(list(held.values()))["func@5"] == 100.0

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


def _stage() -> tuple[object, object, dict[str, object]]:
    runs, facts = {}, {}
    for r, repo in enumerate(("o/x", "o/y", "o/z")):
        for k in range(4):
            instance = f"{repo}-{k}"
            runs[instance], facts[instance] = _run(instance, repo, gold_at=2 + (k + r) % 3)
    evaluator = pipes.Evaluator({"default": runs})
    pipeline = pipes.Pipeline("two", (("default", scoring.Config(FusionWeights())),), ("first",))
    choice = pipes.Choice(0, 1.0, (("first", 1.0),), 1.0, RERANK_FILES)
    choices = {repo: choice for repo in ("o/x", "o/y", "o/z", "*")}
    return functions.FunctionStage(runs, facts, pipeline, evaluator), choice, choices


def test_the_function_stage_learns_a_feature_that_holds_across_repositories() -> None:
    stage, choice, _ = _stage()
    runs, evaluator, pipeline = stage.runs, stage.evaluator, stage.pipeline
    # ranking by today's order reproduces the function list the evaluator scores
    for instance in runs:
        assert stage.score(choice, {"chunk_rank": 1.0}, instance) == evaluator.score(
            pipeline, choice, instance
        )
        assert stage.recall(choice, instance) is True
    held = {}
    for fold in cv.leave_one_repository_out({i: r.issue.repo for i, r in runs.items()}):
        penalty, coefficients = stage.fit(choice, fold.train)
        assert penalty in functions.FUNCTION_PENALTIES and coefficients["body_terms"] > 0
        held.update({i: stage.score(choice, coefficients, i) for i in fold.test})
    today = [evaluator.score(pipeline, choice, i) for i in runs]
    assert cv.summary(today)["func@5"] == 100.0 and cv.summary(today)["func@10"] == 100.0
    top1 = [functions.ranked_keys(*stage.rows(choice, i)[:2], coefficients)[0] for i in runs]
    assert top1 == [r.issue.gold_functions[0] for r in runs.values()]  # learnt: the gold one first
    assert cv.summary(list(held.values()))["func@5"] == 100.0


def test_candidate_rules_parse_with_the_shipped_rule_first() -> None:
    rules = functions.parse_rules("10x80, 5x160,5x80")
    assert rules == [functions.SHIPPED_RULE, functions.CandidateRule(10, 80), functions.CandidateRule(5, 160)]
    assert functions.parse_rules("") == [functions.SHIPPED_RULE]


def test_a_narrow_rule_loses_recall_and_the_inner_choice_prefers_the_rule_that_holds_the_gold() -> None:
    stage, choice, choices = _stage()
    narrow = functions.CandidateRule(0, 3)  # the best three chunks' symbols only: f0, f1, f2
    assert [d.key for d in stage.rows(choice, "o/x-0", narrow)[0]] == [f"pkg/a.py:f{i}" for i in range(3)]
    recall = [stage.recall(choice, i, narrow) for i in stage.runs]
    assert 0 < sum(recall) < len(recall)  # only the issues whose gold is f2
    rule, _, _ = stage.choose_rule(choice, sorted(stage.runs), [narrow, functions.SHIPPED_RULE])
    assert rule == functions.SHIPPED_RULE
    # equal figures: the earlier rule (the shipped one first) is kept
    wider = functions.CandidateRule(10, 80)
    assert (
        stage.choose_rule(choice, sorted(stage.runs), [functions.SHIPPED_RULE, wider])[0]
        == functions.SHIPPED_RULE
    )
    figures = functions.cross_validate_stage(stage, choices, [narrow, functions.SHIPPED_RULE])
    assert {r for r, _, _ in figures.folds.values()} == {functions.SHIPPED_RULE}
    assert all(figures.recall.values())
    assert cv.summary(list(figures.held.values()))["func@5"] == 100.0


def test_why_a_gold_function_is_not_a_candidate() -> None:
    gold = functions.GoldInIndex
    reason = functions.miss_reason
    assert reason(gold(False, (), False, None, None)) == "file not indexed"
    assert reason(gold(True, (), False, 3, None)) == "no definition of that qualified name"
    assert reason(gold(True, ("function",), False, 1, None)).startswith("no chunk of its own")
    assert reason(gold(True, ("method",), True, 2, None)) == "a candidate"
    assert reason(gold(True, ("method",), True, 9, 40)) == "a candidate"  # through its chunk
    assert reason(gold(True, ("method",), True, 9, 120)).startswith("file outside the best 5")
    assert reason(gold(True, ("method",), True, 9, 120), functions.CandidateRule(10, 80)) == "a candidate"
    assert reason(gold(True, ("variable",), True, 1, 200)).startswith("kind variable")


def test_history_pairs_train_the_function_stage_of_the_folds_that_hold_their_repository_in() -> None:
    stage, choice, _ = _stage()
    # o/x's pairs: two history reports whose gold function is f4
    pairs, facts = {}, dict(stage.facts)
    for k in range(2):
        instance = f"history:o/x:{k}"
        pairs[instance], facts[instance] = _run(instance, "o/x", gold_at=4)
    with_pairs = functions.FunctionStage(stage.runs, facts, stage.pipeline, stage.evaluator, history=pairs)
    train_x = [i for i in stage.runs if i.startswith("o/x")]
    train_y = [i for i in stage.runs if i.startswith("o/y")]
    assert len(with_pairs.queries(choice, train_x)) == len(train_x) + 2
    assert len(with_pairs.queries(choice, train_y)) == len(train_y)  # another repository's pairs stay out
    assert len(with_pairs.queries(choice, train_x, training=False)) == len(train_x)  # scored: issues only
    weights = [q.weight for q in with_pairs.queries(choice, train_x)]
    assert sum(weights[len(train_x) :]) == len(train_x) * pipes.HISTORY_SHARE
    # the pairs are never scored by the stage's cross-validation
    figures = functions.cross_validate_stage(with_pairs, {r: choice for r in ("o/x", "o/y", "o/z", "*")})
    assert set(figures.held) == set(stage.runs)


def test_unseen_issues_are_scored_by_the_fit_on_every_dev_issue(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import pickle

    stage, choice, choices = _stage()
    unseen_runs, unseen_facts = {}, {}
    for k in range(3):
        instance = f"o/new-{k}"
        unseen_runs[instance], unseen_facts[instance] = _run(instance, "o/new", gold_at=2 + k)
    two_files = _run("o/new-two", "o/new", gold_at=3)[0]
    two_files.issue = _Issue("o/new-two", "o/new", ("pkg/a.py", "pkg/b.py"), ("pkg/a.py:f3",))  # type: ignore[attr-defined]
    path = tmp_path / "runs.pickle"
    path.write_bytes(pickle.dumps([*unseen_runs.values(), two_files]))
    assert set(functions.load_unseen([path])) == {*unseen_runs, "o/new-two"}
    assert set(functions.load_unseen([path], single_file=True)) == set(unseen_runs)
    evaluator = pipes.Evaluator({"default": stage.runs}, external={"default": unseen_runs})
    dev = functions.FunctionStage(stage.runs, stage.facts, stage.pipeline, evaluator)
    shipped = functions.cross_validate_stage(dev, choices)
    record = functions.score_unseen(unseen_runs, unseen_facts, shipped, dev, choice)
    # the fit on the dev issues learnt that the body's term marks the gold function: first, every time
    assert record["stage"]["func@5"] == 100.0 and record["stage"]["n"] == 3
    for instance, scores in record["per_issue"].items():
        assert scores["stage"]["function_hits"] == (True, True)
        assert scores["baseline"] == vars(evaluator.score(stage.pipeline, choice, instance))
    assert "unseen: function stage fitted on every dev issue" in capsys.readouterr().out

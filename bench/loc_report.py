"""Scoring ``swebench_loc``'s runs: fixed configurations, the cross-validated pipelines (held out
first, in sample beside), and the tables it prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import loc_cv
from loc_checkout import Issue
from loc_cv import IssueScore
from loc_functions import FunctionStage, cross_validate_stage, gather_facts, ranking_of
from loc_protocol import _SHIPPED, BASELINES, CONFIGS, pipelines
from loc_rerank import Choice, Evaluator, Pipeline, describe
from loc_scoring import IssueRun, Outcome, issue_score, outcome_of


# ---- metrics (pure)
def summarise(issues: Sequence[Issue], outcomes: Mapping[str, Outcome]) -> dict[str, float | int | None]:
    return loc_cv.summary(
        [issue_score(i, outcomes[i.instance_id]) for i in issues if i.instance_id in outcomes]
    )


# ---- scoring runs under configurations and grids
def outcomes_for(runs: Sequence[IssueRun], name: str) -> dict[str, Outcome]:
    if name in BASELINES:
        return {r.issue.instance_id: r.baselines[name] for r in runs if name in r.baselines}
    return {r.issue.instance_id: outcome_of(r, CONFIGS[name]) for r in runs}


# ---- reporting
def _cell(v: float | int | None) -> str:
    return "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


HEADER = "| {first} | n | file@1 | file@3 | file@5 | func@5 | func@10 | MRR |"


def _row(label: Sequence[str], s: Mapping[str, float | int | None]) -> str:
    cells = [s.get(k) for k in ("file@1", "file@3", "file@5", "func@5", "func@10", "mrr")]
    return "| " + " | ".join([*label, str(s["n"]), *map(_cell, cells)]) + " |"


def figure_table(
    rows: Sequence[tuple[str, Mapping[str, IssueScore]]],
    repos: Sequence[str],
    by_repo: Mapping[str, str],
) -> str:
    """Rows of figures for all issues, then per repository (labels in order)."""
    lines = [HEADER.format(first="repository | figure"), "|---|---|---|---|---|---|---|---|---|"]
    for repo in ["all", *repos]:
        for label, scores in rows:
            chosen = [s for i, s in scores.items() if repo in ("all", by_repo[i])]
            if chosen:
                lines.append(_row([repo, label], loc_cv.summary(chosen)))
    return "\n".join(lines)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(
    runs: Mapping[str, Sequence[IssueRun]],
    configs: Sequence[str],
    grid_name: str,
    space: Mapping[str, Sequence[float]],
    *,
    ablations: bool = True,
    only: Sequence[str] = (),
    work: Path | None = None,
    history: Sequence[IssueRun] = (),
) -> tuple[str, dict[str, object]]:
    """The printed tables and a JSON-able record of every figure (held-out first). With ``work``
    (the index cache the runs were gathered from) and the function stage on by default, the held-out
    function figures of both stages are also given with the function stage cross-validated on top
    of each fold's file stages (``loc_functions``). With ``history`` (the history pairs of
    ``loc_synthetic.py``) every second stage also trains on the pairs of its training repositories,
    and the pairs' own held-out figure (each pair scored by the fold that held its repository out) is
    printed for both stages: reports no weight was ever chosen on."""
    default_runs = runs["default"]
    by_repo = {r.issue.instance_id: r.issue.repo for r in default_runs}
    repos = sorted(set(by_repo.values()))
    issue_of = {r.issue.instance_id: r.issue for r in default_runs}
    scored = {
        name: {i: issue_score(issue_of[i], o) for i, o in outcomes_for(default_runs, name).items()}
        for name in configs
    }
    out: list[str] = []
    record: dict[str, object] = {
        "configs": {n: {i: vars(s) for i, s in v.items()} for n, v in scored.items()}
    }
    held_rows: list[tuple[str, Mapping[str, IssueScore]]] = []
    in_rows: list[tuple[str, Mapping[str, IssueScore]]] = []
    if len(repos) >= 2:
        evaluator = Evaluator(
            {v: {r.issue.instance_id: r for r in rs} for v, rs in runs.items()},
            history={"default": {r.issue.instance_id: r for r in history}} if history else None,
        )
        chosen_record: dict[str, object] = {}
        ablation_lines: list[str] = []
        pair_lines: list[str] = []
        main: dict[str, loc_cv.HeldOut] = {}
        main_pipelines: dict[str, Pipeline] = {}
        for pipeline in pipelines(space, list(runs), ablations=ablations, only=only, history=bool(history)):
            held = evaluator.cross_validate(pipeline)
            if history and pipeline.name in ("first stage", "two stages"):
                pairs = loc_cv.summary(list(evaluator.history_scores(pipeline, held).values()))
                pair_lines.append(_row([f"history pairs held out: {pipeline.name}"], pairs))
                chosen_record[f"history pairs: {pipeline.name}"] = pairs
            if pipeline.name in ("first stage", "two stages"):
                main[pipeline.name] = held
                main_pipelines[pipeline.name] = pipeline
                held_rows.append((f"held-out: {pipeline.name} (grid {grid_name})", held.scores))
                in_rows.append(
                    (f"in-sample: {pipeline.name} (chosen on all {len(by_repo)})", held.in_sample_scores)
                )
                out.append(f"{pipeline.name}: {len(pipeline.candidates)} first-stage candidates")
                for repo, choice in held.chosen.items():
                    out.append(f"  without {repo}: {describe(pipeline, choice, list(space))}")  # type: ignore[arg-type]
                shipped = describe(pipeline, held.in_sample, list(space))  # type: ignore[arg-type]
                out.append(f"  chosen on all issues (to ship): {shipped}")
                chosen_record[pipeline.name] = {
                    "folds": {r: describe(pipeline, c, list(space)) for r, c in held.chosen.items()},  # type: ignore[arg-type]
                    "in_sample": shipped,
                    "held_out": {i: vars(s) for i, s in held.scores.items()},
                }
            else:
                ablation_lines.append(_row([pipeline.name], loc_cv.summary(list(held.scores.values()))))
                chosen_record[pipeline.name] = {
                    "held_out_summary": loc_cv.summary(list(held.scores.values())),
                    "folds": {r: describe(pipeline, c, list(space)) for r, c in held.chosen.items()},  # type: ignore[arg-type]
                    "held_out": {i: vars(s) for i, s in held.scores.items()},
                }
        record["pipelines"] = chosen_record
        out.append("")
        if pair_lines:
            out.append(
                f"the {len(history)} history pairs (training reports of the folds that hold their repository in), held out:"
            )
            out.append(HEADER.format(first="pipeline"))
            out.append("|---|---|---|---|---|---|---|---|")
            out.extend([*pair_lines, ""])
        if ablation_lines:
            full = loc_cv.summary(list(main["two stages"].scores.values()))
            out.append("held-out ablations (each pipeline cross-validated the same way):")
            out.append(HEADER.format(first="pipeline"))
            out.append("|---|---|---|---|---|---|---|---|")
            out.append(_row(["two stages (all)"], full))
            out.extend(ablation_lines)
            out.append("")
        if work is not None and _SHIPPED.functions is not None and "two stages" in main:
            stage_rows, lines = function_stage_rows(
                runs, evaluator, main_pipelines["two stages"], main["two stages"], work
            )
            held_rows += stage_rows[:1]
            in_rows += stage_rows[1:]
            out.extend([*lines, ""])
            record["function_stage"] = {label: {i: vars(s) for i, s in v.items()} for label, v in stage_rows}
    rows = [*held_rows, *in_rows, *((f"fixed: {n}", scored[n]) for n in configs)]
    out.append(figure_table(rows, repos, by_repo))
    return "\n".join(out), record


def function_stage_rows(
    runs: Mapping[str, Sequence[IssueRun]],
    evaluator: Evaluator,
    two: Pipeline,
    held: loc_cv.HeldOut,
    work: Path,
) -> tuple[list[tuple[str, Mapping[str, IssueScore]]], list[str]]:
    """Both stages' rows with the function stage cross-validated on each fold's file stage (facts
    read from the indexes under ``work``), and the lines describing its fits."""
    choices: dict[str, Choice] = {**held.chosen, "*": held.in_sample}  # type: ignore[dict-item]
    variants = {two.candidates[c.candidate][0] for c in choices.values()}
    if variants != {"default"}:
        return [], [f"function stage: not cross-validated (file stages chose evidence {sorted(variants)})"]
    by_id = {r.issue.instance_id: r for r in runs["default"]}
    rankings = {i: [ranking_of(two, c, r) for c in choices.values()] for i, r in by_id.items()}
    try:
        facts = gather_facts(work, by_id, rankings)
    except FileNotFoundError as exc:  # a runs cache scored without the indexes it came from
        return [], [f"function stage: not cross-validated (its facts are read from the indexes: {exc})"]
    stage = FunctionStage(by_id, facts, two, evaluator)
    try:
        figures = cross_validate_stage(stage, choices)
    except ValueError as exc:  # no training issue with its gold function among several candidates
        return [], [f"function stage: not cross-validated ({exc})"]
    lines = ["function stage (on both stages): penalty and coefficients per fold"]
    for repo, (_, penalty, coefficients) in figures.folds.items():
        lines.append(f"  without {repo}: penalty {penalty:g}; " + _coefficients(coefficients))
    _, penalty, coefficients = figures.shipped
    lines.append(f"  fitted on all (to ship): penalty {penalty:g}; " + _coefficients(coefficients))
    known = [v for v in figures.recall.values() if v is not None]
    lines.append(f"  candidate recall (held out): {sum(known)}/{len(known)} issues with every gold function")
    rows: list[tuple[str, Mapping[str, IssueScore]]] = [
        ("held-out: two stages + function stage", figures.held),
        ("in-sample: two stages + function stage (fitted on all)", figures.in_sample),
    ]
    return rows, lines


def _coefficients(values: Mapping[str, float]) -> str:
    return ", ".join(f"{n} {v:.2f}" for n, v in values.items())

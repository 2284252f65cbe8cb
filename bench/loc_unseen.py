"""Real issues nothing was ever tuned on: SWE-bench task instances outside the dev set (issue 13).

Every weight, threshold and feature of search was chosen on the 63 dev issues (and the history pairs
of their repositories). This bench scores the product on *other* real issue reports of public
repositories, as a new user would meet them: nothing here is fitted, chosen or looked at issue by
issue, and no figure of it decides anything. It is the unbiased judge the dev set cannot be.

- ``convert``: SWE-bench instances (a ``.json`` list or ``.jsonl`` with ``instance_id``, ``repo``,
  ``base_commit``, ``problem_statement``, ``patch``) -> issues in the dev set's format. The report is
  the problem statement; the gold files are the files the gold patch modifies that exist at the base
  commit (added, deleted and renamed files are not; an instance with none is skipped); the gold
  functions are the innermost definitions (``ast``, named as the index names them) holding a line
  the patch removes or changes, or the line a pure insertion follows. Instances of the dev set, of
  repositories without a mirror, and whose base commit the mirror lacks are skipped, each counted.
  The dev instances found in the input check the conversion: their gold files and functions are
  compared with ``swebench-lite-dev.jsonl``'s.
- ``collect``: index each issue's base commit (whole checkout, as a user would) and search it once,
  as ``swebench_loc.py`` does; ``--drop-slots`` removes each checkout once the next one is copied
  from it (the runs keep everything the report needs).
- ``report``: per repository and in all, file Acc@1/@3/@5, MRR and function Acc@5/@10 of plain BM25
  over whole files (every indexed file / the ``.py`` files), the first stage and both stages with
  the code's constants (what search answers), and the pipelines of ``loc_synthetic.py`` fitted on
  all 63 dev issues (with or without the history pairs) exactly as they would ship.
- ``report --decide``: the one question the dev set could not settle (fixed 2026-12-05 before any
  figure of this set was seen): which of ``loc_synthetic.decision_pipelines`` to ship. The issues are
  split in two halves by ``half_of`` (a hash of the instance id, not of anything scored); the
  pipeline with the best mean(file Acc@1, Acc@5) on half A (then MRR; ties keep the shipped one, the
  first) is chosen, and **every pipeline is reported on half B**, which nothing chose on. All issues
  together are printed too, labelled as including the deciding half.

Usage:
    python bench/loc_unseen.py convert --swebench FILE --repos /work/.mirror --out unseen.jsonl
    python bench/loc_unseen.py collect --data unseen.jsonl --repos /work/.mirror --work DIR --out runs.pickle [--drop-slots]
    python bench/loc_unseen.py report --runs runs.pickle [--runs more.pickle] --dev-runs RUNS.pickle --synthetic PAIRS.pickle
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import gzip
import hashlib
import json
import pickle
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from loc_synthetic import cells, row, source_definitions  # noqa: E402

DIFF_HEADER = re.compile(r"^diff --git a/(.+?) b/(.+)$")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclasses.dataclass(frozen=True)
class FilePatch:
    """One file of a unified diff: its path before the change, how it changes, and where in the old
    file: the lines it removes or changes, and the gaps it inserts into (``(k, k + 1)``: between old
    lines k and k + 1)."""

    path: str
    status: str  # "modified", "added", "deleted" or "renamed"
    old_lines: tuple[int, ...]
    gaps: tuple[tuple[int, int], ...] = ()


def patch_files(patch: str) -> list[FilePatch]:
    """The files of a ``git diff`` patch (any context width), in order."""
    out: list[FilePatch] = []
    path, status, lines, gaps = None, "modified", [], []  # type: ignore[var-annotated]
    old, replacing = 0, False  # replacing: "+" lines that follow "-" lines replace them

    def close() -> None:
        if path is not None:
            out.append(FilePatch(path, status, tuple(dict.fromkeys(lines)), tuple(dict.fromkeys(gaps))))

    for line in patch.splitlines():
        header = DIFF_HEADER.match(line)
        if header:
            close()
            path, status, lines, gaps = header.group(1), "modified", [], []
            if header.group(1) != header.group(2):
                status = "renamed"
            continue
        if path is None:
            continue
        if line.startswith("new file mode"):
            status = "added"
        elif line.startswith("deleted file mode"):
            status = "deleted"
        elif line.startswith(("rename from", "rename to")):
            status = "renamed"
        elif line.startswith(("--- ", "+++ ")):
            continue
        elif (hunk := HUNK.match(line)) is not None:
            old, replacing = int(hunk.group(1)), False
        elif line.startswith("-"):
            lines.append(old)
            old, replacing = old + 1, True
        elif line.startswith("+"):
            if not replacing:  # an inserted line: between the old lines around it
                gaps.append((old - 1, old))
        elif line.startswith(" "):
            old, replacing = old + 1, False
    close()
    return out


def changed_functions(
    source: str, old_lines: Iterable[int], gaps: Iterable[tuple[int, int]] = ()
) -> list[str]:
    """The definitions a change of ``source`` touches, in order, each once: the innermost class,
    module-level function or method holding a removed or changed line, or holding both lines around an
    insertion (a new function after the last line of another is in neither; a method inserted into a
    class is new, not a change of the class). A function nested in a function counts as the one
    holding it (the index gives it no chunk of its own)."""
    spans = [d for d in source_definitions(source) if not d.in_function]
    out: dict[str, None] = {}
    wanted = sorted([(n, n, True) for n in old_lines] + [(a, b, False) for a, b in gaps])
    for before, after, changed in wanted:
        holding = [
            (d.last - d.first, d.name)
            for d in spans
            if d.first <= before and after <= d.last and (changed or not d.is_class)
        ]
        if holding:
            out.setdefault(min(holding)[1])
    return list(out)


def issue_record(instance: dict, source_at_base: Callable[[str], str | None]) -> dict | None:
    """The dev set's record for one SWE-bench instance (None: no modified file exists at the base)."""
    gold_files: list[str] = []
    spans: list[str] = []
    for change in patch_files(instance["patch"]):
        if change.status != "modified":
            continue
        source = source_at_base(change.path)
        if source is None:
            continue
        gold_files.append(change.path)
        if change.path.endswith(".py"):
            spans += [
                f"{change.path}:{name}" for name in changed_functions(source, change.old_lines, change.gaps)
            ]
    if not gold_files:
        return None
    return {
        "split": "unseen",
        "instance_id": instance["instance_id"],
        "repo": instance["repo"],
        "base_commit": instance["base_commit"],
        "query": instance["problem_statement"],
        "gold_files": gold_files,
        "gold_spans": spans,
    }


def read_instances(path: Path) -> list[dict]:
    """SWE-bench instances of a ``.json`` list or a ``.jsonl`` file (either may be gzipped)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        text = fh.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        return list(json.loads(stripped))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _show(git_dir: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=False
    )
    return done.stdout.decode("utf-8", errors="replace") if done.returncode == 0 else None


def _has_commit(git_dir: Path, commit: str) -> bool:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def convert(args: argparse.Namespace) -> None:
    from loc_checkout import default_data, git_dir_for, load_issues

    dev = {i.instance_id: i for i in load_issues(args.dev or default_data())}
    skipped: collections.Counter[str] = collections.Counter()
    kept: list[dict] = []
    agree_files = agree_functions = checked = 0
    seen: set[str] = set()
    for instance in read_instances(args.swebench):
        ident = instance["instance_id"]
        if ident in seen:
            skipped["duplicate"] += 1
            continue
        seen.add(ident)
        git_dir = git_dir_for(args.repos, instance["repo"])
        if git_dir is None:
            skipped[f"no mirror of {instance['repo']}"] += 1
            continue
        if not _has_commit(git_dir, instance["base_commit"]):
            skipped["base commit not in the mirror"] += 1
            continue
        base = instance["base_commit"]
        record = issue_record(instance, lambda p, g=git_dir, b=base: _show(g, b, p))
        if record is None:
            skipped["no modified file at the base commit"] += 1
            continue
        if ident in dev:  # checks the conversion; never part of the unseen set
            checked += 1
            agree_files += tuple(record["gold_files"]) == dev[ident].gold_files
            mine = tuple(s for s in record["gold_spans"] if s.split(":")[1] not in ("imports", "impl"))
            agree_functions += set(mine) == set(dev[ident].gold_functions)
            skipped["in the dev set"] += 1
            continue
        kept.append(record)
    with args.out.open("w", encoding="utf-8") as fh:
        for record in kept:
            fh.write(json.dumps(record) + "\n")
    counts = collections.Counter(r["repo"] for r in kept)
    print(f"{len(kept)} issues -> {args.out}: " + ", ".join(f"{r} {n}" for r, n in sorted(counts.items())))
    for reason, n in sorted(skipped.items()):
        print(f"  skipped, {reason}: {n}")
    if checked:
        print(
            f"conversion check on the {checked} dev issues found: gold files agree on {agree_files}, "
            f"gold functions on {agree_functions}"
        )


def collect(args: argparse.Namespace) -> None:
    from loc_checkout import load_issues
    from loc_collect import collect as gather_runs
    from loc_protocol import BASELINES, GRIDS, grid_candidates

    issues = load_issues(args.data)
    began = time.perf_counter()
    runs, stats = gather_runs(
        issues,
        repos=args.repos,
        work=args.work,
        baselines=BASELINES,
        pool=grid_candidates(GRIDS["fusion"]),
        log=lambda s: print(s, file=sys.stderr, flush=True),
        keep_slots=not args.drop_slots,
    )
    default = runs["default"]
    for run in default:
        run.tables.clear()
    with args.out.open("wb") as fh:
        pickle.dump(default, fh)
    print(
        f"{len(default)} issues searched in {time.perf_counter() - began:.0f} s (indexing "
        f"{stats.index_seconds:.0f} s, {stats.full_builds} full builds; real search == in-memory ranking "
        f"on {len(default) - len(stats.inconsistent)}/{len(default)}) -> {args.out}",
        file=sys.stderr,
    )


def half_of(instance_id: str) -> str:
    """ "A" or "B": which half of the unseen issues ``instance_id`` is in (stable, content-blind)."""
    return "A" if hashlib.sha1(instance_id.encode("utf-8")).digest()[0] % 2 == 0 else "B"


def report(args: argparse.Namespace) -> None:
    from loc_functions import load_runs
    from loc_protocol import CONFIGS
    from loc_rerank import Evaluator, Pipeline
    from loc_scoring import issue_score, outcome_of
    from loc_synthetic import decision_pipelines, load_pairs

    unseen = []
    for path in args.runs:
        with path.open("rb") as fh:
            unseen += pickle.load(fh)  # our own files (collect)
    if args.single_file:  # SWE-bench Lite's own selection: a gold patch of one file
        unseen = [r for r in unseen if len(r.issue.gold_files) == 1]
    for run in unseen:
        run.tables.clear()
    history = load_pairs(args.synthetic) if args.synthetic else []
    evaluator = Evaluator(
        {"default": load_runs(args.dev_runs)},
        history={"default": {r.issue.instance_id: r for r in history}} if history else None,
        external={"default": {r.issue.instance_id: r for r in unseen}},
    )
    repo_of = {r.issue.instance_id: r.issue.repo for r in unseen}
    repos = sorted(set(repo_of.values()))

    def line(scores: dict[str, object]) -> str:
        return " | ".join(cells(scores, repos, functions=True, repo_of=repo_of.__getitem__))

    counts = collections.Counter(repo_of.values())
    print("command: python " + " ".join(sys.argv))
    print(
        f"unseen issues: {len(unseen)} (" + ", ".join(f"{r} {counts[r]}" for r in repos) + "); "
        f"{sum(1 for r in unseen if r.issue.gold_functions)} with a gold function"
    )
    print()
    print(
        "| ranking | all: file@1 / @3 / @5 / MRR; func@5 / @10 | "
        + " | ".join(f"{r} ({counts[r]}) file@1 / @5" for r in repos)
        + " |"
    )
    print("|---|---|" + "---|" * len(repos))
    for name in ("bm25", "bm25-py"):
        scores = {
            r.issue.instance_id: issue_score(r.issue, r.baselines[name])
            for r in unseen
            if name in r.baselines
        }
        print(f"| {name} (whole files) | " + line(scores) + " |", flush=True)
    for name in ("first-stage", "default"):  # what search answers, the function stage included
        scores = {r.issue.instance_id: issue_score(r.issue, outcome_of(r, CONFIGS[name])) for r in unseen}
        print(
            f"| search, {name} (the code's constants) | " + line(scores) + " |",
            flush=True,
        )
    first = decision_pipelines() if history else decision_pipelines()[:4]
    from lazy_intel.search.rerank import FEATURES

    shipped = next(
        (p for p in first if p.history and not p.balanced and set(p.features or ()) == set(FEATURES)),
        first[0],
    )
    ordered = [shipped, *(p for p in first if p is not shipped)]  # ties keep the shipped pipeline
    everything = sorted(evaluator.repos)
    scored: list[tuple[str, dict[str, object]]] = []
    for pipeline in [Pipeline("first stage", first[0].candidates, None), *ordered]:
        choice = evaluator.fit(pipeline, everything)
        scores = {r.issue.instance_id: evaluator.score(pipeline, choice, r.issue.instance_id) for r in unseen}
        scored.append((pipeline.name, scores))
        print(
            f"| fitted on the 63 dev issues: {pipeline.name} | " + line(scores) + " |",
            flush=True,
        )
    if args.decide:
        decide(scored[1:], shipped.name)


def decide(scored: Sequence[tuple[str, dict[str, object]]], shipped: str) -> str:
    """The pre-registered decision (module docstring): chosen on half A, every row reported on half B."""
    import loc_cv

    def objective(figures: dict[str, float | int | None]) -> tuple[float, float]:
        return (float(figures["file@1"] or 0) + float(figures["file@5"] or 0)) / 2, float(figures["mrr"] or 0)

    print()
    print("| pipeline (fitted on the 63 dev issues) | half A (decides): file@1 / @3 / @5 / MRR | "
          "half B (reported): file@1 / @3 / @5 / MRR; func@5 / @10 |")  # fmt: skip
    print("|---|---|---|")
    best: tuple[tuple[float, float], str] | None = None
    for name, scores in scored:
        halves = {
            h: loc_cv.summary([v for i, v in scores.items() if half_of(i) == h])  # type: ignore[misc]
            for h in "AB"
        }
        print(
            f"| {name} | {row(halves['A'], 'file@1', 'file@3', 'file@5', 'mrr')} | "
            f"{row(halves['B'], 'file@1', 'file@3', 'file@5', 'mrr')}; {row(halves['B'], 'func@5', 'func@10')} |"
        )
        if best is None or objective(halves["A"]) > best[0]:
            best = (objective(halves["A"]), name)
    chosen = best[1] if best is not None else shipped
    n = collections.Counter(half_of(i) for i in scored[0][1]) if scored else collections.Counter()
    print(
        f"decided on half A ({n['A']} issues): {chosen}"
        + (" (the shipped pipeline)" if chosen == shipped else "")
    )
    print(f"report it on half B ({n['B']} issues), which nothing chose on")
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("convert", help="SWE-bench instances -> unseen issues (dev-set format)")
    c.add_argument("--swebench", type=Path, required=True)
    c.add_argument("--repos", type=Path, default=Path("/work/.mirror"))
    c.add_argument("--dev", type=Path, default=None, help="the dev set (default: ../shared/bench)")
    c.add_argument("--out", type=Path, required=True)
    g = sub.add_parser("collect", help="index and search every unseen issue once")
    g.add_argument("--data", type=Path, required=True)
    g.add_argument("--repos", type=Path, default=Path("/work/.mirror"))
    g.add_argument("--work", type=Path, required=True)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--drop-slots", action="store_true", help="remove each checkout once the next is copied")
    r = sub.add_parser("report", help="score the collected issues")
    r.add_argument("--runs", type=Path, action="append", required=True, help="collected runs (repeatable)")
    r.add_argument("--dev-runs", type=Path, required=True, help="the dev set's runs cache (swebench_loc.py)")
    r.add_argument("--synthetic", type=Path, default=None, help="history pairs (loc_synthetic.py collect)")
    r.add_argument("--decide", action="store_true", help="the pre-registered decision (module docstring)")
    r.add_argument(
        "--single-file", action="store_true", help="only issues whose gold patch modifies one file (as Lite)"
    )
    args = parser.parse_args()
    {"convert": convert, "collect": collect, "report": report}[args.command](args)


if __name__ == "__main__":
    main()

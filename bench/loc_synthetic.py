"""Training reports from the repositories' own history, for the second stage's fit (issue 13).

The second stage has 17 coefficients and 55 or so real training issues per fold: too few to choose
among features or to trust a small held-out gain. Bug-localisation work has long taken more
training pairs from version history (a change's message as the report, the files it changed as the
answer). This script builds such pairs from the benchmark's own mirrors and asks, held out, whether
they help: every figure is still scored on the 63 real issues only, leave one repository out.

**Which commits** (fixed before any held-out look, not tuned):

- for each dev issue's base commit ``B`` (whose indexed checkout the runs cache's collection left in
  ``--work``), the non-merge commits that descend from ``B`` (``git rev-list --ancestry-path
  B..HEAD``), nearest first, the first ``LOOKAHEAD`` of them: the index at ``B`` is the code before
  the change, as for a real issue;
- the message (subject and body, trailers dropped) has at least ``MIN_WORDS`` words and does not
  start like release or tooling upkeep (``SKIP_SUBJECT``);
- it modifies (status ``M``) one to ``MAX_GOLD`` non-test Python files that exist at ``B``, adds,
  deletes or renames none of them, and touches at most ``MAX_CHANGED`` files in all;
- per repository at most ``PER_REPOSITORY`` commits, taken round robin over its base commits
  (oldest base first), each commit once.

The report is the message; the gold files are those modified Python files, and its gold functions
the definitions the commit's diff changes (read off the parent's source with ``ast``, kept when the
base commit's index holds the name). **Leakage**: a fold that holds a repository out never trains on that repository's
history pairs (``loc_rerank.Evaluator`` keeps them to their repository); a history pair may be the
very fix of another repository's dev issue, which is training data of that fold anyway.

Usage:
    python bench/loc_synthetic.py collect --repos /work/.mirror --work WORK --out synthetic.pickle
        [--past] [--index --data OTHER.jsonl --per-repository N --lookahead N]
    python bench/loc_synthetic.py trial --runs-cache RUNS.pickle --synthetic synthetic.pickle [--past PAST.pickle]
    python bench/loc_synthetic.py external --runs-cache RUNS.pickle --synthetic synthetic.pickle \
        --external OTHER.pickle [--work OTHER_WORK]

``collect`` searches each pair once against the checkout of its base commit (the evidence the
runs cache holds for real issues, gathered the same way); ``--past`` takes the pairs from before
each repository's earliest base commit instead; ``--index`` materialises and indexes base commits
that have no checkout yet (repositories outside the dev set, named by pseudo-issues in ``--data``).
``trial`` cross-validates the decision set (``decision_pipelines``) with and without the pairs in
every fold's fit and prints the decision made on the pairs' held-out figure; ``external`` fits each
of them as it would ship and scores pairs of repositories outside the dev set (a report only).
"""

from __future__ import annotations

import argparse
import ast
import collections
import pickle
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

LOOKAHEAD = 150  # descendant commits of a base commit looked at, nearest first
MIN_WORDS = 5  # words in the message (subject and body)
MAX_GOLD = 3  # non-test Python files a usable commit modifies
MAX_CHANGED = 8  # files a usable commit touches in all
PER_REPOSITORY = 30  # history pairs kept per repository
SKIP_SUBJECT = re.compile(
    r"^\s*(merge|bump|release|prepare|revert|\[pre-commit|pre-commit|update changelog|changelog|"
    r"version|preparing|back to development|\[skip)",
    re.IGNORECASE,
)
TRAILER = re.compile(r"^(co-authored-by|signed-off-by|reviewed-by|cc|fixes|closes):", re.IGNORECASE)


@dataclass(frozen=True)
class HistoryPair:
    repo: str
    base_commit: str  # the indexed checkout the pair is searched against
    commit: str  # the change whose message is the report
    message: str
    gold_files: tuple[str, ...]


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=False
    ).stdout


def report_text(message: str) -> str:
    """The message as a report: trailer lines dropped, surrounding blank lines trimmed."""
    lines = [line for line in message.splitlines() if not TRAILER.match(line.strip())]
    return "\n".join(lines).strip()


@dataclass(frozen=True)
class SourceDefinition:
    """A class or function of a Python source as the index names it, with its lines."""

    name: str  # ``Class.method``, ``function.inner``
    first: int  # its first decorator's line, or its own
    last: int
    is_class: bool
    in_function: bool  # nested in a function (at any depth): the index gives it no chunk of its own


def source_definitions(source: str) -> list[SourceDefinition]:
    """Every class and function of a Python source, in order; none when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    out: list[SourceDefinition] = []

    def walk(node: ast.AST, prefix: str, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                is_class = isinstance(child, ast.ClassDef)
                out.append(
                    SourceDefinition(name, first, child.end_lineno or child.lineno, is_class, in_function)
                )
                walk(child, name + ".", in_function or not is_class)
            else:
                walk(child, prefix, in_function)

    walk(tree, "", False)
    return out


def definition_spans(source: str) -> list[tuple[str, int, int]]:
    """(qualified name, first line, last line) of every class and function of a Python source, named
    as the index names them (``Class.method``, ``function.inner``); none when it does not parse."""
    return [(d.name, d.first, d.last) for d in source_definitions(source)]


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def changed_definitions(source: str, diff: str) -> list[str]:
    """The innermost definitions of ``source`` (the file before the change) that the unified diff
    ``diff`` (``-U0``, one file) changes: every removed or changed line, and for a pure insertion the
    line it follows. In order of first change, each once."""
    spans = definition_spans(source)
    out: dict[str, None] = {}
    for line in diff.splitlines():
        match = HUNK.match(line)
        if not match:
            continue
        start, count = int(match.group(1)), int(match.group(2) or 1)
        for number in range(start, start + max(count, 1)):
            holding = [(last - first, name) for name, first, last in spans if first <= number <= last]
            if holding:
                out.setdefault(min(holding)[1])
    return list(out)


def usable(
    message: str, changes: Sequence[tuple[str, str]], exists_at_base: set[str]
) -> tuple[str, ...] | None:
    """The gold files of a commit (``changes``: (status, path) pairs), or None when it is no pair."""
    from lazy_intel.text.paths import is_test_path

    text = report_text(message)
    if len(text.split()) < MIN_WORDS or SKIP_SUBJECT.match(text):
        return None
    if not changes or len(changes) > MAX_CHANGED:
        return None
    python = [(s, p) for s, p in changes if p.endswith(".py") and not is_test_path(p)]
    if not python or len(python) > MAX_GOLD:
        return None
    if any(s != "M" or p not in exists_at_base for s, p in python):
        return None
    return tuple(sorted(p for _, p in python))


def pairs_after(
    git_dir: Path, repo: str, base: str, *, past: bool = False, lookahead: int = LOOKAHEAD
) -> list[HistoryPair]:
    """The usable commits among the first ``LOOKAHEAD`` non-merge descendants of ``base``, nearest
    first; with ``past``, among its ancestors instead (``base`` included, nearest first): history a
    user has when the index of ``base`` is built, searched against that index, whose code already
    holds their changes."""
    if past:
        commits = _git(git_dir, "rev-list", "--no-merges", f"--max-count={lookahead}", base).split()
    else:
        commits = _git(
            git_dir, "rev-list", "--reverse", "--no-merges", "--ancestry-path", f"{base}..HEAD"
        ).split()
    files = set(_git(git_dir, "ls-tree", "-r", "--name-only", "--full-tree", base).splitlines())
    out = []
    for commit in commits[:lookahead]:
        status = _git(
            git_dir,
            "diff-tree",
            "--no-commit-id",
            "-r",
            "--name-status",
            "--no-renames",
            f"{commit}^",
            commit,
        )
        changes = [tuple(line.split("\t", 1)) for line in status.splitlines() if "\t" in line]
        message = _git(git_dir, "log", "-1", "--format=%B", commit)
        gold = usable(message, changes, files)  # type: ignore[arg-type]
        if gold is not None:
            out.append(HistoryPair(repo, base, commit, report_text(message), gold))
    return out


def choose(per_base: Sequence[Sequence[HistoryPair]], limit: int = PER_REPOSITORY) -> list[HistoryPair]:
    """Round robin over the base commits (in the order given), each commit once, at most ``limit``."""
    chosen: list[HistoryPair] = []
    seen: set[str] = set()
    queues = [list(q) for q in per_base]
    while len(chosen) < limit and any(queues):
        for queue in queues:
            while queue and queue[0].commit in seen:
                queue.pop(0)
            if queue and len(chosen) < limit:
                pair = queue.pop(0)
                seen.add(pair.commit)
                chosen.append(pair)
    return chosen


def gold_spans(git_dir: Path, pair: HistoryPair, ws: object) -> tuple[str, ...]:
    """The definitions the pair's commit changes (read off its parent's source) that the index of
    the base commit also holds, as ``path:qualified`` (the gold functions of a real issue)."""
    spans = []
    with ws.read() as view:  # type: ignore[attr-defined]
        for path in pair.gold_files:
            source = _git(git_dir, "show", f"{pair.commit}^:{path}")
            diff = _git(git_dir, "diff", "-U0", f"{pair.commit}^", pair.commit, "--", path)
            indexed = {
                row[0]
                for row in view.conn.execute(
                    "SELECT s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id "
                    "WHERE f.path = ? AND s.kind IN ('function', 'method', 'class')",
                    (path,),
                )
            }
            spans += [f"{path}:{name}" for name in changed_definitions(source, diff) if name in indexed]
    return tuple(spans)


def collect(args: argparse.Namespace) -> None:
    from lazy_intel.search.hybrid import DEFAULT_CONFIG
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings
    from loc_checkout import Issue, commit_time, git_dir_for, index_profile, load_issues, materialise
    from loc_collect import gather
    from loc_protocol import GRIDS, grid_candidates

    issues = load_issues(args.data)
    bases: dict[str, list[str]] = {}
    for issue in issues:
        bases.setdefault(issue.repo, [])
        if issue.base_commit not in bases[issue.repo]:
            bases[issue.repo].append(issue.base_commit)
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none"})
    pool = grid_candidates(GRIDS["fusion"])
    profile = args.work / index_profile("whole")
    runs = []
    began = time.perf_counter()
    for repo in sorted(bases):
        git_dir = git_dir_for(args.repos, repo)
        if git_dir is None:
            print(f"skip {repo}: no mirror", file=sys.stderr)
            continue
        ordered = sorted(bases[repo], key=lambda c: commit_time(git_dir, c))
        if args.past:  # the history before the repository's earliest base commit, against its index
            ordered = ordered[:1]
        chosen = choose(
            [pairs_after(git_dir, repo, b, past=args.past, lookahead=args.lookahead) for b in ordered],
            args.per_repository,
        )
        print(f"{repo}: {len(chosen)} history pairs", file=sys.stderr)
        for base in ordered:
            mine = [p for p in chosen if p.base_commit == base]
            if not mine:
                continue
            slot = profile / repo.replace("/", "+") / base[:12]
            marker = slot / "materialised"
            fresh = False
            if not (marker.is_file() and marker.read_text().strip() == base):
                if not args.index:
                    print(
                        f"skip {len(mine)} pairs of {repo}@{base[:12]}: no checkout in {slot}",
                        file=sys.stderr,
                    )
                    continue
                materialise(git_dir, base, slot / "src")  # a repository outside the dev set: index it here
                marker.write_text(base + "\n")
                fresh = True
            # a slot's state may be the previous slot's, copied with its checkout (loc_collect.py)
            ws = Workspace.open(
                slot / "src", settings=settings, state_dir=slot / "state", adopt_state_dir=True
            )
            try:
                if fresh:
                    ws.sync()
                # no sync: the checkout is indexed as the runs cache's collection left it, so the
                # pairs' evidence comes from the same store (and code version) as the real issues'
                for pair in mine:
                    spans = gold_spans(git_dir, pair, ws)
                    issue = Issue(
                        f"{'past' if args.past else 'history'}:{repo}:{pair.commit[:12]}",
                        repo,
                        base,
                        pair.message,
                        pair.gold_files,
                        spans,
                    )
                    found, _ = gather(ws, issue, None, {"default": DEFAULT_CONFIG}, pool)
                    runs.append(found["default"])
            finally:
                ws.close()
    for run in runs:
        run.tables.clear()
    with args.out.open("wb") as fh:
        pickle.dump(runs, fh)
    print(
        f"{len(runs)} history pairs searched in {time.perf_counter() - began:.0f} s -> {args.out}",
        file=sys.stderr,
    )


def row(figures: dict[str, float | int | None], *keys: str) -> str:
    """Figures of ``loc_cv.summary`` joined by " / " ("-" where there is none)."""
    return " / ".join("-" if figures[k] is None else f"{figures[k]:.1f}" for k in keys)


def load_pairs(path: Path) -> list:
    """Pairs written by ``collect`` (their evidence), derived tables dropped."""
    with path.open("rb") as fh:
        pairs = pickle.load(fh)  # our own file
    for run in pairs:
        run.tables.clear()
    return pairs


def _counts(runs: Sequence[object]) -> str:
    counts = collections.Counter(run.issue.repo for run in runs)  # type: ignore[attr-defined]
    return ", ".join(f"{r} {n}" for r, n in sorted(counts.items()))


def cells(
    scores: dict[str, object],
    repos: Sequence[str],
    *,
    functions: bool = False,
    repo_of: Callable[[str], str] | None = None,
) -> list[str]:
    """All reports' file@1 / @3 / @5 / MRR (and function @5 / @10), then each repository's file@1 / @5
    (``repo_of`` an id's repository; by default a pair's id, ``kind:owner/name:commit``)."""
    import loc_cv

    of = repo_of or (lambda i: i.split(":")[1])
    figures = loc_cv.summary(list(scores.values()))  # type: ignore[arg-type]
    first = row(figures, "file@1", "file@3", "file@5", "mrr")
    if functions:
        first += f"; functions @5 / @10 {row(figures, 'func@5', 'func@10')}"
    mine = [loc_cv.summary([v for i, v in scores.items() if of(i) == repo]) for repo in repos]  # type: ignore[misc]
    return [first, *(row(m, "file@1", "file@5") for m in mine)]


def decision_features() -> tuple[str, ...]:
    """The second-stage features when the pairs decided (session 33): every feature search could
    score but the token features and the two graph trial features, ``callee`` and ``neighbour``
    (pinned, so that what ships later does not change what the decision pipelines are)."""
    from lazy_intel.search.rerank import CANDIDATE_FEATURES, TOKEN_FEATURES

    return tuple(
        f for f in CANDIDATE_FEATURES if f not in TOKEN_FEATURES and f not in ("callee", "neighbour")
    )


def decision_pipelines() -> list:
    """What the history pairs decide among, fixed before any look at their figures: the shipped
    second stage and the three questions earlier rounds left open for want of issues outside the 63
    (``first_rank`` left out, ``callee`` added, every repository weighed alike), each with and
    without the history pairs in its fit. The first was the shipped second stage when the pairs
    decided (session 33: ties keep it there); ``loc_unseen.py --decide`` puts whichever ships now
    first."""
    import loc_protocol
    from loc_rerank import Pipeline

    base = loc_protocol.pipelines(loc_protocol.GRIDS["fusion"], ["default"], ablations=False)[1]
    before = decision_features()
    variants = [
        ("two stages", before, False),
        ("two stages without first_rank", tuple(f for f in before if f != "first_rank"), False),
        ("two stages with callee", (*before, "callee"), False),
        ("two stages, every repository weighed alike", before, True),
    ]
    out = []
    for history in (False, True):
        for name, features, balanced in variants:
            out.append(
                Pipeline(
                    name + (" + history pairs" if history else ""),
                    base.candidates,
                    features,
                    select_by=base.select_by,
                    balanced=balanced,
                    history=history,
                )
            )
    return out


def pair_objective(figures: dict[str, float | int | None]) -> tuple[float, float]:
    """What the pairs decide by: mean of file Acc@1 and Acc@5 (pairs name no gold function), then MRR."""
    return (float(figures["file@1"] or 0.0) + float(figures["file@5"] or 0.0)) / 2, float(
        figures["mrr"] or 0.0
    )


def trial(args: argparse.Namespace) -> None:
    import loc_cv
    from loc_functions import load_runs
    from loc_rerank import Evaluator

    history = load_pairs(args.synthetic)
    past = load_pairs(args.past) if args.past is not None else []
    evaluator = Evaluator(
        {"default": load_runs(args.runs_cache)},
        history={"default": {r.issue.instance_id: r for r in history}},
        past={"default": {r.issue.instance_id: r for r in past}} if past else None,
    )
    print("command: python " + " ".join(sys.argv))
    print("history pairs: " + _counts(history))
    print()
    print(
        "| pipeline | history pairs held out: file@1 / @3 / @5 / MRR | real issues held out: file@1 / @3 / @5 / MRR "
        "| real issues in sample: file@1 / @3 / @5 |"
    )
    print("|---|---|---|---|")
    first = decision_pipelines()
    from loc_rerank import Pipeline

    rows = [Pipeline("first stage", first[0].candidates, None), *first]
    if past:  # the shipped pipeline (with the pairs after the base commits) with and without the past
        import dataclasses

        import loc_protocol

        shipped = loc_protocol.pipelines(
            loc_protocol.GRIDS["fusion"], ["default"], ablations=False, history=True
        )[1]
        rows += [
            dataclasses.replace(shipped, name="shipped (two stages + history pairs)"),
            dataclasses.replace(shipped, name="shipped + past pairs of every repository", past=True),
        ]
    decided = None
    details = []
    for pipeline in rows:
        held = evaluator.cross_validate(pipeline)
        pairs = loc_cv.summary(list(evaluator.history_scores(pipeline, held).values()))
        out = loc_cv.summary(list(held.scores.values()))
        ins = loc_cv.summary(list(held.in_sample_scores.values()))
        print(
            f"| {pipeline.name} | {row(pairs, 'file@1', 'file@3', 'file@5', 'mrr')} | "
            f"{row(out, 'file@1', 'file@3', 'file@5', 'mrr')} | {row(ins, 'file@1', 'file@3', 'file@5')} |",
            flush=True,
        )
        if pipeline in first and (decided is None or pair_objective(pairs) > decided[0]):
            decided = (pair_objective(pairs), pipeline.name, out)
        if pipeline.features is not None:
            details.append((pipeline.name, held))
    print()
    if decided is not None:
        print(
            f"decided on the history pairs: {decided[1]} -> real issues held out "
            + row(decided[2], "file@1", "file@3", "file@5", "mrr")
        )
    for name, held in details:
        print(f"{name}:")
        for repo, choice in held.chosen.items():
            print(
                f"  without {repo}: penalty {choice.penalty:g}, "  # type: ignore[attr-defined]
                + ", ".join(f"{n} {v:.2f}" for n, v in choice.coefficients or ())  # type: ignore[attr-defined]
            )


def external(args: argparse.Namespace) -> None:
    """Each decision pipeline fitted as it would ship (on every real issue, and the history pairs
    when it uses them) and scored on pairs of repositories outside the dev set, which nothing was
    ever fitted or chosen on."""
    from loc_functions import load_runs
    from loc_protocol import CONFIGS
    from loc_rerank import Evaluator, Pipeline
    from loc_scoring import issue_score, outcome_of

    history, outside = load_pairs(args.synthetic), load_pairs(args.external)
    evaluator = Evaluator(
        {"default": load_runs(args.runs_cache)},
        history={"default": {r.issue.instance_id: r for r in history}},
        external={"default": {r.issue.instance_id: r for r in outside}},
    )
    print("command: python " + " ".join(sys.argv))
    print("pairs of other repositories: " + _counts(outside))
    print()
    repos = sorted({r.issue.repo for r in outside})
    print("| pipeline (fitted on all 63 issues) | all: file@1 / @3 / @5 / MRR | " + " | ".join(repos) + " |")
    print("|---|---|" + "---|" * len(repos))
    if args.work is not None:  # plain BM25 over whole files of the same checkouts, beside them
        for name in ("bm25", "bm25-py"):
            print(
                f"| {name} (whole files) | "
                + " | ".join(cells(bm25_scores(args.work, outside, name), repos))
                + " |",
                flush=True,
            )
    for name in ("first-stage", "default"):  # what search answers, the function stage included
        scores = {r.issue.instance_id: issue_score(r.issue, outcome_of(r, CONFIGS[name])) for r in outside}
        print(
            f"| fixed: {name} (the code's constants) | "
            + " | ".join(cells(scores, repos, functions=True))
            + " |",
            flush=True,
        )
    first = decision_pipelines()
    everything = sorted(evaluator.repos)
    for pipeline in [Pipeline("first stage", first[0].candidates, None), *first]:
        choice = evaluator.fit(pipeline, everything)
        scores = {
            r.issue.instance_id: evaluator.score(pipeline, choice, r.issue.instance_id) for r in outside
        }
        print(f"| {pipeline.name} | " + " | ".join(cells(scores, repos)) + " |", flush=True)


def bm25_scores(work: Path, runs: Sequence[object], name: str) -> dict[str, object]:
    """Plain BM25 over every indexed file (``bm25``) or the indexed ``.py`` files (``bm25-py``) of
    each pair's checkout, as ``swebench_loc.py`` ranks its baselines."""
    import sqlite3

    from loc_collect import bm25_files
    from loc_functions import store_path
    from loc_scoring import Outcome, issue_score

    out: dict[str, object] = {}
    paths: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        issue = run.issue  # type: ignore[attr-defined]
        key = (issue.repo, issue.base_commit)
        if key not in paths:
            conn = sqlite3.connect(f"file:{store_path(work, *key)}?mode=ro", uri=True)
            try:
                rows = conn.execute(
                    "SELECT path FROM files WHERE status = 'indexed' ORDER BY path"
                ).fetchall()
            finally:
                conn.close()
            paths[key] = [r[0] for r in rows]
        src = next(work.glob(f"*/{issue.repo.replace('/', '+')}/{issue.base_commit[:12]}/src"))
        corpus = [p for p in paths[key] if name == "bm25" or p.endswith(".py")]
        out[issue.instance_id] = issue_score(issue, Outcome(bm25_files(src, corpus, issue.query), None))
    return out


def main() -> None:
    from loc_checkout import default_data

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--repos", type=Path, default=Path("/work/.mirror"))
    c.add_argument(
        "--work", type=Path, required=True, help="the --work of swebench_loc.py (indexed checkouts)"
    )
    c.add_argument("--data", type=Path, default=default_data())
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--per-repository", type=int, default=PER_REPOSITORY, help="pairs kept per repository")
    c.add_argument(
        "--index",
        action="store_true",
        help="materialise and index a base commit that has no checkout under --work (repositories "
        "outside the dev set: --data then names one pseudo-issue per repository, without gold)",
    )
    c.add_argument("--lookahead", type=int, default=LOOKAHEAD, help="commits looked at per base commit")
    c.add_argument(
        "--past",
        action="store_true",
        help="pairs from the history before each repository's earliest base commit (its own past)",
    )
    t = sub.add_parser("trial")
    t.add_argument("--runs-cache", type=Path, required=True)
    t.add_argument("--synthetic", type=Path, required=True)
    t.add_argument(
        "--past",
        type=Path,
        default=None,
        help="past pairs (collect --past): adds the shipped pipeline with them",
    )
    e = sub.add_parser("external")
    e.add_argument("--runs-cache", type=Path, required=True)
    e.add_argument("--synthetic", type=Path, required=True)
    e.add_argument("--external", type=Path, required=True, help="pairs of other repositories (collect)")
    e.add_argument("--work", type=Path, default=None, help="their indexed checkouts: adds plain BM25 rows")
    args = parser.parse_args()
    {"collect": collect, "trial": trial, "external": external}[args.command](args)


if __name__ == "__main__":
    main()

"""A trial second-stage feature: the files that past commits *like this report* changed (issue 13).

``recalled`` is bug-localization's "similar reports" signal (BugLocator's SimiScore) read off the
repository's own history instead of a bug tracker. For a report ``q`` searched at base commit ``B``:

- the past: the last ``--window`` non-merge commits up to ``B`` (the product's history window,
  ``LAZY_INTEL_HISTORY_COMMITS`` 500; nothing after ``B`` is read, so neither a dev issue's fix nor a
  history pair's own commit can be among them);
- each past commit ``c`` is a document: its whole message (subject and body), tokenized as search
  tokenizes (identifiers kept whole and split), stop words dropped, stemmed;
- ``sim(q, c)`` = BM25 (k1 1.2, b 0.75) of the report's distinct tokens against those documents;
- a file's raw score = sum over the past commits that touched it of ``sim(q, c) / files(c)`` (a commit
  of many files says little about each);
- ``recalled`` = raw score / the largest raw score in the issue's candidate pool (0 when none has any).

Everything above was fixed before any figure was looked at. The rule, fixed with it: the feature is
kept only if adding it to the shipped pipeline (second stage + history pairs) raises the real issues'
held-out mean(file Acc@1, Acc@5) **and** does not lower the history pairs' held-out one; both rows are
printed with the in-sample one beside them. The history pairs get the feature the same way (their
window ends at their base commit, before their own commit).

``--diagnose`` also prints, for each real issue, the gold file's rank by ``recalled`` alone over every
file the window touched (is the signal there for the files the first stage never hands on?).

Usage:
    python bench/loc_recall_trial.py --runs-cache RUNS.pickle --synthetic PAIRS.pickle
        [--repos /work/.mirror] [--window 500] [--diagnose]
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import functools
import math
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lazy_intel.search.stopwords import STOP_WORDS  # noqa: E402
from lazy_intel.text.stems import stem  # noqa: E402
from lazy_intel.text.tokens import index_text  # noqa: E402

K1 = 1.2
B = 0.75
RECORD = "\x1e"  # separates commits in the log output
FIELD = "\x1f"  # separates a commit's message from its file list


@dataclasses.dataclass(frozen=True)
class PastCommit:
    tokens: collections.Counter[str]
    files: tuple[str, ...]


def terms(text: str) -> list[str]:
    """Search's tokens of ``text``, stop words dropped, stemmed (repeats kept)."""
    return [stem(t) for t in index_text(text).split() if t not in STOP_WORDS and len(t) > 1]


def parse_log(out: str) -> list[PastCommit]:
    """Commits of ``git log --format=<RECORD>%B<FIELD> --name-only`` output."""
    commits = []
    for record in out.split(RECORD):
        if FIELD not in record:
            continue
        message, _, names = record.partition(FIELD)
        files = tuple(line.strip() for line in names.splitlines() if line.strip())
        if files:
            commits.append(PastCommit(collections.Counter(terms(message)), files))
    return commits


@functools.cache
def past_commits(mirror: Path, commit: str, window: int) -> tuple[PastCommit, ...]:
    """The last ``window`` non-merge commits up to ``commit`` (newest first) with their files."""
    out = subprocess.run(
        ["git", "-C", str(mirror), "log", "--no-merges", "--no-renames", "--name-only",
         f"--format={RECORD}%B{FIELD}", "-n", str(window), commit],
        capture_output=True, text=True, check=False,  # a mirror may lack some objects: what it has is read
    ).stdout  # fmt: skip
    return tuple(parse_log(out))


def bm25(query: Iterable[str], docs: Sequence[collections.Counter[str]]) -> list[float]:
    """BM25 of the distinct ``query`` terms against each document."""
    if not docs:
        return []
    lengths = [sum(d.values()) for d in docs]
    mean = sum(lengths) / len(docs) or 1.0
    df = collections.Counter(t for d in docs for t in d)
    scores = [0.0] * len(docs)
    for term in set(query):
        n = df.get(term, 0)
        if not n:
            continue
        idf = math.log(1 + (len(docs) - n + 0.5) / (n + 0.5))
        for i, doc in enumerate(docs):
            tf = doc.get(term, 0)
            if tf:
                scores[i] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[i] / mean))
    return scores


def recalled_scores(query: str, commits: Sequence[PastCommit]) -> dict[str, float]:
    """Path -> sum of sim(query, c) / files(c) over the past commits ``c`` that touched it."""
    out: collections.defaultdict[str, float] = collections.defaultdict(float)
    for commit, sim in zip(commits, bm25(terms(query), [c.tokens for c in commits]), strict=True):
        if sim > 0:
            for path in commit.files:
                out[path] += sim / len(commit.files)
    return dict(out)


def add_recalled(runs: Sequence[object], repos: Path, window: int) -> None:
    for run in runs:
        issue = run.issue  # type: ignore[attr-defined]
        mirror = repos / issue.repo.replace("/", "+") / "repo"
        raw = recalled_scores(issue.query, past_commits(mirror, issue.base_commit, window))
        of = {f: raw.get(run.evidence.file_path[f], 0.0) for f in run.static}  # type: ignore[attr-defined]
        top = max(of.values(), default=0.0)
        for f, value in of.items():
            run.static[f]["recalled"] = value / top if top > 0 else 0.0  # type: ignore[attr-defined]


def diagnose(runs: Sequence[object], repos: Path, window: int) -> None:
    """Each real issue's gold file ranks by ``recalled`` alone (over every file the window touched)."""
    found = 0
    for run in runs:
        issue = run.issue  # type: ignore[attr-defined]
        mirror = repos / issue.repo.replace("/", "+") / "repo"
        raw = recalled_scores(issue.query, past_commits(mirror, issue.base_commit, window))
        order = sorted(raw, key=lambda p: -raw[p])
        ranks = [order.index(g) + 1 if g in raw else None for g in issue.gold_files]
        found += any(r is not None and r <= 10 for r in ranks)
        print(f"  {issue.instance_id}: gold ranks {ranks} of {len(order)} files")
    print(f"gold file in recalled top 10: {found} of {len(runs)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-cache", type=Path, required=True)
    parser.add_argument(
        "--synthetic", type=Path, required=True, help="history pairs (loc_synthetic.py collect)"
    )
    parser.add_argument("--repos", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--window", type=int, default=500)
    parser.add_argument("--diagnose", action="store_true")
    args = parser.parse_args()

    import loc_feature_trial

    loc_feature_trial.install("recalled")  # before the benchmark's modules read the feature list
    from loc_functions import load_runs
    from loc_rerank import Evaluator
    from loc_synthetic import load_pairs

    real = load_runs(args.runs_cache)
    pairs = load_pairs(args.synthetic)
    print(f"command: python {' '.join(sys.argv)}")
    if args.diagnose:
        diagnose(list(real.values()), args.repos, args.window)
    add_recalled(list(real.values()), args.repos, args.window)
    add_recalled(pairs, args.repos, args.window)
    evaluator = Evaluator({"default": real}, history={"default": {r.issue.instance_id: r for r in pairs}})
    loc_feature_trial.compare(evaluator, "recalled")


if __name__ == "__main__":
    main()

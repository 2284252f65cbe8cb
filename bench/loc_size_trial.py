"""A trial second-stage feature: the candidate file's size, a prior of where fixes land (issue 13).

Bug localisation by information retrieval has one prior that held across projects since BugLocator
(Zhou et al., ICSE 2012, "rVSM"): a longer file is more likely to hold the fix, because it holds more
code to get wrong and more of the behaviour a report describes. The second stage has no size feature
(``breadth`` counts the *matching* lexical chunks, which grows with size only where the words match);
the function stage has its own ``size``. ``size`` here is the file's line count at the issue's base
commit, on a log scale:

``size`` = ``ln(1 + lines) / ln(1 + SIZE_SATURATION)``, at most 1 (every file, any language).

Read here from the repository's git objects at the issue's base commit; the product would read
``files.line_count``, which the index already keeps.

Everything above, and the rule below, were fixed before any figure with the feature was computed
(2026-12-06, session 43); no count of sizes over the dev pools was looked at. **The rule**: ``size``
joins the shipped features iff adding it to the shipped pipeline raises the dev held-out file Acc@1
hits plus Acc@5 hits by at least ``loc_more_issues.MIN_GAIN`` with neither losing more than
``MAX_LOSS`` issue (``loc_more_issues.ships``) — the rule of ``literal`` and ``recalled``. The history
pairs' held-out row is reported whatever the outcome and decides nothing; so is half B of the unseen
issues when given (``--unseen``).

Usage:
    python bench/loc_size_trial.py --runs-cache RUNS.pickle --synthetic PAIRS.pickle
        [--unseen UNSEEN.pickle] [--repos /work/.mirror]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SIZE_SATURATION = 3000  # a file of this many lines (or more) has size 1


def size_value(lines: int) -> float:
    return min(1.0, math.log1p(max(0, lines)) / math.log1p(SIZE_SATURATION))


def line_counts_at(git_dir: Path, commit: str, paths: Sequence[str]) -> dict[str, int]:
    """``path -> lines`` at ``commit`` (missing paths left out); a last line without a newline counts."""
    from loc_checkout import read_blobs

    blobs = read_blobs(git_dir, [f"{commit}:{p}" for p in paths])
    out: dict[str, int] = {}
    for p in paths:
        data = blobs.get(f"{commit}:{p}")
        if data is not None:
            out[p] = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return out


def add_size(runs: Iterable, repos: Path) -> None:
    """Set ``static[file]["size"]`` for every pool file of every run (0 for a file not at the commit)."""
    from loc_checkout import git_dir_for

    for run in runs:
        git_dir = git_dir_for(repos, run.issue.repo)
        if git_dir is None:
            raise SystemExit(f"no mirror of {run.issue.repo} under {repos}")
        paths = {f: run.evidence.file_path[f] for f in run.static}
        counts = line_counts_at(git_dir, run.issue.base_commit, sorted(set(paths.values())))
        for f, path in paths.items():
            run.static[f]["size"] = size_value(counts.get(path, 0))


def main(argv: Sequence[str] | None = None) -> int:
    import loc_feature_trial

    return loc_feature_trial.run_file_trial("size", add_size, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())

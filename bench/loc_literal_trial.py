"""A trial second-stage feature: the file's own output text, repeated in the report (issue 13).

Reports paste what the program printed: a repr (``Data variables:``), a warning, a log line, an
error message without quotes. That text comes from string literals of the code that printed it.
The first stage's ``phrase`` signal goes one way (a *quoted* fragment of the report, searched in the
code); ``literal`` goes the other: for each candidate file, its **output literals** — the pieces of
its string literals, split at format placeholders (``{…}``, ``%s``, ``%(name)r``, ``\\n``), with
whitespace collapsed, at least :data:`MIN_CHARS` characters and :data:`MIN_WORDS` words of two or
more letters; docstrings (triple-quoted strings) left out, they are prose, not output — and counts
how many distinct ones occur verbatim in the report (whitespace collapsed, case kept).

``literal`` = ``ln(1 + n) / ln(1 + LITERAL_SATURATION)``, at most 1 (n distinct literals found).

Read here from the repository's git objects at the issue's base commit (the pool's ``.py`` files,
with Python's ``tokenize``); the product would store output literals per file at index time.

Everything above was fixed before any held-out figure was looked at (a count of matches over the dev
pools, gold against the rest, was the only look: 25 of 61 gold files in the pools have one, 312 of
3,198 other files). **The rule, fixed with it**: ``literal`` joins the shipped features iff adding it
to the shipped pipeline raises the dev held-out file Acc@1 hits plus Acc@5 hits by at least
``loc_more_issues.MIN_GAIN`` with neither losing more than ``MAX_LOSS`` issue
(``loc_more_issues.ships``). The history pairs' held-out row and half B of the unseen issues
(``--unseen``) are reported whatever the outcome; neither decides.

Usage:
    python bench/loc_literal_trial.py --runs-cache RUNS.pickle --synthetic PAIRS.pickle
        [--unseen UNSEEN.pickle] [--repos /work/.mirror]
"""

from __future__ import annotations

import io
import math
import re
import sys
import tokenize
from collections.abc import Iterable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


MIN_CHARS = 8
MIN_WORDS = 2
LITERAL_SATURATION = 4  # this many distinct literals found make literal 1
PLACEHOLDER_RE = re.compile(r"\{[^{}]*\}|%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgexXoc%]|\\[ntr]")
WORD_RE = re.compile(r"[A-Za-z]{2,}")
QUOTE_RE = re.compile(r"^[A-Za-z]*('''|\"\"\"|'|\")")


def output_literals(source: str) -> set[str]:
    """The output literals of a Python source (module docstring); none when it does not tokenize."""
    out: set[str] = set()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        quote = QUOTE_RE.match(token.string)
        if quote is None or len(quote.group(1)) == 3:
            continue  # a docstring or another triple-quoted block: prose
        body = token.string[quote.end() : -len(quote.group(1))]
        for raw in PLACEHOLDER_RE.split(body):
            piece = " ".join(raw.split())
            if len(piece) >= MIN_CHARS and len(WORD_RE.findall(piece)) >= MIN_WORDS:
                out.add(piece)
    return out


def found_in(literals: Iterable[str], report: str) -> list[str]:
    """The literals that occur in ``report`` (whitespace collapsed, case kept)."""
    text = " ".join(report.split())
    return sorted(x for x in literals if x in text)


def literal_value(found: int) -> float:
    return min(1.0, math.log1p(found) / math.log1p(LITERAL_SATURATION))


def texts_at(git_dir: Path, commit: str, paths: Sequence[str]) -> dict[str, str]:
    """``path -> text`` at ``commit`` (``loc_checkout.read_blobs`` on ``commit:path`` specs; missing
    paths left out)."""
    from loc_checkout import read_blobs

    blobs = read_blobs(git_dir, [f"{commit}:{p}" for p in paths])
    return {p: blobs[f"{commit}:{p}"].decode("utf-8", "replace") for p in paths if f"{commit}:{p}" in blobs}


def add_literal(runs: Iterable, repos: Path) -> None:
    """Set ``static[file]["literal"]`` for every pool file of every run (0 for non-Python files)."""
    from loc_checkout import git_dir_for

    for run in runs:
        git_dir = git_dir_for(repos, run.issue.repo)
        if git_dir is None:
            raise SystemExit(f"no mirror of {run.issue.repo} under {repos}")
        paths = {f: run.evidence.file_path[f] for f in run.static}
        texts = texts_at(
            git_dir, run.issue.base_commit, sorted(p for p in paths.values() if p.endswith(".py"))
        )
        for f, path in paths.items():
            text = texts.get(path)
            found = found_in(output_literals(text), run.issue.query) if text is not None else []
            run.static[f]["literal"] = literal_value(len(found))


def main(argv: Sequence[str] | None = None) -> int:
    import loc_feature_trial

    return loc_feature_trial.run_file_trial("literal", add_literal, __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())

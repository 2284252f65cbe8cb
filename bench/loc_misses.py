"""Where the held-out ranking misses: each issue's gold files, where held out put them, and what in
the report points at them.

Reads the evidence pickle ``swebench_loc.py`` writes (``--runs-cache``), cross-validates the first
stage and both stages as ``swebench_loc.py`` does (leave-one-repository-out, grid ``fusion``), and
for every issue whose gold files are not all in the held-out top ``--k`` prints one row: the gold
file's held-out rank (both stages) and its first-stage rank under the same fold's weights, the
file ranked first, the gold file's non-zero second-stage features (its whole row, ``tested``
included, when it is among the fold's candidates; else those gathered for the pool), and **probes** read off the materialised checkout
(``--work DIR/<profile>/<owner+name>/<commit>/src``):

- ``defines``: identifiers of the report that the gold file defines (``def`` / ``class`` / an
  assignment at the start of a line);
- ``mentions``: identifiers of the report that occur in the gold file as words;
- ``raises``: error types of the report that the gold file raises (``raise X``);
- ``message``: a quoted message or code fragment of the report that occurs in the gold file (its
  tokens in order, as phrase search matches them);
- ``frame``: a stack frame of the report names the gold file or a function it defines;
- ``module``: the report names the gold file's module (``_pytest.skipping``) or its stem;
- ``test_imports``: test files among the first stage's best 20 that import the gold file's module;
- ``top_imports``: whether the file ranked first imports the gold module (or the reverse).

A research tool, not a CI test: it needs the cached checkouts and the pickle. The cross-validation is
cached beside the pickle (``<pickle>.misses-cv.pickle``), so re-reading the rows costs seconds.

Usage:
    python bench/loc_misses.py --runs-cache runs.pickle --work DIR [--k 5] [--json misses.json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import loc_cv
from lazy_intel.search.phrases import phrase_tokens
from lazy_intel.search.query import QueryAnalysis, analyze_query
from lazy_intel.search.rerank import rerank
from lazy_intel.text.paths import is_test_path
from loc_rerank import Choice, Evaluator, Pipeline
from loc_scoring import IssueRun

IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TEST_NEIGHBOURS = 20  # first-stage files searched for tests importing the gold module
PACKAGE_ROOTS = ("src/", "lib/")


class _Unpickler(pickle.Unpickler):
    """``swebench_loc.py`` pickles its own classes as ``__main__.*``: find them in the module."""

    def find_class(self, module: str, name: str) -> object:
        if module == "__main__":
            import swebench_loc

            return getattr(swebench_loc, name)
        return super().find_class(module, name)


def load_runs(path: Path) -> dict[str, list[IssueRun]]:
    with path.open("rb") as fh:
        runs, _stats = _Unpickler(fh).load()
    for rs in runs.values():
        for r in rs:
            r.tables.clear()
    return runs


@dataclass(frozen=True)
class Ranking:
    files: list[str]  # every file with evidence, both stages, best first
    first: list[str]  # the first stage's order under the same weights
    # the second stage's features (``first``, ``first_rank``, ``tested`` included) of its candidates
    features: dict[str, dict[str, float]]


def ranking(pipeline: Pipeline, choice: Choice, run: IssueRun) -> Ranking:
    """The whole file ranking a fold's choice gives one issue (``outcome_of`` keeps only 20)."""
    _, config = pipeline.candidates[choice.candidate]
    weights = config.weights
    stage = run.table(weights.floor_rank).stage_scores(weights)
    paths = run.evidence.file_path

    def order(scores: Mapping[int, float]) -> list[str]:
        return [paths.get(f, "") for f in sorted(scores, key=lambda f: (-scores[f], paths.get(f, "")))]

    first = order(stage)
    if choice.coefficients is None:
        return Ranking(first, first, {})
    depth = choice.depth or config.rerank_files
    second, features = rerank(stage, paths, run.static, dict(choice.coefficients), depth)
    return Ranking(order(second), first, {paths.get(f, ""): v for f, v in features.items()})


def module_names(path: str) -> list[str]:
    """Dotted names a file is imported by: ``src/_pytest/skipping.py`` -> ``_pytest.skipping``."""
    for root in PACKAGE_ROOTS:
        if path.startswith(root):
            path = path[len(root) :]
    if not path.endswith(".py"):
        return []
    dotted = path[:-3].replace("/", ".")
    if dotted.endswith(".__init__"):
        dotted = dotted[: -len(".__init__")]
    return [dotted]


def imports_module(text: str, module: str) -> bool:
    """Whether source ``text`` imports ``module`` (absolutely, or its last part from its package)."""
    package, _, last = module.rpartition(".")
    forms = [rf"^\s*import\s+{re.escape(module)}\b", rf"^\s*from\s+{re.escape(module)}\s+import\b"]
    if package:
        forms.append(rf"^\s*from\s+{re.escape(package)}\s+import\s+[^\n]*\b{re.escape(last)}\b")
    forms.append(rf"^\s*from\s+\.+{re.escape(last)}\s+import\b")
    return any(re.search(f, text, re.MULTILINE) for f in forms)


def defined_names(text: str) -> set[str]:
    out = set(re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", text, re.MULTILINE))
    out |= set(re.findall(r"^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=", text, re.MULTILINE))
    return out


def probes(
    analysis: QueryAnalysis, gold: str, text: str, *, tree: Path, first: Sequence[str], top: str
) -> dict[str, object]:
    names = [n.split(".")[-1] for n, _ in analysis.identifiers]
    words = set(IDENT_RE.findall(text))
    defined = defined_names(text)
    tokens = " " + " ".join(phrase_tokens(text)) + " "
    messages = []
    for quoted in [*analysis.error_messages, *analysis.quoted]:
        toks = phrase_tokens(quoted)
        if 2 <= len(toks) <= 40 and " " + " ".join(toks) + " " in tokens:
            messages.append(quoted[:60])
    frames = [
        f.function or f.path or ""
        for f in analysis.frames
        if (f.path and (f.path.endswith(gold) or gold.endswith(f.path or "")))
        or ((f.function or "").rsplit(".", 1)[-1] in defined)
    ]
    modules = module_names(gold)
    stem = gold.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    named_module = [m for m in modules if m in analysis.text] + (
        [stem] if re.search(rf"\b{re.escape(stem)}\b", analysis.text) and stem != "__init__" else []
    )
    test_imports = []
    for path in first[:TEST_NEIGHBOURS]:
        if is_test_path(path) and (tree / path).is_file() and modules:
            source = (tree / path).read_text(encoding="utf-8", errors="replace")
            if any(imports_module(source, m) for m in modules):
                test_imports.append(path)
    top_imports = ""
    if top and top != gold and (tree / top).is_file() and modules:
        if imports_module((tree / top).read_text(encoding="utf-8", errors="replace"), modules[0]):
            top_imports = "top imports gold"
        elif any(imports_module(text, m) for m in module_names(top)):
            top_imports = "gold imports top"
    return {
        "defines": sorted({n for n in names if n in defined}),
        "mentions": sorted({n for n in names if n in words and n not in defined}),
        "raises": sorted({e for e in analysis.errors if re.search(rf"raise\s+{re.escape(e)}\b", text)}),
        "message": messages[:3],
        "frame": frames[:3],
        "module": named_module,
        "test_imports": test_imports,
        "top_imports": top_imports,
    }


def checkout(work: Path, run: IssueRun) -> Path:
    matches = sorted(work.glob(f"*/{run.issue.repo.replace('/', '+')}/{run.issue.base_commit[:12]}/src"))  # type: ignore[attr-defined]
    return matches[0] if matches else work / "missing"


def cross_validated(runs: Mapping[str, Sequence[IssueRun]], cache: Path) -> dict[str, loc_cv.HeldOut]:
    import swebench_loc

    if cache.is_file():
        with cache.open("rb") as fh:
            return pickle.load(fh)  # our own file
    evaluator = Evaluator({v: {r.issue.instance_id: r for r in rs} for v, rs in runs.items()})
    wanted = ("first stage", "two stages")
    out = {
        p.name: evaluator.cross_validate(p)
        for p in swebench_loc.pipelines(swebench_loc.GRIDS["fusion"], list(runs), ablations=False)
        if p.name in wanted
    }
    with cache.open("wb") as fh:
        pickle.dump(out, fh)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    import swebench_loc

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs-cache", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    runs = load_runs(args.runs_cache)
    held = cross_validated(runs, args.runs_cache.with_suffix(".misses-cv.pickle"))
    pipelines = {
        p.name: p for p in swebench_loc.pipelines(swebench_loc.GRIDS["fusion"], list(runs), ablations=False)
    }
    two, pipeline = held["two stages"], pipelines["two stages"]
    for name, h in held.items():
        s = loc_cv.summary(list(h.scores.values()))
        print(f"held-out {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in s.items() if isinstance(v, float)))
    records = []
    print("| issue | gold file | rank (both / first) | ranked first | gold features | probes |")
    print("|---|---|---|---|---|---|")
    for run in runs["default"]:
        issue = run.issue
        choice = two.chosen[issue.repo]
        ranked = ranking(pipeline, choice, run)  # type: ignore[arg-type]
        tree = checkout(args.work, run)
        analysis = analyze_query(issue.query)
        for gold in issue.gold_files:
            rank = ranked.files.index(gold) + 1 if gold in ranked.files else None
            first = ranked.first.index(gold) + 1 if gold in ranked.first else None
            file_id = next((f for f, p in run.evidence.file_path.items() if p == gold), None)
            row = ranked.features.get(gold) or (run.static.get(file_id, {}) if file_id is not None else {})
            features = {k: round(v, 2) for k, v in row.items() if v}
            text = (
                (tree / gold).read_text(encoding="utf-8", errors="replace") if (tree / gold).is_file() else ""
            )
            top = ranked.files[0] if ranked.files else ""
            found = probes(analysis, gold, text, tree=tree, first=ranked.first, top=top)
            record = {
                "issue": issue.instance_id,
                "gold": gold,
                "rank": rank,
                "first_rank": first,
                "top": top,
                "features": features,
                "probes": found,
                "miss": rank is None or rank > args.k,
            }
            records.append(record)
            if record["miss"]:
                shown = "; ".join(f"{k}: {v}" for k, v in found.items() if v)
                print(
                    f"| {issue.instance_id} | `{gold}` | {rank or '-'} / {first or '-'} | `{top}` | "
                    f"{', '.join(f'{k} {v}' for k, v in features.items())} | {shown} |"
                )
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

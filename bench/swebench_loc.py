"""Code localization on the SWE-bench Lite dev set: does search put the file and function to fix first?

For each issue of the dev set (``../shared/bench/swebench-lite-dev.jsonl``) the repository is
materialised at ``base_commit`` from a directory of git repositories (bare or not, named ``owner+name``,
optionally with the git directory in ``owner+name/repo``), keeping the non-test source files only;
missing blobs are skipped. The tree is indexed with lazy-intel (commits of one repository are applied
as incremental syncs, in commit-date order, so unchanged chunks are never re-embedded), then searched
with the raw issue text under several configurations, and a plain BM25 over whole files (``bm25s``)
is computed in the same run as the baseline.

Metrics (as the localization literature defines them): file Acc@1/3/5 = share of issues whose gold
files are all in the top k; function Acc@5/10 the same for gold functions (``path:Class.method``; the
module-level pseudo-spans ``imports``/``impl`` are not functions and are left out; issues without a
gold function are left out of function metrics); MRR of the first gold file.

Usage:
    python bench/swebench_loc.py --repos /path/to/git-repos [--work DIR] [--configs default,lexical,dense,bm25]
        [--only pallets/flask] [--limit N] [--embedding auto] [--json results.json]

Configurations: default, lexical, dense, bm25, graph (the default with graph priors on), and the
ablations no-dense, no-symbol, no-path, no-file-context, no-graph, no-phrase (the default without
that signal), and rrf (the default signals fused by reciprocal rank instead of by score).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lazy_intel.parse.languages import is_parsed_language, language_for_path
from lazy_intel.search.fusion import FusionWeights, is_test_path
from lazy_intel.search.hybrid import DEFAULT_CONFIG, DENSE_ONLY, LEXICAL_ONLY, SearchConfig, hybrid_search
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings

DATA_NAME = Path("shared") / "bench" / "swebench-lite-dev.jsonl"


def default_data() -> Path:
    """``shared/bench/swebench-lite-dev.jsonl`` beside the checkout (or any directory above it)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / DATA_NAME).is_file():
            return parent / DATA_NAME
    return Path(__file__).resolve().parents[2] / DATA_NAME


CONFIGS: dict[str, SearchConfig] = {
    "default": DEFAULT_CONFIG,
    "lexical": LEXICAL_ONLY,
    "dense": DENSE_ONLY,
    # ablations: the default configuration without one signal (the table in docs/retrieval.md)
    "no-dense": replace(DEFAULT_CONFIG, dense=False),
    "no-symbol": replace(DEFAULT_CONFIG, symbol=False),
    "no-path": replace(DEFAULT_CONFIG, path=False),
    "no-file-context": replace(DEFAULT_CONFIG, file_context=False),
    "no-graph": replace(DEFAULT_CONFIG, graph=False),
    "no-phrase": replace(DEFAULT_CONFIG, phrase=False),
    "graph": replace(DEFAULT_CONFIG, graph=True),  # graph priors on whatever the default says
}
# configurations that differ in how signals are fused, not which run
CONFIG_WEIGHTS: dict[str, FusionWeights] = {"rrf": FusionWeights(method="rrf")}
CONFIGS["rrf"] = DEFAULT_CONFIG  # the default signals, weighted reciprocal-rank fusion
FILE_KS = (1, 3, 5)
FUNCTION_KS = (5, 10)
RANKED_FILES = 20
RANKED_FUNCTIONS = 20
PSEUDO_SPANS = ("imports", "impl")


@dataclass(frozen=True)
class Issue:
    instance_id: str
    repo: str
    base_commit: str
    query: str
    gold_files: tuple[str, ...]
    gold_spans: tuple[str, ...]

    @property
    def gold_functions(self) -> tuple[str, ...]:
        """``path:qualified`` spans that name a function or class (not ``imports``/``impl``)."""
        out = []
        for span in self.gold_spans:
            _, _, name = span.partition(":")
            if name.split(":")[0] not in PSEUDO_SPANS:
                out.append(span)
        return tuple(out)


@dataclass
class Outcome:
    files: list[str]
    functions: list[str]  # "path:qualified"
    seconds: float


@dataclass
class Tally:
    """Per-configuration results; metrics computed from the ranked lists."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)


def load_issues(path: Path) -> list[Issue]:
    issues = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            issues.append(
                Issue(
                    d["instance_id"],
                    d["repo"],
                    d["base_commit"],
                    d["query"],
                    tuple(d["gold_files"]),
                    tuple(d.get("gold_spans", ())),
                )
            )
    return issues


# ---- metrics (pure)
def all_in_top(ranked: Sequence[str], gold: Iterable[str], k: int) -> bool:
    top = set(ranked[:k])
    gold = list(gold)
    return bool(gold) and all(g in top for g in gold)


def reciprocal_rank(ranked: Sequence[str], gold: Iterable[str]) -> float:
    wanted = set(gold)
    for i, item in enumerate(ranked):
        if item in wanted:
            return 1.0 / (i + 1)
    return 0.0


def summarise(issues: Sequence[Issue], outcomes: dict[str, Outcome]) -> dict[str, float | int | None]:
    done = [i for i in issues if i.instance_id in outcomes]
    out: dict[str, float | int | None] = {"n": len(done)}
    if not done:
        return out
    for k in FILE_KS:
        hits = sum(all_in_top(outcomes[i.instance_id].files, i.gold_files, k) for i in done)
        out[f"file@{k}"] = 100.0 * hits / len(done)
    with_functions = [i for i in done if i.gold_functions]
    out["n_functions"] = len(with_functions)
    for k in FUNCTION_KS:
        if with_functions and any(outcomes[i.instance_id].functions for i in with_functions):
            hits = sum(
                all_in_top(outcomes[i.instance_id].functions, i.gold_functions, k) for i in with_functions
            )
            out[f"func@{k}"] = 100.0 * hits / len(with_functions)
        else:
            out[f"func@{k}"] = None
    out["mrr"] = 100.0 * statistics.fmean(
        reciprocal_rank(outcomes[i.instance_id].files, i.gold_files) for i in done
    )
    return out


# ---- repositories
def git_dir_for(repos: Path, repo: str) -> Path | None:
    """The git directory of ``owner/name`` under ``repos`` (``owner+name``, bare or not, or ``…/repo``)."""
    base = repos / repo.replace("/", "+")
    for candidate in (base / "repo", base / ".git", base, base / "repo" / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


# The dev set is Python; like the localization literature we index the Python sources (vendored C in
# astropy's cextern/ would only add noise). --languages changes it.
LANGUAGES: frozenset[str] = frozenset({"python"})


def wanted_path(path: str, languages: frozenset[str] = LANGUAGES) -> bool:
    """Non-test source files: a parsed language, not under a test directory, not a test module."""
    lang = language_for_path(path)
    return is_parsed_language(lang) and lang in languages and not is_test_path(path)


def tree_blobs(git_dir: Path, commit: str) -> list[tuple[str, str]]:
    """(path, blob sha) of the wanted files at ``commit``."""
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--full-tree", commit],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    blobs = []
    for entry in out.split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != "120000" and wanted_path(path):
            blobs.append((path, sha))
    return blobs


def read_blobs(git_dir: Path, shas: Sequence[str]) -> dict[str, bytes]:
    """Blob contents by sha via one ``git cat-file --batch``; missing blobs are left out."""
    if not shas:
        return {}
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input=("\n".join(shas) + "\n").encode(),
        capture_output=True,
        check=True,
    )
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for sha in shas:
        end = data.index(b"\n", pos)
        header = data[pos:end].decode()
        pos = end + 1
        if header.endswith("missing"):
            continue
        size = int(header.split()[2])
        out[sha] = data[pos : pos + size]
        pos += size + 1
    return out


def materialise(git_dir: Path, commit: str, dest: Path) -> tuple[int, int]:
    """Make ``dest`` hold exactly the wanted files at ``commit``; unchanged files keep their mtime.

    Returns (files written or kept, blobs missing).
    """
    blobs = tree_blobs(git_dir, commit)
    wanted = dict(blobs)
    dest.mkdir(parents=True, exist_ok=True)
    for existing in sorted(dest.rglob("*"), reverse=True):
        rel = existing.relative_to(dest).as_posix()
        if existing.is_file() and rel not in wanted:
            existing.unlink()
        elif existing.is_dir() and not any(existing.iterdir()):
            existing.rmdir()
    contents = read_blobs(git_dir, sorted(set(wanted.values())))
    missing = 0
    for path, sha in blobs:
        data = contents.get(sha)
        target = dest / path
        if data is None:
            missing += 1
            target.unlink(missing_ok=True)
            continue
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return len(blobs) - missing, missing


def commit_time(git_dir: Path, commit: str) -> int:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", "-s", "--format=%ct", commit],
        capture_output=True,
        text=True,
        check=False,
    )
    return int(out.stdout.strip() or 0)


# ---- searching
def ranked_lists(
    ws: Workspace, query: str, config: SearchConfig, weights: FusionWeights | None = None
) -> Outcome:
    embedder = ws.embedder() if config.dense else None
    with ws.read() as view:
        began = time.perf_counter()
        result = hybrid_search(view, query, config=config, embedder=embedder, weights=weights)
        seconds = time.perf_counter() - began
        files = [f.path for f in result.files[:RANKED_FILES]]
        top_chunks = result.chunks[: RANKED_FUNCTIONS * 4]
        rows = view.chunks_by_ids([c.chunk_id for c in top_chunks])
        functions: list[str] = []
        for chunk in top_chunks:
            row = rows.get(chunk.chunk_id)
            if row is None or row.qualified_name is None:
                continue
            key = f"{row.path}:{row.qualified_name}"
            if key not in functions:
                functions.append(key)
    return Outcome(files, functions[:RANKED_FUNCTIONS], seconds)


def bm25_files(src: Path, query: str) -> Outcome:
    """The baseline: plain BM25 (bm25s, default tokenizer and English stop words) over whole files."""
    import bm25s

    paths = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    corpus = [(src / p).read_text(encoding="utf-8", errors="replace") for p in paths]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    began = time.perf_counter()
    k = min(RANKED_FILES, len(paths))
    docs, _ = retriever.retrieve(
        bm25s.tokenize([query], stopwords="en", show_progress=False), k=k, show_progress=False
    )
    return Outcome([paths[i] for i in docs[0]], [], time.perf_counter() - began)


@dataclass
class RunStats:
    index_seconds: float = 0.0
    embedded: int = 0
    embed_seconds: float = 0.0
    missing_blobs: int = 0


def run(
    issues: Sequence[Issue],
    repos: Path,
    *,
    work: Path,
    configs: Sequence[str],
    embedding: str,
    log: Callable[[str], None] = print,
) -> tuple[dict[str, dict[str, Outcome]], RunStats]:
    """Index and search every issue; returns outcomes per configuration per instance id."""
    outcomes: dict[str, dict[str, Outcome]] = {name: {} for name in configs}
    stats = RunStats()
    settings = load_settings(
        env={
            "LAZY_INTEL_EMBEDDING": embedding
            if any(c != "bm25" and CONFIGS[c].dense for c in configs)
            else "none"
        }
    )
    by_repo: dict[str, list[Issue]] = {}
    for issue in issues:
        by_repo.setdefault(issue.repo, []).append(issue)
    for repo, group in by_repo.items():
        git_dir = git_dir_for(repos, repo)
        if git_dir is None:
            log(f"skip {repo}: no git repository under {repos}")
            continue
        group.sort(key=lambda i: commit_time(git_dir, i.base_commit))
        previous: Path | None = None
        for issue in group:
            slot = work / repo.replace("/", "+") / issue.base_commit[:12]
            src, state = slot / "src", slot / "state"
            if not state.exists() and previous is not None:
                shutil.copytree(previous / "src", src, copy_function=shutil.copy2, dirs_exist_ok=True)
                shutil.copytree(previous / "state", state, dirs_exist_ok=True)
            kept, missing = materialise(git_dir, issue.base_commit, src)
            stats.missing_blobs += missing
            ws = Workspace.open(src, settings=settings, state_dir=state)
            began = time.perf_counter()
            ws.sync()
            stats.index_seconds += time.perf_counter() - began
            if ws.last_vectors is not None and ws.last_vectors.embedded:
                stats.embedded += ws.last_vectors.embedded
                stats.embed_seconds += ws.last_vectors.embed_seconds
            previous = slot
            line = [f"{issue.instance_id}: {kept} files"]
            for name in configs:
                if name == "bm25":
                    outcome = bm25_files(src, issue.query)
                else:
                    outcome = ranked_lists(ws, issue.query, CONFIGS[name], CONFIG_WEIGHTS.get(name))
                outcomes[name][issue.instance_id] = outcome
                rank = next((i + 1 for i, f in enumerate(outcome.files) if f in issue.gold_files), None)
                line.append(f"{name}={rank or '-'}")
            log("  ".join(line))
    return outcomes, stats


def format_table(issues: Sequence[Issue], outcomes: dict[str, dict[str, Outcome]]) -> str:
    header = "| repository | config | n | file@1 | file@3 | file@5 | func@5 | func@10 | MRR |"
    lines = [header, "|---|---|---|---|---|---|---|---|---|"]
    repos = ["all", *sorted({i.repo for i in issues})]

    def cell(v: float | int | None) -> str:
        return "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))

    for repo in repos:
        subset = [i for i in issues if repo in ("all", i.repo)]
        for name, per in outcomes.items():
            s = summarise(subset, per)
            if not s["n"]:
                continue
            lines.append(
                f"| {repo} | {name} | {s['n']} | {cell(s.get('file@1'))} | {cell(s.get('file@3'))} | "
                f"{cell(s.get('file@5'))} | {cell(s.get('func@5'))} | {cell(s.get('func@10'))} | {cell(s.get('mrr'))} |"
            )
    return "\n".join(lines)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repos", type=Path, required=True, help="directory of git repositories (owner+name)"
    )
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument(
        "--work", type=Path, default=None, help="kept between runs (default: a temporary dir)"
    )
    parser.add_argument("--configs", default="default,lexical,dense,bm25")
    parser.add_argument("--embedding", default="auto", help="LAZY_INTEL_EMBEDDING for default and dense")
    parser.add_argument("--only", default=None, help="only this repository (owner/name)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N issues")
    parser.add_argument("--json", type=Path, default=None, help="write per-issue ranked lists here")
    args = parser.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS and c != "bm25"]
    if unknown:
        parser.error(f"unknown config(s) {unknown}; known: {', '.join([*CONFIGS, 'bm25'])}")
    issues = load_issues(args.data or default_data())
    if args.only:
        issues = [i for i in issues if i.repo == args.only]
    if args.limit:
        issues = issues[: args.limit]
    temp = None
    work = args.work
    if work is None:
        temp = tempfile.TemporaryDirectory(prefix="swebench-loc-")
        work = Path(temp.name)
    began = time.perf_counter()
    outcomes, stats = run(
        issues,
        repos=args.repos,
        work=work,
        configs=configs,
        embedding=args.embedding,
        log=lambda s: print(s, file=sys.stderr),
    )
    print(format_table(issues, outcomes))
    print()
    for name, per in outcomes.items():
        times = [o.seconds * 1000 for o in per.values()]
        if times:
            print(
                f"search latency {name}: p50 {percentile(times, 0.5):.0f} ms, p95 {percentile(times, 0.95):.0f} ms"
            )
    if stats.embedded:
        print(
            f"embedding: {stats.embedded} chunks in {stats.embed_seconds:.0f} s = {stats.embedded / stats.embed_seconds:.1f} chunks/s"
        )
    print(
        f"indexing (sync + embedding) {stats.index_seconds:.0f} s; missing blobs skipped: {stats.missing_blobs}"
    )
    print(f"total {time.perf_counter() - began:.0f} s")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        args.json.write_text(
            json.dumps(
                {name: {k: vars(o) for k, o in per.items()} for name, per in outcomes.items()}, indent=1
            )
        )
    if temp is not None:
        temp.cleanup()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())

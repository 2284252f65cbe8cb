"""Code localization on the SWE-bench Lite dev set, cross-validated by repository.

For each issue of the dev set (``../shared/bench/swebench-lite-dev.jsonl``) the repository is
materialised at ``base_commit`` from a directory of git repositories (bare or not, named
``owner+name``, optionally with the git directory in ``owner+name/repo``): the **whole checkout**,
tests, documentation and data included, as a user's clone would be (``--scope source`` keeps the
non-test Python files only, the protocol before issue 13). It is indexed with lazy-intel (commits
of one repository applied as incremental syncs in commit-date order) and searched once with the raw
issue text; the evidence that search gathered (``hybrid.gather_evidence``) is then re-scored in
memory under every configuration and weight setting (``loc_scoring.FusionTable``), so a grid of
thousands of settings costs one search per issue.

**Protocol** (``loc_cv``): leave-one-repository-out cross-validation over the repositories of the
data set. Every tunable weight of the grid (``--grid``) is chosen on the issues of the other
repositories by the stated objective (mean of file Acc@1, file Acc@5 and function Acc@10; ties to
the better MRR, then to the shipped default) and scored on the held-out repository. The quoted
figure is the pooled held-out one; the in-sample figure (chosen on every issue) and the shipped
constants are printed beside it, with plain BM25 over whole files (``bm25s``) from the same run.

**Cache**: ``--work DIR/<profile>/<owner+name>/<commit>/`` holds the materialised tree and its
lazy-intel state per index profile (scope and store schema), reused by later runs: a re-run re-syncs
(a no-change sync) and re-runs the queries only. BM25 rankings are cached beside them.

Metrics: file Acc@1/3/5 = share of issues whose gold files are all in the top k; function Acc@5/10
the same for gold functions (``path:Class.method``; ``imports``/``impl`` pseudo-spans left out;
issues without a gold function are left out of function metrics); MRR of the first gold file.

Usage:
    python bench/swebench_loc.py --repos /path/to/git-repos --work DIR [--configs default,lexical,bm25]
        [--grid fusion] [--only pallets/flask] [--limit N] [--embedding none] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import loc_cv
from lazy_intel.parse.languages import is_parsed_language, language_for_path
from lazy_intel.search.function_facts import read_definitions
from lazy_intel.search.function_rank import FUNCTION_COEFFICIENTS, StageRanking
from lazy_intel.search.fusion import FusionWeights, is_test_path
from lazy_intel.search.hybrid import DEFAULT_CONFIG, Gathered, SearchConfig, gather_evidence, hybrid_search
from lazy_intel.search.lexical import ColumnWeights
from lazy_intel.search.rerank import (
    CANDIDATE_FEATURES,
    COEFFICIENTS,
    FEATURES,
    RERANK_FILE_CONTEXT,
    RERANK_FILES,
    rerank,
    static_features,
    wanted_tokens,
)
from lazy_intel.search.rerank_facts import read_file_facts, read_query_facts
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import SCHEMA_VERSION
from loc_cv import IssueScore
from loc_rerank import Evaluator, Pipeline, describe
from loc_scoring import (
    RANKED_FILES,
    RANKED_FUNCTIONS,
    Config,
    FunctionFacts,
    IssueRun,
    Outcome,
    all_in_top,
    issue_score,
    outcome_of,
    reciprocal_rank,
)

__all__ = ["IssueRun", "Outcome", "all_in_top", "reciprocal_rank"]  # re-exported for the tests

DATA_NAME = Path("shared") / "bench" / "swebench-lite-dev.jsonl"
FILE_KS = loc_cv.FILE_KS
FUNCTION_KS = loc_cv.FUNCTION_KS
PSEUDO_SPANS = ("imports", "impl")
SCOPES = ("whole", "source")
POOL_DEPTH = 60  # first-stage files whose second-stage features every run gathers (>= RERANK_FILES)


def default_data() -> Path:
    """``shared/bench/swebench-lite-dev.jsonl`` beside the checkout (or any directory above it)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / DATA_NAME).is_file():
            return parent / DATA_NAME
    return Path(__file__).resolve().parents[2] / DATA_NAME


# ---- configurations: weight settings over the same evidence (fusion.FusionWeights fields)
_NO_EXTRAS = {"dense": 0.0, "symbol": 0.0, "path": 0.0, "phrase": 0.0, "graph": 0.0, "centrality": 0.0}
_SHIPPED = (
    Config(
        FusionWeights(file_context=RERANK_FILE_CONTEXT),
        rerank=COEFFICIENTS,
        functions=FUNCTION_COEFFICIENTS if DEFAULT_CONFIG.functions else None,
    )
    if DEFAULT_CONFIG.rerank
    else Config(FusionWeights())
)

CONFIGS: dict[str, Config] = {
    "default": _SHIPPED,  # what search ships: first stage, second stage when on by default
    "first-stage": Config(FusionWeights()),  # the shipped weights without the second stage
    "lexical": Config(FusionWeights(**_NO_EXTRAS), file_context=False),  # type: ignore[arg-type]
    "dense": Config(FusionWeights(**{**_NO_EXTRAS, "lexical": 0.0, "dense": 1.0}), file_context=False),  # type: ignore[arg-type]
    # ablations of the shipped first stage: without one signal (in sample; the held-out ablation
    # comes from the pipelines below)
    "no-dense": Config(FusionWeights(dense=0.0)),
    "no-symbol": Config(FusionWeights(symbol=0.0)),
    "no-path": Config(FusionWeights(path=0.0)),
    "no-file-context": Config(FusionWeights(), file_context=False),
    "no-graph": Config(FusionWeights(graph=0.0, centrality=0.0)),
    "no-phrase": Config(FusionWeights(phrase=0.0)),
    "no-factors": Config(FusionWeights(test_file_factor=1.0, auxiliary_file_factor=1.0)),
    "rrf": Config(FusionWeights(method="rrf")),  # the default signals, weighted reciprocal-rank fusion
}
BASELINES = ("bm25", "bm25-py")  # plain BM25 over every indexed file / over the indexed .py files

# ---- evidence variants: search settings that change what is gathered (a second search per issue)
VARIANTS: dict[str, SearchConfig] = {
    "default": DEFAULT_CONFIG,
    "no-stems": replace(DEFAULT_CONFIG, stem_weight=0.0, columns=ColumnWeights(stems=0.0)),
    "stems-terms-only": replace(DEFAULT_CONFIG, columns=ColumnWeights(stems=0.0)),
    "stems-column-only": replace(DEFAULT_CONFIG, stem_weight=0.0),
    "stems-full": replace(DEFAULT_CONFIG, columns=ColumnWeights(stems=1.0)),  # the column as body text
    # the weighted BM25 query over every match instead of over the 2,000 prefiltered candidates
    "one-phase": replace(DEFAULT_CONFIG, lexical_prefilter=0),
}

# ---- grids of the cross-validation: parameter -> values, the shipped default first
GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "fusion": {
        "symbol": (0.2, 0.0, 0.1),
        "path": (0.3, 0.0, 0.15, 0.6),
        "phrase": (0.0, 0.2, 0.4),
        "graph": (0.0, 0.05, 0.15),
        "file_context": (1.0, 2.0),
        "test_file_factor": (0.5, 1.0),
        "auxiliary_file_factor": (0.5, 1.0),
    },
    "wide": {
        "symbol": (0.2, 0.0, 0.05, 0.1, 0.4),
        "path": (0.3, 0.0, 0.15, 0.6),
        "phrase": (0.0, 0.1, 0.2, 0.4),
        "graph": (0.0, 0.05, 0.1, 0.2),
        "file_context": (1.0, 0.5, 2.0),
        "test_file_factor": (0.5, 0.25, 1.0),
        "auxiliary_file_factor": (0.5, 0.25, 1.0),
    },
    "small": {"symbol": (0.2, 0.0, 0.1), "path": (0.3, 0.0, 0.6), "test_file_factor": (0.5, 1.0)},
}


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
def summarise(issues: Sequence[Issue], outcomes: Mapping[str, Outcome]) -> dict[str, float | int | None]:
    return loc_cv.summary(
        [issue_score(i, outcomes[i.instance_id]) for i in issues if i.instance_id in outcomes]
    )


# ---- repositories
def git_dir_for(repos: Path, repo: str) -> Path | None:
    """The git directory of ``owner/name`` under ``repos`` (``owner+name``, bare or not, or ``…/repo``)."""
    base = repos / repo.replace("/", "+")
    for candidate in (base / "repo", base / ".git", base, base / "repo" / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


# ``--scope source`` (the protocol before issue 13) kept these languages' non-test files only.
LANGUAGES: frozenset[str] = frozenset({"python"})


def wanted_path(path: str, scope: str = "whole", languages: frozenset[str] = LANGUAGES) -> bool:
    """``whole``: every file of the checkout. ``source``: non-test files of a parsed language."""
    if scope == "whole":
        return True
    lang = language_for_path(path)
    return is_parsed_language(lang) and lang in languages and not is_test_path(path)


def tree_blobs(git_dir: Path, commit: str, scope: str = "whole") -> list[tuple[str, str]]:
    """(path, blob sha) of the wanted files at ``commit`` (no symbolic links, no submodules)."""
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
        if kind == "blob" and mode != "120000" and wanted_path(path, scope):
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


def materialise(git_dir: Path, commit: str, dest: Path, scope: str = "whole") -> tuple[int, int]:
    """Make ``dest`` hold exactly the wanted files at ``commit``; unchanged files keep their mtime.

    Returns (files written or kept, blobs missing).
    """
    blobs = tree_blobs(git_dir, commit, scope)
    wanted = dict(blobs)
    dest.mkdir(parents=True, exist_ok=True)
    for existing in sorted(dest.rglob("*"), reverse=True):
        rel = existing.relative_to(dest).as_posix()
        if (existing.is_file() or existing.is_symlink()) and rel not in wanted:
            existing.unlink()
        elif existing.is_dir() and not existing.is_symlink() and not any(existing.iterdir()):
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


def index_profile(scope: str) -> str:
    """The cache key of an index: what was materialised and which store schema built it."""
    return f"{scope}-schema{SCHEMA_VERSION}"


# ---- searching
def real_search(ws: Workspace, query: str, embedder: object | None) -> Outcome:
    """What ``search`` answers with the default configuration, timed."""
    with ws.read() as view:
        began = time.perf_counter()
        result = hybrid_search(view, query, config=DEFAULT_CONFIG, embedder=embedder)  # type: ignore[arg-type]
        seconds = time.perf_counter() - began
        files = [f.path for f in result.files[:RANKED_FILES]]
        top_chunks = result.chunks[: RANKED_FUNCTIONS * 4]
        rows = view.chunks_by_ids([c.chunk_id for c in top_chunks])
        functions: dict[str, None] = {}
        for chunk in top_chunks:
            row = rows.get(chunk.chunk_id)
            if row is not None and row.qualified_name is not None:
                functions.setdefault(f"{row.path}:{row.qualified_name}")
    return Outcome(files, list(functions)[:RANKED_FUNCTIONS], seconds)


def gather(
    ws: Workspace,
    issue: Issue,
    embedder: object | None,
    variants: Mapping[str, SearchConfig],
    pool: Sequence[Config],
) -> tuple[dict[str, IssueRun], list[str]]:
    """One search per evidence variant (centrality computed too, so a grid may weigh it), candidate
    chunk keys, and the second stage's features of every file a configuration of ``pool`` hands on."""
    runs: dict[str, IssueRun] = {}
    with ws.read() as view:
        found = {
            name: gather_evidence(
                view,
                issue.query,
                config=config,
                embedder=embedder,  # type: ignore[arg-type]
                weights=FusionWeights(centrality=1.0),
            )
            for name, config in variants.items()
        }
        ids = sorted({c for g in found.values() for s in g.evidence.chunk_signals.values() for c in s})
        rows = view.chunks_by_ids(ids)
        keys = {
            c: (f"{r.path}:{r.qualified_name}" if r.qualified_name is not None else None)
            for c, r in rows.items()
        }
        pools: dict[str, set[int]] = {}
        for name, g in found.items():
            chunk_keys = {c: keys.get(c) for sig in g.evidence.chunk_signals.values() for c in sig}
            run = IssueRun(issue, g.evidence, chunk_keys)
            pools[name] = {
                f
                for config in pool
                for f in run.table(config.weights.floor_rank).top_files(config.weights, config.rerank_files)
            }
            runs[name] = run
        paths = {f: p for g in found.values() for f, p in g.evidence.file_path.items()}
        wanted = list(dict.fromkeys(t for g in found.values() for t in wanted_tokens(g.analysis, g.terms)))
        facts = read_file_facts(
            view, found["default"].analysis, sorted(set().union(*pools.values())), paths, wanted
        )
        for name, g in found.items():
            query = read_query_facts(view, g.analysis, g.terms)
            runs[name].static = static_features(
                g.analysis, g.evidence, query, {f: facts[f] for f in pools[name]}
            )
        if _SHIPPED.functions is not None:
            runs["default"].functions = function_facts(view, runs["default"], found["default"])
        indexed = [
            r[0] for r in view.conn.execute("SELECT path FROM files WHERE status = 'indexed' ORDER BY path")
        ]
    return runs, indexed


def function_facts(view: object, run: IssueRun, found: Gathered) -> FunctionFacts:
    """What the function stage reads for the shipped configuration's ranking of ``run``."""
    weights = _SHIPPED.weights
    table = run.table(weights.floor_rank)
    second, _ = rerank(table.stage_scores(weights), run.evidence.file_path, run.static, COEFFICIENTS)
    paths = run.evidence.file_path
    order = sorted(second, key=lambda f: (-second[f], paths.get(f, "")))
    chunks = table.chunk_ranking(weights, file_context=True, file_scores=second)
    staged = StageRanking(chunks, found.chunk_symbol, second, order)
    tokens = [t for t, _, _ in found.terms]
    definitions = read_definitions(view, staged.top_files(), staged.top_symbols(), tokens)  # type: ignore[arg-type]
    query = read_query_facts(view, found.analysis, found.terms)  # type: ignore[arg-type]
    return FunctionFacts(
        found.analysis, query, dict(found.chunk_symbol), {d.symbol_id: d for d in definitions}
    )


def bm25_files(src: Path, paths: Sequence[str], query: str) -> list[str]:
    """The baseline: plain BM25 (bm25s, default tokenizer and English stop words) over whole files."""
    import bm25s

    if not paths:
        return []
    corpus = [(src / p).read_text(encoding="utf-8", errors="replace") for p in paths]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    k = min(RANKED_FILES, len(paths))
    docs, _ = retriever.retrieve(
        bm25s.tokenize([query], stopwords="en", show_progress=False), k=k, show_progress=False
    )
    return [paths[i] for i in docs[0]]


def baseline_outcomes(
    slot: Path, src: Path, paths: Sequence[str], issue: Issue, wanted: Sequence[str]
) -> dict[str, Outcome]:
    """BM25 rankings of ``issue`` (cached in ``slot/bm25.json``, keyed by instance and baseline)."""
    cache_path = slot / "bm25.json"
    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    out: dict[str, Outcome] = {}
    changed = False
    for name in wanted:
        key = f"{issue.instance_id}|{name}"
        if key not in cache:
            corpus = [p for p in paths if name == "bm25" or p.endswith(".py")]
            cache[key] = bm25_files(src, corpus, issue.query)
            changed = True
        out[name] = Outcome(list(cache[key]), None)
    if changed:
        cache_path.write_text(json.dumps(cache))
    return out


@dataclass
class RunStats:
    index_seconds: float = 0.0
    embedded: int = 0
    embed_seconds: float = 0.0
    missing_blobs: int = 0
    full_builds: int = 0
    inconsistent: list[str] = field(default_factory=list)  # issues where the table and search disagree


def collect(
    issues: Sequence[Issue],
    repos: Path,
    *,
    work: Path,
    scope: str = "whole",
    embedding: str = "none",
    baselines: Sequence[str] = BASELINES,
    variants: Mapping[str, SearchConfig] | None = None,
    pool: Sequence[Config] = (),
    log: Callable[[str], None] = print,
) -> tuple[dict[str, list[IssueRun]], RunStats]:
    """Materialise, index (cached under ``work``) and search every issue once per evidence variant.

    ``pool``: first-stage configurations whose candidates the second stage may re-rank (the shipped
    ones are always added); their files' second-stage features are read while the index is open.
    """
    variants = dict(variants or {"default": DEFAULT_CONFIG})
    if "default" not in variants:
        raise ValueError("the evidence variants must include 'default'")
    pool = [*pool, *(c for c in CONFIGS.values() if c.weights.method == "score")]
    # every configuration's files down to POOL_DEPTH get features, so a deeper candidate list (a
    # pipeline's ``depths``) can be scored from the runs cache without indexing again
    pool = [replace(c, rerank_files=max(c.rerank_files, POOL_DEPTH)) for c in pool]
    stats = RunStats()
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": embedding})
    if baselines:
        import bm25s  # noqa: F401  (fail before hours of indexing, not after)
    by_repo: dict[str, list[Issue]] = {}
    for issue in issues:
        by_repo.setdefault(issue.repo, []).append(issue)
    runs: dict[str, list[IssueRun]] = {name: [] for name in variants}
    profile = work / index_profile(scope)
    for repo, group in by_repo.items():
        git_dir = git_dir_for(repos, repo)
        if git_dir is None:
            log(f"skip {repo}: no git repository under {repos}")
            continue
        group.sort(key=lambda i: (commit_time(git_dir, i.base_commit), i.instance_id))
        previous: Path | None = None
        for issue in group:
            slot = profile / repo.replace("/", "+") / issue.base_commit[:12]
            src, state, marker = slot / "src", slot / "state", slot / "materialised"
            if not state.exists() and previous is not None:
                shutil.copytree(previous / "src", src, copy_function=shutil.copy2, dirs_exist_ok=True)
                shutil.copytree(previous / "state", state, dirs_exist_ok=True)
            if not (marker.is_file() and marker.read_text().strip() == issue.base_commit):
                marker.unlink(missing_ok=True)
                _, missing = materialise(git_dir, issue.base_commit, src, scope)
                stats.missing_blobs += missing
                marker.write_text(issue.base_commit + "\n")
            ws = Workspace.open(src, settings=settings, state_dir=state)
            try:
                began = time.perf_counter()
                report = ws.sync()
                stats.index_seconds += time.perf_counter() - began
                stats.full_builds += report.full_rebuild
                if ws.last_vectors is not None and ws.last_vectors.embedded:
                    stats.embedded += ws.last_vectors.embedded
                    stats.embed_seconds += ws.last_vectors.embed_seconds
                embedder = ws.embedder() if embedding != "none" else None
                issue_runs, paths = gather(ws, issue, embedder, variants, pool)
                search = real_search(ws, issue.query, embedder)
            finally:
                ws.close()
            previous = slot
            baseline = baseline_outcomes(slot, src, paths, issue, baselines)
            for name, run in issue_runs.items():
                run.baselines, run.files_indexed = baseline, len(paths)
                runs[name].append(run)
            default = issue_runs["default"]
            default.search = search
            check = outcome_of(default, CONFIGS["default"])
            if (check.files, check.functions) != (search.files, search.functions):
                stats.inconsistent.append(issue.instance_id)
            rank = next((i + 1 for i, f in enumerate(search.files) if f in issue.gold_files), None)
            log(
                f"{issue.instance_id}: {len(paths)} files indexed, default rank {rank or '-'}, "
                f"search {search.seconds * 1000:.0f} ms"
            )
    return runs, stats


# ---- scoring runs under configurations and grids
def outcomes_for(runs: Sequence[IssueRun], name: str) -> dict[str, Outcome]:
    if name in BASELINES:
        return {r.issue.instance_id: r.baselines[name] for r in runs if name in r.baselines}
    return {r.issue.instance_id: outcome_of(r, CONFIGS[name]) for r in runs}


def grid_candidates(space: Mapping[str, Sequence[float]]) -> list[Config]:
    """One first-stage configuration per point of ``space`` (FusionWeights field -> values)."""
    out = []
    for point in loc_cv.grid(space):
        values = dict(point)
        floor = values.pop("floor_rank", None)
        weights = replace(FusionWeights(), **values)  # type: ignore[arg-type]
        if floor is not None:
            weights = replace(weights, floor_rank=int(floor))  # type: ignore[arg-type]
        out.append(Config(weights))
    return out


def parse_grid(spec: str) -> dict[str, tuple[float, ...]]:
    """``--grid``: a named grid, or ``name=v1,v2;name=v1,…`` (FusionWeights fields and floor_rank)."""
    if spec in GRIDS:
        return GRIDS[spec]
    space: dict[str, tuple[float, ...]] = {}
    known = set(FusionWeights.__dataclass_fields__) - {"method"}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, _, values = part.partition("=")
        if name.strip() not in known or not values:
            raise ValueError(f"grid parameter {name!r}: expected one of {sorted(known)} with values")
        space[name.strip()] = tuple(float(v) for v in values.split(","))
    if not space:
        raise ValueError("empty grid")
    return space


# The main pipeline fits every feature search uses (``FEATURES``), always, at the shipped candidate
# depth, and each fold's inner cross-validation chooses only the L2 penalty, by the inner held-out
# log-likelihood of the gold files (``SELECT_BY``): the penalty, not a choice among feature subsets,
# keeps a weak feature small, and a smooth criterion over ~50 training issues chooses it more
# steadily than the objective, which moves in steps of one issue. The procedure before this round
# also let the inner cross-validation choose, by the objective, which of the optional features join
# (none, each alone, or all: ``loc_rerank.Pipeline.optional``) and the candidate depth among
# ``DEPTHS``; that choice among 6 x 2 x 4 settings did not generalize (docs/retrieval.md). It stays
# as a comparison row, with 541fa27's (the same without ``tested``, at depth 30) and the main
# pipeline with the penalty chosen by the objective.
SELECT_BY = "likelihood"
OPTIONAL_FEATURES = ("prose", "named_stem", "named_dir", "central")
DEPTHS = (RERANK_FILES, POOL_DEPTH)
PER_FOLD_SUBSETS = "two stages, feature subsets and depth chosen per fold (the procedure before)"
BEFORE_TESTED = "two stages, feature subsets chosen per fold, depth 30, no tested (541fa27, shipped before)"
BY_OBJECTIVE = "two stages, penalty chosen by the objective"

# first-stage signals whose held-out ablation is computed when the grid offers them weight 0
SIGNAL_ABLATIONS = ("symbol", "path", "phrase", "graph", "dense")


# Evidence variants that are comparisons, not settings to tune: the cross-validation never picks them
# for the main pipelines; each gets its own "only" pipeline.
COMPARISON_VARIANTS = frozenset({"no-stems", "one-phase"})


def pipelines(
    space: Mapping[str, Sequence[float]],
    variants: Sequence[str],
    *,
    ablations: bool = True,
    only: Sequence[str] = (),
) -> list[Pipeline]:
    """The cross-validated pipelines: first stage alone, both stages, and the held-out ablations
    (each second-stage feature left out; each first-stage signal held at 0; each variant alone).

    The main pipelines choose among the tunable variants (``default`` and any not in
    :data:`COMPARISON_VARIANTS`) x the grid; a variant's own pipeline uses its evidence only.
    """
    grid = grid_candidates(space)
    tunable = [v for v in variants if v not in COMPARISON_VARIANTS]
    every = tuple((v, c) for v in tunable for c in grid)
    base = tuple(f for f in FEATURES if f not in OPTIONAL_FEATURES)
    optional = tuple(f for f in OPTIONAL_FEATURES if f in CANDIDATE_FEATURES)

    def two(name: str, kept: tuple[tuple[str, Config], ...], features: tuple[str, ...]) -> Pipeline:
        return Pipeline(name, kept, features, select_by=SELECT_BY)

    out = [Pipeline("first stage", every, None), two("two stages", every, FEATURES)]
    if not ablations:
        return out
    out.append(Pipeline(BY_OBJECTIVE, every, FEATURES))
    if optional:  # the procedure before, with and without ``tested`` (541fa27's, what main shipped)
        out.append(Pipeline(PER_FOLD_SUBSETS, every, base, optional=optional, depths=DEPTHS))
        untested = tuple(f for f in base if f != "tested")
        out.append(Pipeline(BEFORE_TESTED, every, untested, optional=optional))
    if only:  # just these features' "without" rows
        return out + [
            two(f"two stages without {f}", every, tuple(g for g in FEATURES if g != f)) for f in only
        ]
    if set(CANDIDATE_FEATURES) != set(FEATURES):
        extra = ", ".join(f for f in CANDIDATE_FEATURES if f not in FEATURES)
        out.append(two(f"two stages with {extra}", every, CANDIDATE_FEATURES))
    for feature in FEATURES:
        out.append(two(f"two stages without {feature}", every, tuple(f for f in FEATURES if f != feature)))
    for signal in SIGNAL_ABLATIONS:
        if 0.0 in space.get(signal, ()):
            kept = tuple((v, c) for v, c in every if getattr(c.weights, signal) == 0.0)
            out.append(two(f"two stages without the {signal} signal", kept, FEATURES))
    for variant in variants:
        if len(variants) > 1:
            only = tuple((variant, c) for c in grid)
            out.append(two(f"two stages, {variant} evidence only", only, FEATURES))
    return out


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
) -> tuple[str, dict[str, object]]:
    """The printed tables and a JSON-able record of every figure (held-out first)."""
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
        evaluator = Evaluator({v: {r.issue.instance_id: r for r in rs} for v, rs in runs.items()})
        chosen_record: dict[str, object] = {}
        ablation_lines: list[str] = []
        main: dict[str, loc_cv.HeldOut] = {}
        for pipeline in pipelines(space, list(runs), ablations=ablations, only=only):
            held = evaluator.cross_validate(pipeline)
            if pipeline.name in ("first stage", "two stages"):
                main[pipeline.name] = held
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
                    "held_out_summary": loc_cv.summary(list(held.scores.values()))
                }
        record["pipelines"] = chosen_record
        out.append("")
        if ablation_lines:
            full = loc_cv.summary(list(main["two stages"].scores.values()))
            out.append("held-out ablations (each pipeline cross-validated the same way):")
            out.append(HEADER.format(first="pipeline"))
            out.append("|---|---|---|---|---|---|---|---|")
            out.append(_row(["two stages (all)"], full))
            out.extend(ablation_lines)
            out.append("")
    rows = [*held_rows, *in_rows, *((f"fixed: {n}", scored[n]) for n in configs)]
    out.append(figure_table(rows, repos, by_repo))
    return "\n".join(out), record


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repos", type=Path, required=True, help="directory of git repositories (owner+name)"
    )
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument(
        "--work", type=Path, default=None, help="index cache, kept between runs (default: a temporary dir)"
    )
    parser.add_argument(
        "--scope", choices=SCOPES, default="whole", help="whole checkout (default) or non-test Python"
    )
    parser.add_argument(
        "--configs",
        default="default,lexical,bm25,bm25-py",
        help=f"fixed configurations: {', '.join([*CONFIGS, *BASELINES])}",
    )
    parser.add_argument(
        "--grid", default="fusion", help=f"cross-validated grid: {', '.join(GRIDS)} or name=v1,v2;…"
    )
    parser.add_argument(
        "--embedding", default="none", help="LAZY_INTEL_EMBEDDING (the dense signal's provider)"
    )
    parser.add_argument(
        "--variants",
        default="default,no-stems",
        help=f"evidence variants searched per issue (tunable, CV chooses): {', '.join(VARIANTS)}",
    )
    parser.add_argument("--no-ablations", action="store_true", help="skip the held-out ablation pipelines")
    parser.add_argument(
        "--ablate", default="", help="only these second-stage features' ablation rows (comma-separated)"
    )
    parser.add_argument(
        "--runs-cache",
        type=Path,
        default=None,
        help="pickle of the gathered evidence: loaded when it exists (no indexing, no search), else written",
    )
    parser.add_argument("--only", default=None, help="only this repository (owner/name)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N issues")
    parser.add_argument("--json", type=Path, default=None, help="write per-issue scores and choices here")
    args = parser.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS and c not in BASELINES]
    if unknown:
        parser.error(f"unknown config(s) {unknown}; known: {', '.join([*CONFIGS, *BASELINES])}")
    try:
        space = parse_grid(args.grid)
    except ValueError as exc:
        parser.error(str(exc))
    variant_names = [
        "default",
        *(v.strip() for v in args.variants.split(",") if v.strip() and v.strip() != "default"),
    ]
    bad = [v for v in variant_names if v not in VARIANTS]
    if bad:
        parser.error(f"unknown variant(s) {bad}; known: {', '.join(VARIANTS)}")
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
    if args.runs_cache is not None and args.runs_cache.is_file():
        with args.runs_cache.open("rb") as fh:
            runs, stats = pickle.load(fh)  # our own file, written below
        wanted = {i.instance_id for i in issues}
        runs = {
            v: [r for r in rs if r.issue.instance_id in wanted]
            for v, rs in runs.items()
            if v in variant_names
        }
        for rs in runs.values():
            for r in rs:
                r.tables.clear()  # derived (FusionTable): rebuilt by this code, not the pickling code
    else:
        runs, stats = collect(
            issues,
            repos=args.repos,
            work=work,
            scope=args.scope,
            embedding=args.embedding,
            baselines=[c for c in configs if c in BASELINES],
            variants={v: VARIANTS[v] for v in variant_names},
            pool=grid_candidates(space),
            log=lambda s: print(s, file=sys.stderr),
        )
        if args.runs_cache is not None:
            with args.runs_cache.open("wb") as fh:
                pickle.dump((runs, stats), fh)
    collected = time.perf_counter()
    grid_name = args.grid if args.grid in GRIDS else "custom"
    text, record = report(
        runs,
        configs,
        grid_name,
        space,
        ablations=not args.no_ablations,
        only=[f.strip() for f in args.ablate.split(",") if f.strip()],
    )
    print(text)
    print()
    default_runs = runs["default"]
    times = [r.search.seconds * 1000 for r in default_runs if r.search is not None]
    if times:
        print(
            f"search latency (default, one real search per issue): p50 {percentile(times, 0.5):.0f} ms, p95 {percentile(times, 0.95):.0f} ms"
        )
    print(
        f"consistency: the in-memory ranking equals the real search on {len(default_runs) - len(stats.inconsistent)}/{len(default_runs)} issues"
        + (f" (differs: {', '.join(stats.inconsistent)})" if stats.inconsistent else "")
    )
    if stats.embedded:
        print(
            f"embedding: {stats.embedded} chunks in {stats.embed_seconds:.0f} s = {stats.embedded / stats.embed_seconds:.1f} chunks/s"
        )
    print(
        f"index profile {index_profile(args.scope)}: indexing {stats.index_seconds:.0f} s ({stats.full_builds} full builds); "
        f"missing blobs skipped: {stats.missing_blobs}"
    )
    print(f"collect {collected - began:.0f} s, scoring {time.perf_counter() - collected:.0f} s")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        args.json.write_text(json.dumps(record, indent=1))
    if temp is not None:
        temp.cleanup()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())

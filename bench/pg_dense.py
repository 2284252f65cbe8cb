"""A dense query on PostgreSQL: pgvector in the server against the NumPy path on the same store.

Builds a tree from the benchmark mirrors (``scale.build_tree``), indexes it with the static embedder
into a real PostgreSQL 16 with pgvector (the ``pgserver`` wheel's binaries, ``tests/pg_server.py``;
started and stopped here), then, in one read view of that one store, times for each query in turn
(interleaved, so machine load hits all alike):

- ``pgvector``: ``vector_search.nearest_in_server`` (the server's exact scan, its candidates scored
  in the reader), what ``search`` runs on this store;
- ``numpy_warm``: ``nearest`` over the vector matrix already loaded (the cached matrix of this
  generation: every query after the first);
- ``numpy_cold``: loading the matrix from the server, then ``nearest`` (the first query after each
  publication, since the cache is per generation);
- ``nearest_base`` / ``nearest_after``: the NumPy ``nearest`` of the baseline snapshot's
  ``search/vectors.py`` and of this tree's on the same matrix (SQLite's dense search: not slower).

Each query's pgvector answer is checked against NumPy's (chunk ids and scores, bit for bit).
Query vectors are embedded once, before timing (embedding is the same on every path).

Usage:
    python bench/pg_dense.py --baseline /work/cache-pgvec15/snap-base [--files 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from scale import build_tree  # noqa: E402

QUERIES = (
    "parse a FITS header card",
    "convert units between quantities",
    "read a table from a file",
    "coordinate frame transformation",
    "raise an error when the value is invalid",
    "cache the result of a function",
    "write the configuration to disk",
    "compute the mean and standard deviation",
    "format a number as a string",
    "resolve a cross reference in the documentation",
    "render a template with the context",
    "iterate over the rows of an array",
    "compare two time values",
    "deprecation warning for an old argument",
    "open a file and decode its contents",
    "register a plugin entry point",
)
K = 1000  # signals.DENSE_CANDIDATES: what a search asks for


def _baseline_nearest(snap: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "baseline_vectors", snap / "src/lazy_intel/search/vectors.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_vectors"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.nearest


def _ms(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 2),
        "n": len(ordered),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, required=True, help="git archive of the baseline commit")
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--mirrors", default="astropy+astropy,sphinx-doc+sphinx")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/pg-dense"))
    args = parser.parse_args()

    import numpy as np
    from tests.pg_server import PostgresServer, pgvector_bindir

    from lazy_intel.search import vector_search, vectors
    from lazy_intel.service.workspace import Workspace
    from lazy_intel.settings import load_settings
    from lazy_intel.store.pg import vectors as pg_vectors

    bindir = pgvector_bindir()
    if bindir is None:
        raise SystemExit("pgserver (PostgreSQL with pgvector) is not installed: pip install pgserver==0.1.4")
    tree = args.work / "tree"
    count = build_tree(tree, args.files, 1, only=tuple(args.mirrors.split(",")))
    result: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "tree_files": count,
        "load_before": os.getloadavg(),
    }
    base_nearest = _baseline_nearest(args.baseline)
    server = PostgresServer(bindir)
    server.start()
    try:
        dsn = str(server.create_database("pg_dense_bench"))
        env = {
            "LAZY_INTEL_STORE": dsn,
            "LAZY_INTEL_EMBEDDING": "static",
            "LAZY_INTEL_WATCH": "false",
            "LAZY_INTEL_CACHE_DIR": str(args.work / "cache"),
        }
        ws = Workspace.open(tree, settings=load_settings(env=env), state_dir=args.work / "state")
        try:
            began = time.monotonic()
            ws.sync()
            result["index_wall_s"] = round(time.monotonic() - began, 1)
            result["vectors"] = ws.last_vectors.to_dict() if ws.last_vectors else None
            embedder = ws.embedder()
            assert embedder is not None
            profile = embedder.profile.id
            query_vectors = [embedder.embed([q])[0] for q in QUERIES]
            times: dict[str, list[float]] = {
                k: [] for k in ("pgvector", "numpy_warm", "numpy_cold", "nearest_base", "nearest_after")
            }
            scans = {"limit": 0, "within": 0}
            real = pg_vectors.nearest_candidates

            def counted(*a: Any, **kw: Any) -> Any:
                scans["within" if kw.get("within") is not None else "limit"] += 1
                return real(*a, **kw)

            pg_vectors.nearest_candidates = counted  # type: ignore[assignment]
            mismatches = 0
            with ws.read() as view:
                marked = view.meta(pg_vectors.META_COLUMN)
                assert marked is not None, "the store has no filled pgvector column"
                column = pg_vectors.EmbeddingColumn.parse(marked)
                index = vectors.load_vector_index(view.conn, str(view.store_path), view.generation, profile)
                assert index is not None
                result["chunks_with_vectors"] = len(index.chunk_ids)
                result["dim"] = int(index.matrix.shape[1])
                for _ in range(args.rounds):
                    for q in query_vectors:
                        t = time.perf_counter()
                        hits = vector_search.nearest_in_server(view.conn, column, profile, q, K)
                        times["pgvector"].append(time.perf_counter() - t)
                        t = time.perf_counter()
                        rows, scores = vectors.nearest(index.matrix, q, K)
                        times["numpy_warm"].append(time.perf_counter() - t)
                        ids = [int(index.chunk_ids[r]) for r in rows]
                        mismatches += int(ids != hits.chunk_ids or scores.tolist() != hits.scores)
                        vectors._INDEX_CACHE.clear()
                        t = time.perf_counter()
                        cold = vectors.load_vector_index(
                            view.conn, str(view.store_path), view.generation, profile
                        )
                        assert cold is not None
                        vectors.nearest(cold.matrix, q, K)
                        times["numpy_cold"].append(time.perf_counter() - t)
                        t = time.perf_counter()
                        base_nearest(index.matrix, q, K)
                        times["nearest_base"].append(time.perf_counter() - t)
                        t = time.perf_counter()
                        vectors.nearest(index.matrix, q, K)
                        times["nearest_after"].append(time.perf_counter() - t)
            pg_vectors.nearest_candidates = real  # type: ignore[assignment]
            stats = {k: _ms(v) for k, v in times.items()}
            result["latency"] = stats
            p50 = {k: v["p50_ms"] for k, v in stats.items()}
            result["ratios_p50"] = {
                "pgvector_over_numpy_warm": round(p50["pgvector"] / p50["numpy_warm"], 2),
                "pgvector_over_numpy_cold": round(p50["pgvector"] / p50["numpy_cold"], 3),
                "nearest_after_over_base": round(p50["nearest_after"] / p50["nearest_base"], 2),
            }
            result["server_scans"] = scans
            result["answers_differing_from_numpy"] = mismatches
            result["matrix_mb"] = round(index.matrix.nbytes / 2**20, 1)
            result["np_version"] = np.__version__
        finally:
            ws.close()
    finally:
        server.cleanup()
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

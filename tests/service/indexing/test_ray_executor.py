"""The Ray executor against a real local Ray instance: the store it builds is the local executor's."""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.errors import LazyIntelError
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from tests.conftest import pg_env

ray = pytest.importorskip("ray", reason="the [distributed] extra (Ray) is not installed")

# one worker of a parallel run holds every Ray test: one local Ray instance at a time on the machine
pytestmark = pytest.mark.xdist_group("ray")

FILES = {
    **{
        f"pkg/mod_{i:03d}.py": (
            f'"""Module {i}."""\n\nfrom pkg.mod_{(i + 1) % 90:03d} import helper_{(i + 1) % 90}\n\n\n'
            f"class Thing{i}:\n    def run(self, x):\n        return helper_{(i + 1) % 90}(x) + {i}\n\n\n"
            f"def helper_{i}(value):\n    return Thing{i}().run(value)\n"
        )
        for i in range(90)
    },
    "pkg/__init__.py": "",
    "web/app.ts": "export function main(x: number): number {\n  return x + 1;\n}\n",
    "README.md": "# Ray fixture\n\nThing and helper modules.\n",
    "big.bin": "\x00" * 64,
}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A real local Ray instance, started by the first Ray sync and stopped here."""
    from lazy_intel.service.indexing import ray_executor

    yield
    ray_executor.shutdown()
    assert not ray.is_initialized()


def _build(
    root: Path, env: dict[str, str], state: Path
) -> tuple[tuple[dict[str, Any], list[dict[str, Any]]], int]:
    """(the canonical dump and two answers, the workers that resolved the graph: 0 is the writer)."""
    settings = load_settings(env={"LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_PARSE_WORKERS": "2", **env})
    ws = Workspace.open(root, settings=settings, state_dir=state)
    try:
        report = ws.sync()
        assert report.graph is not None
        resolvers = report.graph.resolve_workers
        with ws.read() as view:
            dump = canonical_dump(view.conn)
        answers = [
            execute({**op, "freshness": "fast"}, lambda _r: ws, settings).to_dict()["items"]
            for op in (
                {"operation": "search", "query": "helper thing run"},
                {"operation": "impact", "symbol": "helper_3", "depth": 3},
            )
        ]
        return (dump, answers), resolvers
    finally:
        ws.close()


@pytest.mark.slow
def test_ray_executor_builds_the_local_executors_store(make_repo, tmp_path: Path, local_ray: None) -> None:
    root = make_repo(FILES)
    local, serial = _build(root, {}, tmp_path / "local")
    distributed, on_ray = _build(root, {"LAZY_INTEL_EXECUTOR": "ray"}, tmp_path / "ray")
    assert ray.is_initialized(), "the sync ran on Ray"
    # 94 files: below the local resolve pool's threshold (the writer resolves), above Ray's
    assert serial == 0 and on_ray == int(ray.cluster_resources()["CPU"]), "Ray tasks resolved the graph"
    assert distributed == local
    assert len(local[0]["files"]) == len(FILES)


@pytest.mark.slow
def test_ray_executor_into_postgresql(make_repo, tmp_path: Path, pg_dsn: str, local_ray: None) -> None:
    """Ray tasks parse and resolve a PostgreSQL build too: they read the staging store's committed
    facts over their own connections, and the store equals the local executor's (PostgreSQL and
    SQLite)."""
    root = make_repo(FILES)
    local, _ = _build(root, {}, tmp_path / "local")
    local_pg, in_writer = _build(root, pg_env(pg_dsn, f"local:{root}"), tmp_path / "local-pg")
    distributed, on_ray = _build(
        root, {**pg_env(pg_dsn, f"ray:{root}"), "LAZY_INTEL_EXECUTOR": "ray"}, tmp_path / "ray-pg"
    )
    assert in_writer == 0 and on_ray == int(ray.cluster_resources()["CPU"]), "Ray tasks resolved the graph"
    assert distributed == local_pg
    assert distributed == local


@pytest.mark.slow
def test_ray_tasks_are_never_sent_the_store_password(
    make_repo, tmp_path: Path, pg_password_dsn: str, local_ray: None
) -> None:
    """A URL's password does not travel in Ray task arguments: the local instance's tasks read it from
    a private password file that is gone after the build; tasks on a cluster (here: the same instance
    under a cluster's address) get no credential, and the build stops with UNAVAILABLE saying why,
    the served generation untouched."""
    assert not {"PGPASSWORD", "PGPASSFILE"} & set(os.environ), (
        "the workers must not find a password elsewhere"
    )
    passfiles = lambda: list(Path(tempfile.gettempdir()).glob("lazy-intel-pg-*.pgpass"))  # noqa: E731
    already = passfiles()
    root = make_repo(FILES)
    env = {**pg_env(pg_password_dsn, f"password:{root}"), "LAZY_INTEL_EXECUTOR": "ray"}
    served, on_ray = _build(root, env, tmp_path / "state")
    assert on_ray == int(ray.cluster_resources()["CPU"]), "Ray tasks resolved the graph"
    assert passfiles() == already, "the password file lives only as long as a phase"

    settings = load_settings(
        env={"LAZY_INTEL_EMBEDDING": "none", **env, "LAZY_INTEL_RAY_ADDRESS": "127.0.0.1:6379"}
    )
    ws = Workspace.open(root, settings=settings, state_dir=tmp_path / "state")
    try:
        with pytest.raises(LazyIntelError) as failed:
            ws.sync(rebuild=True)
        assert failed.value.code == "UNAVAILABLE"
        assert "password is not sent" in (failed.value.next_step or "")
        with ws.read() as view:
            assert canonical_dump(view.conn) == served[0]
    finally:
        ws.close()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_large_incremental_change_resolves_in_ray_tasks(
    tmp_path: Path,
    backend: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    local_ray: None,
) -> None:
    """With the Ray executor a large incremental change resolves in Ray tasks over an overlay of the
    change sent through the object store (not in the local pool, which fails here if it is asked),
    and the store equals the local serial sync's and a clean rebuild's."""
    from lazy_intel.service.indexing import resolve_pool
    from tests.graph.helpers import dump_of
    from tests.service.indexing.test_overlay_resolution import Tree, large_step

    real = resolve_pool.overlay_resolver

    def local_pool(conn: Any, store: Any, runtime: Path, setting: int, **kw: Any) -> Any:
        assert setting == 1, "the local overlay pool was asked with the Ray executor"  # (the serial one)
        return real(conn, store, runtime, setting, **kw)

    monkeypatch.setattr(resolve_pool, "OVERLAY_POOL_MIN_FILES", 1)
    monkeypatch.setattr(resolve_pool, "overlay_resolver", local_pool)
    root = tmp_path / "repo"
    root.mkdir()
    tree = Tree(root)
    rng = random.Random(11)
    env = {"LAZY_INTEL_EMBEDDING": "none", "LAZY_INTEL_EXECUTOR": "ray"}
    if backend == "postgresql":
        env |= pg_env(request.getfixturevalue("pg_dsn"), f"ray-incremental:{root}")
    on_ray = Workspace.open(
        root, settings=load_settings(env=env, parse_workers=2), state_dir=tmp_path / "ray"
    )
    serial = Workspace.open(
        root,
        settings=load_settings(env={"LAZY_INTEL_EMBEDDING": "none"}, parse_workers=1),
        state_dir=tmp_path / "serial",
    )
    try:
        on_ray.sync(rebuild=True)
        serial.sync(rebuild=True)
        for step in range(2):
            cpus = int(ray.cluster_resources()["CPU"])
            _graph, incremental, done = large_step(on_ray, tree, rng, step, workers=cpus, tmp=tmp_path)
            serial.sync()
            assert incremental == dump_of(serial), f"step {step}: {done[:8]}"
    finally:
        on_ray.close()
        serial.close()
    assert not list((tmp_path / "ray" / "runtime").glob("overlay-*")), "nothing is written beside the store"

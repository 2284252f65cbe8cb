"""``status`` leads with one verdict per projection and the next step; ``partial`` while a required
projection is not ready."""

from __future__ import annotations

import re
import sqlite3
import threading
from typing import Any

from lazy_intel.service.indexing import sync as sync_module
from lazy_intel.service.ops.operations import execute
from lazy_intel.service.readiness import VERDICTS
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.journal import KIND_INCREMENTAL, Intent
from tests.faults import WAIT_S

FILES = {f"pkg/m{i:02d}.py": f"def func_{i}(x):\n    return x + {i}\n" for i in range(12)}
PROJECTIONS = ["lexical", "dense", "graph", "semantic"]


def _status(ws: Workspace) -> dict[str, Any]:
    return execute({"operation": "status"}, lambda _r: ws, ws.settings).to_dict()


def test_absent_then_ready_with_the_next_step(make_repo) -> None:
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    try:
        status = _status(ws)
        assert status["status"] == "partial"
        data = status["data"]
        assert next(iter(data)) == "projections", "status leads with the verdicts"
        assert list(data["projections"]) == PROJECTIONS
        assert all(p["verdict"] in VERDICTS for p in data["projections"].values())
        lexical = data["projections"]["lexical"]
        assert lexical["verdict"] == "absent" and lexical["required"] is True
        assert data["next_step"] == f"lexical: run lazy-intel index {root} (serve builds on first use)"
        ws.sync()
        status = _status(ws)
        assert status["status"] == "ok"
        lexical = status["data"]["projections"]["lexical"]
        assert lexical["verdict"] == "ready" and lexical["generation"] == status["view"]["generation"] == 1
        # the graph is built by every sync: its verdict comes from the store
        graph = status["data"]["projections"]["graph"]
        assert graph["verdict"] == "ready" and graph["required"] is True
        # the optional projections are not built in this configuration and do not make status partial
        for name in ("dense", "semantic"):
            assert status["data"]["projections"][name]["verdict"] == "absent"
            assert status["data"]["projections"][name]["required"] is False
        assert status["data"]["next_step"].startswith("ready")
    finally:
        ws.close()


def test_building_reports_its_progress(make_repo, monkeypatch) -> None:
    root = make_repo(FILES)
    gate = threading.Event()
    reached = threading.Event()
    real = sync_module.run_sync

    def paused_mid_parse(*args: Any, **kwargs: Any) -> Any:
        report = kwargs["progress"]

        def progress(stage: str, done: int, total: int) -> None:
            report(stage, done, total)
            if stage == "parse" and done >= 1 and not reached.is_set():
                reached.set()
                assert gate.wait(60), "test gate never opened"

        kwargs["progress"] = progress
        return real(*args, **kwargs)

    monkeypatch.setattr(sync_module, "run_sync", paused_mid_parse)
    ws = Workspace.open(root, settings=load_settings(env={}, parse_workers=1))
    try:
        ws.submit_sync()
        assert reached.wait(WAIT_S), "the build never reached the parse stage"
        status = _status(ws)
        assert status["status"] == "partial"
        lexical = status["data"]["projections"]["lexical"]
        assert lexical["verdict"] == "building", lexical
        progress = lexical["progress"]
        assert progress["stage"] == "parse" and progress["total"] == len(FILES)
        assert 1 <= progress["done"] < progress["total"]
        assert "running_s" in lexical and status["data"]["next_step"].startswith("lexical: wait")
        gate.set()
        assert ws.wait_background(WAIT_S)
        assert _status(ws)["data"]["projections"]["lexical"]["verdict"] == "ready"
    finally:
        gate.set()
        ws.close()


def test_the_graph_verdict_is_computed_from_the_store(make_repo) -> None:
    """Issue 18, class 3: it said ``absent — not built by this version`` while every graph
    operation worked."""
    files = {
        "pkg/a.py": "from pkg.b import helper\n\ndef main():\n    return helper() + missing()\n",
        "pkg/b.py": "def helper():\n    return 1\n",
    }
    root = make_repo(files)
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    try:
        before = _status(ws)["data"]["projections"]["graph"]
        assert before["verdict"] == "absent" and "index" in before["next_step"]
        ws.sync()
        graph = _status(ws)["data"]["projections"]["graph"]
        assert graph["verdict"] == "ready", graph
        with ws.read() as view:
            nodes = view.conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
            edges = view.conn.execute("SELECT count(*) FROM edges").fetchone()[0]
            unresolved = view.conn.execute("SELECT count(*) FROM edges WHERE dst IS NULL").fetchone()[0]
        assert (graph["nodes"], graph["edges"], graph["unresolved_sites"]) == (nodes, edges, unresolved)
        assert graph["nodes"] > 0 and graph["unresolved_sites"] >= 1  # missing() resolves to nothing
        assert graph["resolved_edges"] + graph["name_guessed_edges"] + graph["unresolved_sites"] == edges
        assert graph["files"] == 2
        callers = execute({"operation": "callers", "symbol": "helper"}, lambda _r: ws, ws.settings).to_dict()
        assert callers["status"] == "ok"  # what the verdict promises holds
        # a store written by another resolver: the verdict says so (the next sync rebuilds it)
        path = ws.store_path()
        assert path is not None
        conn = sqlite3.connect(path)
        conn.execute("UPDATE meta SET value='0' WHERE key='resolver_version'")
        conn.commit()
        conn.close()
        stale = _status(ws)["data"]["projections"]["graph"]
        assert stale["verdict"] == "absent" and "resolver version 0" in stale["reason"]
    finally:
        ws.close()


def test_the_counts_are_read_once_per_generation_and_follow_each_publication(make_repo, monkeypatch) -> None:
    """A client polling ``status`` for an edit paid a scan of the edges at every call (~140 ms on
    Django); the counts of a published generation never change, so they are read once."""
    from lazy_intel.service import readiness

    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False))
    counted: list[int] = []
    real = readiness._graph_counts

    def counting(view: Any) -> dict[str, Any]:
        counted.append(view.generation)
        return real(view)

    monkeypatch.setattr(readiness, "_graph_counts", counting)
    try:
        ws.sync()
        first, again = _status(ws)["data"], _status(ws)["data"]
        assert counted == [1] and first["projections"]["graph"] == again["projections"]["graph"]
        assert first["counts"] == again["counts"] and first["counts"]["files"] == len(FILES)
        (root / "pkg/new.py").write_text("def added():\n    return added_too()\n")
        ws.sync()
        after = _status(ws)["data"]
        assert counted == [1, 2]
        assert after["counts"]["files"] == len(FILES) + 1
        with ws.read() as view:
            assert after["projections"]["graph"]["edges"] == real(view)["edges"]
            assert after["projections"]["graph"]["edges"] > first["projections"]["graph"]["edges"]
        after["counts"]["files"] = -1  # each answer has its own copy
        assert _status(ws)["data"]["counts"]["files"] == len(FILES) + 1
    finally:
        ws.close()


ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def _timestamps(value: Any, where: str = "") -> list[tuple[str, Any]]:
    """Every ``*_at`` value in an answer's data, with where it was found."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key.endswith("_at") and not isinstance(inner, dict | list):
                found.append((f"{where}.{key}", inner))
            found.extend(_timestamps(inner, f"{where}.{key}"))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found.extend(_timestamps(inner, f"{where}[{index}]"))
    return found


def test_status_shows_every_timestamp_in_one_format(make_repo) -> None:
    """Issue 18, class 3: ``published_at`` was RFC 3339 while recovery and intents were epoch floats."""
    root = make_repo(FILES)
    ws = Workspace.open(root, settings=load_settings(env={}, auto_index=False, writer_idle_ms=0))
    try:
        ws.sync()
        # an interrupted publication of a dead writer: pending first, then decided by the next sync
        dead = Intent("deadbeef0001", KIND_INCREMENTAL, "stores/none.sqlite", None, "p", 1, 999_999, 1.7e9)
        ws.journal.begin(dead)
        pending = _status(ws)
        assert pending["data"]["projections"]["lexical"]["verdict"] == "needs_recovery"
        ws.sync()
        decided = _status(ws)
        assert "recovery" in decided["data"]
        stamps = _timestamps(pending["data"]) + _timestamps(decided["data"]) + _timestamps(decided["view"])
        names = {where.rsplit(".", 1)[-1] for where, _ in stamps}
        assert {"published_at", "started_at", "decided_at"} <= names, stamps
        for where, stamp in stamps:
            assert isinstance(stamp, str) and ISO_UTC.match(stamp), (where, stamp)
    finally:
        ws.close()


def test_doctor_does_not_warn_about_extras_a_default_install_leaves_out(tmp_path, monkeypatch) -> None:
    from lazy_intel.checks import WARN
    from lazy_intel.service.doctor import embedding_checks

    monkeypatch.delenv("LAZY_INTEL_EMBEDDING", raising=False)
    (check,) = embedding_checks(tmp_path)
    assert check.status != WARN, check
    monkeypatch.setenv("LAZY_INTEL_EMBEDDING", "none")
    (check,) = embedding_checks(tmp_path)
    assert check.status != WARN, check

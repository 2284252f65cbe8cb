"""``status`` leads with one verdict per projection and the next step; ``partial`` while a required
projection is not ready."""

from __future__ import annotations

import threading
from typing import Any

from lazy_intel.service import workspace as workspace_module
from lazy_intel.service.operations import execute
from lazy_intel.service.readiness import VERDICTS
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
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
        # the optional projections are not built in this configuration and do not make status partial
        for name in ("dense", "graph", "semantic"):
            assert status["data"]["projections"][name]["verdict"] == "absent"
            assert status["data"]["projections"][name]["required"] is False
        assert status["data"]["next_step"].startswith("ready")
    finally:
        ws.close()


def test_building_reports_its_progress(make_repo, monkeypatch) -> None:
    root = make_repo(FILES)
    gate = threading.Event()
    reached = threading.Event()
    real = workspace_module.run_sync

    def paused_mid_parse(*args: Any, **kwargs: Any) -> Any:
        report = kwargs["progress"]

        def progress(stage: str, done: int, total: int) -> None:
            report(stage, done, total)
            if stage == "parse" and done >= 1 and not reached.is_set():
                reached.set()
                assert gate.wait(60), "test gate never opened"

        kwargs["progress"] = progress
        return real(*args, **kwargs)

    monkeypatch.setattr(workspace_module, "run_sync", paused_mid_parse)
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

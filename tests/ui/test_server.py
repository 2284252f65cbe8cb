"""The ui server over real HTTP on loopback: who gets in, what each endpoint answers, the event stream."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.ui import server as server_module
from lazy_intel.ui.assets import load_assets
from lazy_intel.ui.backend import UIBackend
from lazy_intel.ui.publication import GenerationWatch
from lazy_intel.ui.server import UIServer
from tests.conftest import write_tree
from tests.faults import run_cli
from tests.ui.conftest import make_shop, start_ui, stop_ui, wait_until


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[UIServer, Workspace]]:
    root = make_shop(tmp_path)
    workspace = Workspace.open(root, settings=load_settings(auto_index=False))
    backend = UIBackend(workspace)
    ui = UIServer(backend, load_assets(), watch=GenerationWatch(backend.generation, poll_s=0.05))
    ui.start()
    yield ui, workspace
    ui.close()
    workspace.close()


def get(ui: UIServer, path: str, *, token: str | None = "", host: str | None = None) -> tuple[int, Any, dict]:
    given = ui.token if token == "" else token
    target = path if given is None else f"{path}{'&' if '?' in path else '?'}token={given}"
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=30)
    headers = {"Host": host} if host is not None else {}
    conn.request("GET", target, headers=headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    kind = response.getheader("Content-Type", "")
    parsed = json.loads(body) if kind.startswith("application/json") else body
    return response.status, parsed, dict(response.getheaders())


def test_every_path_needs_the_token(served: tuple[UIServer, Workspace]) -> None:
    ui, _ = served
    paths = ["/", "/static/app.js", "/static/vis-network.min.js", "/api/view", "/api/events", "/nope"]
    for path in paths:
        for token in (None, "x" * 32, ui.token[:-1], ui.token + "x"):
            status, body, _ = get(ui, path, token=token)
            assert status == 403, (path, token)
            assert body["code"] == "FORBIDDEN"
    status, page, headers = get(ui, "/")
    assert status == 200 and ui.token.encode() in page
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["Cache-Control"] == "no-store" and headers["X-Frame-Options"] == "DENY"
    # the token also works as a header
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=30)
    conn.request("GET", "/api/view", headers={"X-Lazy-Intel-Token": ui.token})
    assert conn.getresponse().status == 200
    conn.close()


def test_the_endpoints_are_the_documented_ones(served: tuple[UIServer, Workspace]) -> None:
    ui, _ = served
    assert (*ui.routes, "/api/events") == server_module.ENDPOINTS


def test_a_foreign_host_name_is_refused(served: tuple[UIServer, Workspace]) -> None:
    ui, _ = served
    assert get(ui, "/api/view", host=f"evil.example:{ui.port}")[0] == 403  # DNS rebinding
    assert get(ui, "/api/view", host=f"localhost:{ui.port}")[0] == 200
    assert get(ui, "/api/view", host=f"127.0.0.1:{ui.port + 1}")[0] == 403


def test_only_loopback_is_listened_on(served: tuple[UIServer, Workspace]) -> None:
    ui, _ = served
    assert ui.httpd.server_address[0] == "127.0.0.1"
    addresses = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    for address in addresses - {"127.0.0.1", "127.0.1.1"}:
        with socket.socket() as s, pytest.raises(OSError):
            s.settimeout(2)
            s.connect((address, ui.port))


def test_endpoints_answer_from_the_published_view(served: tuple[UIServer, Workspace]) -> None:
    ui, _ = served
    status, view, _ = get(ui, "/api/view")
    assert status == 200 and view["generation"] >= 1 and view["name"] == "shop"
    status, arch, _ = get(ui, "/api/architecture")
    assert status == 200 and arch["picture"]["package_cycles"] == [["ring/left", "ring/right"]]
    status, sub, _ = get(ui, "/api/architecture?path=ring")
    assert {n["id"] for n in sub["picture"]["nodes"]} == {"ring/left", "ring/right"}
    status, graph, _ = get(ui, "/api/graph?symbol=clean&path=app/svc.py")
    assert status == 200 and {n["name"] for n in graph["nodes"]} >= {
        "clean",
        "clean_all",
        "norm",
        "test_clean",
    }
    status, missing, _ = get(ui, "/api/graph?symbol=no_such_thing")
    assert status == 404 and missing["code"] == "NOT_FOUND"
    status, bad, _ = get(ui, "/api/graph?symbol=clean&mode=sideways")
    assert status == 400 and bad["code"] == "INVALID_ARGUMENT"
    assert get(ui, "/api/search")[1]["code"] == "INVALID_ARGUMENT"  # q is required
    status, found, _ = get(ui, "/api/search?q=strip")
    assert status == 200 and found["operation"] == "search" and found["items"]


def test_source_is_the_captured_bytes(served: tuple[UIServer, Workspace]) -> None:
    ui, workspace = served
    status, src, _ = get(ui, "/api/source?path=app/util.py")
    assert status == 200 and src["current"] and src["text"] == (workspace.root / "app/util.py").read_text()
    old_sha = src["sha256"]
    (workspace.root / "app/util.py").write_text("def norm(x):\n    return x\n")  # disk moves on …
    again = get(ui, "/api/source?path=app/util.py")[1]
    assert again["sha256"] == old_sha and "strip" in again["text"]  # … the page shows what was captured
    workspace.sync()
    newer = get(ui, f"/api/source?path=app/util.py&sha256={old_sha}")[1]  # an anchor of generation 1
    assert newer["sha256"] != old_sha and newer["current"] and "strip" not in newer["text"]
    assert "no longer in the store" in newer["note"]
    for path in ("../../etc/passwd", "/etc/passwd", "app", "nope.py"):
        status, body, _ = get(ui, f"/api/source?path={path}")
        assert status == 404 and body["code"] == "NOT_FOUND", path


def test_non_utf8_source_is_marked_lossy(tmp_path: Path) -> None:
    root = tmp_path / "latin"
    write_tree(root, {"m.py": "x = 1\n", "legacy.py": b"# caf\xe9\ndef f():\n    return 1\n"})
    workspace = Workspace.open(root, settings=load_settings(auto_index=False))
    try:
        workspace.sync()
        body = UIBackend(workspace).source("legacy.py", None)
        assert body["lossy"] is True and body["text"].startswith("# caf\ufffd")
        assert UIBackend(workspace).source("m.py", None)["lossy"] is False
    finally:
        workspace.close()


def read_event(stream: Any) -> dict[str, Any]:
    lines: list[str] = []
    while True:
        line = stream.readline().decode()
        if line.startswith(":"):
            continue
        if line in ("\n", ""):
            if lines:
                break
            if line == "":
                raise AssertionError("event stream closed")
            continue
        lines.append(line.rstrip("\n"))
    fields = dict(line.split(": ", 1) for line in lines)
    assert fields["event"] == "generation"
    return json.loads(fields["data"])


def test_the_event_stream_announces_each_publication(served: tuple[UIServer, Workspace]) -> None:
    ui, workspace = served
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=30)
    conn.request("GET", f"/api/events?token={ui.token}")
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
    first = read_event(response)
    write_tree(workspace.root, {"app/extra.py": "def more():\n    return 2\n"})
    report = workspace.sync()
    assert report.generation > first["generation"]
    assert read_event(response)["generation"] == report.generation
    conn.close()


def test_head_answers_headers_only(served: tuple[UIServer, Workspace]) -> None:
    ui, _ = served
    for path in ("/", "/api/view", "/api/events"):
        conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=10)
        conn.request("HEAD", f"{path}?token={ui.token}")
        response = conn.getresponse()
        assert response.status == 200 and response.read() == b"", path
        conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=10)
    conn.request("POST", f"/api/view?token={ui.token}", body=b"{}")
    assert conn.getresponse().status == 501  # only GET and HEAD
    conn.close()


def test_event_streams_are_bounded(served: tuple[UIServer, Workspace], monkeypatch) -> None:
    ui, _ = served
    ui.streams = threading.BoundedSemaphore(1)
    held = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=30)
    held.request("GET", f"/api/events?token={ui.token}")
    stream = held.getresponse()
    read_event(stream)
    status, body, _ = get(ui, "/api/events")
    assert status == 503 and body["code"] == "BUSY"
    held.close()
    assert server_module.MAX_STREAMS >= 4


def test_the_ui_process_watches_and_publishes(tmp_path: Path) -> None:
    """Without an index it builds one first; with --watch an edit is published and announced."""
    root = tmp_path / "fresh"
    write_tree(root, {"pkg/a.py": "def a():\n    return 1\n"})
    ui = start_ui(root)  # no index yet, --watch is the default
    try:
        conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=60)
        conn.request("GET", f"/api/events?token={ui.token}")
        stream = conn.getresponse()
        first = read_event(stream)
        assert first["generation"] >= 1
        write_tree(root, {"pkg/b.py": "from pkg.a import a\n\n\ndef b():\n    return a()\n"})
        assert read_event(stream)["generation"] > first["generation"]
        conn.close()
        status, arch = _json(ui.port, f"/api/graph?symbol=a&token={ui.token}")
        assert status == 200 and "b" in {n["name"] for n in arch["nodes"]}
    finally:
        assert stop_ui(ui) == 0


def _json(port: int, target: str) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", target)
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    return response.status, body


def test_a_busy_port_is_a_clear_error(served: tuple[UIServer, Workspace]) -> None:
    ui, workspace = served
    done = run_cli("ui", "--root", str(workspace.root), "--port", str(ui.port), "--no-watch", "--json")
    assert done.returncode == 2
    answer = json.loads(done.stdout)
    assert answer["code"] == "INVALID_ARGUMENT" and str(ui.port) in answer["message"]
    wait_until(lambda: get(ui, "/api/view")[0] == 200, what="the first server still serving")

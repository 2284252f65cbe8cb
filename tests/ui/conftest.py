"""UI fixtures: a small repository, the real ``lazy-intel ui`` process, and Debian's chromium driven
headless by Playwright (never a downloaded browser; ``.ci/ui-install.sh`` installs chromium)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import write_tree
from tests.faults import cli

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT_S = 120.0

# app -> util inside one package; tests depend on app; ring/left and ring/right import each other
FILES = {
    "app/__init__.py": "",
    "app/util.py": "def norm(x):\n    return x.strip()\n\n\ndef shout(x):\n    return norm(x).upper()\n",
    "app/svc.py": (
        "from app.util import norm\n\n\ndef clean(x):\n    return norm(x)\n\n\n"
        "def clean_all(xs):\n    return [clean(x) for x in xs]\n"
    ),
    "ring/left/ping.py": (
        "from ring.right.pong import pong\n\n\ndef ping(n):\n    return pong(n - 1) if n else 0\n"
    ),
    "ring/right/pong.py": (
        "from ring.left.ping import ping\n\n\ndef pong(n):\n    return ping(n - 1) if n else 1\n"
    ),
    "tests/test_svc.py": "from app.svc import clean\n\n\ndef test_clean():\n    assert clean(' a ') == 'a'\n",
}


def answer(root: Path, **args: Any) -> dict[str, Any]:
    """An operation's answer computed in this process (the same operations the ui process runs)."""
    workspace = Workspace.open(root, settings=load_settings(auto_index=False))
    try:
        return execute({"freshness": "fast", **args}, lambda _r: workspace, workspace.settings).to_dict()
    finally:
        workspace.close()


def index(root: Path) -> int:
    workspace = Workspace.open(root, settings=load_settings(auto_index=False))
    try:
        return workspace.sync().generation
    finally:
        workspace.close()


def make_shop(parent: Path) -> Path:
    root = parent / "shop"
    root.mkdir()
    write_tree(root, FILES)
    index(root)
    return root


@pytest.fixture
def ui_repo(tmp_path: Path) -> Path:
    return make_shop(tmp_path)


@dataclass
class UIProcess:
    proc: subprocess.Popen[str]
    url: str
    port: int
    token: str
    root: Path

    def address(self, path: str = "/", token: str | None = "") -> str:
        base = f"http://127.0.0.1:{self.port}{path}"
        given = self.token if token == "" else token
        return base if given is None else f"{base}{'&' if '?' in path else '?'}token={given}"


def start_ui(root: Path, *args: str) -> UIProcess:
    proc = subprocess.Popen(
        [cli(), "ui", "--root", str(root), "--json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LAZY_INTEL_DEBOUNCE_MS": "50"},
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
    line = proc.stdout.readline() if ready else ""
    if not line:
        proc.kill()
        raise AssertionError(f"lazy-intel ui printed no address: {proc.stderr.read() if proc.stderr else ''}")
    info = json.loads(line)
    return UIProcess(proc, info["url"], int(info["port"]), info["token"], Path(info["root"]))


def stop_ui(ui: UIProcess) -> int:
    if ui.proc.poll() is None:
        ui.proc.send_signal(signal.SIGTERM)
    try:
        return ui.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        ui.proc.kill()
        ui.proc.wait(timeout=10)
        raise AssertionError("lazy-intel ui did not stop on SIGTERM") from None
    finally:
        for stream in (ui.proc.stdout, ui.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def ui_server(ui_repo: Path) -> Iterator[UIProcess]:
    """A ui process of its own (for tests that change the repository)."""
    ui = start_ui(ui_repo, "--no-watch")
    yield ui
    assert stop_ui(ui) == 0


@pytest.fixture(scope="module")
def shared_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UIProcess]:
    """One ui process for the tests of a module that only read."""
    ui = start_ui(make_shop(tmp_path_factory.mktemp("ui")), "--no-watch")
    yield ui
    assert stop_ui(ui) == 0


def wait_until(predicate: Callable[[], Any], timeout_s: float = 30.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _browser_missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (.ci/ui-install.sh installs it)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed (the [test] extra)"
    return None


@pytest.fixture(scope="module")
def browser_context() -> Iterator[Any]:
    missing = _browser_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="lazy-intel-chromium-") as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=LAUNCH_FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser_context: Any) -> Iterator[Any]:
    page = browser_context.new_page()
    page.set_default_timeout(30_000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None,
    )
    page.problems = problems
    yield page
    page.close()

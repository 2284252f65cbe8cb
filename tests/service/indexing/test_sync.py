"""The sync pipeline: statuses, incremental publication, and incremental == clean."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lazy_intel.errors import WorkspaceOwned
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect
from tests.conftest import write_tree

BASE_FILES = {
    "pkg/__init__.py": "from .core import Engine\n",
    "pkg/core.py": textwrap.dedent(
        '''
        """Core engine."""
        import os


        class Engine:
            """Runs jobs."""

            retries = 3

            def run(self, job):
                """Run one job."""
                return self.prepare(job).execute()

            def prepare(self, job):
                return job


        def helper(value):
            return Engine().run(value)
        '''
    ).lstrip(),
    "pkg/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
    "web/app.js": "import { clamp } from './util';\nexport function main(x) {\n  return clamp(x, 0, 1);\n}\n",
    "README.md": "# Demo\n\nRetries are configured in pkg/core.py.\n",
}


def settings(**overrides: object):
    return load_settings(env={}, **overrides)


def dump_of(ws: Workspace) -> dict[str, list[tuple[object, ...]]]:
    path = ws.store_path()
    assert path is not None
    conn = connect(str(path), readonly=True)
    try:
        return canonical_dump(conn)
    finally:
        conn.close()


def clean_dump(root: Path, tmp_path: Path) -> dict[str, list[tuple[object, ...]]]:
    state = tmp_path / f"clean-state-{random.random()}"
    ws = Workspace.open(root, settings=settings(), state_dir=state)
    ws.sync(rebuild=True)
    return dump_of(ws)


def test_file_statuses(make_repo) -> None:
    root = make_repo(
        {
            **BASE_FILES,
            "big.py": "x = 1\n" * 400,
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
            "latin1.py": b"def caf\xe9():\n    return 'na\xefve'\n",
            "bundle.min.js": "var a=1;",
        }
    )
    ws = Workspace.open(root, settings=settings(max_file_bytes=1024))
    report = ws.sync()
    assert report.full_rebuild and report.added == 9
    with ws.read() as view:
        status = {f.path: (f.status, f.encoding) for f in view.files()}
        assert status["big.py"][0] == "too-large"
        assert status["image.png"][0] == "binary"
        assert status["bundle.min.js"][0] == "excluded"
        assert status["latin1.py"] == ("indexed", "invalid-utf8")
        assert status["pkg/core.py"] == ("indexed", "utf-8")
        big = view.file("big.py")
        assert (
            big is not None
            and big.sha256 == __import__("hashlib").sha256((root / "big.py").read_bytes()).hexdigest()
        )
        assert view.content(big.sha256) is None  # too-large bytes are hashed, not stored


def test_a_file_that_fails_to_parse_is_recorded_and_does_not_stop_the_index(make_repo, monkeypatch) -> None:
    from lazy_intel.parse.facts import FileFacts
    from lazy_intel.service.indexing import parsing

    real = parsing.extract_facts

    def flaky(path: str, lang: str, data: bytes) -> FileFacts:
        if path == "pkg/util.py":
            return FileFacts(path=path, lang=lang, error="RuntimeError: grammar exploded")
        return real(path, lang, data)

    monkeypatch.setattr(parsing, "extract_facts", flaky)
    root = make_repo(BASE_FILES)
    ws = Workspace.open(root, settings=settings())
    report = ws.sync()
    assert report.parse_errors == 1
    with ws.read() as view:
        util = view.file("pkg/util.py")
        assert util is not None and util.status == "parse-error" and "grammar exploded" in (util.reason or "")
        assert view.symbols_by_qualified("Engine.run")  # the rest was indexed


def test_incremental_sync_reparses_only_changes(make_repo) -> None:
    root = make_repo(BASE_FILES)
    ws = Workspace.open(root, settings=settings())
    first = ws.sync()
    with ws.read() as view:
        util_ids = [s.id for s in view.symbols_by_qualified("clamp")]
    (root / "pkg" / "core.py").write_text(BASE_FILES["pkg/core.py"] + "\n\ndef added():\n    return 1\n")
    (root / "web" / "app.js").unlink()
    (root / "pkg" / "new.py").write_text("def fresh():\n    pass\n")
    second = ws.sync()
    assert (second.added, second.modified, second.removed) == (1, 1, 1)
    assert second.generation == first.generation + 1 and not second.full_rebuild
    with ws.read() as view:
        assert [s.id for s in view.symbols_by_qualified("clamp")] == util_ids  # untouched rows stay
        assert view.symbols_by_qualified("added") and view.symbols_by_qualified("fresh")
        assert view.file("web/app.js") is None
    third = ws.sync()
    assert not third.published and third.generation == second.generation


def _random_edit(root: Path, rng: random.Random, step: int) -> None:
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".lazy-intel" not in p.parts)
    action = rng.choice(["edit", "append", "delete", "rename", "create", "newdir", "touch"])
    target = rng.choice(files) if files else None
    if action == "edit" and target is not None:
        text = target.read_text(encoding="utf-8", errors="replace")
        target.write_text(text.replace("return", f"return  # {step}\n    return", 1))
    elif action == "append" and target is not None:
        with target.open("a") as fh:
            fh.write(f"\n\ndef appended_{step}(a, b):\n    return helper(a) + clamp(b, 0, {step})\n")
    elif action == "delete" and target is not None and len(files) > 2:
        target.unlink()
    elif action == "rename" and target is not None:
        target.rename(target.with_name(f"renamed_{step}{target.suffix}"))
    elif action == "create":
        (root / "pkg" / f"mod_{step}.py").parent.mkdir(exist_ok=True)
        (root / "pkg" / f"mod_{step}.py").write_text(
            f"class K{step}:\n    def m(self):\n        return {step}\n"
        )
    elif action == "newdir":
        write_tree(root, {f"sub_{step}/deep/file_{step}.py": f"def deep_{step}():\n    return {step}\n"})
    elif action == "touch" and target is not None:
        os.utime(target, None)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_equals_clean_after_random_edits(make_repo, tmp_path: Path, seed: int) -> None:
    root = make_repo(BASE_FILES)
    ws = Workspace.open(root, settings=settings())
    ws.sync()
    rng = random.Random(seed)
    for step in range(8):
        for _ in range(rng.randint(1, 3)):
            _random_edit(root, rng, step)
        ws.sync()
        assert dump_of(ws) == clean_dump(root, tmp_path), f"seed {seed} step {step}"


def test_rebuild_switches_store_and_keeps_old_one_for_grace(make_repo) -> None:
    root = make_repo(BASE_FILES)
    ws = Workspace.open(root, settings=settings(store_grace_ms=600_000))
    ws.sync()
    old = ws.store_path()
    ws.sync(rebuild=True)
    new = ws.store_path()
    assert old is not None and new is not None and old != new
    assert old.exists()  # a reader in another process may still use it
    ws_now = Workspace.open(root, settings=settings(store_grace_ms=0))
    ws_now.sync()
    assert not old.exists()


def test_second_writer_gets_workspace_owned_with_pid(make_repo) -> None:
    root = make_repo(BASE_FILES)
    ws = Workspace.open(root, settings=settings(writer_idle_ms=0))  # lock released after each sync
    ws.sync()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, str(os.getpid()).encode()); "
            "print('locked', flush=True); sys.stdin.read()",
            str(ws.state.writer_lock),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(WorkspaceOwned) as caught:
            ws.sync()
        assert caught.value.pid == holder.pid
        assert str(holder.pid) in caught.value.message
        with ws.read() as view:  # reads still work
            assert view.symbols_by_qualified("Engine")
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()
    ws.sync()  # the lock is free again


def test_unreadable_state_dir_is_a_clear_error(make_repo, tmp_path: Path) -> None:
    root = make_repo(BASE_FILES)
    shutil.rmtree(root / ".lazy-intel", ignore_errors=True)
    (root / ".lazy-intel").symlink_to(tmp_path)
    ws = Workspace.open(root, settings=settings())
    from lazy_intel.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="not a real directory"):
        ws.sync()

"""A scoped sync (only the files the watcher saw change) publishes what a full listing would."""

from __future__ import annotations

import os
import random
import textwrap
import time
from pathlib import Path

from lazy_intel.service.indexing.sync import SCOPED_MAX_PATHS, run_sync, scoped_paths
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect
from lazy_intel.workspace.state import StateDir
from tests.conftest import write_tree

MAX_BYTES = 1 << 20


def _files(count: int) -> dict[str, str]:
    files = {"README.md": "# demo\n\nSee app/.\n", "app/__init__.py": "from .m0 import f0\n"}
    for i in range(count):
        files[f"app/m{i}.py"] = textwrap.dedent(
            f"""
            from app.m{(i + 1) % count} import f{(i + 1) % count}


            class C{i}:
                def run(self, x):
                    return f{(i + 1) % count}(x)


            def f{i}(x):
                return C{i}().run(x) if x else {i}
            """
        )
    return files


def _dump(state: StateDir) -> dict[str, list[tuple[object, ...]]]:
    catalog = state.read_catalog()
    assert catalog is not None
    conn = connect(str(state.path / catalog["store"]), readonly=True)
    try:
        return canonical_dump(conn)
    finally:
        conn.close()


def _touch_later(path: Path) -> None:
    """Move the mtime on (the racy-window rule re-hashes fresh files anyway)."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))


def test_scoped_syncs_of_random_edits_equal_full_listings(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    files = _files(8)
    write_tree(root, files)
    full, scoped = StateDir(tmp_path / "full"), StateDir(tmp_path / "scoped")
    for state in (full, scoped):
        run_sync(root, state, max_file_bytes=MAX_BYTES)
    rng = random.Random(7)
    alive = sorted(files)
    for step in range(6):
        changed: list[str] = []
        for rel in rng.sample(alive, 2):
            path = root / rel
            action = rng.choice(["append", "body", "touch", "delete"] if step % 2 else ["append", "body"])
            if action == "append":
                path.write_text(path.read_text() + f"\n\ndef added_{step}():\n    return f0({step})\n")
            elif action == "body":
                path.write_text(path.read_text().replace("return", f"value = {step}\n    return", 1))
            elif action == "touch":
                _touch_later(path)
            else:
                path.unlink()
                alive.remove(rel)
            changed.append(rel)
        listed = run_sync(root, full, max_file_bytes=MAX_BYTES)
        narrowed = run_sync(root, scoped, max_file_bytes=MAX_BYTES, only=tuple(changed))
        assert narrowed.scoped and not listed.scoped
        assert (narrowed.added, narrowed.modified, narrowed.removed, narrowed.unchanged) == (
            listed.added,
            listed.modified,
            listed.removed,
            listed.unchanged,
        )
        assert _dump(scoped) == _dump(full), f"step {step}: {changed}"


def test_a_new_file_an_ignore_file_or_a_directory_needs_the_full_listing(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, {"a.py": "x = 1\n", "pkg/b.py": "y = 2\n", ".gitignore": "*.log\n"})
    published = {"a.py": 1, "pkg/b.py": 1, ".gitignore": 1, "gone.py": 1, "pkg": 1}
    assert scoped_paths(("pkg/b.py", "a.py", "a.py"), published, root) == ("a.py", "pkg/b.py")
    assert scoped_paths(("gone.py",), published, root) == ("gone.py",)  # deleted: removed
    assert scoped_paths(("new.py",), published, root) is None
    assert scoped_paths((".gitignore",), published, root) is None
    assert scoped_paths(("pkg",), published, root) is None
    assert scoped_paths((), published, root) is None
    assert scoped_paths(None, published, root) is None
    many = tuple(f"f{i}.py" for i in range(SCOPED_MAX_PATHS + 1))
    assert scoped_paths(many, dict.fromkeys(many, 1), root) is None
    # a sync given a hint it may not take lists the scope instead: the new file is found
    state = StateDir(tmp_path / "state")
    run_sync(root, state, max_file_bytes=MAX_BYTES)
    (root / "new.py").write_text("z = 3\n")
    report = run_sync(root, state, max_file_bytes=MAX_BYTES, only=("new.py",))
    assert not report.scoped and report.added == 1


def test_the_watching_workspace_syncs_an_edit_of_a_published_file_scoped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(root, _files(4))
    # the watcher records what changed; this test runs the syncs itself (no automatic ones)
    settings = load_settings(env={}, debounce_ms=50, auto_index=False)
    ws = Workspace.open(root, settings=settings, state_dir=tmp_path / "state")
    try:
        ws.sync()
        ws.start_serving()
        assert ws.watcher is not None and ws.watcher.wait_ready(30)
        assert ws.wait_background(30) and not ws.catching_up()  # nothing changed while unwatched
        target = root / "app" / "m1.py"
        target.write_text(target.read_text() + "\n\ndef brand_new():\n    return 1\n")
        deadline = time.monotonic() + 60
        while not ws.tracker.pending(10)[0] and time.monotonic() < deadline:
            time.sleep(0.02)  # bounded: the watcher reports the edit
        assert ws.tracker.pending(10)[0] == ("app/m1.py",)
        report = ws.sync()
        assert report.scoped and report.modified == 1 and report.unchanged == len(_files(4)) - 1
        (root / "app" / "extra.py").write_text("def extra():\n    return 2\n")
        deadline = time.monotonic() + 60
        while "app/extra.py" not in ws.tracker.pending(10)[0] and time.monotonic() < deadline:
            time.sleep(0.02)
        report = ws.sync()
        assert not report.scoped and report.added == 1  # a new file: the scope is listed
    finally:
        ws.close()

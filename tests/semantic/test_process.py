"""A language server's temporary HOME outlives a killed lazy-intel process no longer (session 54).

`/tmp` held dozens of `lazy-intel-lsp-*` directories: a process killed before it reaped its servers
(SIGKILL, a crash, `test_server_dies_with_its_parent` on purpose) never removed their HOMEs. A HOME's
name now carries the pid of the process that made it, and every server start removes this user's
HOMEs whose process is gone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lazy_intel.semantic.process import HOME_PREFIX, new_home, sweep_orphaned_homes


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def _home(base: Path, name: str) -> Path:
    path = base / name
    (path / "cache").mkdir(parents=True)
    (path / "cache" / "file").write_text("x")
    return path


def test_a_home_whose_process_is_gone_is_removed_and_others_are_kept(tmp_path: Path) -> None:
    dead = _home(tmp_path, f"{HOME_PREFIX}{_dead_pid()}-abc")
    live = _home(tmp_path, f"{HOME_PREFIX}{os.getpid()}-def")
    unnamed = _home(tmp_path, f"{HOME_PREFIX}xqthnjly")  # made before names carried a pid
    other = _home(tmp_path, "lazy-intel-other-1-x")
    target = _home(tmp_path, "elsewhere")
    link = tmp_path / f"{HOME_PREFIX}1-link"
    link.symlink_to(target)  # a symbolic link is never followed nor removed
    assert sweep_orphaned_homes(tmp_path) == 1
    assert not dead.exists()
    assert live.exists() and unnamed.exists() and other.exists() and link.is_symlink() and target.exists()
    assert sweep_orphaned_homes(tmp_path) == 0


def test_a_new_home_is_named_after_its_process(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again
    leftover = _home(tmp_path, f"{HOME_PREFIX}{_dead_pid()}-old")
    home = new_home()
    try:
        assert home.parent == tmp_path and home.name.startswith(f"{HOME_PREFIX}{os.getpid()}-")
        assert not leftover.exists()  # swept by the start
    finally:
        home.rmdir()

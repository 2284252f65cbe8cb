"""Tests of the benchmark scripts under bench/ (loaded by path: bench/ is not a package)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str) -> ModuleType:
    """Import ``bench/<name>.py`` as module ``name`` (registered, so dataclasses resolve)."""
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "") == BENCH_DIR / f"{name}.py":
        return loaded  # one module object per script (a sibling's import may have loaded it)
    if str(BENCH_DIR) not in sys.path:  # bench scripts import their sibling modules, as when run
        sys.path.insert(0, str(BENCH_DIR))
    spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def two_commits(root: Path, first: dict[str, str], second: dict[str, str]) -> str:
    """A git repository at ``root`` with ``first`` committed, then ``second`` written over it and
    committed; returns the first commit's id (what a trial reads ``commit:path`` blobs at)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    git("init", "-q")
    for name, text in first.items():
        (root / name).write_text(text)
    git("add", ".")
    git("commit", "-qm", "one")
    commit = git("rev-parse", "HEAD").strip()
    for name, text in second.items():
        (root / name).write_text(text)
    git("commit", "-qam", "two")
    return commit

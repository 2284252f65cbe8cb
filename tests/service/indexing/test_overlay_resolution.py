"""A large incremental change resolved in worker processes (graph/overlay.py) equals the serial sync
and a clean rebuild, and the workers' view of the store is the writer's."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from lazy_intel.graph.build import GraphReport, GraphResolver
from lazy_intel.graph.model import FileModel
from lazy_intel.graph.modules import PathIndex
from lazy_intel.graph.overlay import OverlaidFactStore, write_overlay_file
from lazy_intel.graph.program import FactStore
from lazy_intel.service.indexing import recovery, resolve_pool
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from lazy_intel.store.dump import canonical_dump
from lazy_intel.store.schema import connect
from lazy_intel.workspace.state import StateDir
from tests.conftest import pg_env, write_tree
from tests.graph.helpers import dump_of, rebuilt_dump
from tests.service.indexing.test_parallel_build import MODULES, PACKAGES, _tree

EDITS = ("body", "rename", "remove", "common", "restore")


class Tree:
    """The parallel-build fixture, edited at random in large steps."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.original = _tree()
        self.current = dict(self.original)
        self.clock = 1_700_000_000_000_000_000
        write_tree(root, self.original)

    def step(self, rng: random.Random, share: float) -> list[str]:
        """Edit about ``share`` of the package modules; returns what was done."""
        done = []
        for p in range(PACKAGES):
            for m in range(MODULES):
                if rng.random() >= share:
                    continue
                path = f"pkg{p}/mod{m}.py"
                edit = rng.choice(EDITS)
                text = self.current.get(path) or self.original[path]
                if edit == "body":
                    text = text.replace("limit = ", "limit = 1 + ", 1)
                elif edit == "rename":  # its importers' and callers' targets change
                    text = text.replace(f"def helper_{p}_{m}(", f"def helper_{p}_{m}_v2(")
                elif edit == "common":  # one more definition of a name every module calls
                    text += f"\n\nclass Extra{p}_{m}:\n    def run(self, value):\n        return value\n"
                elif edit == "restore":
                    text = self.original[path]
                self.write(path, None if edit == "remove" else text)
                done.append(f"{path}:{edit}")
        if rng.random() < 0.5:  # a new package that imports from the others
            path = f"pkgnew{rng.randint(0, 3)}.py"
            self.write(
                path,
                f"from pkg{rng.randint(0, PACKAGES - 1)} import *\n\n\ndef go():\n    make_0_0().run(1)\n",
            )
            done.append(f"{path}:add")
        return done

    def write(self, path: str, text: str | None) -> None:
        target = self.root / path
        if text is None:
            target.unlink(missing_ok=True)
            self.current.pop(path, None)
            return
        target.write_text(text, encoding="utf-8")
        self.current[path] = text
        self.clock += 1_000_000_000
        os.utime(target, ns=(self.clock, self.clock))


def large_step(
    ws: Workspace, tree: Tree, rng: random.Random, step: int, *, workers: int, tmp: Path
) -> tuple[GraphReport, dict[str, list[tuple[object, ...]]], list[str]]:
    """One random large change of ``tree`` synced by ``ws``, which must resolve it in ``workers``
    workers (not the writer), and its store checked equal to a clean rebuild: (the sync's graph
    report, the store's dump, what was changed)."""
    done = tree.step(rng, share=0.8)
    report = ws.sync()
    assert report.graph is not None and not report.full_rebuild
    assert report.graph.resolve_workers == workers, f"step {step}: resolved by {report.graph.resolve_workers}"
    with ws.read() as view:
        incremental = canonical_dump(view.conn)
    clean = rebuilt_dump(tree.root, tmp / f"clean-{step}", load_settings(env={}, parse_workers=1))
    assert incremental == clean, f"step {step}: {done[:8]}"
    return report.graph, incremental, done


def _same_reads(writer: sqlite3.Connection, store_file: Path, tmp: Path, changed: Sequence[str]) -> int:
    """Compare every read a resolution can make through the writer's own connection (its
    uncommitted change included) with the workers' overlaid view; returns how many were compared."""
    overlay_file = tmp / "check-overlay.sqlite"
    overlay_file.unlink(missing_ok=True)
    write_overlay_file(writer, overlay_file, changed)
    files = {
        path: lang for path, lang in writer.execute("SELECT path, lang FROM files WHERE lang IS NOT NULL")
    }
    mine = FactStore(writer, PathIndex(files))
    committed = connect(str(store_file), readonly=True)
    overlay = connect(str(overlay_file), readonly=True)
    try:
        theirs = OverlaidFactStore(committed, overlay, frozenset(changed), PathIndex(files))
        compared = 0
        paths = set(files) | set(changed) | {row[0] for row in committed.execute("SELECT path FROM files")}
        for path in sorted(paths):
            assert _model(mine.load_model(path)) == _model(theirs.load_model(path)), path
            assert _model(mine.load_interface(path)) == _model(theirs.load_interface(path)), path
            compared += 2
        names = {row[0] for row in writer.execute("SELECT DISTINCT name FROM nodes")}
        names |= {row[0] for row in committed.execute("SELECT DISTINCT name FROM nodes")}
        for name in sorted(names):
            assert mine.read_named(name) == theirs.read_named(name), name
            compared += 1
        ids = {row[0] for row in writer.execute("SELECT id FROM nodes")}
        ids |= {row[0] for row in committed.execute("SELECT id FROM nodes")}
        for node_id in sorted(ids):
            assert mine.where.read(node_id) == theirs.where.read(node_id), node_id
            compared += 1
        return compared
    finally:
        committed.close()
        overlay.close()


def _model(model: FileModel | None) -> object:
    if model is None:
        return None
    return (
        model.path,
        model.lang,
        model.sha256,
        model.full,
        model.symbols,
        [
            (r.name, r.kind, r.start_byte, r.end_byte, r.line, r.scope, r.callee(), r.args())
            for r in model.refs
        ],
        model.imports,
        [
            (
                f.kind,
                f.scope,
                f.start_byte,
                f.end_byte,
                f.line,
                f.target,
                f.value,
                f.annotation,
                f.condition_path,
            )
            for f in model.flows
        ],
    )


@pytest.mark.parametrize("seed", [5])  # one seed (CI's 20-minute budget); 17 passed as well
def test_a_large_change_resolved_in_workers_equals_the_serial_sync_and_a_rebuild(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resolve_pool, "OVERLAY_POOL_MIN_FILES", 1)
    real = resolve_pool.overlay_resolver
    checked: list[int] = []

    def checking(conn: sqlite3.Connection, store_path: Path, runtime: Path, setting: int, **kw: object):  # type: ignore[no-untyped-def]
        make = real(conn, store_path, runtime, setting, **kw)  # type: ignore[arg-type]

        def check_then_make(changed: Sequence[str], targets: int) -> GraphResolver | None:
            if setting == 2:
                checked.append(_same_reads(conn, store_path, tmp_path, changed))
            return make(changed, targets)

        return check_then_make

    monkeypatch.setattr(resolve_pool, "overlay_resolver", checking)
    root = tmp_path / "repo"
    root.mkdir()
    tree = Tree(root)
    rng = random.Random(seed)
    pooled = Workspace.open(
        root, settings=load_settings(env={}, parse_workers=2), state_dir=tmp_path / "pooled"
    )
    serial = Workspace.open(
        root, settings=load_settings(env={}, parse_workers=1), state_dir=tmp_path / "serial"
    )
    try:
        pooled.sync(rebuild=True)
        serial.sync(rebuild=True)
        for step in range(3):
            graph, incremental, done = large_step(pooled, tree, rng, step, workers=2, tmp=tmp_path)
            serial_report = serial.sync()
            assert serial_report.graph is not None and serial_report.graph.resolve_workers == 0
            assert graph.dependents == serial_report.graph.dependents
            assert incremental == dump_of(serial), f"seed {seed} step {step}: {done[:8]}"
    finally:
        pooled.close()
        serial.close()
    assert len(checked) == 3 and min(checked) > 1000, checked
    assert not list((tmp_path / "pooled" / "runtime").glob("overlay-*")), "the overlay stays behind"


def test_overlays_of_dead_syncs_are_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    names = {
        "live": f"{recovery.OVERLAY_PREFIX}{os.getpid()}-aaaa.sqlite",
        "dead": f"{recovery.OVERLAY_PREFIX}{dead.pid}-bbbb.sqlite",
        "other": "store-x.sqlite",
    }
    for name in names.values():
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / (names["dead"] + "-journal")).write_bytes(b"x")
    recovery.remove_stale_overlays(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([names["live"], names["other"]])
    # recovery's sweep of a state removes them too
    state = StateDir(tmp_path / "state")
    state.ensure()
    (state.runtime / names["dead"]).write_bytes(b"x")
    (state.runtime / names["live"]).write_bytes(b"x")
    recovery.sweep_orphans(state)
    assert sorted(p.name for p in state.runtime.iterdir()) == [names["live"]]


def test_a_large_change_on_postgresql_resolves_in_workers_and_equals_a_rebuild(
    tmp_path: Path, pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers read the live PostgreSQL store's committed rows beside the overlay."""
    monkeypatch.setattr(resolve_pool, "OVERLAY_POOL_MIN_FILES", 1)
    root = tmp_path / "repo"
    root.mkdir()
    tree = Tree(root)
    rng = random.Random(3)
    env = {"LAZY_INTEL_EMBEDDING": "none", **pg_env(pg_dsn)}
    ws = Workspace.open(root, settings=load_settings(env=env, parse_workers=2), state_dir=tmp_path / "pg")
    try:
        ws.sync(rebuild=True)
        for step in range(2):
            large_step(ws, tree, rng, step, workers=2, tmp=tmp_path)
    finally:
        ws.close()
    assert not list((tmp_path / "pg" / "runtime").glob("overlay-*")), "the overlay stays behind"

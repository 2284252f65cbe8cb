"""Recovery of interrupted publications, run by whoever takes the writer lock (DESIGN §4 "Recovery").

Holding the lock means no other writer is alive, so every intent still pending in the journal
belongs to a dead process. Each is decided once:

- a **rebuild** whose store committed, still passes its integrity checks and was built under the
  scope/parser profile a build would use now is **rolled forward**: the catalog is switched to it
  and the store it replaced is stamped retired. Otherwise it is **abandoned**: its store is
  deleted and the catalog, never switched, still names the old view. A rebuild that never
  published but committed batches of files under the profile a build would use now is kept
  **resumable** instead: the next full build continues in its store (:mod:`.resume`).
- an **incremental** publication is one SQLite transaction: if its generation is in the store it
  committed (rolled forward, nothing left to do); if not, SQLite rolled it back (abandoned) and the
  next sync captures the files again. The store is then checked; a store failing a check is rebuilt.

Afterwards every store file that no catalog, pending intent or retirement stamp accounts for is
deleted, with the temporary files of interrupted atomic writes.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from lazy_intel.service.indexing import check_memo
from lazy_intel.service.indexing.resume import resume_problem
from lazy_intel.service.indexing.sync import mark_retired, remove_store_files
from lazy_intel.store.integrity import check_store, store_meta
from lazy_intel.store.journal import (
    ABANDONED,
    KIND_REBUILD,
    ROLLED_FORWARD,
    Decision,
    Intent,
    PublicationJournal,
)
from lazy_intel.store.schema import SCHEMA_VERSION
from lazy_intel.workspace.lock import pid_alive
from lazy_intel.workspace.state import StateDir

logger = logging.getLogger(__name__)

STORE_SUFFIXES = ("", "-wal", "-shm")
ATOMIC_TEMP_PREFIXES = (".catalog.json.", ".publication.journal.", ".recovery.json.")


@dataclass(frozen=True)
class RecoveryResult:
    decisions: tuple[Decision, ...] = ()
    swept: tuple[str, ...] = ()
    needs_rebuild: bool = False
    reasons: tuple[str, ...] = field(default=())


def _catalog_store(state: StateDir) -> str | None:
    catalog = state.read_catalog()
    store = catalog.get("store") if catalog else None
    return store if isinstance(store, str) else None


def _retire(state: StateDir, rel: str | None, keep: str) -> None:
    if not rel or rel == keep:
        return
    path = state.path / rel
    if path.is_file() and not path.with_name(path.name + ".retired").exists():
        mark_retired(path)


def _recover_rebuild(state: StateDir, journal: PublicationJournal, intent: Intent, profile: str) -> Decision:
    target = state.path / intent.store
    current = _catalog_store(state)
    if current == intent.store:
        _retire(state, intent.previous, intent.store)
        return journal.decide(intent, ROLLED_FORWARD, "the catalog had already switched to the rebuilt store")
    reason: str | None = None
    meta = store_meta(target) if target.is_file() else None
    unpublished = meta is None or not meta.get("generation", "0").isdigit() or int(meta["generation"]) < 1
    problem: str | None = None
    if unpublished:
        problem, files = resume_problem(target, profile, state.runtime / check_memo.MEMO_FILE)
        if problem is None:
            return journal.keep_resumable(
                intent,
                f"it had committed {files} files under the current profile; the next full build "
                "continues from them",
            )
    if meta is None:
        detail = f": {problem}" if problem else ""
        reason = f"its store never completed (missing or unreadable{detail})"
    elif unpublished:
        reason = f"its transaction never committed and it cannot be resumed: {problem}"
    elif meta.get("schema_version") != str(SCHEMA_VERSION) or meta.get("scope_digest") != profile:
        reason = "it was built under another scope, parser or schema profile"
    elif current != intent.previous:
        reason = f"the catalog moved on to {current} meanwhile"
    else:
        problems = check_store(target)
        if problems:
            reason = f"its store fails an integrity check: {problems[0].detail}"
    if reason is not None:
        remove_store_files(target)
        return journal.decide(intent, ABANDONED, reason + "; the old view stays and the store was deleted")
    state.write_catalog({"store": intent.store, "schema_version": SCHEMA_VERSION})
    _retire(state, intent.previous, intent.store)
    return journal.decide(intent, ROLLED_FORWARD, "the rebuilt store was complete; the catalog now names it")


def _recover_incremental(state: StateDir, journal: PublicationJournal, intent: Intent) -> Decision:
    meta = store_meta(state.path / intent.store)
    generation = meta.get("generation", "") if meta else ""
    if generation.isdigit() and int(generation) > intent.generation_before:
        return journal.decide(
            intent, ROLLED_FORWARD, f"its transaction had committed (generation {generation})"
        )
    return journal.decide(
        intent,
        ABANDONED,
        f"its transaction never committed; SQLite rolled it back (generation stays {generation or '?'}) "
        "and the next sync captures the files again",
    )


def recover(state: StateDir, profile: str) -> RecoveryResult:
    """Decide every pending intent and sweep orphans. The caller holds the writer lock."""
    journal = PublicationJournal(state.runtime)
    decisions: list[Decision] = []
    reasons: list[str] = []
    needs_rebuild = False
    for intent in journal.pending():
        if intent.kind == KIND_REBUILD:
            decision = _recover_rebuild(state, journal, intent, profile)
        else:
            decision = _recover_incremental(state, journal, intent)
            if decision.decision == ABANDONED:
                live = state.path / intent.store
                problems = check_store(live) if live.is_file() else []
                if problems:
                    needs_rebuild = True
                    reasons.append(f"{intent.store} fails an integrity check: {problems[0].detail}")
        logger.warning(
            "recovered interrupted %s publication %s: %s (%s)",
            intent.kind,
            intent.id,
            decision.decision,
            decision.reason,
        )
        decisions.append(decision)
    swept = sweep_orphans(state)
    return RecoveryResult(tuple(decisions), tuple(swept), needs_rebuild, tuple(reasons))


def sweep_orphans(state: StateDir) -> list[str]:
    """Delete store files nothing accounts for, and leftovers of interrupted atomic writes."""
    if not state.stores.is_dir():
        return []
    keep: set[str] = set()
    current = _catalog_store(state)
    if current:
        keep.add(Path(current).name)
    journal = PublicationJournal(state.runtime)
    keep.update(Path(i.store).name for i in [*journal.pending(), *journal.resumable()])
    removed: list[str] = []
    names = {entry.name for entry in os.scandir(state.stores)}
    for name in sorted(names):
        if name.endswith(".retired"):
            if name[: -len(".retired")] not in names:
                _unlink(state.stores / name)
            continue
        base = name
        for suffix in ("-wal", "-shm"):
            if name.endswith(suffix):
                base = name[: -len(suffix)]
        if base in keep or f"{base}.retired" in names:
            continue
        _unlink(state.stores / name)
        if base == name:
            removed.append(name)
    with contextlib.suppress(OSError):
        remove_stale_overlays(state.runtime)
    for directory in (state.path, state.runtime):
        with contextlib.suppress(OSError):
            for entry in os.scandir(directory):
                if entry.name.startswith(ATOMIC_TEMP_PREFIXES):
                    _unlink(Path(entry.path))
    return removed


# an incremental sync's overlay of its change (graph/overlay.py), in the state's runtime folder:
# ``overlay-<pid>-<random>.sqlite``, removed when its resolution ends
OVERLAY_PREFIX = "overlay-"


def remove_overlay(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


def remove_stale_overlays(runtime: Path) -> None:
    """Remove the overlays of syncs whose process is gone (killed while its workers resolved)."""
    for path in runtime.glob(f"{OVERLAY_PREFIX}*.sqlite"):
        pid = path.name[len(OVERLAY_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not pid_alive(int(pid)):
            remove_overlay(path)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)

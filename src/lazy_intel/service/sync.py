"""The sync pipeline: capture -> diff against the published files -> parse changed files -> publish.

A full rebuild (no store yet, schema or parser change, explicit ``rebuild``) is written into a fresh
store file beside the live one and switched in by replacing the catalog atomically; an incremental
sync is one write transaction on the live store. Either way readers see the old view or the new one.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.parse.languages import parser_fingerprint, parser_versions
from lazy_intel.service.parsing import parse_path
from lazy_intel.store.schema import SCHEMA_VERSION, connect, create_schema, finish_bulk
from lazy_intel.store.writer import ChangeSet, FileRecord, StatRefresh, StoreWriter
from lazy_intel.workspace.capture import STATUS_EXCLUDED, STATUS_TOO_LARGE, PriorStat, capture_all
from lazy_intel.workspace.scope import list_scope, load_policy
from lazy_intel.workspace.state import StateDir

logger = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]

# Below this many files a change set is parsed in-process: starting workers costs more than it saves.
POOL_MIN_FILES = 64
POOL_CHUNKSIZE = 8


@dataclass(frozen=True)
class SyncReport:
    generation: int
    published: bool
    full_rebuild: bool
    added: int
    modified: int
    removed: int
    unchanged: int
    parse_errors: int
    seconds: float
    store: str
    changed_paths: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "generation": self.generation,
            "published": self.published,
            "full_rebuild": self.full_rebuild,
            "added": self.added,
            "modified": self.modified,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "parse_errors": self.parse_errors,
            "seconds": round(self.seconds, 3),
            "store": self.store,
        }


def current_store_path(state: StateDir) -> Path | None:
    catalog = state.read_catalog()
    if not catalog or not isinstance(catalog.get("store"), str):
        return None
    path = state.path / catalog["store"]
    return path if path.is_file() else None


def _store_is_compatible(path: Path) -> bool:
    conn = connect(str(path), readonly=True)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except Exception:
        return False
    finally:
        conn.close()
    return (
        meta.get("schema_version") == str(SCHEMA_VERSION)
        and meta.get("parser_fingerprint") == parser_fingerprint()
    )


def _worker_count(setting: int, jobs: int) -> int:
    if jobs < POOL_MIN_FILES:
        return 1
    wanted = setting if setting > 0 else min(4, os.cpu_count() or 1)
    return max(1, min(wanted, jobs // POOL_MIN_FILES + 1))


def _parse_all(
    root: Path, paths: list[str], max_bytes: int, workers: int, progress: Progress | None
) -> Iterator[FileRecord]:
    total = len(paths)
    if workers <= 1:
        for done, rel in enumerate(paths, 1):
            record = parse_path(str(root), rel, max_bytes)
            if progress:
                progress("parse", done, total)
            if record is not None:
                yield record
        return
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        results = pool.map(
            parse_path, [str(root)] * total, paths, [max_bytes] * total, chunksize=POOL_CHUNKSIZE
        )
        for done, record in enumerate(results, 1):
            if progress:
                progress("parse", done, total)
            if record is not None:
                yield record


def run_sync(
    root: Path,
    state: StateDir,
    *,
    max_file_bytes: int,
    parse_workers: int = 0,
    rebuild: bool = False,
    progress: Progress | None = None,
) -> SyncReport:
    """Bring the store up to date with the disk. The caller holds the writer lock."""
    started = time.monotonic()
    state.ensure()
    policy = load_policy(root)
    fingerprint = parser_fingerprint()
    scope_digest = policy.digest(fingerprint, str(max_file_bytes), str(SCHEMA_VERSION))
    live = current_store_path(state)
    full = rebuild or live is None or not _store_is_compatible(live)
    if full:
        target = state.stores / f"store-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.sqlite"
    else:
        assert live is not None
        target = live
    conn = connect(str(target), bulk=full)
    try:
        if full:
            create_schema(conn)
        priors = {
            path: PriorStat(sha, size, mtime, captured)
            for path, sha, size, mtime, captured in conn.execute(
                "SELECT path, sha256, size, mtime_ns, captured_ns FROM files"
            )
        }
        prior_class = {
            path: _capture_class(status, reason)
            for path, status, reason in conn.execute("SELECT path, status, reason FROM files")
        }
        listing = list_scope(policy)
        capture_started = time.time_ns()
        captured = capture_all(root, listing.paths, max_bytes=max_file_bytes, priors=priors)
        if progress:
            progress("capture", len(captured), len(captured))
        seen = {c.path for c in captured}
        removed = tuple(sorted(p for p in priors if p not in seen))
        added: list[str] = []
        modified: list[str] = []
        refreshes: list[StatRefresh] = []
        for c in captured:
            prior = priors.get(c.path)
            if prior is None:
                added.append(c.path)
                continue
            moved_class = _capture_class(c.status, c.reason) != prior_class.get(c.path)
            if c.sha256 != prior.sha256 or moved_class:
                modified.append(c.path)
            elif c.mtime_ns != prior.mtime_ns:
                refreshes.append(StatRefresh(c.path, c.mtime_ns))
        to_parse = sorted(added + modified)
        workers = _worker_count(parse_workers, len(to_parse))
        parse_errors = 0

        def records() -> Iterator[FileRecord]:
            nonlocal parse_errors
            for record in _parse_all(root, to_parse, max_file_bytes, workers, progress):
                if record.status == "parse-error":
                    parse_errors += 1
                yield record

        meta = {
            "schema_version": str(SCHEMA_VERSION),
            "parser_fingerprint": fingerprint,
            "parser_versions": ";".join(f"{k}={v}" for k, v in sorted(parser_versions().items())),
            "scope_digest": scope_digest,
            "scope_source": listing.source,
            "root": str(root),
        }
        writer = StoreWriter(conn)
        before = writer.generation()
        generation = writer.publish(
            ChangeSet(upserts=records(), removals=removed, refreshes=tuple(refreshes), changes_content=full),
            meta,
            captured_ns=capture_started,
        )
    except BaseException:
        conn.close()
        if full:
            _remove_store_files(target)
        raise
    if full:
        finish_bulk(conn)
    conn.close()
    if full:
        state.write_catalog({"store": f"stores/{target.name}", "schema_version": SCHEMA_VERSION})
        if live is not None and live != target:
            _mark_retired(live)
    return SyncReport(
        generation=generation,
        published=generation != before,
        full_rebuild=full,
        added=len(added),
        modified=len(modified),
        removed=len(removed),
        unchanged=len(captured) - len(added) - len(modified),
        parse_errors=parse_errors,
        seconds=time.monotonic() - started,
        store=target.name,
        changed_paths=tuple(sorted(added + modified + list(removed))),
    )


def _capture_class(status: str, reason: str | None) -> str:
    """What capture alone decides about a file: too large, a symlink, or content to parse."""
    if status == STATUS_TOO_LARGE:
        return "too-large"
    if status == STATUS_EXCLUDED and reason == "symlink":
        return "symlink"
    return "content"


def _remove_store_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


def _mark_retired(path: Path) -> None:
    """Stamp a replaced store; :func:`collect_retired_stores` deletes it after the grace period."""
    marker = path.with_name(path.name + ".retired")
    marker.write_text(str(time.time()))


def collect_retired_stores(state: StateDir, grace_ms: int) -> list[str]:
    """Delete stores replaced more than ``grace_ms`` ago; returns their names."""
    removed: list[str] = []
    now = time.time()
    for marker in state.stores.glob("*.retired"):
        try:
            stamped = float(marker.read_text().strip() or "0")
        except (OSError, ValueError):
            stamped = 0.0
        if (now - stamped) * 1000 >= grace_ms:
            store = marker.with_name(marker.name[: -len(".retired")])
            _remove_store_files(store)
            marker.unlink(missing_ok=True)
            removed.append(store.name)
    return removed

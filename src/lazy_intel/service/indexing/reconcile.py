"""What changed while nobody watched: the catch-up of a ``serve`` that starts watching a published view.

A watcher reports what changes once its watches are in place; what changed before (while no server
ran) only a pass over the whole scope finds. That pass used to be the first sync itself (list the
scope, stat every file, diff against every published row: 2.1-2.2 s at 100k files), and every
watched edit reported meanwhile waited for it. :func:`changed_while_unwatched` is that pass on a
read view, off the sync thread, without the writer lock: it names the files whose capture could
differ from the published record, so the sync that follows captures just those (a scoped sync) —
or says that the scope itself may have moved (new files, a changed ignore policy, another listing
source, too many changes), when only a sync that lists the scope will do.

It decides as capture decides (:func:`lazy_intel.workspace.capture.capture_file`): a file whose
size and mtime match its record, and whose mtime is safely older than the record's capture, keeps
its published hash; a racy one (an mtime within the clock's granularity of its capture) is hashed
again, and named only if its bytes differ; any other difference of the entry is named.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lazy_intel.service.indexing.sync import SCOPED_MAX_PATHS, store_profile
from lazy_intel.workspace.capture import (
    KIND_FILE,
    RACY_WINDOW_NS,
    StatKey,
    capture_file,
    recorded_kind,
    stat_changed,
    stat_key,
)
from lazy_intel.workspace.scope import list_scope, load_policy


@dataclass(frozen=True)
class Unwatched:
    """The catch-up's finding against one published generation."""

    generation: int
    paths: tuple[str, ...]  # published files whose capture could differ (edited, deleted, racy)
    needs_listing: bool  # the scope itself may have moved: only a sync that lists it will do
    reason: str = ""  # why a listing is needed
    files: int = 0  # files listed and compared


PAUSE_EVERY_FILES = 1024


def changed_while_unwatched(
    conn: Any,
    generation: int,
    root: Path,
    max_file_bytes: int,
    *,
    limit: int = SCOPED_MAX_PATHS,
    pause: Callable[[], object] | None = None,
) -> Unwatched:
    """Compare the scope on disk with the published files of ``conn`` (a read view's connection).

    ``pause`` is called between steps (every :data:`PAUSE_EVERY_FILES` files compared, every few
    directories walked): the caller's chance to let a watched edit's sync run without this pass
    sharing the interpreter with it."""
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('scope_digest', 'scope_source')"))
    if meta.get("scope_digest") != store_profile(root, max_file_bytes):
        return Unwatched(generation, (), True, "the scope policy or profile changed")
    listing = list_scope(load_policy(root), pause)
    if meta.get("scope_source", "walk") != listing.source:
        return Unwatched(generation, (), True, f"the scope is listed by {listing.source} now")
    known: dict[str, tuple[StatKey, int, str]] = {
        path: (StatKey(recorded_kind(status, reason), size, mtime), captured_ns or 0, sha or "")
        for path, status, reason, size, mtime, captured_ns, sha in conn.execute(
            "SELECT path, status, reason, size, mtime_ns, captured_ns, sha256 FROM files"
        )
    }
    changed: list[str] = []
    for n, rel in enumerate(listing.paths, 1):
        if pause is not None and n % PAUSE_EVERY_FILES == 0:
            pause()
        recorded = known.pop(rel, None)
        try:
            now = stat_key(os.lstat(os.path.join(root, rel)))
        except OSError:
            now = None  # listed (a tracked file deleted on disk) but gone
        if recorded is None:
            if now is not None:
                return Unwatched(generation, (), True, f"{rel} is new", len(listing.paths))
            continue
        key, captured_ns, sha = recorded
        moved = stat_changed(now, key)
        if not moved and key.kind == KIND_FILE and (captured_ns - key.mtime_ns <= RACY_WINDOW_NS or not sha):
            # capture re-reads a racy record rather than trusting its stat: so does this
            again = capture_file(root, rel, max_bytes=max_file_bytes)
            moved = again is None or again.sha256 != sha
        if moved:
            changed.append(rel)
            if len(changed) > limit:
                return Unwatched(generation, (), True, f"more than {limit} files changed", len(listing.paths))
    for rel in sorted(known):  # published, no longer listed
        if os.path.lexists(os.path.join(root, rel)):  # still on disk (git rm --cached): the listing decides
            return Unwatched(generation, (), True, f"{rel} left the listing", len(listing.paths))
        changed.append(rel)  # deleted: a scoped sync removes it
    if len(changed) > limit:
        return Unwatched(generation, (), True, f"more than {limit} files changed", len(listing.paths))
    return Unwatched(generation, tuple(sorted(changed)), False, "", len(listing.paths))

"""Freshness modes (DESIGN §4): which view an operation reads, and what its answer says about it.

- ``auto``: no view -> ``INDEX_BUILDING`` at once and one background build (never wait for a
  build). A view whose files changed on disk is served marked ``dirty`` with ``dirty_paths`` while a
  background sync catches up.
- ``strict``: sync first (waiting, within the request's time), read, then re-hash every file the
  answer quotes: ``SOURCE_CHANGED`` if one moved during the read. When another process owns
  publication, wait (``LAZY_INTEL_OWNER_WAIT_MS``) until its published view covers the files on disk;
  if it has not caught up by then, answer from the published view, ``partial``, with exactly the
  files it lacks in ``dirty_paths`` and a warning naming the owner.
- ``fast``: the published view as it is; ``dirty`` is what the watcher knows, or ``null`` (not
  checked) without one.

In ``auto`` and ``fast``, within one debounce interval of the last change the watcher reported, more
of that burst may still be held unreported: the view then says ``pending: true`` with
``last_event_ms_ago``, and never ``dirty: false``. Likewise while a starting server's catch-up has not
compared the disk with the view (``catching_up: true``): files changed while nobody watched are not
known yet.

Every answer's ``view`` names the generation it was read from, the mode, and whether it was dirty.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from lazy_intel.errors import IndexBuilding, SourceChanged, StoreCorrupt, Timeout, WorkspaceOwned
from lazy_intel.evidence.model import Answer, View
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import Settings
from lazy_intel.store.reader import ReadView
from lazy_intel.store.schema import SCHEMA_VERSION, UPGRADES_IN_PLACE
from lazy_intel.workspace.capture import read_regular_file

OWNER_POLL_S = 0.1


@dataclass
class Reading:
    """What :func:`reading` hands the operation: the view (if any), its description, warnings."""

    view: ReadView | None
    info: View
    warnings: list[str] = field(default_factory=list)
    behind: bool = False  # strict, but the view lacks files another process has not published yet


def describe(
    view: ReadView | None,
    freshness: str,
    dirty: tuple[str, ...] | None = (),
    repository: Mapping[str, Any] | None = None,
    settling_ms: int | None = None,
    *,
    catching_up: bool = False,
) -> View:
    """``settling_ms``: the watcher reported a change this long ago, under one debounce interval; a
    view with no known dirty path then says ``dirty: null, pending: true`` rather than ``false``.
    ``catching_up``: a starting server has not compared the disk with the view yet (the known dirty
    paths are a lower bound): ``dirty: null, catching_up: true`` rather than ``false``, likewise."""
    if view is None:
        return View(generation=0, published_at=None, freshness=freshness, repository=repository)
    pending = settling_ms is not None
    unknown = pending or catching_up
    return View(
        generation=view.generation,
        published_at=view.published_at,
        freshness=freshness,
        dirty=None if dirty is None or (unknown and not dirty) else bool(dirty),
        dirty_paths=dirty or (),
        repository=repository,
        pending=pending,
        last_event_ms_ago=settling_ms,
        catching_up=catching_up,
    )


def repository_of(workspace: Workspace, freshness: str) -> dict[str, Any]:
    """What ``view.repository`` says: the git binding of the root at this answer."""
    return workspace.repository_binding(fresh=freshness == "strict").to_dict()


def _remaining(deadline: float | None, fallback_s: float) -> float:
    if deadline is None:
        return fallback_s
    return max(0.0, deadline - time.monotonic())


def _index_building(workspace: Workspace, settings: Settings) -> IndexBuilding:
    holder = workspace.lock.live_holder()
    if settings.auto_index:  # one build at a time; retried while another process owns it
        workspace.scheduler.request(unless_running=True)
    if holder is not None and holder != os.getpid():
        return IndexBuilding(
            f"no index for {workspace.root} yet; process {holder} owns publication and is building it",
            next_step="retry in a few seconds (status shows which process builds)",
        )
    building = settings.auto_index and workspace.is_building()
    return IndexBuilding(
        f"no index for {workspace.root} yet; "
        + ("a background build has started" if building else "auto-index is off"),
        next_step="retry in a few seconds (status shows progress)"
        if settings.auto_index
        else f"run lazy-intel index {workspace.root}",
    )


def _outdated(workspace: Workspace, settings: Settings, version: int) -> str:
    """A store of an older schema is served while a sync rebuilds it (or upgrades it in place);
    start that sync (once)."""
    running = settings.auto_index and (
        workspace.scheduler.request(unless_running=True) or workspace.is_building()
    )
    if version in UPGRADES_IN_PLACE:
        return f"the index has store schema {version}, this version uses {SCHEMA_VERSION}; " + (
            "the running sync upgrades it in place (no rebuild) and this answer comes from it as it is"
            if running
            else f"auto-index is off: run lazy-intel index {workspace.root} to upgrade it in place"
        )
    return f"the index was built with store schema {version}, this version uses {SCHEMA_VERSION}; " + (
        "a rebuild is running and this answer comes from the old index until it is published"
        if running
        else f"auto-index is off: run lazy-intel index {workspace.root} to rebuild it"
    )


def strict_sync(
    workspace: Workspace, settings: Settings, deadline: float | None, warnings: list[str]
) -> tuple[str, ...]:
    """Publish the files as they are now (or wait for the owner to), within the request's time.

    Returns the paths the published view has not caught up on: empty when it is current; else the
    files another process that owns publication did not publish within ``LAZY_INTEL_OWNER_WAIT_MS``
    (the answer then comes from the published view, ``partial``, and says which)."""
    fallback_s = settings.timeout_ms / 1000
    try:
        workspace.sync(timeout_s=_remaining(deadline, fallback_s) if deadline is not None else None)
        return ()
    except Timeout:
        raise Timeout(
            f"the strict sync of {workspace.root} did not finish within the request's time; it continues",
            next_step="retry shortly, or use freshness=auto to read the published view",
        ) from None
    except WorkspaceOwned as owned:
        return await_owner(workspace, settings, deadline, warnings, owned.pid)


def await_owner(
    workspace: Workspace,
    settings: Settings,
    deadline: float | None,
    warnings: list[str],
    pid: int | None,
) -> tuple[str, ...]:
    """Wait (bounded) until the published view covers the files on disk while ``pid`` publishes.

    The stat pass runs once per published generation, not per poll; when the owner lets go of the
    lock this process publishes itself."""
    bound = settings.owner_wait_ms / 1000
    end = time.monotonic() + min(bound, _remaining(deadline, bound))
    pause = threading.Event()
    checked: tuple[object, int] | None = None
    dirty: tuple[str, ...] = ()
    generation = 0
    while True:
        if workspace.has_view():
            with workspace.read(deadline=deadline) as view:
                key = (view.store_path, view.generation)
                if key != checked:
                    checked, generation = key, view.generation
                    dirty = workspace.stat_dirty(view)
                    if not dirty:
                        warnings.append(f"published by process {pid}, which owns this workspace")
                        return ()
        holder = workspace.lock.live_holder()
        if holder is None or holder == os.getpid():  # the owner let go: publish ourselves
            try:
                workspace.sync(timeout_s=_remaining(deadline, settings.timeout_ms / 1000))
                return ()
            except WorkspaceOwned as owned:
                pid = owned.pid
            except Timeout:
                raise Timeout(
                    f"the strict sync of {workspace.root} did not finish within the request's time",
                    next_step="retry shortly, or use freshness=auto to read the published view",
                ) from None
        if time.monotonic() >= end:
            break
        pause.wait(OWNER_POLL_S)
    if not workspace.has_view():
        raise IndexBuilding(
            f"no index for {workspace.root} yet; process {pid} owns publication and is building it",
            next_step="retry shortly",
        )
    shown = ", ".join(dirty[:10]) + (
        f" and {len(dirty) - 10}{'+' if len(dirty) >= 50 else ''} more" if len(dirty) > 10 else ""
    )
    warnings.append(
        f"process {pid} owns publication of this workspace and has not published these changed "
        f"file(s) within {bound:g}s (LAZY_INTEL_OWNER_WAIT_MS): {shown}; this answer is from "
        f"generation {generation}, which does not have them"
    )
    return dirty


@contextmanager
def reading(
    workspace: Workspace,
    settings: Settings,
    freshness: str,
    *,
    needs_view: bool,
    dirty_check: bool,
    deadline: float | None,
) -> Iterator[Reading]:
    """Prepare the view an operation reads under ``freshness`` (see the module docstring)."""
    warnings: list[str] = []
    behind: tuple[str, ...] = ()
    if needs_view and freshness == "strict":
        behind = strict_sync(workspace, settings, deadline, warnings)
    repository = repository_of(workspace, freshness)
    if not workspace.has_view():
        if needs_view:
            raise _index_building(workspace, settings)
        yield Reading(None, describe(None, freshness, repository=repository), warnings)
        return
    with ExitStack() as stack:
        try:
            view = stack.enter_context(workspace.read(deadline=deadline))
        except StoreCorrupt as exc:
            if needs_view:
                raise
            # status, verify and the control operations work without the store; they say why
            yield Reading(None, describe(None, freshness, repository=repository), [*warnings, exc.message])
            return
        if view.outdated:
            warnings.append(_outdated(workspace, settings, view.schema_version))
        dirty: tuple[str, ...] | None = ()
        if behind:
            dirty = behind  # strict, and the owner has not published these yet
        elif not dirty_check:
            dirty = ()
        elif freshness == "auto":
            dirty = workspace.dirty_paths(view)
            if dirty:
                running = settings.auto_index and (
                    workspace.start_background_sync() or workspace.is_building()
                )
                warnings.append(
                    f"{len(dirty)}{'+' if len(dirty) >= 50 else ''} file(s) changed since generation "
                    f"{view.generation}" + ("; a sync is running" if running else "")
                )
        elif freshness == "fast":
            dirty = workspace.watched_dirty()
        loose = dirty_check and freshness != "strict"
        settling = workspace.watch_settling() if loose else None
        catching_up = loose and workspace.catching_up()
        yield Reading(
            view,
            describe(view, freshness, dirty, repository, settling, catching_up=catching_up),
            warnings,
            behind=bool(behind),
        )


def touched_changed(workspace: Workspace, answer: Answer, known: tuple[str, ...] = ()) -> list[str]:
    """Paths an answer quoted whose bytes on disk no longer hash to the anchor's hash."""
    moved: list[str] = []
    seen: set[str] = set(known)  # already declared changed (dirty_paths): not news
    for item in answer.items:
        anchor = item.anchor
        if anchor.path in seen or not anchor.sha256:
            continue
        if item.extra and item.extra.get("side") == "old":
            continue  # evidence about a revision's version of the file (changes), not the disk
        seen.add(anchor.path)
        try:
            data = read_regular_file(workspace.root / anchor.path)
        except OSError:
            moved.append(anchor.path)
            continue
        if hashlib.sha256(data).hexdigest() != anchor.sha256:
            moved.append(anchor.path)
    return moved


def check_after_read(workspace: Workspace, freshness: str, answer: Answer) -> None:
    """``strict``: refuse an answer whose quoted files changed while it was being read."""
    if freshness != "strict":
        return
    # files the owner had not published when the read began are named in dirty_paths already
    changed = touched_changed(workspace, answer, tuple(answer.view.dirty_paths))
    if changed:
        raise SourceChanged(
            f"{', '.join(changed[:10])} changed on disk while the answer was read "
            f"(generation {answer.view.generation})",
            next_step="repeat the request",
        )

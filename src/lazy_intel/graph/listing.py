"""The parsed files of the view for a graph update, kept between incremental syncs (issue 15).

Every graph update needs the path index of every parsed file (resolution looks paths, suffixes and
directories up in it). Read from the ``files`` table and built in Python each time, it grows with
the tree, not with the edit (44 ms of SQL alone for two one-file syncs at 15k files). So an
incremental update keeps what it computed, and the next one starts from it, reading only the rows
of the paths its delta names.

What is kept must be exactly what a fresh read would give, including after a publication that
rolled back, or one by another process. Each update writes a new random token into the store's
meta in its own transaction and keeps its listing under that token and the generation the store
reaches when that transaction commits. A later update uses a kept listing only if the store's meta
holds both: a rolled-back transaction left the old token; a publication made without a graph update
(or by a full build, which deletes the token) moved the generation; another process's update wrote
its own token.

A full build writes a new token too, but keeps no listing (its writer's memory is the build's).
So a served store always names a token, and a process that has just opened it can read the listing
of that (token, generation) in a read transaction and keep it (:func:`prime_listing`): the first
edit after ``serve`` starts then reads only its own rows instead of every file's (issue 15). A
(token, generation) pair names one content: the token is written only by the one transaction that
commits at that generation, and every later publication moves the generation.

The same (token, generation) also carries the update's **name table lookups** (``FactStore.named``:
every definition called ``x``): at 100k files one lookup of a common name (``value``, ``data``)
walks 17-28k rows of ``nodes`` by name, 0.1-0.25 s, and the property edges of one edited file asked
dozens of them — most of a watched edit's sync (docs/design/scale.md, "What a watched edit waits
for"). The next update starts from them, less every name a node of one of its changed files had
before or has after (:func:`carried_names`, ``graph/build.py``), so what it reads is what a fresh
lookup would read.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections import OrderedDict
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from lazy_intel.graph.modules import PathIndex
from lazy_intel.parse.languages import is_parsed_language

LISTING_KEY = "graph_listing"  # a meta key; volatile (store/dump.py): it names a transaction
KEPT_LISTINGS = 4  # stores (workspaces) of one process whose last listing is kept
BATCH = 500
_COLUMNS = "SELECT path, lang, size, line_count FROM files WHERE status='indexed' AND lang IS NOT NULL"


@dataclass(frozen=True)
class Listing:
    files: dict[str, str]  # path -> lang, every parsed file (never mutated once kept)
    index: PathIndex
    generation: str  # the store's generation once the update that made it commits
    # name -> definitions as the update's FactStore looked them up (filled while it resolves;
    # read only by the next update of this process's writer)
    names: OrderedDict[str, list[Any]] | None = None


_kept: OrderedDict[str, Listing] = OrderedDict()
_lock = threading.Lock()


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM meta WHERE key IN (?, 'generation')", (LISTING_KEY,)))


def read_listing(
    conn: sqlite3.Connection, changed: Collection[str] | None
) -> tuple[dict[str, str], dict[str, tuple[int, int]], PathIndex]:
    """``(files, sizes, index)`` of the view on ``conn``: every parsed file's language, the
    ``(size, line_count)`` of ``changed`` (of every file for a full build, ``changed`` None), and
    the path index of the files. An incremental update (``changed`` given) starts from the listing
    the last update kept, when the store still holds its token and generation; a full build reads
    everything and keeps nothing (its writer's memory is the build's)."""
    meta = _meta(conn)
    kept = None
    if changed is not None:
        with _lock:
            kept = _kept.get(meta.get(LISTING_KEY, ""))
        if kept is not None and kept.generation != meta.get("generation"):
            kept = None
    sizes: dict[str, tuple[int, int]] = {}
    if kept is None:
        files: dict[str, str] = {}
        for path, lang, size, lines in conn.execute(_COLUMNS):
            if is_parsed_language(lang):
                files[path] = lang
                if changed is None:
                    sizes[path] = (size, lines)
        if changed is not None:
            sizes = _sizes(conn, files, changed)
        return files, sizes, PathIndex(files)
    files = dict(kept.files)
    for path in changed:
        files.pop(path, None)
    for path, lang, size, lines in _rows_of(conn, changed):
        if is_parsed_language(lang):
            files[path] = lang
            sizes[path] = (size, lines)
    index = kept.index if files == kept.files else PathIndex(files)
    return files, sizes, index


def _sizes(
    conn: sqlite3.Connection, files: dict[str, str], changed: Collection[str]
) -> dict[str, tuple[int, int]]:
    return {
        path: (size, lines) for path, _lang, size, lines in _rows_of(conn, [p for p in changed if p in files])
    }


def _rows_of(conn: sqlite3.Connection, paths: Collection[str]) -> Iterator[tuple[str, str, int, int]]:
    """The listing's rows of ``paths`` (those indexed with a language), read in batches."""
    wanted = sorted(set(paths))
    for start in range(0, len(wanted), BATCH):
        batch = wanted[start : start + BATCH]
        yield from conn.execute(f"{_COLUMNS} AND path IN ({', '.join('?' * len(batch))})", batch)


def keep_listing(
    conn: sqlite3.Connection,
    files: dict[str, str],
    index: PathIndex,
    *,
    full: bool,
    names: OrderedDict[str, list[Any]] | None = None,
) -> None:
    """Record a new token in the open transaction and keep this update's listing under it (an
    incremental update; a full build keeps none), with ``names``: the update's name lookups, the
    very dict its FactStore fills."""
    generation = str(int(_meta(conn).get("generation", "0")) + 1)
    token = uuid.uuid4().hex
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (LISTING_KEY, token))
    if not full:
        _keep(token, Listing(files, index, generation, names))


def carried_names(conn: sqlite3.Connection) -> OrderedDict[str, list[Any]] | None:
    """The name lookups the update that made the view on ``conn`` kept (call before
    :func:`keep_listing` writes the next token), or ``None``."""
    meta = _meta(conn)
    with _lock:
        kept = _kept.get(meta.get(LISTING_KEY, ""))
    if kept is None or kept.generation != meta.get("generation"):
        return None
    return kept.names


def prime_listing(conn: sqlite3.Connection) -> bool:
    """Read and keep the listing of the view on ``conn`` (a read transaction of a published store)
    unless one is kept for its token already; False when the store names no token (written by an
    older version) or one is kept. Costs one read of every parsed file's row, once per store."""
    meta = _meta(conn)
    token = meta.get(LISTING_KEY)
    if not token:
        return False
    with _lock:
        kept = _kept.get(token)
    if kept is not None and kept.generation == meta.get("generation"):
        return False
    files = {path: lang for path, lang, _size, _lines in conn.execute(_COLUMNS) if is_parsed_language(lang)}
    _keep(token, Listing(files, PathIndex(files), meta.get("generation", "0")))
    return True


def _keep(token: str, kept: Listing) -> None:
    with _lock:
        _kept[token] = kept
        while len(_kept) > KEPT_LISTINGS:
            _kept.popitem(last=False)


def forget_listings() -> None:
    with _lock:
        _kept.clear()

"""The verdicts of store checks, remembered across processes (``runtime/store-checks.json``).

Before a store is served, each process ran its quick checks once (``PRAGMA quick_check``, counts,
content hashes): seconds on a large store (~45 s on the 11 GB 100k-file store), paid again by every
CLI command and every ``serve`` start. A verdict is kept with the identity of the file it was
reached on (:func:`identity`: device, inode, size, mtime and ctime in ns, a digest of the 100-byte
SQLite header — its file change counter and page count — and the write-ahead log's device, inode,
size and mtime when it holds frames): a process that finds the same identity takes the verdict; any
write to the file or its log (a checkpoint, a truncation, altered bytes, a foreign connection's
transaction) changes the identity and the store is checked again.

**Carried verdicts.** The writer's own publications change the identity too, so without more every
edit made the next process re-check the whole store. The writer therefore carries a clean verdict
over its own sync (:func:`carry`): under the writer lock, it reads the identity the memo vouches for
*before* it writes (:func:`vouched`), and after its sync (connection closed) it records the new
identity as clean — only if the memo still vouched for exactly that identity, so any byte another
hand changed between the check and the write breaks the chain and the next process checks fully.
What a reader then trusts is: the store was fully checked at some identity, and since then only the
lock holder's committed SQLite transactions changed it. That is the trust a process already placed
in its own writes (a store is checked once per file per process, ``service/workspace.py``), now
shared with the next process; ``lazy-intel repair`` still runs the thorough check. An entry records
how many syncs were carried since the last full check (``carried``) and that check's identity.

Losing the memo (or a race between two writers of it) only costs a re-check, so it is written
without fsync.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from lazy_intel.workspace.state import write_json_atomic

MEMO_FILE = "store-checks.json"
KEPT = 8
HEADER_BYTES = 100  # SQLite's database header: page size, file change counter, page count, ...

Identity = list[object]


def _stat(path: Path) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def identity(path: Path) -> Identity | None:
    """What a verdict on ``path`` is bound to; ``None`` when the file cannot be read."""
    stat = _stat(path)
    if stat is None:
        return None
    try:
        with open(path, "rb") as fh:
            header = fh.read(HEADER_BYTES)
    except OSError:
        return None
    wal = _stat(path.with_name(path.name + "-wal"))
    # an empty log holds no frames; a log's ctime is left out: SQLite running as root fchown()s the
    # log each time a connection opens it (os_unix.c, to keep its owner the database's), so every
    # reader of a store whose log holds frames moved it, and a verdict carried over a sync that ran
    # beside a reader (a serve's first edit during its catch-up) did not survive the next read. A
    # log's frames are checksummed in a chain: bytes changed behind an unchanged mtime and size end
    # the chain (SQLite ignores the frames after a bad one) rather than serve damaged pages.
    wal_part = wal[:4] if wal is not None and wal[2] > 0 else None
    return [*stat, hashlib.sha256(header).hexdigest()[:32], wal_part]


def _read(memo: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recall(memo: Path, store: Path) -> str | None:
    """The verdict reached on ``store`` as it is now ('' = may be served), or ``None``."""
    entry = _read(memo).get(store.name)
    now = identity(store)
    if not isinstance(entry, dict) or now is None or entry.get("identity") != now:
        return None
    verdict = entry.get("verdict")
    return verdict if isinstance(verdict, str) else None


def vouched(memo: Path, store: Path) -> Identity | None:
    """``store``'s identity now if the memo holds a clean verdict for exactly it, else ``None``."""
    entry = _read(memo).get(store.name)
    now = identity(store)
    if not isinstance(entry, dict) or now is None or entry.get("identity") != now:
        return None
    return now if entry.get("verdict") == "" else None


def remember(memo: Path, store: Path, verdict: str, *, checked: Identity | None = None) -> None:
    """Record the verdict of a full check of ``store`` as it is now; with ``checked`` (the identity
    read before the check began) only if nothing changed the file while it was checked."""
    now = identity(store)
    if now is not None and (checked is None or checked == now):
        _write(memo, store, {"identity": now, "verdict": verdict, "checked": now, "carried": 0})


def carry(memo: Path, store: Path, before: Identity) -> bool:
    """After the lock holder's sync of ``store``: its clean verdict follows the sync's writes, if
    the memo still vouches for ``before`` (the identity read, clean, before the sync wrote)."""
    entry = _read(memo).get(store.name)
    now = identity(store)
    if not isinstance(entry, dict) or entry.get("identity") != before or entry.get("verdict") != "":
        return False
    if now is None:
        return False
    carried = entry.get("carried")
    _write(
        memo,
        store,
        {
            "identity": now,
            "verdict": "",
            "checked": entry.get("checked", before),
            "carried": (carried if isinstance(carried, int) else 0) + 1,
        },
    )
    return True


def _write(memo: Path, store: Path, entry: dict[str, object]) -> None:
    if not memo.parent.is_dir():
        return
    data = {
        name: kept
        for name, kept in _read(memo).items()
        if name != store.name and (store.parent / name).is_file()
    }
    data[store.name] = entry
    kept = dict(list(data.items())[-KEPT:])
    with contextlib.suppress(OSError):
        write_json_atomic(memo, kept, durable=False)

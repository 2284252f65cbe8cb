"""The verdicts of store checks, remembered across processes (``runtime/store-checks.json``).

Before a store is served, each process ran its quick checks once (``PRAGMA quick_check``, counts,
content hashes): seconds on a large store, paid again by every CLI command. A verdict is now kept
with the identity of the file it was reached on (device, inode, size, mtime and ctime in ns): a
process that finds the same identity takes the verdict; any write to the file (a checkpoint, a
truncation, altered bytes) changes the identity and the store is checked again. A check is exactly
as strong as before for a process that checks; the memo only spares re-checking bytes that did not
change. Losing the memo (or a race between two writers of it) only costs a re-check.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from lazy_intel.workspace.state import write_json_atomic

MEMO_FILE = "store-checks.json"
KEPT = 8


def _identity(path: Path) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _read(memo: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recall(memo: Path, store: Path) -> str | None:
    """The verdict reached on ``store`` as it is now ('' = may be served), or ``None``."""
    entry = _read(memo).get(store.name)
    identity = _identity(store)
    if not isinstance(entry, dict) or identity is None or entry.get("identity") != identity:
        return None
    verdict = entry.get("verdict")
    return verdict if isinstance(verdict, str) else None


def remember(memo: Path, store: Path, verdict: str) -> None:
    identity = _identity(store)
    if identity is None or not memo.parent.is_dir():
        return
    data = {
        name: entry
        for name, entry in _read(memo).items()
        if name != store.name and (store.parent / name).is_file()
    }
    data[store.name] = {"identity": identity, "verdict": verdict}
    kept = dict(list(data.items())[-KEPT:])
    with contextlib.suppress(OSError):
        write_json_atomic(memo, kept)

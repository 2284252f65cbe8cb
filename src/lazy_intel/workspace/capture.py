"""Capture: stat, classify and hash the files in scope (DESIGN §4 "Scope", "Sync").

A file whose size and mtime match the published record, and whose mtime is safely older than that
record's capture, keeps its published hash without being read (the same shortcut git's index takes;
"safely older" avoids the racy-timestamp case of an edit within the clock's granularity).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.parse.languages import language_for_path

STATUS_INDEXED = "indexed"
STATUS_TOO_LARGE = "too-large"
STATUS_BINARY = "binary"
STATUS_EXCLUDED = "excluded"
STATUS_PARSE_ERROR = "parse-error"

ENCODING_UTF8 = "utf-8"
ENCODING_INVALID = "invalid-utf8"

BINARY_SNIFF_BYTES = 8192
RACY_WINDOW_NS = 2_000_000_000


@dataclass(frozen=True)
class PriorStat:
    """What the published view recorded about a file, for the stat shortcut."""

    sha256: str
    size: int
    mtime_ns: int
    captured_ns: int


@dataclass(frozen=True)
class CapturedFile:
    path: str
    sha256: str
    size: int
    mtime_ns: int
    status: str
    lang: str | None
    reason: str | None = None


@dataclass(frozen=True)
class StatKey:
    """What capture records about an entry, as far as ``lstat`` tells without reading it."""

    kind: str  # KIND_FILE | KIND_SYMLINK
    size: int
    mtime_ns: int


KIND_FILE = "file"
KIND_SYMLINK = "symlink"


def stat_key(info: os.stat_result) -> StatKey | None:
    """The record capture would make of an entry with this ``lstat``; ``None`` when it records nothing
    (a directory, a git submodule checkout, a FIFO, a socket, a device)."""
    if stat.S_ISLNK(info.st_mode):
        return StatKey(KIND_SYMLINK, 0, info.st_mtime_ns)
    if stat.S_ISREG(info.st_mode):
        return StatKey(KIND_FILE, info.st_size, info.st_mtime_ns)
    return None


def recorded_kind(status: str, reason: str | None) -> str:
    """The :class:`StatKey` kind of a published file record."""
    return KIND_SYMLINK if status == STATUS_EXCLUDED and reason == "symlink" else KIND_FILE


def stat_changed(now: StatKey | None, recorded: StatKey | None) -> bool:
    """Whether capturing the entry again could change what is published about it.

    Entries capture records nothing of stay unchanged; a symlink is never followed or read, so one
    that is still a symlink is unchanged whatever it points to (its own mtime moves when re-created)."""
    if now is None or recorded is None:
        return now != recorded
    if now.kind != recorded.kind:
        return True
    if now.kind == KIND_SYMLINK:
        return False
    return now.size != recorded.size or now.mtime_ns != recorded.mtime_ns


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def read_regular_file(path: Path) -> bytes:
    """Read a regular file without following a final symlink (O_NOFOLLOW)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        chunks: list[bytes] = []
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                break
            chunks.append(block)
        return b"".join(chunks)
    finally:
        os.close(fd)


def capture_file(
    root: Path, rel: str, *, max_bytes: int, prior: PriorStat | None = None
) -> CapturedFile | None:
    """Classify and hash one file; ``None`` when it vanished or is not a regular file."""
    full = root / rel
    try:
        info = os.lstat(full)
    except OSError:
        return None
    lang = language_for_path(rel)
    key = stat_key(info)
    if key is None:
        return None
    if key.kind == KIND_SYMLINK:
        return CapturedFile(rel, "", 0, info.st_mtime_ns, STATUS_EXCLUDED, lang, "symlink")
    if (
        prior is not None
        and prior.size == info.st_size
        and prior.mtime_ns == info.st_mtime_ns
        and prior.captured_ns - info.st_mtime_ns > RACY_WINDOW_NS
        and prior.sha256
    ):
        sha = prior.sha256
        if info.st_size > max_bytes:
            return CapturedFile(rel, sha, info.st_size, info.st_mtime_ns, STATUS_TOO_LARGE, lang)
        return CapturedFile(rel, sha, info.st_size, info.st_mtime_ns, "", lang)
    try:
        if info.st_size > max_bytes:
            sha = sha256_file(full)
            return CapturedFile(rel, sha, info.st_size, info.st_mtime_ns, STATUS_TOO_LARGE, lang)
        data = read_regular_file(full)
    except OSError:
        return None
    # status "" means "decided when the bytes are parsed" (indexed, binary or parse-error)
    return CapturedFile(rel, sha256_bytes(data), len(data), info.st_mtime_ns, "", lang)


def capture_all(
    root: Path, paths: tuple[str, ...], *, max_bytes: int, priors: Mapping[str, PriorStat]
) -> list[CapturedFile]:
    out: list[CapturedFile] = []
    for rel in paths:
        captured = capture_file(root, rel, max_bytes=max_bytes, prior=priors.get(rel))
        if captured is not None:
            out.append(captured)
    return out

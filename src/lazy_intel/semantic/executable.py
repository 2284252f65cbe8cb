"""Trust checks on operator-named files: the config file and each server executable.

A trusted file is named by an absolute path that is already canonical (no symlink in any
component, no ``..``), is a regular file (not a symlink, device or directory) and, for an
executable, has the execute bit and the reviewed SHA-256. Paths under ``node_modules/.bin`` are
refused outright: that directory belongs to whatever repository installed it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from lazy_intel.errors import InvalidArgument

MAX_EXECUTABLE_BYTES = 2 * 1024 * 1024 * 1024


class TrustError(InvalidArgument):
    """An operator-named file failed a trust check; the message names the file and the check."""


def check_canonical_regular_file(raw: str, *, what: str) -> Path:
    """Return ``raw`` as a Path after proving it is absolute, canonical and a regular file."""
    if not raw or "\x00" in raw:
        raise TrustError(f"{what} {raw!r} is not a usable path")
    path = Path(raw)
    if not path.is_absolute():
        raise TrustError(
            f"{what} {raw} is not an absolute path", next_step="name the file by its absolute path"
        )
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise TrustError(f"{what} {raw} does not exist") from None
    except OSError as exc:
        raise TrustError(f"{what} {raw} cannot be inspected: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise TrustError(
            f"{what} {raw} is a symbolic link",
            next_step=f"name the real file ({os.path.realpath(path)}) after reviewing it",
        )
    if not stat.S_ISREG(info.st_mode):
        raise TrustError(f"{what} {raw} is not a regular file")
    real = os.path.realpath(path)
    if real != os.path.normpath(raw) or os.path.normpath(raw) != raw:
        raise TrustError(
            f"{what} {raw} is not canonical (it resolves to {real})",
            next_step="name the file by its canonical path, without symlinked directories or '..'",
        )
    return path


def sha256_of_file(path: Path) -> str:
    """SHA-256 of a file opened without following a final symlink."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            total = 0
            for block in iter(lambda: handle.read(1 << 20), b""):
                total += len(block)
                if total > MAX_EXECUTABLE_BYTES:
                    raise TrustError(f"{path} is larger than {MAX_EXECUTABLE_BYTES} bytes")
                digest.update(block)
    finally:
        os.close(fd)
    return digest.hexdigest()


def check_executable(raw: str, expected_sha256: str | None, *, what: str = "executable") -> tuple[Path, str]:
    """Verify a server executable; returns its path and actual SHA-256.

    ``expected_sha256`` ``None`` skips only the hash comparison (the caller pins the hash it saw).
    """
    parts = Path(raw).parts
    for index in range(len(parts) - 1):
        if parts[index] == "node_modules" and parts[index + 1] == ".bin":
            raise TrustError(
                f"{what} {raw} lies in a node_modules/.bin directory, which a repository controls",
                next_step="install the server in an operator-managed directory and name its real file",
            )
    path = check_canonical_regular_file(raw, what=what)
    if not os.access(path, os.X_OK):
        raise TrustError(f"{what} {raw} is not executable", next_step=f"chmod +x {raw} after reviewing it")
    actual = sha256_of_file(path)
    if expected_sha256 is not None and actual != expected_sha256:
        raise TrustError(
            f"{what} {raw} has SHA-256 {actual}, not the reviewed {expected_sha256}",
            next_step="review the changed file, then record its new executable_sha256 in the config",
        )
    return path, actual


def is_inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents

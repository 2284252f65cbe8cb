"""Reading and writing a client's config file safely (DESIGN §12).

- The path is resolved, and refused when a symlink on the way leads outside the target
  directory (the project for ``--project``, the client's config home for ``--global``).
- Writes are atomic (temporary file in the same directory, fsync, ``os.replace``) with mode 0600.
- A write is skipped when the file changed since it was read (another program saving it at the
  same moment); the caller recomputes from the new content.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lazy_intel.errors import InvalidArgument

MAX_CONFIG_BYTES = 32 * 1024 * 1024
CONFIG_MODE = 0o600


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def resolve_config_path(path: Path, base: Path) -> Path:
    """The real file ``path`` designates, provided it stays inside ``base`` once links are followed."""
    try:
        base_real = base.resolve(strict=False)
        real = path.resolve(strict=False)
    except (OSError, RuntimeError) as exc:
        raise InvalidArgument(f"cannot resolve config path {path}: {exc}") from None
    if not _is_within(real, base_real):
        raise InvalidArgument(
            f"config path {path} is a symlink (or under one) that points outside {base} (to {real}); refused",
            next_step="replace the link with a real file, or edit that file by hand",
        )
    if real.exists() and not real.is_file():
        raise InvalidArgument(f"config path {real} exists and is not a regular file")
    return real


def read_text(real: Path) -> str | None:
    """Current text, ``None`` when the file does not exist."""
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise InvalidArgument(f"config path {real} is not a regular file")
    if info.st_size > MAX_CONFIG_BYTES:
        raise InvalidArgument(f"config file {real} is larger than {MAX_CONFIG_BYTES} bytes; refused")
    data = real.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(f"config file {real} is not UTF-8 text; refused") from None


def write_text_atomic(real: Path, text: str, *, expected: str | None) -> bool:
    """Replace ``real`` with ``text`` (mode 0600). Returns False, writing nothing, when the file no
    longer holds ``expected`` (``None``: must not exist)."""
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, CONFIG_MODE)
        if read_text(real) != expected:
            os.unlink(tmp)
            return False
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return True


def remove_file(real: Path, *, expected: str) -> bool:
    if read_text(real) != expected:
        return False
    real.unlink()
    return True


@dataclass(frozen=True)
class FileChange:
    """One config file: what it held, what it will hold (``None``: absent) and what was done."""

    path: Path
    kind: str  # "mcp-server" | "hooks"
    before: str | None
    after: str | None

    @property
    def action(self) -> str:
        if self.before == self.after:
            return "unchanged" if self.before is not None else "absent"
        if self.before is None:
            return "created"
        if self.after is None:
            return "deleted"
        return "updated"

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile=name if self.before is not None else "/dev/null",
            tofile=name if self.after is not None else "/dev/null",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
        )

"""The state directory ``<root>/.lazy-intel/`` (or an explicit one) and its layout.

State files never follow symlinks out of the state directory: the directory itself and every
sub-directory we create must be real directories, checked with ``lstat``.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from lazy_intel.errors import InvalidArgument
from lazy_intel.workspace.root import STATE_DIR_NAME


def _ensure_real_dir(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise InvalidArgument(f"state path {path} is not a real directory (symlinks are refused)")


class StateDir:
    """Paths of one workspace's derived state."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_root(cls, root: Path, explicit: Path | None = None) -> StateDir:
        return cls(explicit if explicit is not None else root / STATE_DIR_NAME)

    def exists(self) -> bool:
        return self.path.is_dir() and not self.path.is_symlink()

    def ensure(self) -> None:
        """Create the layout. Fails with a clear error when the root is not writable."""
        try:
            _ensure_real_dir(self.path)
            for sub in ("stores", "runtime"):
                _ensure_real_dir(self.path / sub)
        except PermissionError as exc:
            raise InvalidArgument(
                f"cannot create state directory {self.path}: {exc.strerror}",
                next_step="make the root writable or pass an explicit state directory",
            ) from None
        marker = self.path / ".gitignore"
        if not marker.exists():
            marker.write_text("# lazy-intel derived state\n*\n")

    def subdir(self, name: str) -> Path:
        """A real directory ``<state>/<name>`` (created if missing; a symlink is refused)."""
        _ensure_real_dir(self.path)
        path = self.path / name
        _ensure_real_dir(path)
        return path

    @property
    def catalog(self) -> Path:
        return self.path / "catalog.json"

    @property
    def stores(self) -> Path:
        return self.path / "stores"

    @property
    def runtime(self) -> Path:
        return self.path / "runtime"

    @property
    def writer_lock(self) -> Path:
        return self.runtime / "writer.lock"

    def read_catalog(self) -> dict[str, Any] | None:
        try:
            with open(self.catalog, encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def write_catalog(self, data: dict[str, Any]) -> None:
        write_json_atomic(self.catalog, data)

    def published_store(self) -> Path | None:
        """The store file the catalog names, if it exists."""
        catalog = self.read_catalog()
        if not catalog or not isinstance(catalog.get("store"), str):
            return None
        path = self.path / catalog["store"]
        return path if path.is_file() else None


def write_json_atomic(path: Path, data: dict[str, Any], mode: int = 0o600, *, durable: bool = True) -> None:
    """Write JSON to ``path`` atomically (temp file in the same directory, fsync, ``os.replace``).

    ``durable=False`` skips the fsync: the file is still replaced whole, and survives the death of the
    process (the kernel holds it), but a power cut may leave the old file or an empty one, which
    readers must take as unreadable."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise

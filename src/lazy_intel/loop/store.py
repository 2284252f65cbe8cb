"""The loop's files under ``<root>/.lazy-intel/loop/``: ``loop.json``, the approved ``plan.md``
copy, ``archive/`` of earlier loops and ``sessions/`` of per-agent-session hook state.

State files never follow symlinks out of the state directory: every directory is checked with
``lstat`` and must be a real directory, files are opened with ``O_NOFOLLOW``, and writes go
through a temporary file in the same directory and ``os.replace`` (which replaces a link, never
writes through it). Read-modify-write transitions hold ``loop.lock`` (``flock``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lazy_intel.errors import Busy, GateRefused, InvalidArgument
from lazy_intel.loop.model import LoopRecord
from lazy_intel.workspace.root import STATE_DIR_NAME
from lazy_intel.workspace.state import StateDir, write_json_atomic

LOOP_DIR_NAME = "loop"
LOCK_WAIT_S = 10.0
MAX_STATE_BYTES = 4 * 1024 * 1024
MAX_SESSION_FILES = 200
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _ensure_real_dir(path: Path) -> None:
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except PermissionError as exc:
        raise InvalidArgument(f"cannot create {path}: {exc.strerror}") from None
    if not is_real_dir(path):
        raise InvalidArgument(f"state path {path} is not a real directory (symlinks are refused)")


def read_bytes_nofollow(path: Path, limit: int = MAX_STATE_BYTES) -> bytes | None:
    """The file's bytes, ``None`` if absent; a symlink or an oversized file is refused."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if path.is_symlink():
            raise InvalidArgument(f"state file {path} is a symlink; state files never follow links") from None
        raise InvalidArgument(f"cannot read state file {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InvalidArgument(f"state file {path} is larger than {limit} bytes")
    return data


def write_bytes_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class LoopStore:
    """One workspace's loop state. Construct with the workspace root (not the state dir)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = StateDir.for_root(root)
        self.path = self.state.path / LOOP_DIR_NAME

    @classmethod
    def find(cls, start: Path, *, stop_at: Path | None = None) -> LoopStore | None:
        """The nearest enclosing workspace that has a loop directory; never creates anything."""
        try:
            current = start.resolve()
        except (OSError, RuntimeError):
            return None
        home = stop_at.resolve() if stop_at is not None else None
        for candidate in (current, *current.parents):
            if STATE_DIR_NAME in candidate.parts:
                continue
            store = cls(candidate)
            if is_real_dir(store.state.path) and is_real_dir(store.path):
                return store
            if home is not None and candidate == home:
                break
        return None

    # -- layout ---------------------------------------------------------------------------
    @property
    def loop_file(self) -> Path:
        return self.path / "loop.json"

    @property
    def plan_file(self) -> Path:
        return self.path / "plan.md"

    @property
    def archive_dir(self) -> Path:
        return self.path / "archive"

    @property
    def sessions_dir(self) -> Path:
        return self.path / "sessions"

    def exists(self) -> bool:
        return is_real_dir(self.state.path) and is_real_dir(self.path)

    def ensure(self) -> None:
        self.state.ensure()
        for directory in (self.path, self.archive_dir, self.sessions_dir):
            _ensure_real_dir(directory)

    # -- the loop record ------------------------------------------------------------------
    def load(self) -> LoopRecord | None:
        if not self.exists():
            return None
        data = read_bytes_nofollow(self.loop_file)
        if data is None:
            return None
        try:
            parsed = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise GateRefused(
                f"{self.loop_file} is not valid JSON: {exc}",
                code="LOOP_STATE_CORRUPT",
                next_step="restore it, or `lazy-intel loop register <slug> --replace` to start over",
            ) from None
        return LoopRecord.from_dict(parsed)

    def save(self, record: LoopRecord) -> None:
        self.ensure()
        write_json_atomic(self.loop_file, record.to_dict())

    def save_plan(self, data: bytes) -> None:
        self.ensure()
        write_bytes_atomic(self.plan_file, data)

    def load_plan(self) -> bytes | None:
        return read_bytes_nofollow(self.plan_file) if self.exists() else None

    def archive(self, record: LoopRecord) -> Path:
        self.ensure()
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        target = self.archive_dir / f"{record.slug}-{stamp}-{os.getpid()}.json"
        write_json_atomic(target, record.to_dict())
        return target

    def set_aside_corrupt(self) -> Path | None:
        """Move an unreadable ``loop.json`` into ``archive/`` (kept for inspection, never parsed)."""
        self.ensure()
        if not (self.loop_file.exists() or self.loop_file.is_symlink()):
            return None
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        target = self.archive_dir / f"corrupt-{stamp}-{os.getpid()}.json"
        os.replace(self.loop_file, target)
        return target

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive lock for one read-modify-write transition (bounded wait, then ``BUSY``)."""
        self.ensure()
        lock_path = self.path / "loop.lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
        except OSError as exc:
            raise InvalidArgument(
                f"cannot open lock {lock_path}: {exc.strerror} (state files never follow symlinks)"
            ) from None
        try:
            deadline = time.monotonic() + LOCK_WAIT_S
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise Busy(
                            f"another lazy-intel loop command holds {lock_path}",
                            next_step="retry when it has finished",
                        ) from None
                    time.sleep(0.05)
            yield
        finally:
            os.close(fd)

    # -- per-session hook state -----------------------------------------------------------
    def _session_file(self, session_id: str) -> Path:
        name = hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return self.sessions_dir / f"{name}.json"

    def load_session(self, session_id: str) -> dict[str, Any]:
        if not is_real_dir(self.sessions_dir):
            return {}
        data = read_bytes_nofollow(self._session_file(session_id), limit=256 * 1024)
        if data is None:
            return {}
        try:
            parsed = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return {}
        return parsed if isinstance(parsed, dict) else {}

    def save_session(self, session_id: str, data: dict[str, Any]) -> None:
        """Only inside an existing loop directory: hooks never create ``.lazy-intel/``."""
        if not self.exists():
            return
        _ensure_real_dir(self.sessions_dir)
        write_json_atomic(self._session_file(session_id), data)
        self._prune_sessions()

    def _prune_sessions(self) -> None:
        try:
            files = sorted(self.sessions_dir.glob("*.json"), key=lambda p: p.stat().st_mtime)
        except OSError:
            return
        for old in files[:-MAX_SESSION_FILES]:
            with contextlib.suppress(OSError):
                old.unlink()

"""Canonical workspace roots and containment of request paths (DESIGN §12)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from lazy_intel.errors import InvalidArgument, NotFound

STATE_DIR_NAME = ".lazy-intel"


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def canonical_root(
    raw: str | os.PathLike[str],
    *,
    allowed_roots: Sequence[str] = (),
    deny_roots: Sequence[str] = (),
    home: Path | None = None,
) -> Path:
    """Resolve ``raw`` to a canonical directory and apply the root policy.

    Refused: a path that does not exist or is not a directory, ``/``, the home directory itself,
    anything inside a ``.lazy-intel`` state directory, roots outside ``allowed_roots`` (when set)
    and roots inside ``deny_roots``.
    """
    text = os.fspath(raw)
    if not text or "\x00" in text:
        raise InvalidArgument(f"root {text!r} is not a usable path", next_step="pass an existing directory")
    candidate = Path(text).expanduser()
    try:
        resolved = candidate.resolve(strict=True)
    except FileNotFoundError:
        raise NotFound(f"root {text} does not exist", next_step="pass an existing directory") from None
    except (OSError, RuntimeError) as exc:
        raise InvalidArgument(f"root {text} cannot be resolved: {exc}") from None
    if not resolved.is_dir():
        raise InvalidArgument(f"root {resolved} is not a directory", next_step="pass a directory")
    if resolved == Path(resolved.anchor):
        raise InvalidArgument(
            f"root {resolved} is the filesystem root and is never indexed",
            next_step="pass the directory of one project",
        )
    home_dir = (home or Path.home()).resolve()
    if resolved == home_dir:
        raise InvalidArgument(
            f"root {resolved} is the home directory itself and is never indexed",
            next_step="pass the directory of one project inside it",
        )
    if STATE_DIR_NAME in resolved.parts:
        raise InvalidArgument(f"root {resolved} lies inside a {STATE_DIR_NAME} state directory")
    for denied in deny_roots:
        denied_path = Path(denied).expanduser().resolve()
        if _is_within(resolved, denied_path):
            raise InvalidArgument(
                f"root {resolved} is inside a denied root {denied_path} (LAZY_INTEL_DENY_ROOTS)"
            )
    if allowed_roots:
        allowed = [Path(a).expanduser().resolve() for a in allowed_roots]
        if not any(_is_within(resolved, a) for a in allowed):
            raise InvalidArgument(
                f"root {resolved} is outside the allowed roots (LAZY_INTEL_ALLOWED_ROOTS)",
                next_step="pass a root inside " + ", ".join(str(a) for a in allowed),
            )
    return resolved


def contained_relative_path(root: Path, raw: str) -> str:
    """Normalise a request path to a POSIX path relative to ``root`` that cannot escape it.

    Absolute paths are accepted when they lie inside the root. ``..`` that leaves the root, and a
    symlink that resolves outside it, are refused with ``INVALID_ARGUMENT``.
    """
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise InvalidArgument(f"relativePath {raw!r} is not a usable path")
    candidate = Path(raw)
    if candidate.is_absolute():
        try:
            rel = candidate.resolve(strict=False).relative_to(root)
        except ValueError:
            try:
                rel = candidate.relative_to(root)
            except ValueError:
                raise InvalidArgument(f"path {raw} lies outside the workspace root {root}") from None
        candidate = rel
    parts: list[str] = []
    for part in PurePosixPath(candidate.as_posix()).parts:
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise InvalidArgument(f"path {raw} escapes the workspace root {root}")
            parts.pop()
            continue
        parts.append(part)
    if not parts:
        raise InvalidArgument(f"path {raw!r} names the root itself, not a file")
    rel_text = "/".join(parts)
    full = root / rel_text
    if full.exists() or full.is_symlink():
        try:
            real = full.resolve(strict=False)
        except (OSError, RuntimeError):
            raise InvalidArgument(f"path {raw} cannot be resolved (symlink loop?)") from None
        if not _is_within(real, root):
            raise InvalidArgument(f"path {raw} resolves outside the workspace root {root} through a symlink")
    return rel_text

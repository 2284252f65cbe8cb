"""File URIs to and from workspace-relative paths, with the workspace path policy re-applied.

Every URI a server returns passes through :func:`uri_to_relative`: only ``file:`` URIs without a
host, with valid percent-escapes and no encoded separators or NUL, naming a path whose canonical
form equals its literal form (no symlink, no ``..``, no case confusion) and lies inside the
canonical workspace root, outside its ``.lazy-intel`` state directory. Anything else is rejected
with a reason; the caller drops the item and marks the answer ``partial``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from lazy_intel.workspace.root import STATE_DIR_NAME

_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_FORBIDDEN_ESCAPES = re.compile(r"%(?:2[fF]|5[cC]|00)")
MAX_URI_CHARS = 4096


class UriRejected(ValueError):
    """A URI that does not name a file inside the workspace."""


def path_to_uri(path: Path) -> str:
    return "file://" + quote(path.as_posix(), safe="/:@&=+$,;~!*'()")


def relative_to_uri(root: Path, relative_path: str) -> str:
    return path_to_uri(root / relative_path)


def uri_to_relative(root: Path, uri: str) -> str:
    """The workspace-relative POSIX path ``uri`` names, or :class:`UriRejected`."""
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_CHARS:
        raise UriRejected("missing or oversized URI")
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        raise UriRejected(f"non-file URI scheme {parts.scheme or '(none)'!r}")
    if parts.netloc not in ("", "localhost"):
        raise UriRejected("remote file URI (has a host)")
    if parts.query or parts.fragment:
        raise UriRejected("file URI with a query or fragment")
    if _ESCAPE.search(parts.path) or _FORBIDDEN_ESCAPES.search(parts.path):
        raise UriRejected("invalid or forbidden percent-escape")
    try:
        decoded = unquote(parts.path, errors="strict")
    except UnicodeDecodeError:
        raise UriRejected("percent-escapes that are not UTF-8") from None
    if "\x00" in decoded or not decoded.startswith("/"):
        raise UriRejected("not an absolute path")
    literal = os.path.normpath(decoded)
    if literal != decoded.rstrip("/") and decoded != "/":
        raise UriRejected("path with '.', '..' or repeated separators")
    real = os.path.realpath(literal)
    if real != literal:
        raise UriRejected("path through a symbolic link")
    root_text = str(root)
    if not (real == root_text or real.startswith(root_text.rstrip("/") + "/")):
        raise UriRejected("path outside the workspace")
    relative = real[len(root_text.rstrip("/")) + 1 :]
    if not relative:
        raise UriRejected("the workspace root itself, not a file")
    if relative.split("/")[0] == STATE_DIR_NAME:
        raise UriRejected("path inside the lazy-intel state directory")
    return relative

"""PHP namespaces to directories, from ``composer.json`` (PSR-4), and the rule that maps a fully
qualified class name to the files that may declare it (pure; graph/modules.py ``php_resolve`` looks
the candidates up).

Composer's PSR-4 autoloading (``"autoload": {"psr-4": {"GuzzleHttp\\\\": "src/"}}``, and
``autoload-dev``) is how nearly every PHP project maps namespaces to files: ``GuzzleHttp\\Cookie\\CookieJar``
is ``src/Cookie/CookieJar.php`` below the manifest's directory. A tree without a manifest (or a name
no prefix covers) falls back to the path's trailing segments (``Cookie/CookieJar.php``), at least two
of them when the name has two, so a one-word name does not match any file of that name.
"""

from __future__ import annotations

import json
import posixpath

PHP_AUTOLOAD_TOKEN = "pa:"  # a resolution that read the tree's composer.json files (any of them changed)
MANIFEST_NAME = "composer.json"


def read_psr4(path: str, data: bytes) -> list[tuple[str, str]]:
    """``(namespace prefix without the trailing backslash, directory)`` pairs a composer.json at
    ``path`` declares (``autoload`` and ``autoload-dev``, a prefix may list several directories)."""
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return []
    if not isinstance(manifest, dict):
        return []
    base = posixpath.dirname(path)
    out: list[tuple[str, str]] = []
    for section in ("autoload", "autoload-dev"):
        autoload = manifest.get(section)
        psr4 = autoload.get("psr-4") if isinstance(autoload, dict) else None
        if not isinstance(psr4, dict):
            continue
        for prefix, dirs in psr4.items():
            for directory in [dirs] if isinstance(dirs, str) else dirs if isinstance(dirs, list) else []:
                if isinstance(prefix, str) and isinstance(directory, str):
                    joined = posixpath.normpath(posixpath.join(base, directory)) if directory else base
                    out.append((prefix.strip("\\"), "" if joined == "." else joined))
    return out


def candidate_paths(name: str, psr4: list[tuple[str, str]]) -> list[str]:
    """The paths (without ``.php``) that may declare the fully qualified ``name`` (``A\\B\\C``): under
    every PSR-4 prefix that covers it, the longest prefix first."""
    parts = [p for p in name.strip("\\").split("\\") if p]
    out: list[str] = []
    for prefix, directory in sorted(psr4, key=lambda p: -len(p[0])):
        head = [p for p in prefix.split("\\") if p]
        if parts[: len(head)] == head and len(parts) > len(head):
            out.append(posixpath.join(directory, *parts[len(head) :]))
    return out

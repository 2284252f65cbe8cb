"""Imports of the tree's own JavaScript/TypeScript packages by name (pure): a monorepo's
``import { z } from "zod/v4"`` or ``from "@acme/core/util"`` names a file of the tree when some
``package.json`` of the tree declares that ``name``.

Node's rules, as far as a tree without ``node_modules`` allows: the package's ``exports`` map first
(a string, a conditions object or a subpath map; ``"./*"`` patterns, the longest prefix first); every
target of every condition is a candidate, in the order the package declares them, and the first
that is an indexed file wins (``"@zod/source": "./src/index.ts"`` before ``"import": "./index.js"``,
which only exists once built). Without ``exports``: ``source``, ``module``, ``main``, ``types`` (or
``index``) for the package itself, the path below its directory for a deep import. A declared target
that is a build output (``dist/``, ``lib/``, ``build/``, ``out/`` first) is also tried under ``src/``,
where a monorepo keeps what it builds from; ``.js`` names find their ``.ts`` sources as for any
import (``graph/modules.py``). A ``package.json`` that does not parse, or has no string ``name``,
declares nothing; two declaring one name: the one nearest the root.

A change of any ``package.json`` re-resolves the files whose imports read the packages
(:data:`PACKAGES_TOKEN`).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

MANIFEST = "package.json"
PACKAGES_TOKEN = "pj:"  # a resolution that read the tree's package names (any package.json changed)
ENTRY_FIELDS = ("source", "module", "main", "types", "typings")  # a package without `exports`
BUILD_DIRS = ("dist", "lib", "build", "out")  # declared build outputs also tried under src/


@dataclass(frozen=True)
class WorkspacePackage:
    name: str
    directory: str  # relative to the tree's root ("" at the root)
    exports: tuple[tuple[str, tuple[str, ...]], ...] | None  # subpath ("." / "./x" / "./x/*") -> targets
    entries: tuple[str, ...]  # ENTRY_FIELDS' values, when there is no `exports`


def read_package(path: str, data: bytes) -> WorkspacePackage | None:
    """What the ``package.json`` at ``path`` declares, or None (no name, or not JSON)."""
    try:
        manifest = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("name"), str) or not manifest["name"]:
        return None
    directory = path.rpartition("/")[0]
    exports = manifest.get("exports")
    declared: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    if isinstance(exports, (str, list)) or (isinstance(exports, dict) and not _is_subpath_map(exports)):
        declared = ((".", tuple(_targets(exports))),)
    elif isinstance(exports, dict):
        declared = tuple((key, tuple(_targets(value))) for key, value in exports.items())
    entries = tuple(v for f in ENTRY_FIELDS if isinstance(v := manifest.get(f), str))
    return WorkspacePackage(manifest["name"], directory, declared, entries)


def _is_subpath_map(exports: Mapping[str, object]) -> bool:
    return any(isinstance(k, str) and k.startswith(".") for k in exports)


def _targets(value: object) -> list[str]:
    """Every target string of an ``exports`` value, conditions in their declared order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _targets(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _targets(v)]
    return []  # null: the subpath is not exported


def by_name(packages: Mapping[str, WorkspacePackage]) -> dict[str, WorkspacePackage]:
    """Manifest path -> package, as name -> the package nearest the root (then the first path)."""
    out: dict[str, WorkspacePackage] = {}
    for path in sorted(packages, key=lambda p: (p.count("/"), p)):
        out.setdefault(packages[path].name, packages[path])
    return out


def split_specifier(spec: str) -> tuple[str, str] | None:
    """``"@scope/name/sub/x"`` -> (``"@scope/name"``, ``"./sub/x"``); ``"name"`` -> (``"name"``, ``"."``)."""
    parts = spec.split("/")
    count = 2 if spec.startswith("@") else 1
    if len(parts) < count or not all(parts[:count]) or parts[0] == "@":
        return None
    rest = "/".join(parts[count:])
    return "/".join(parts[:count]), ("./" + rest if rest else ".")


def package_bases(packages: Mapping[str, WorkspacePackage], spec: str) -> list[str]:
    """The paths (with or without extension) a non-relative ``spec`` may name in the tree's own
    packages (``packages``: name -> package, :func:`by_name`), in the order they are tried."""
    split = split_specifier(spec)
    if split is None or split[0] not in packages:
        return []
    package, subpath = packages[split[0]], split[1]
    targets: list[str] = []
    if package.exports is not None:
        exact = dict(package.exports).get(subpath)
        if exact is not None:
            targets = list(exact)
        else:
            for pattern, found in sorted(package.exports, key=lambda item: -len(item[0].split("*", 1)[0])):
                star = _star(pattern, subpath)
                if star is not None:
                    targets = [t.replace("*", star) for t in found]
                    break
    elif subpath == ".":
        targets = [*package.entries, "./index"]
    else:
        targets = [subpath]
    out: list[str] = []
    for target in targets:
        base = posixpath.normpath(posixpath.join(package.directory, target))
        out.append(base)
        first, _, rest = posixpath.relpath(base, package.directory or ".").partition("/")
        if first in BUILD_DIRS and rest:
            out.append(posixpath.normpath(posixpath.join(package.directory, "src", rest)))
    return [p for p in dict.fromkeys(out) if not p.startswith("..") and p != "."]


def _star(pattern: str, subpath: str) -> str | None:
    """What ``*`` stands for when ``subpath`` matches ``pattern``, else None."""
    if "*" not in pattern:
        return None
    prefix, suffix = pattern.split("*", 1)
    if subpath.startswith(prefix) and subpath.endswith(suffix) and len(subpath) >= len(prefix) + len(suffix):
        return subpath[len(prefix) : len(subpath) - len(suffix)]
    return None

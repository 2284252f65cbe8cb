"""Path mapping of TypeScript and JavaScript projects, read off ``tsconfig.json`` / ``jsconfig.json``
(pure): ``compilerOptions.baseUrl`` (``import Button from "components/Button"`` is
``<baseUrl>/components/Button``) and ``compilerOptions.paths`` (``"@app/*": ["src/app/*"]``).

The nearest ``tsconfig.json`` / ``jsconfig.json`` whose directory holds the importing file applies;
its ``paths`` patterns are tried longest prefix first, as the TypeScript compiler does, then
``baseUrl``. The file is JSON with comments and trailing commas (JSONC); one that does not parse maps
nothing.

A config's ``extends`` (a string or, since TypeScript 5.0, a list; later entries win) is followed
within the tree, as the compiler does: the options a config does not declare come from what it
extends; an inherited ``baseUrl`` stays relative to the config that declared it, and inherited
``paths`` resolve against that ``baseUrl`` or, without one, against the directory of the config that
declared them. Only configs named ``tsconfig*.json`` / ``jsconfig*.json`` are read as bases (the
usual ``tsconfig.base.json``, ``tsconfig.app.json``): a change of any of them is what re-resolves
the files that read the mappings (``TS_CONFIGS_TOKEN``; a base named otherwise would be read without
anything noticing its change). A package base (``"@tsconfig/node18/tsconfig.json"``, under
``node_modules``) maps nothing here; cycles and chains deeper than :data:`MAX_EXTENDS` stop.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

CONFIG_NAMES = frozenset({"tsconfig.json", "jsconfig.json"})  # the configs that apply to a directory
TS_CONFIGS_TOKEN = "tc:"  # a resolution that read the path mappings (any config changed: re-resolve)
MAX_EXTENDS = 8  # configs followed through ``extends`` from one config
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)


def is_config_name(name: str) -> bool:
    """A file name read as a config or a base: ``tsconfig*.json`` / ``jsconfig*.json``."""
    return name.endswith(".json") and (name.startswith("tsconfig") or name.startswith("jsconfig"))


@dataclass(frozen=True)
class ConfigFile:
    """What one config file declares: what it extends, and the options it sets itself (None: not
    declared, so inherited)."""

    path: str
    extends: tuple[str, ...]
    base_url: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...] | None


@dataclass(frozen=True)
class PathMapping:
    directory: str  # the applying config's directory ("" at the tree's root)
    base_url: str | None  # the baseUrl directory, relative to the tree's root (None: none declared)
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> replacements
    paths_root: str  # what ``paths`` resolve against without a baseUrl: the declaring config's directory


def strip_jsonc(text: str) -> str:
    """``text`` without comments and trailing commas (string literals kept as they are)."""
    return _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def read_config_file(path: str, data: bytes) -> ConfigFile | None:
    """What the config at ``path`` declares, or ``None`` when it does not parse as an object."""
    try:
        config = json.loads(strip_jsonc(data.decode("utf-8", "replace")))
    except ValueError:
        return None
    if not isinstance(config, dict):
        return None
    raw_extends = config.get("extends")
    extends = (raw_extends,) if isinstance(raw_extends, str) else raw_extends
    extends = tuple(e for e in extends if isinstance(e, str)) if isinstance(extends, list | tuple) else ()
    options = config.get("compilerOptions")
    options = options if isinstance(options, dict) else {}
    base_url = options.get("baseUrl")
    raw_paths = options.get("paths")
    paths = (
        tuple(
            (pattern, tuple(r for r in targets if isinstance(r, str)))
            for pattern, targets in raw_paths.items()
            if isinstance(pattern, str) and isinstance(targets, list)
        )
        if isinstance(raw_paths, dict)
        else None
    )
    return ConfigFile(path, extends, base_url if isinstance(base_url, str) else None, paths)


def _extended(config: ConfigFile, spec: str, files: Mapping[str, ConfigFile]) -> ConfigFile | None:
    """The config ``spec`` names from ``config`` (a relative path, ``.json`` optional), if the tree has it."""
    if not spec.startswith(("./", "../")):
        return None  # a package under node_modules
    base = posixpath.normpath(posixpath.join(posixpath.dirname(config.path), spec))
    for candidate in (base, base + ".json"):
        if candidate in files:
            return files[candidate]
    return None


def _chain(config: ConfigFile, files: Mapping[str, ConfigFile]) -> list[ConfigFile]:
    """``config`` and what it extends, strongest first (its own options, then its later bases)."""
    out: list[ConfigFile] = []
    seen: set[str] = set()

    def visit(current: ConfigFile) -> None:
        if current.path in seen or len(seen) >= MAX_EXTENDS:
            return
        seen.add(current.path)
        out.append(current)
        for spec in reversed(current.extends):  # later entries win
            base = _extended(current, spec, files)
            if base is not None:
                visit(base)

    visit(config)
    return out


def effective_mappings(files: Mapping[str, ConfigFile]) -> dict[str, PathMapping]:
    """The directory of every applying config (``CONFIG_NAMES``) -> the path mapping it declares or
    inherits (none: not in the result)."""
    out: dict[str, PathMapping] = {}
    for path, config in files.items():
        directory, _, name = path.rpartition("/")
        if name not in CONFIG_NAMES:
            continue
        chain = _chain(config, files)
        with_base = next((c for c in chain if c.base_url is not None), None)
        with_paths = next((c for c in chain if c.paths is not None), None)
        if with_base is None and not (with_paths and with_paths.paths):
            continue
        base_url = (
            posixpath.normpath(posixpath.join(posixpath.dirname(with_base.path), with_base.base_url or ""))
            if with_base is not None
            else None
        )
        paths = with_paths.paths or () if with_paths is not None else ()
        root = posixpath.dirname(with_paths.path) if with_paths is not None else directory
        out[directory] = PathMapping(directory, "" if base_url == "." else base_url, paths, root)
    return out


def mapped_bases(configs: dict[str, PathMapping], importer: str, spec: str) -> list[str]:
    """The paths (without extension) a non-relative ``spec`` may name under the nearest config of
    ``importer``, in the order the compiler tries them."""
    holders = [d for d in configs if not d or importer.startswith(d + "/")]
    if not holders:
        return []
    mapping = configs[max(holders, key=len)]
    root = mapping.base_url if mapping.base_url is not None else mapping.paths_root
    out: list[str] = []
    for pattern, targets in sorted(mapping.paths, key=lambda item: -len(item[0].split("*", 1)[0])):
        star = _match(pattern, spec)
        if star is not None:
            out += [posixpath.join(root, target.replace("*", star, 1)) for target in targets]
    if mapping.base_url is not None:
        out.append(posixpath.join(mapping.base_url, spec))
    return [p for p in (posixpath.normpath(b) for b in out) if not p.startswith("..") and p != "."]


def _match(pattern: str, spec: str) -> str | None:
    """What ``*`` stands for when ``spec`` matches ``pattern`` ("" for an exact pattern), else None."""
    if "*" not in pattern:
        return "" if pattern == spec else None
    prefix, suffix = pattern.split("*", 1)
    if spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix) + len(suffix):
        return spec[len(prefix) : len(spec) - len(suffix)]
    return None

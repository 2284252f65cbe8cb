"""Path mapping of TypeScript and JavaScript projects, read off ``tsconfig.json`` / ``jsconfig.json``
(pure): ``compilerOptions.baseUrl`` (``import Button from "components/Button"`` is
``<baseUrl>/components/Button``) and ``compilerOptions.paths`` (``"@app/*": ["src/app/*"]``).

The nearest config whose directory holds the importing file applies; its ``paths`` patterns are tried
longest prefix first, as the TypeScript compiler does, then ``baseUrl``. A config's ``extends`` is not
followed. The file is JSON with comments and trailing commas (JSONC); one that does not parse maps
nothing.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass

CONFIG_NAMES = frozenset({"tsconfig.json", "jsconfig.json"})
TS_CONFIGS_TOKEN = "tc:"  # a resolution that read the path mappings (any config changed: re-resolve)
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.DOTALL)


@dataclass(frozen=True)
class PathMapping:
    directory: str  # the config's directory ("" at the tree's root)
    base_url: str | None  # relative to ``directory``
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> replacements


def strip_jsonc(text: str) -> str:
    """``text`` without comments and trailing commas (string literals kept as they are)."""
    return _JSONC.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def parse_config(directory: str, data: bytes) -> PathMapping | None:
    """The path mapping a config declares, or ``None`` when it declares none (or does not parse)."""
    try:
        config = json.loads(strip_jsonc(data.decode("utf-8", "replace")))
    except ValueError:
        return None
    options = config.get("compilerOptions") if isinstance(config, dict) else None
    if not isinstance(options, dict):
        return None
    base_url = options.get("baseUrl")
    raw_paths = options.get("paths")
    paths = tuple(
        (pattern, tuple(r for r in targets if isinstance(r, str)))
        for pattern, targets in (raw_paths.items() if isinstance(raw_paths, dict) else ())
        if isinstance(pattern, str) and isinstance(targets, list)
    )
    if not isinstance(base_url, str) and not paths:
        return None
    return PathMapping(directory, base_url if isinstance(base_url, str) else None, paths)


def mapped_bases(configs: dict[str, PathMapping], importer: str, spec: str) -> list[str]:
    """The paths (without extension) a non-relative ``spec`` may name under the nearest config of
    ``importer``, in the order the compiler tries them."""
    holders = [d for d in configs if not d or importer.startswith(d + "/")]
    if not holders:
        return []
    mapping = configs[max(holders, key=len)]
    root = posixpath.join(mapping.directory, mapping.base_url or "")
    out: list[str] = []
    for pattern, targets in sorted(mapping.paths, key=lambda item: -len(item[0].split("*", 1)[0])):
        star = _match(pattern, spec)
        if star is not None:
            out += [posixpath.join(root, target.replace("*", star, 1)) for target in targets]
    if mapping.base_url is not None:
        out.append(posixpath.join(root, spec))
    return [p for p in (posixpath.normpath(b) for b in out) if not p.startswith("..") and p != "."]


def _match(pattern: str, spec: str) -> str | None:
    """What ``*`` stands for when ``spec`` matches ``pattern`` ("" for an exact pattern), else None."""
    if "*" not in pattern:
        return "" if pattern == spec else None
    prefix, suffix = pattern.split("*", 1)
    if spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix) + len(suffix):
        return spec[len(prefix) : len(spec) - len(suffix)]
    return None

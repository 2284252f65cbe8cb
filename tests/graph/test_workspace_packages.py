"""Imports of the tree's own JavaScript/TypeScript packages by name (graph/workspace_packages.py, pure)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.graph.workspace_packages import (
    WorkspacePackage,
    by_name,
    package_bases,
    read_package,
    split_specifier,
)


def _packages(manifests: dict[str, object]) -> dict[str, WorkspacePackage]:
    read = {p: read_package(p, json.dumps(m).encode()) for p, m in manifests.items()}
    return by_name({p: pkg for p, pkg in read.items() if pkg is not None})


def test_what_a_manifest_declares() -> None:
    assert read_package("package.json", b"{ not json") is None
    assert read_package("package.json", b"[]") is None
    assert read_package("a/package.json", b'{"version": "1"}') is None  # no name: declares nothing
    assert read_package("a/package.json", b'{"name": ""}') is None
    assert read_package("a/package.json", b"\xff\xfe") is None
    plain = read_package("libs/a/package.json", b'{"name": "a", "main": "lib/a.js", "types": 3}')
    assert plain == WorkspacePackage("a", "libs/a", None, ("lib/a.js",))
    sugar = read_package("package.json", b'{"name": "b", "exports": "./src/b.ts"}')
    assert sugar is not None and sugar.directory == "" and sugar.exports == ((".", ("./src/b.ts",)),)
    conditions = read_package(
        "package.json", b'{"name": "c", "exports": {"import": "./c.js", "types": "./c.d.ts"}}'
    )
    assert conditions is not None and conditions.exports == ((".", ("./c.js", "./c.d.ts")),)


def test_split_specifier() -> None:
    assert split_specifier("zod") == ("zod", ".")
    assert split_specifier("zod/v4/core") == ("zod", "./v4/core")
    assert split_specifier("@acme/core") == ("@acme/core", ".")
    assert split_specifier("@acme/core/util/x") == ("@acme/core", "./util/x")
    assert split_specifier("@acme") is None
    assert split_specifier("@/x") is None


def test_the_exports_map_conditions_in_order_and_the_longest_pattern() -> None:
    packages = _packages(
        {
            "packages/zod/package.json": {
                "name": "zod",
                "exports": {
                    ".": {"@zod/source": "./src/index.ts", "import": "./index.js"},
                    "./v4": {"@zod/source": "./src/v4/index.ts", "types": "./v4/index.d.cts"},
                    "./locales/*": "./src/locales/*.ts",
                    "./locales/en/*": "./src/en/*.ts",
                    "./private": None,
                },
            }
        }
    )
    assert package_bases(packages, "zod") == ["packages/zod/src/index.ts", "packages/zod/index.js"]
    assert package_bases(packages, "zod/v4")[0] == "packages/zod/src/v4/index.ts"
    assert package_bases(packages, "zod/locales/fr") == ["packages/zod/src/locales/fr.ts"]
    assert package_bases(packages, "zod/locales/en/gb") == ["packages/zod/src/en/gb.ts"]
    assert package_bases(packages, "zod/private") == []
    assert package_bases(packages, "zod/nothing") == []  # not exported: nothing of the tree
    assert package_bases(packages, "react") == []


def test_without_exports_the_entry_fields_then_deep_paths() -> None:
    packages = _packages(
        {
            "libs/legacy/package.json": {"name": "@old/legacy", "main": "dist/main.js"},
            "libs/bare/package.json": {"name": "bare"},
        }
    )
    assert package_bases(packages, "@old/legacy") == [
        "libs/legacy/dist/main.js",
        "libs/legacy/src/main.js",  # a build output is also tried where it is built from
        "libs/legacy/index",
    ]
    assert package_bases(packages, "@old/legacy/src/x") == ["libs/legacy/src/x"]
    assert package_bases(packages, "bare") == ["libs/bare/index"]


def test_the_package_nearest_the_root_wins_a_name() -> None:
    packages = _packages(
        {
            "fixtures/copy/package.json": {"name": "app", "main": "copy.js"},
            "app/package.json": {"name": "app", "main": "real.js"},
        }
    )
    assert package_bases(packages, "app")[0] == "app/real.js"


@given(st.text(max_size=40))
def test_no_specifier_leaves_the_tree(spec: str) -> None:
    packages = _packages(
        {"p/package.json": {"name": "p", "exports": {"./*": "../../*"}}, "package.json": {"name": "q"}}
    )
    for base in package_bases(packages, spec):
        assert not base.startswith("..") and base != "."

"""What a ``symbol`` argument names (``service/ops/symbol_lookup.py``), as a user writes it.

Found on Django: ``django.db.models.QuerySet`` (the import path the docs teach; the class is defined
in ``django/db/models/query.py`` and re-exported by the package), ``forms.CharField`` (re-exported by
``from django.forms.fields import *``), ``CharField.clean`` (inherited from ``Field``) and
``QuerySet.filter()`` (a call written out) were all "not defined", and ``symbol django/db/models/query.py`` said to check the spelling. Each form is asked
of ``symbol`` and of a graph operation (``callers``) over a fixture with the same shapes, on both
store backends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.ops.symbol_lookup import module_of
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.conftest import pg_env, write_tree

FILES = {
    # a C# extension method: `Builder.AddRetry` names it by the type it extends (also generic)
    "cs/Builder.cs": "class Builder<T> {}\n\nclass Plain {}\n",
    "cs/Ext.cs": (
        "static class RetryExtensions {\n"
        "    public static Builder<T> AddRetry<T>(this Builder<T> b) { return b; }\n"
        "    public static Plain AddRetry(Plain p, int n) { return p; }\n}\n"
    ),
    "pkg/__init__.py": "from pkg.core import Engine\nfrom .helpers import *\n",
    "pkg/core.py": (
        "class Engine:\n    def start(self):\n        return 1\n\n\n"
        "class Turbo(Engine):\n    pass\n\n\n"
        "class Jet(Turbo):\n    def fly(self):\n        return self.start()\n"
    ),
    "pkg/helpers.py": "def assist():\n    return 2\n",
    "pkg/sub/__init__.py": "from pkg.sub.deep import Widget\n",
    "pkg/sub/deep.py": "class Widget:\n    def draw(self):\n        return 3\n",
    "top/__init__.py": "from pkg import Engine\n",
    "aliases.py": (
        "import pkg.sub.deep as dp\nfrom pkg import helpers as hp\n\n\n"
        "def use():\n    return dp.Widget().draw() + hp.assist()\n"
    ),
    # zod's shape: `import * as z from "./lib/external"; export { z }`, the names re-exported by
    # `export * from` and a namespace re-exported by `export * as coerce from`
    "web/lib/schemas.ts": (
        "export function string(): number {\n  return 1;\n}\n\n"
        "export class Shape {\n  parse(): number {\n    return 2;\n  }\n}\n"
    ),
    "web/lib/coerce.ts": "export function bool(): boolean {\n  return true;\n}\n",
    "web/lib/external.ts": 'export * from "./schemas";\nexport * as coerce from "./coerce";\n',
    "web/index.ts": 'import * as z from "./lib/external";\nexport { z };\n',
    "web/app.ts": 'import { z } from "./index";\n\nexport const s = z.string() + new z.Shape().parse();\n',
    "csrc/a_api.h": "int api_call(int x);\n",
    "csrc/impl.c": '#include "a_api.h"\n\nint api_call(int x) {\n  return x;\n}\n',
    "csrc/a_shape.hpp": "class Shape {\n public:\n  double area() const;\n};\n",
    "csrc/shape.cpp": '#include "a_shape.hpp"\n\ndouble Shape::area() const {\n  return 1.0;\n}\n',
    # C++: a namespace opened by a macro, the project's name a directory of its headers (fmt's shape)
    "include/acme/buffer.h": (
        "ACME_BEGIN_NAMESPACE\nclass basic_buffer {\n public:\n  ACME_CONSTEXPR void push_back(int x) {}\n};\n"
        "ACME_END_NAMESPACE\n"
    ),
    # Go and Java: the package is the directory (a Go module's root package is its module path's last
    # element)
    "go.mod": "module example.com/acme/shop\n\ngo 1.21\n",
    "cart.go": "package shop\n\nfunc Checkout() int {\n\treturn 1\n}\n",
    "render/json.go": "package render\n\ntype JSON struct{}\n\nfunc (r JSON) Render() int {\n\treturn 2\n}\n",
    "src/main/java/com/acme/Parser.java": (
        "package com.acme;\n\npublic class Parser {\n  public int parseLine() {\n    return 3;\n  }\n}\n"
    ),
    # Rust: a crate by its Cargo.toml name (`-` written `_`), `crate::` paths of a binary crate
    "rs/Cargo.toml": '[package]\nname = "grep-searcher"\nversion = "0.1.0"\n',
    "rs/src/lib.rs": "pub mod searcher;\npub use crate::searcher::Searcher;\n",
    "rs/src/searcher/mod.rs": "pub struct Searcher {}\n\nimpl Searcher {\n    pub fn search(&self) -> u8 {\n        1\n    }\n}\n",
    "tool/Cargo.toml": '[package]\nname = "tool"\nversion = "0.1.0"\n\n[[bin]]\nname = "t"\npath = "cli/main.rs"\n',
    "tool/cli/main.rs": "mod flags;\n\nfn main() {}\n",
    "tool/cli/flags/mod.rs": "pub mod hiargs;\n",
    "tool/cli/flags/hiargs.rs": "pub struct HiArgs {}\n\nimpl HiArgs {\n    pub fn parse() -> u8 {\n        2\n    }\n}\n",
    # PHP: a namespace maps to a directory by composer.json's PSR-4 prefix
    "composer.json": '{"autoload": {"psr-4": {"Acme\\\\Http\\\\": "php/src/"}}}\n',
    "php/src/Client.php": "<?php\nnamespace Acme\\Http;\n\nclass Client {\n    public function send() {}\n}\n",
    "php/src/Handler/Curl.php": (
        "<?php\nnamespace Acme\\Http\\Handler;\n\nclass Curl {\n    public function finish() {}\n}\n"
    ),
    "app.py": (
        "from top import Engine\nfrom pkg import assist\nfrom pkg.sub import Widget\n\n\n"
        "def main():\n    Engine().start()\n    Widget().draw()\n    return assist()\n"
    ),
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def ask(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One indexed workspace of FILES per backend for the module (its tests only read it)."""
    env = {} if request.param == "sqlite" else pg_env(request.getfixturevalue("pg_dsn"))
    root = tmp_path_factory.mktemp("symbols")
    write_tree(root, FILES)
    settings = load_settings(env=env)
    ws = Workspace.open(root, settings=settings)
    ws.sync()

    def run(**args: Any) -> dict[str, Any]:
        return execute({"freshness": "fast", **args}, lambda _r: ws, settings).to_dict()

    yield run
    ws.close()


@pytest.mark.parametrize(
    ("written", "path", "qualified"),
    [
        ("pkg.Engine", "pkg/core.py", "Engine"),  # a package's re-export
        ("pkg.Engine.start", "pkg/core.py", "Engine.start"),
        ("top.Engine.start", "pkg/core.py", "Engine.start"),  # through two packages
        ("pkg.assist", "pkg/helpers.py", "assist"),  # `from .helpers import *`
        ("sub.Widget.draw", "pkg/sub/deep.py", "Widget.draw"),  # the end of a module path
        ("pkg.sub.Widget", "pkg/sub/deep.py", "Widget"),
        ("Engine.start()", "pkg/core.py", "Engine.start"),  # a call written out
        ("assist(1, x=2)", "pkg/helpers.py", "assist"),
        ("new Engine()", "pkg/core.py", "Engine"),  # a constructor call as JavaScript writes it
        ("pkg.core.Engine", "pkg/core.py", "Engine"),  # as before: the defining module
        ("Turbo.start", "pkg/core.py", "Engine.start"),  # an inherited member: where it is defined
        ("pkg.core.Jet.start", "pkg/core.py", "Engine.start"),  # two bases up
        ("dp.Widget.draw", "pkg/sub/deep.py", "Widget.draw"),  # `import pkg.sub.deep as dp`
        ("hp.assist", "pkg/helpers.py", "assist"),  # `from pkg import helpers as hp`
        ("z.string", "web/lib/schemas.ts", "string"),  # `import * as z`, then `export *`
        ("z.Shape.parse", "web/lib/schemas.ts", "Shape.parse"),
        ("z.coerce.bool", "web/lib/coerce.ts", "bool"),  # `export * as coerce from`
        ("lib.external.Shape", "web/lib/schemas.ts", "Shape"),  # `export *` as before
        ("render.JSON", "render/json.go", "JSON"),  # a Go package is its directory
        ("render.JSON.Render", "render/json.go", "JSON.Render"),
        ("shop.Checkout", "cart.go", "Checkout"),  # the module's root package
        ("com.acme.Parser.parseLine", "src/main/java/com/acme/Parser.java", "Parser.parseLine"),
        ("acme.Parser", "src/main/java/com/acme/Parser.java", "Parser"),
        ("grep_searcher::searcher::Searcher", "rs/src/searcher/mod.rs", "Searcher"),  # a crate's name
        ("grep_searcher::searcher::Searcher::search", "rs/src/searcher/mod.rs", "Searcher.search"),
        ("grep_searcher::Searcher", "rs/src/searcher/mod.rs", "Searcher"),  # the crate root's `pub use`
        ("crate::flags::hiargs::HiArgs::parse", "tool/cli/flags/hiargs.rs", "HiArgs.parse"),
        ("Acme\\Http\\Client", "php/src/Client.php", "Client"),  # PHP, by the PSR-4 prefix
        ("\\Acme\\Http\\Handler\\Curl::finish", "php/src/Handler/Curl.php", "Curl.finish"),
        ("Handler\\Curl", "php/src/Handler/Curl.php", "Curl"),  # a namespace's last segment
        ("acme::basic_buffer::push_back", "include/acme/buffer.h", "basic_buffer.push_back"),  # C++
    ],
)
def test_a_symbol_is_found_as_users_write_it(ask: Any, written: str, path: str, qualified: str) -> None:
    answer = ask(operation="symbol", symbol=written)
    assert answer["status"] == "ok", answer
    found = [(i["anchor"]["path"], i["symbol"]["qualified_name"]) for i in answer["items"]]
    assert found == [(path, qualified)]
    callers = ask(operation="callers", symbol=written)
    assert callers["status"] == "ok", callers
    target = [i for i in callers["items"] if i["kind"] == "target"]
    assert [(t["anchor"]["path"], t["symbol"]["qualified_name"]) for t in target] == [(path, qualified)]


def test_names_that_are_not_there_stay_not_found(ask: Any) -> None:
    for written in (
        "pkg.Nothing",
        "top.assist",
        "pkg.Engine.stop",
        "nosuch.Engine.start",
        "Jet.stop",
        "z.nothing",
        "dp.Nothing",
        "z.coerce.string",  # `string` is in schemas, not in the `coerce` namespace
        "lib.external.bool",  # `export * as coerce` binds a name: `bool` is `coerce.bool`
        "s.string",  # `s` is a constant, not a module
        "render.Checkout",  # Checkout is package shop's
        "shop.JSON",  # JSON is package render's, below the root
        "com.other.Parser",
        "grep_searcher::Nothing",
        "tool::Searcher",  # another crate's
        "other::basic_buffer",  # no `other` directory above it
    ):
        answer = ask(operation="symbol", symbol=written)
        assert answer["code"] == "NOT_FOUND", (written, answer)


def test_a_c_function_s_definition_comes_before_its_header_prototype(ask: Any) -> None:
    answer = ask(operation="symbol", symbol="api_call")
    assert [i["anchor"]["path"] for i in answer["items"]] == ["csrc/impl.c", "csrc/a_api.h"]
    answer = ask(operation="symbol", symbol="Shape::area")  # a method defined out of line
    assert [i["anchor"]["path"] for i in answer["items"]] == ["csrc/shape.cpp", "csrc/a_shape.hpp"]


def test_an_extension_method_is_named_by_the_type_it_extends(ask: Any) -> None:
    """`Builder.AddRetry` was NOT_FOUND (the method is `RetryExtensions.AddRetry`); a method of the
    name that takes the type without `this` extends nothing."""
    answer = ask(operation="symbol", symbol="Builder.AddRetry")
    assert [(i["anchor"]["path"], i["anchor"]["start_line"]) for i in answer["items"]] == [("cs/Ext.cs", 2)]
    assert ask(operation="symbol", symbol="Plain.AddRetry")["code"] == "NOT_FOUND"


def test_a_file_given_as_the_symbol_says_it_is_a_file(ask: Any) -> None:
    answer = ask(operation="symbol", symbol="pkg/core.py")
    assert answer["code"] == "NOT_FOUND"
    assert "that is a file" in answer["next_step"]
    assert "check the spelling" in ask(operation="symbol", symbol="pkg/nothing.py")["next_step"]


def test_module_names_of_package_files() -> None:
    assert module_of("a/b/__init__.py") == "a.b"
    assert module_of("web/src/index.ts") == "web.src"
    assert module_of("src/mod.rs") == "src"
    assert module_of("a/b/c.py") == "a.b.c"
    assert module_of("__init__.py") == "__init__"


def test_every_definition_of_an_aliased_module_is_found_through_its_alias(make_repo) -> None:
    """The class behind ``z.string``: for every import that binds a project module to a local name
    (each resolved ``IMPORTS`` edge to a file from an aliased, non-wildcard import of the fixture),
    every definition of that module written ``<alias>.<qualified name>`` names that definition."""
    from lazy_intel.graph.model import file_key
    from lazy_intel.service.ops.symbol_lookup import resolve_symbol

    ws = Workspace.open(Path(make_repo(FILES)), settings=load_settings(env={}))
    try:
        ws.sync()
        with ws.read() as view:
            aliased = set()
            for site, start, alias in view.conn.execute(
                "SELECT f.path, i.start_byte, i.alias FROM imports i JOIN files f ON f.id = i.file_id "
                "WHERE i.alias IS NOT NULL AND i.wildcard = 0"
            ).fetchall():
                for (target,) in view.conn.execute(
                    "SELECT n.path FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.file_key = ? "
                    "AND e.start_byte = ? AND e.type = 'IMPORTS' AND n.kind = 'file'",
                    (file_key(site), start),
                ):
                    aliased.add((alias, target))
            assert {a for a, _ in aliased} >= {"dp", "hp", "z"}  # the fixture's aliases all resolve
            checked = 0
            for alias, target in sorted(aliased):
                # its own definitions and those of the files it re-exports whole (`export * from`)
                exporting = [target] + [
                    path
                    for (path,) in view.conn.execute(
                        "SELECT n.path FROM edges e JOIN nodes n ON n.id = e.dst JOIN imports i "
                        "ON i.start_byte = e.start_byte AND i.wildcard = 1 JOIN files f ON f.id = i.file_id "
                        "AND f.path = e.path WHERE e.file_key = ? AND e.type = 'IMPORTS' AND n.kind = 'file'",
                        (file_key(target),),
                    )
                ]
                for symbol_id, qualified in view.conn.execute(
                    "SELECT s.id, s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path IN ("
                    + ", ".join("?" for _ in exporting)
                    + ")",
                    exporting,
                ).fetchall():
                    found = resolve_symbol(view, f"{alias}.{qualified}", None)
                    assert symbol_id in {s.id for s in found}, (alias, target, qualified)
                    checked += 1
            assert checked >= 7  # deep.py 2, helpers.py 1, schemas.ts 3 (z), coerce.ts 1 (coerce)
    finally:
        ws.close()


def test_no_name_built_from_the_fixture_s_own_parts_breaks_the_lookup(make_repo) -> None:
    """The class behind a RecursionError found while adding Rust crates (`tool::Searcher`: the crate
    `tool`'s root module `tool.cli` starts with its own name): every name of one or two parts, and
    400 seeded ones of three or four, built from the fixture's crate, module, alias and symbol names
    with `.` or `::`, resolves without raising."""
    import random

    from lazy_intel.service.ops.symbol_lookup import resolve_symbol

    parts = [
        "tool",
        "grep_searcher",
        "crate",
        "self",
        "super",
        "z",
        "dp",
        "hp",
        "pkg",
        "sub",
        "cli",
        "flags",
        "hiargs",
        "HiArgs",
        "parse",
        "Searcher",
        "searcher",
        "search",
        "render",
        "JSON",
        "shop",
        "Engine",
        "start",
        "com",
        "acme",
        "Parser",
        "lib",
        "external",
        "coerce",
        "src",
        "rs",
    ]
    names = [a for a in parts] + [f"{a}{sep}{b}" for a in parts for b in parts for sep in (".", "::")]
    rng = random.Random(44)
    names += ["::".join(rng.choice(parts) for _ in range(rng.choice((3, 4)))) for _ in range(400)]
    ws = Workspace.open(Path(make_repo(FILES)), settings=load_settings(env={}))
    try:
        ws.sync()
        with ws.read() as view:
            for name in names:
                resolve_symbol(view, name, None)  # raises on a loop or a bad query
    finally:
        ws.close()

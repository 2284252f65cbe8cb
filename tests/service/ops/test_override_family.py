"""TypeScript and JavaScript `references` of a method span its override family (session 54).

Measured against tsserver on zod (`bench/references_accuracy.py --language typescript`), the index
listed for `ZodString._parse` only the calls it resolved to that method, where the compiler lists the
abstract `ZodType._parse` it implements, `this._parse(input)` in the base, and every sibling's
`_parse` with its calls: a method's references there are those of its whole override family. Java
keeps JDT's narrower answer (the calls of its ancestors and descendants, no declarations)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lazy_intel.service.ops.operations import execute
from lazy_intel.service.workspace import Workspace
from lazy_intel.settings import load_settings
from tests.graph.helpers import indexed_workspace

SOURCES = {
    "ts/base.ts": (
        "export abstract class Base {\n"
        "  abstract run(x: number): number\n"
        "  go() { return this.run(1) }\n"
        "}\n"
        "export class A extends Base {\n"
        "  run(x: number) { return x }\n"
        "}\n"
        "export class B extends Base {\n"
        "  run(x: number) { return x + 1 }\n"
        "}\n"
        "export class Deep extends B {\n"
        "  run(x: number) { return x + 2 }\n"
        "}\n"
        "export class Unrelated {\n"
        "  run(x: number) { return x }\n"
        "}\n"
    ),
    "ts/use.ts": (
        "import { A, B, Unrelated } from './base'\n"
        "export function use(a: A, b: B, u: Unrelated) { a.run(1); b.run(2); u.run(3) }\n"
    ),
    "ts/shape.ts": (
        "export interface Shape { area(): number }\n"
        "export class Square implements Shape { area() { return 4 } }\n"
        "export class Circle implements Shape { area() { return 3 } }\n"
        "export function total(s: Shape, c: Circle) { return s.area() + c.area() }\n"
    ),
    "java/Base.java": "abstract class Base {\n  abstract int run();\n  int go() { return run(); }\n}\n",
    "java/A.java": "class A extends Base {\n  int run() { return 1; }\n}\n",
    "java/B.java": "class B extends Base {\n  int run() { return 2; }\n  int use(A a) { return a.run(); }\n}\n",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Iterator[Workspace]:
    with indexed_workspace(tmp_path_factory.mktemp("override_family"), SOURCES) as ws:
        yield ws


def _references(ws: Workspace, symbol: str, path: str) -> list[tuple[str, int, str]]:
    answer = execute(
        {
            "operation": "references",
            "symbol": symbol,
            "relativePath": path,
            "includeDeclaration": False,
            "freshness": "fast",
        },
        lambda _r: ws,
        load_settings(env={}),
    ).to_dict()
    return sorted(
        (i["anchor"]["path"], i["anchor"]["start_line"], i["text"].strip())
        for i in answer["items"]
        if i["kind"] == "reference"
    )


def test_a_typescript_method_s_references_are_its_whole_override_family_s(workspace) -> None:
    assert _references(workspace, "A.run", "ts/base.ts") == [
        ("ts/base.ts", 2, "abstract run(x: number): number"),  # the root it implements
        ("ts/base.ts", 3, "this.run(1)"),  # a call of the root
        ("ts/base.ts", 9, "run(x: number) { return x + 1 }"),  # a sibling
        ("ts/base.ts", 12, "run(x: number) { return x + 2 }"),  # the sibling's overrider
        ("ts/use.ts", 2, "a.run(1)"),
        ("ts/use.ts", 2, "b.run(2)"),  # a sibling's call
    ]


def test_an_interface_method_s_family_is_its_implementations(workspace) -> None:
    assert _references(workspace, "Circle.area", "ts/shape.ts") == [
        ("ts/shape.ts", 1, "area(): number"),
        ("ts/shape.ts", 2, "area() { return 4 }"),
        ("ts/shape.ts", 4, "c.area()"),
        ("ts/shape.ts", 4, "s.area()"),
    ]


def test_java_keeps_the_calls_of_ancestors_and_descendants_alone(workspace) -> None:
    # no declarations, no sibling: B.run's references are the calls of Base.run (its ancestor)
    assert [text for _, _, text in _references(workspace, "B.run", "java/B.java")] == ["run()"]

"""An ECMAScript member read is a reference (session 54).

Measured against tsserver (`bench/references_accuracy.py --language typescript`), the index missed
`ElementBounds.boundsCache.get(el)` among the references of `ElementBounds` (excalidraw) and every
`c.req` read of hono: in JavaScript and TypeScript only a member that was called or assigned made a
reference, where Python's and Java's reads always did. A member read is now a `read` reference whose
object is its receiver (and a getter it runs is called); the callee of a call or of a `new` stays the
call's own reference."""

from __future__ import annotations

import pytest

from lazy_intel.parse.extract import extract_facts
from tests.graph.helpers import build_graph

FILES = {
    "ts/cache.ts": (
        "export class Bounds {\n"
        "  static cache = new Map<string, number>()\n"
        "  size = 0\n"
        "  static get(k: string) { return Bounds.cache.get(k) }\n"
        "}\n"
        "export namespace Shapes { export class Box { open() { return 1 } } }\n"
    ),
    "ts/use.ts": (
        "import { Bounds, Shapes } from './cache'\n"
        "export function read(b: Bounds) { const c = Bounds.cache; return b.size + c.size }\n"
        "export function make() { return new Shapes.Box() }\n"
    ),
    "js/use.js": "import { Bounds } from '../ts/cache'\nexport function read() { return Bounds.cache }\n",
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return build_graph(tmp_path_factory.mktemp("ecma_reads"), FILES)


def test_a_static_member_read_references_its_class(graph) -> None:
    references = graph.pairs("REFERENCES")
    assert ("ts/cache.ts::Bounds.get", "ts/cache.ts::Bounds") in references  # `Bounds.cache.get(k)`
    assert ("ts/use.ts::read", "ts/cache.ts::Bounds") in references
    assert ("js/use.js::read", "ts/cache.ts::Bounds") in references


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_the_callee_of_a_call_or_a_new_is_not_read_as_well(lang: str) -> None:
    source = (
        b"const a = new Shapes.Box(); const b = Shapes.Box.make(); const c = Shapes.Box; f(o.p.q); this.x;"
    )
    kinds = sorted((r.kind, r.name) for r in extract_facts("m.ts", lang, source).references)
    assert ("instantiate", "Box") in kinds and ("call", "make") in kinds
    reads = [name for kind, name in kinds if kind == "read"]
    # `Shapes.Box` read as the receiver of `.make()` and as the value of `c`, `o.p` read; not `new`'s,
    # nor `o.p.q` (read through a member, which names no definition as its receiver)
    assert sorted(reads) == ["Box", "Box", "p"]

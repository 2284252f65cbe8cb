"""ECMAScript object patterns and TypeScript property signatures (session 54).

Measured against tsserver on excalidraw (`bench/references_accuracy.py --language typescript`), the
index missed every `scene.mutateElement(…)` of a function written `({ scene }: { scene: Scene }) =>`
or `function f({ scene }: Props)`: an object pattern was an unknown expression (its names bound to
nothing, so they also fell through to a namesake outside the function), and a member declared in an
interface or an object type (`interface Props { scene: Scene }`) had no type. An object pattern is
now ``["d", [[key, target], ...]]`` (the literal it mirrors): each target receives the member its
key names; a property signature declares its member's type as a typed class field does. Found with
them: `app: AppClassProperties` whose `scene: App["scene"]` (an indexed access type, now the type of
the member it names) and `Readonly<AppState>` (TypeScript's utility types of one object type now hold
its members)."""

from __future__ import annotations

import pytest
import tree_sitter

from lazy_intel.graph.values import pattern_names
from lazy_intel.parse.expressions import expression
from lazy_intel.parse.languages import grammar
from tests.graph.helpers import build_graph

SCENE = (
    "export class Scene {\n  mutateElement(x: number) { return x }\n}\n"
    "export class Other {\n  mutateElement(x: number) { return x }\n}\n"  # a guess by name: ambiguous
    "export type Props = { scene: Scene; n: number }\n"
    "export interface IProps { scene: Scene }\n"
    "export interface Outer { inner: IProps }\n"
    "export class App { scene: Scene = new Scene() }\n"
    'export type AppProps = { scene: App["scene"]; app: Readonly<App>; partial: Partial<IProps> }\n'
)
USE = """import type { Scene, Props, IProps, Outer, AppProps } from './scene'
export const inline = ({ scene }: { scene: Scene; n: number }) => { scene.mutateElement(1) }
export function aliased({ scene }: Props) { scene.mutateElement(2) }
export function declared(props: IProps) { const { scene } = props; scene.mutateElement(3) }
export function renamed(props: IProps) { const { scene: s } = props; s.mutateElement(4) }
export function member(props: IProps) { props.scene.mutateElement(5) }
export function defaulted({ scene: s = undefined }: IProps) { s.mutateElement(6) }
export function elements(xs: Props[]) { xs.map(({ scene }) => scene.mutateElement(7)) }
export function rest(props: IProps) { const { ...others } = props; others.scene.mutateElement(8) }
export function nested({ inner: { scene } }: Outer) { scene.mutateElement(9) }
export function indexed(p: AppProps) { p.scene.mutateElement(10) }
export function utility(p: AppProps) { p.app.scene.mutateElement(11); p.partial.scene?.mutateElement(12) }
"""
# JavaScript: a destructured parameter is a local name, not the module's namesake
SHADOW = {
    "js/helpers.js": "export function helper() { return 1 }\n",
    "js/use.js": (
        "import { helper } from './helpers'\n"
        "export function shadowed({ helper }) { return helper() }\n"
        "export function kept() { return helper() }\n"
    ),
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    files = {"ts/scene.ts": SCENE, "ts/use.ts": USE, **SHADOW}
    return build_graph(tmp_path_factory.mktemp("object_patterns"), files)


@pytest.mark.parametrize(
    "caller",
    [
        "inline",
        "aliased",
        "declared",
        "renamed",
        "member",
        "defaulted",
        "elements",
        "rest",
        "nested",
        "indexed",  # `App["scene"]`: the type of App's member scene
        "utility",  # `Readonly<App>`, `Partial<IProps>`: the members of their argument
    ],
)
def test_a_name_an_object_pattern_binds_holds_the_member_its_key_reads(graph, caller: str) -> None:
    sites = {(e.dst, e.strategy) for e in graph.of("CALLS", f"ts/use.ts::{caller}") if "mutate" in e.target}
    assert sites == {("ts/scene.ts::Scene.mutateElement", "member")}


def test_a_destructured_parameter_shadows_the_module_s_namesake(graph) -> None:
    assert graph.call_targets("js/use.js::kept", "helper") == [("js/helpers.js::helper", "import")]
    assert all(
        dst != "js/helpers.js::helper" for dst, _ in graph.call_targets("js/use.js::shadowed", "helper")
    )


def _pattern(lang: str, source: str) -> list:
    data = source.encode()
    stack = [tree_sitter.Parser(grammar(lang)).parse(data).root_node]
    while stack:
        node = stack.pop(0)
        if node.type == "object_pattern":
            return expression(data, node)
        stack.extend(node.children)
    raise AssertionError(f"no object pattern in {source!r}")


@pytest.mark.parametrize("lang", ["javascript", "typescript", "tsx"])
def test_an_object_pattern_reads_as_the_literal_it_mirrors(lang: str) -> None:
    pattern = _pattern(lang, "const { a, b: c, d = 1, e: f = 2, 'g': h, i: { j }, [k]: l, ...rest } = x")
    assert pattern == [
        "d",
        [
            [["n", "a"], ["n", "a"]],
            [["n", "b"], ["n", "c"]],
            [["n", "d"], ["n", "d"]],
            [["n", "e"], ["n", "f"]],
            [["s", "g"], ["n", "h"]],
            [["n", "i"], ["d", [[["n", "j"], ["n", "j"]]]]],
            [["x"], ["n", "l"]],  # a computed key reads no member the index can name
            [None, ["n", "rest"]],
        ],
    ]
    assert pattern_names(pattern) == ["a", "c", "d", "f", "h", "j", "l", "rest"]

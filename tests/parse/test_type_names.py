"""Every name a Python annotation refers to is a `type` reference, at any depth and in any position
(``parse/type_names.py``). Generated: unions, generics written bare or dotted, callable parameter
lists, forward references, ``Literal`` / ``Annotated`` (values inside), nested without bound. The
query rules this replaced read three levels and missed ``A | B | Sequence[Box]``,
``Callable[[Info[E] | None], R]`` and ``t.Optional[t.Dict[str, t.List[t.Tuple[Box, int]]]]``."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from lazy_intel.parse.extract import extract_facts

TYPE_NAMES = ["Box", "Item", "mod.Kind", "a.b.Deep", "str"]
GENERICS = ["Optional", "t.Optional", "list", "Dict", "t.Dict", "typing.Sequence", "Info"]
LITERALS = ['"plain"', '"Box"', "3", "True", "None", "Color.RED"]  # values, not types


@dataclass(frozen=True)
class Annotation:
    text: str
    names: frozenset[tuple[str, str | None]]  # (name, receiver) of every type it refers to


def named(dotted: str) -> frozenset[tuple[str, str | None]]:
    receiver, _, name = dotted.rpartition(".")
    return frozenset({(name, receiver or None)})


def leaf() -> st.SearchStrategy[Annotation]:
    name = st.sampled_from(TYPE_NAMES).map(lambda n: Annotation(n, named(n)))
    forward = st.sampled_from(TYPE_NAMES).map(lambda n: Annotation(f'"{n}"', named(n)))
    none = st.just(Annotation("None", frozenset()))
    return st.one_of(name, forward, none)


def compose(inner: st.SearchStrategy[Annotation]) -> st.SearchStrategy[Annotation]:
    def generic(head: str, params: list[Annotation]) -> Annotation:
        text = f"{head}[{', '.join(p.text for p in params)}]"
        return Annotation(text, named(head).union(*(p.names for p in params)))

    def union(parts: list[Annotation]) -> Annotation:
        return Annotation(" | ".join(p.text for p in parts), frozenset().union(*(p.names for p in parts)))

    def callable_(head: str, params: list[Annotation], result: Annotation) -> Annotation:
        text = f"{head}[[{', '.join(p.text for p in params)}], {result.text}]"
        return Annotation(text, named(head).union(result.names, *(p.names for p in params)))

    def literal(head: str, values: list[str]) -> Annotation:
        return Annotation(f"{head}[{', '.join(values)}]", named(head))

    def annotated(head: str, first: Annotation, meta: str) -> Annotation:
        return Annotation(f"{head}[{first.text}, {meta}]", named(head) | first.names)

    return st.one_of(
        st.builds(generic, st.sampled_from(GENERICS), st.lists(inner, min_size=1, max_size=3)),
        st.builds(union, st.lists(inner, min_size=2, max_size=4)),
        st.builds(callable_, st.sampled_from(["Callable", "t.Callable"]), st.lists(inner, max_size=2), inner),
        st.builds(literal, st.sampled_from(["Literal", "t.Literal"]), st.lists(st.sampled_from(LITERALS), min_size=1, max_size=3)),
        st.builds(annotated, st.sampled_from(["Annotated", "typing.Annotated"]), inner, st.sampled_from(['"Box"', "Meta", "Field(gt=0)"])),
    )  # fmt: skip


ANNOTATIONS = st.recursive(leaf(), compose, max_leaves=12)
POSITIONS = [  # (where the annotation is written, the types that position adds)
    ("def f(p: {}):\n    pass\n", set()),
    ("def f(p: {} = None):\n    pass\n", set()),
    ("def f() -> {}:\n    pass\n", set()),
    ("v: {} = None\n", set()),
    ("class C:\n    field: {}\n", set()),
    ("type Alias = {}\n", set()),
    # a type alias written as a value: the generic assigned stays a read (as any value's head)
    ("Alias = Optional[{}]\n", set()),
    ("Alias = t.Dict[str, {}]\n", {("str", None)}),
]


def types_named(source: bytes) -> set[tuple[str, str | None]]:
    facts = extract_facts("pkg/m.py", "python", source)
    assert facts.error is None and facts.syntax_errors == 0, source
    return {(r.name, r.receiver) for r in facts.references if r.kind == "type"}


@given(ANNOTATIONS, st.sampled_from(POSITIONS))
def test_every_name_an_annotation_refers_to_is_a_type_reference(
    annotation: Annotation, position: tuple[str, set[tuple[str, str | None]]]
) -> None:
    template, added = position
    source = template.format(annotation.text).encode()
    assert types_named(source) == set(annotation.names) | added, source.decode()


def test_a_subscript_of_anything_but_a_typing_generic_is_no_annotation() -> None:
    source = b'row = table["Box"]\nfirst = items[Index]\nv = Optional[Box]\n'
    assert types_named(source) == {("Box", None)}


@given(ANNOTATIONS)
def test_a_generic_base_class_parameter_is_read_at_any_depth(annotation: Annotation) -> None:
    source = f"class C(Base[{annotation.text}]):\n    pass\n".encode()
    assert types_named(source) == set(annotation.names), source.decode()


def test_each_reference_points_at_its_name_in_the_source() -> None:
    source = b'def f(p: t.Optional[t.Dict[str, t.List[t.Tuple["mod.Box", A | B | Seq[Deep]]]]]): pass\n'
    facts = extract_facts("pkg/m.py", "python", source)
    spans = {
        r.name: source[r.name_start_byte : r.name_end_byte].decode()
        for r in facts.references
        if r.kind == "type"
    }
    assert spans["Box"] == "mod.Box" and spans["Deep"] == "Deep" and spans["Tuple"] == "t.Tuple"
    assert {"A", "B", "Seq", "Deep", "str", "Box"} <= spans.keys()

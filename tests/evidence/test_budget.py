from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.errors import InvalidArgument
from lazy_intel.evidence.budget import LOCATIONS_AHEAD, fit_answer, serialize
from lazy_intel.evidence.model import TEXT_SOURCE, Anchor, Item, View

VIEW = View(generation=3, published_at="2026-01-01T00:00:00.000Z", freshness="auto")


def _chars(item: Item) -> int:
    return len(json.dumps(item.to_dict(), ensure_ascii=False, separators=(",", ":")))


def item(n: int, body: str) -> Item:
    return Item(
        kind="chunk",
        text_kind=TEXT_SOURCE,
        text=body,
        anchor=Anchor(f"f{n}.py", "a" * 64, 0, len(body.encode()), 1, body.count("\n") + 1, 3),
    )


def test_everything_fits() -> None:
    items = [item(i, f"def f{i}():\n    return {i}\n") for i in range(3)]
    answer = fit_answer("search", items, max_chars=5_000, view=VIEW)
    assert answer.status == "ok" and len(answer.items) == 3 and answer.omitted == 0
    assert answer.used_chars == len(serialize(answer)) <= 5_000
    assert not any(i.body_omitted for i in answer.items)


def test_an_item_that_does_not_fit_comes_back_as_its_anchor() -> None:
    small = item(0, "x = 1\n")
    big = item(1, "y = 2\n" * 500)
    answer = fit_answer("search", [small, big], max_chars=1_500, view=VIEW)
    assert answer.status == "ok"
    first, second = answer.items
    assert first.text == small.text and not first.body_omitted
    assert second.body_omitted and second.text is None
    assert second.needed_chars == len(json.dumps(big.to_dict(), ensure_ascii=False, separators=(",", ":")))
    assert second.anchor == big.anchor
    assert answer.used_chars == len(serialize(answer)) <= 1_500
    assert any("maxChars" in w for w in answer.warnings)


def test_only_locations_is_partial() -> None:
    answer = fit_answer("search", [item(0, "z = 3\n" * 400)], max_chars=900, view=VIEW)
    assert answer.status == "partial"
    assert answer.items[0].body_omitted


def test_nothing_fits_is_partial_with_omitted_count() -> None:
    items = [item(i, "w = 4\n" * 100) for i in range(5)]
    answer = fit_answer("search", items, max_chars=700, view=VIEW, cursor_for=lambda n: f"c{n}")
    assert answer.status == "partial"
    assert answer.omitted == 5 - len(answer.items)
    assert answer.used_chars == len(serialize(answer)) <= 700


def test_empty_result_is_partial_never_ok() -> None:
    answer = fit_answer("search", [], max_chars=1_000, view=VIEW)
    assert answer.status == "partial"


def test_header_that_cannot_fit_is_an_error() -> None:
    with pytest.raises(InvalidArgument, match="too small"):
        fit_answer("search", [], max_chars=50, view=VIEW, warnings=["w" * 100])


@settings(max_examples=60, deadline=None)
@given(
    bodies=st.lists(st.text(min_size=0, max_size=400), min_size=0, max_size=8),
    max_chars=st.integers(min_value=400, max_value=4_000),
)
def test_budget_is_exact_and_never_splits(bodies: list[str], max_chars: int) -> None:
    items = [item(i, b) for i, b in enumerate(bodies)]
    answer = fit_answer("search", items, max_chars=max_chars, view=VIEW, cursor_for=lambda n: f"cursor-{n}")
    wire = serialize(answer)
    assert answer.used_chars == len(wire) <= max_chars
    for got, original in zip(answer.items, items, strict=False):
        assert got.anchor == original.anchor
        assert got.text == original.text or (got.body_omitted and got.text is None)
    assert answer.omitted == len(items) - len(answer.items)
    whole = [i for i in answer.items if not i.body_omitted]
    assert answer.status == ("ok" if whole else "partial")
    # breadth before depth: no item is left off while one of the LOCATIONS_AHEAD before it carries a
    # body that cost more than one more location would
    if answer.omitted:
        first_lost = len(answer.items)
        for got in answer.items[max(0, first_lost - LOCATIONS_AHEAD) : first_lost]:
            if not got.body_omitted:
                extra = _chars(got) - _chars(got.without_body(needed_chars=_chars(got)))
                assert extra <= _chars(got.without_body(needed_chars=_chars(got))), got


def test_one_long_definition_does_not_hide_the_other_matches() -> None:
    """``symbol ZodString`` on zod: four definitions, the first a 600-line class that filled the
    page, so the other three were not even named."""
    # the longest body that fits alone beside the budget warning: too little room is left for a location
    warned = ["some items did not fit maxChars: raise maxChars or follow next_cursor"]

    def fits_whole(lines: int) -> bool:
        body = item(0, "    check(x);\n" * lines)
        return (
            not fit_answer("symbol", [body], max_chars=20_000, view=VIEW, warnings=warned)
            .items[0]
            .body_omitted
        )

    lines = 1_400
    while not fits_whole(lines):
        lines -= 1
    long = item(0, "    check(x);\n" * lines)
    others = [item(i, f"interface Z{i} {{}}\n") for i in range(1, 4)]
    answer = fit_answer("symbol", [long, *others], max_chars=20_000, view=VIEW)
    assert [i.anchor for i in answer.items] == [i.anchor for i in [long, *others]]
    assert answer.items[0].body_omitted and answer.items[0].needed_chars > 19_000
    assert all(not i.body_omitted for i in answer.items[1:])
    assert answer.status == "ok" and answer.omitted == 0


def test_short_bodies_are_kept_rather_than_traded_for_one_more_name() -> None:
    """``architecture`` on zod: thirty entries of ~450 characters each, a body ~50 of them. Reserving
    room for ten locations ahead located every entry to name one more; short bodies stay."""
    items = [item(i, f"def f{i}(): pass  # {'x' * 40}\n") for i in range(30)]
    answer = fit_answer("architecture", items, max_chars=4_000, view=VIEW, cursor_for=lambda n: f"c{n}")
    assert answer.omitted > 0
    assert all(not i.body_omitted for i in answer.items[:-1])  # the last may fit only as its location

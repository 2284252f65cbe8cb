from __future__ import annotations

import hashlib

import pytest

from lazy_intel.errors import InvalidArgument
from lazy_intel.loop.plan import normalize_item_id, parse_plan, parse_review

PLAN = b"""# Plan: export CSV

Context paragraph mentioning F7: which is not a list item.

## Items
- [ ] F1: GET /export answers 200 with a CSV body
- [x] T1: unit tests for the serializer
* F2.1 - the header row names every column
1. D1) document the endpoint
+ **F3**: large exports stream

```markdown
- [ ] F9: inside a fence, not an item
```
"""


def test_items_ids_text_lines_and_required():
    plan = parse_plan(PLAN)
    assert [(i.id, i.text, i.line) for i in plan.items] == [
        ("F1", "GET /export answers 200 with a CSV body", 6),
        ("T1", "unit tests for the serializer", 7),
        ("F2.1", "the header row names every column", 8),
        ("D1", "document the endpoint", 9),
        ("F3", "large exports stream", 10),
    ]
    assert plan.required_ids == ("F1", "F2.1", "F3")
    assert plan.sha256 == hashlib.sha256(PLAN).hexdigest()
    assert plan.item("T1") is not None and not plan.item("T1").required  # type: ignore[union-attr]
    assert plan.item("F9") is None


def test_prefix_must_be_exactly_f_to_be_required():
    plan = parse_plan(b"- FIX1: fix the bug\n- F1: the surface\n")
    assert [(i.id, i.required) for i in plan.items] == [("FIX1", False), ("F1", True)]


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"# nothing here\n", "no plan items"),
        (b"- T1: tests only\n- D1: docs\n", "no F item"),
        (b"- F1: a\n- F1: b\n", "already used on line 1"),
        (b"\xff\xfe- F1: x\n", "not UTF-8"),
        (b"- F1: x\n" + b"x" * (256 * 1024), "at most"),
    ],
)
def test_malformed_plans_are_invalid(data: bytes, fragment: str):
    with pytest.raises(InvalidArgument) as err:
        parse_plan(data, source="plan.md")
    assert fragment in err.value.message
    assert err.value.code == "INVALID_ARGUMENT"


def test_review_pass_and_revise():
    review = parse_review("plan-reviewer: PASS decision-complete, F items observable")
    assert (review.reviewer, review.verdict, review.note, review.passed) == (
        "plan-reviewer",
        "PASS",
        "decision-complete, F items observable",
        True,
    )
    revise = parse_review("  alice : revise add the error path ")
    assert (revise.reviewer, revise.verdict, revise.note, revise.passed) == (
        "alice",
        "REVISE",
        "add the error path",
        False,
    )


@pytest.mark.parametrize("raw", ["PASS", "alice: LGTM", ": PASS", "alice: PASSED", "x" * 5000])
def test_malformed_reviews_are_invalid(raw: str):
    with pytest.raises(InvalidArgument):
        parse_review(raw)


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_absent_review_is_none_for_the_gate_to_refuse(raw: str | None):
    assert parse_review(raw) is None


def test_item_ids_are_normalized_and_validated():
    assert normalize_item_id(" f2.1 ") == "F2.1"
    for bad in ("", "1F", "F", "F-1", "step"):
        with pytest.raises(InvalidArgument):
            normalize_item_id(bad)

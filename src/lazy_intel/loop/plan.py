"""The plan file and its review verdict: pure parsing, no I/O.

Plan format (documented in ``docs/design/loop.md``): any Markdown file whose list items carry an
item ID. An item line is a list bullet (``-``, ``*``, ``+`` or ``1.``), an optional checkbox, the ID,
a separator (``:``, ``.``, ``)`` or ``-``) and the item text::

    - [ ] F1: GET /export answers 200 with a CSV body
    - [ ] T1: unit tests for the serializer
    1. D1 - document the endpoint

An ID is upper-case letters followed by a number, optionally dotted (``F1``, ``T12``, ``F2.1``).
Items whose letter prefix is exactly ``F`` are *required*: ``finish`` refuses until each has fresh
evidence. Other prefixes are tracked but not required. IDs are unique; a plan names at least one
``F`` item. Lines inside fenced code blocks are ignored.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from lazy_intel.errors import InvalidArgument

MAX_PLAN_BYTES = 256 * 1024
MAX_ITEMS = 500

_ITEM = re.compile(
    r"^\s{0,8}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?"
    r"(?:\*\*)?(?P<id>[A-Z]{1,8}\d{1,4}(?:\.\d{1,4})?)(?:\*\*)?"
    r"\s*[:.)\-\u2013\u2014]\s*(?P<text>\S.*?)\s*$"
)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ID = re.compile(r"^[A-Z]{1,8}\d{1,4}(?:\.\d{1,4})?$")
_REVIEW = re.compile(r"^\s*(?P<reviewer>[^:\n]{1,80}?)\s*:\s*(?P<verdict>[A-Za-z]+)\b\s*(?P<note>.*)$", re.S)


@dataclass(frozen=True)
class PlanItem:
    id: str
    text: str
    line: int

    @property
    def prefix(self) -> str:
        return re.match(r"[A-Z]+", self.id).group(0)  # type: ignore[union-attr]

    @property
    def required(self) -> bool:
        """``F`` items need evidence before ``finish``."""
        return self.prefix == "F"


@dataclass(frozen=True)
class Plan:
    sha256: str
    items: tuple[PlanItem, ...]

    def item(self, item_id: str) -> PlanItem | None:
        for item in self.items:
            if item.id == item_id:
                return item
        return None

    @property
    def required_ids(self) -> tuple[str, ...]:
        return tuple(i.id for i in self.items if i.required)


@dataclass(frozen=True)
class Review:
    reviewer: str
    verdict: str  # "PASS" | "REVISE"
    note: str

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"


def normalize_item_id(raw: str) -> str:
    """Upper-case and validate an item ID given on the command line."""
    candidate = raw.strip().upper()
    if not _ID.match(candidate):
        raise InvalidArgument(
            f"item ID {raw!r} is not of the form F1, T2 or F2.1",
            next_step="use an ID listed by `lazy-intel loop status`",
        )
    return candidate


def parse_plan(data: bytes, *, source: str = "plan") -> Plan:
    """Parse plan bytes into items; refuses empty, oversized, duplicate-ID or F-less plans."""
    if len(data) > MAX_PLAN_BYTES:
        raise InvalidArgument(f"{source} is {len(data)} bytes; a plan is at most {MAX_PLAN_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(f"{source} is not UTF-8 text") from None
    items: list[PlanItem] = []
    seen: dict[str, int] = {}
    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = _ITEM.match(line)
        if not match:
            continue
        item_id = match.group("id")
        if item_id in seen:
            raise InvalidArgument(
                f"{source} line {number}: item ID {item_id} is already used on line {seen[item_id]}",
                next_step="give every plan item its own ID",
            )
        seen[item_id] = number
        items.append(PlanItem(item_id, match.group("text"), number))
        if len(items) > MAX_ITEMS:
            raise InvalidArgument(f"{source} has more than {MAX_ITEMS} items")
    if not items:
        raise InvalidArgument(
            f"{source} has no plan items",
            next_step="write items as list lines such as `- [ ] F1: <observable surface that proves the goal>`",
        )
    plan = Plan(hashlib.sha256(data).hexdigest(), tuple(items))
    if not plan.required_ids:
        raise InvalidArgument(
            f"{source} has no F item; F items name the surfaces whose evidence proves the goal",
            next_step="add at least one item such as `- [ ] F1: curl /export -> 200, parses as CSV`",
        )
    return plan


def parse_review(raw: str | None) -> Review | None:
    """Parse ``"<reviewer>: PASS|REVISE <note>"``; ``None`` when no review was given (the plan gate
    refuses that); a malformed review is invalid input."""
    if raw is None or not raw.strip():
        return None
    if len(raw) > 4000:
        raise InvalidArgument("the review is longer than 4000 characters")
    match = _REVIEW.match(raw)
    if not match:
        raise InvalidArgument(
            f"review {raw!r} is not of the form '<reviewer>: PASS|REVISE <note>'",
            next_step='pass --review "plan-reviewer: PASS decision-complete"',
        )
    verdict = match.group("verdict").upper()
    if verdict not in ("PASS", "REVISE"):
        raise InvalidArgument(
            f"review verdict {match.group('verdict')!r} is neither PASS nor REVISE",
            next_step='pass --review "<reviewer>: PASS <note>" or "<reviewer>: REVISE <what to change>"',
        )
    reviewer = match.group("reviewer").strip()
    if not reviewer:
        raise InvalidArgument("the review names no reviewer")
    return Review(reviewer, verdict, match.group("note").strip())

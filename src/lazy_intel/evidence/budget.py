"""Fit an answer into ``maxChars`` without ever splitting a block.

The budget counts the whole serialized answer (compact JSON, characters): status, headers,
warnings, view, anchors, observations, data. Items are taken in rank order; an item whose body does
not fit is kept as its location (``body_omitted`` with ``needed_chars``); when not even that fits,
the rest are counted in ``budget.omitted`` and the caller's cursor points at the first of them.

Breadth before depth: an item whose body costs more than one more location would takes it only if
the locations of the next :data:`LOCATIONS_AHEAD` items still fit after it. Without that, one long
definition (a 600-line class that ``symbol`` returns first of four) filled the page and the other
three matches were not even named; now the long one comes back as its location (with
``needed_chars``) and the others whole. Small bodies are taken as before: giving up a body that
costs less than a location to name one more item would trade many bodies for one name
(``architecture``'s short entries).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from lazy_intel.errors import InvalidArgument
from lazy_intel.evidence.model import (
    STATUS_ERROR,
    STATUS_OK,
    STATUS_PARTIAL,
    Answer,
    Item,
    View,
)

# the following items whose locations a body may not push off the page
LOCATIONS_AHEAD = 10


def serialize(answer: Answer) -> str:
    """The canonical wire form of an answer; its length is what the budget counts."""
    return json.dumps(answer.to_dict(), ensure_ascii=False, separators=(",", ":"))


def _item_chars(item: Item) -> int:
    return len(json.dumps(item.to_dict(), ensure_ascii=False, separators=(",", ":")))


def _settle_used_chars(answer: Answer) -> Answer:
    """Set ``used_chars`` to the exact length of the answer that carries it (a fixed point)."""
    current = answer
    for _ in range(6):
        length = len(serialize(current))
        if length == current.used_chars:
            return current
        current = replace(current, used_chars=length)
    return current


def _widest_cursor(cursor_for: Callable[[int], str | None] | None, count: int) -> str | None:
    if cursor_for is None:
        return None
    candidates = [c for c in (cursor_for(0), cursor_for(count)) if c is not None]
    return max(candidates, key=len) if candidates else None


def fit_answer(
    operation: str,
    items: Sequence[Item],
    *,
    max_chars: int,
    view: View,
    coverage: Sequence[str] = (),
    warnings: Sequence[str] = (),
    data: Mapping[str, Any] | None = None,
    cursor_for: Callable[[int], str | None] | None = None,
    force_partial: bool = False,
    ok_without_items: bool = False,
    message: str | None = None,
) -> Answer:
    """Build the answer for ``items`` (best first) inside ``max_chars``.

    ``cursor_for(n)`` returns the cursor that resumes after the first ``n`` items (or ``None`` when
    nothing follows). ``force_partial`` marks an answer partial even with whole items (for example
    when a required part of the operation could not run). ``ok_without_items`` is for operations
    whose result is ``data`` rather than evidence (status, sync): they are ``ok`` when it all fit.
    """
    budget_warning = "some items did not fit maxChars: raise maxChars or follow next_cursor"
    fulls = [_item_chars(item) for item in items]
    # the least room each item takes on the page (its location, or itself without a body), plus
    # the separator before it
    least = [
        (_item_chars(item.without_body(needed_chars=full)) if item.text is not None else full) + 1
        for item, full in zip(items, fulls, strict=True)
    ]
    for with_budget_warning in (False, True):
        all_warnings = [*warnings, budget_warning] if with_budget_warning else list(warnings)
        widest_cursor = _widest_cursor(cursor_for, len(items))
        skeleton = Answer(
            status=STATUS_PARTIAL,
            operation=operation,
            items=(),
            message=message,
            coverage=tuple(coverage),
            warnings=tuple(all_warnings),
            view=view,
            max_chars=max_chars,
            used_chars=max_chars,
            omitted=len(items),
            next_cursor=widest_cursor,
            data=data,
        )
        room = max_chars - len(serialize(skeleton))
        if room < 0:
            raise InvalidArgument(
                f"maxChars={max_chars} is too small for the {operation} answer header "
                f"(needs at least {max_chars - room})",
                next_step="raise maxChars",
            )
        chosen: list[Item] = []
        whole = 0
        for index, item in enumerate(items):
            separator = 1 if chosen else 0
            full = fulls[index]
            ahead = sum(least[index + 1 : index + 1 + LOCATIONS_AHEAD])  # each with its separator
            location = least[index] - 1
            small = full - location <= location  # its body costs no more than one more location
            if full + separator <= room and (item.text is None or small or full + separator + ahead <= room):
                chosen.append(item)
                room -= full + separator
                whole += 1
                continue
            if item.text is not None and location + separator <= room:
                chosen.append(item.without_body(needed_chars=full))
                room -= location + separator
                continue
            break
        lost = len(items) - len(chosen)
        degraded = lost > 0 or whole < len(chosen)
        if degraded and not with_budget_warning:
            continue
        complete = whole > 0 or (ok_without_items and not items)
        status = STATUS_OK if complete and not force_partial else STATUS_PARTIAL
        answer = Answer(
            status=status,
            operation=operation,
            items=tuple(chosen),
            message=message,
            coverage=tuple(coverage),
            warnings=tuple(all_warnings),
            view=view,
            max_chars=max_chars,
            used_chars=0,
            omitted=lost,
            next_cursor=cursor_for(len(chosen)) if cursor_for else None,
            data=data,
        )
        return _settle_used_chars(answer)
    raise AssertionError("unreachable")  # pragma: no cover


def mark_partial(answer: Answer) -> Answer:
    """``answer`` as ``partial`` (a reason is already among its warnings). It still fits: every
    answer was fitted with the longer ``partial`` status in its skeleton."""
    marked = _settle_used_chars(replace(answer, status=STATUS_PARTIAL))
    return marked if marked.used_chars <= marked.max_chars else answer


# the budget an error answer reports when no request budget applies (LAZY_INTEL_DEFAULT_MAX_CHARS)
DEFAULT_BUDGET = 20_000
MESSAGE_FLOOR = 40  # an error message is never cut shorter than this


def error_answer(
    operation: str,
    code: str,
    message: str,
    *,
    view: View,
    next_step: str | None = None,
    max_chars: int | None = None,
    warnings: Sequence[str] = (),
    data: Mapping[str, Any] | None = None,
) -> Answer:
    """An error answer, within the budget it reports: ``max_chars`` is the request's budget (or
    :data:`DEFAULT_BUDGET` when none applies) and ``used_chars`` its exact length.

    It carries no items. When it does not fit, it sheds what matters least first: ``data``, the
    warnings, ``next_step``, the view's dirty paths and repository binding, then the message is cut
    (with ``…``). It overruns only a budget below every answer's minimum (see ``MIN_MAX_CHARS``)."""
    budget = DEFAULT_BUDGET if max_chars is None else max_chars
    answer = Answer(
        status=STATUS_ERROR,
        operation=operation,
        code=code,
        message=message,
        next_step=next_step,
        warnings=tuple(warnings),
        view=view,
        max_chars=budget,
        data=data,
    )
    shedding = (
        lambda a: replace(a, data=None),
        lambda a: replace(a, warnings=()),
        lambda a: replace(a, next_step=None),
        lambda a: replace(a, view=replace(a.view, dirty_paths=(), repository=None)),
    )
    settled = _settle_used_chars(answer)
    for shed in shedding:
        if settled.used_chars <= budget:
            return settled
        settled = _settle_used_chars(shed(settled))
    if settled.used_chars > budget and settled.message:
        over = settled.used_chars - budget
        keep = max(MESSAGE_FLOOR, len(settled.message) - over - 1)
        if keep < len(settled.message):
            settled = _settle_used_chars(replace(settled, message=settled.message[:keep] + "\u2026"))
    return settled

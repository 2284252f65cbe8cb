"""Human-readable rendering of an Answer (the ``--json`` form is the Answer itself)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lazy_intel.cli.safe_text import safe_name, terminal_safe
from lazy_intel.evidence.model import Answer

EXCERPT_LINES = 4
EXCERPT_WIDTH = 120


def _excerpt(text: str) -> list[str]:
    # split on newlines only (splitlines would also break at \r, \x0b, \x1c…, \u2028: those are
    # content, shown escaped); a CRLF line's \r is layout
    lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")] if text else []
    shown = [("    " + terminal_safe(line))[:EXCERPT_WIDTH] for line in lines[:EXCERPT_LINES]]
    if len(lines) > EXCERPT_LINES:
        shown.append(f"    … {len(lines) - EXCERPT_LINES} more line(s)")
    return shown


def _data_lines(data: Mapping[str, Any], indent: str = "") -> list[str]:
    out: list[str] = []
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.append(f"{indent}{key}:")
            out.extend(_data_lines(value, indent + "  "))
        elif isinstance(value, list | tuple):
            out.append(f"{indent}{key}: {', '.join(safe_name(str(v)) for v in value) if value else '-'}")
        else:
            out.append(f"{indent}{key}: {safe_name(str(value))}")
    return out


def render_text(answer: Answer) -> str:
    out: list[str] = []
    if answer.status == "error":
        out.append(f"error {answer.code}: {safe_name(answer.message or '')}")
        if answer.next_step:
            out.append(f"next: {safe_name(answer.next_step)}")
        return "\n".join(out)
    for item in answer.items:
        a = item.anchor
        where = f"{safe_name(a.path)}:{a.start_line}" + (
            f"-{a.end_line}" if a.end_line != a.start_line else ""
        )
        head = [where, item.kind]
        if item.symbol is not None:
            head.append(f"{item.symbol.kind} {safe_name(item.symbol.qualified_name)}")
        extra = item.extra or {}
        if "verdict" in extra:
            head.append(str(extra["verdict"]))
        if item.score is not None:
            head.append(f"score {item.score:.3f}")
        edge = extra.get("edge")
        if isinstance(edge, Mapping):  # graph evidence: how the edge was resolved and how sure it is
            head.append(f"{edge.get('type', '')} {edge.get('strategy', '')}".strip())
        if "distance" in extra:
            head.append(f"distance {extra['distance']}")
        if item.confidence is not None:
            head.append(f"confidence {item.confidence:.2f}")
        out.append("  ".join(head))
        if item.body_omitted:
            out.append(f"    (body omitted: needs {item.needed_chars} chars; raise --max-chars)")
        elif item.text is not None:
            out.extend(_excerpt(item.text))
    if answer.message:
        out.append(f"note: {safe_name(answer.message)}")
    if answer.data:
        out.extend(_data_lines(answer.data))
    for line in answer.coverage:
        out.append(f"coverage: {safe_name(line)}")
    for warning in answer.warnings:
        out.append(f"warning: {safe_name(warning)}")
    footer = f"{answer.status} · generation {answer.view.generation}"
    if answer.view.dirty:
        footer += f" · dirty ({len(answer.view.dirty_paths)} path(s))"
    footer += f" · {answer.budget_text()}"
    if answer.next_cursor:
        footer += f" · more: --cursor {answer.next_cursor}"
    out.append(footer)
    return "\n".join(out)


def render_json(answer: Answer) -> str:
    return json.dumps(answer.to_dict(), ensure_ascii=False, indent=2)

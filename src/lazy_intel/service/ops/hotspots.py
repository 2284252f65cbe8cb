"""Hotspots for ``architecture``: files and definitions that change often and are large.

Score = commits in the history window x log2(lines) (:func:`lazy_intel.history.signals.hotspot_score`);
only files and definitions the index holds now count, sized as indexed. Items are ``hotspot``
description items anchored at the file or the definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lazy_intel.evidence.model import TEXT_DESCRIPTION, Anchor, Item, SymbolInfo
from lazy_intel.history.signals import (
    file_churn,
    file_hotspots,
    hotspot_score,
    symbol_churn,
    symbol_hotspots,
)
from lazy_intel.service.ops.context import OperationContext
from lazy_intel.service.ops.history import History
from lazy_intel.service.ops.items import row_anchor

MAX_HOTSPOTS = 10


@dataclass
class Hotspots:
    note: str
    items: list[Item] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    symbols: list[dict[str, Any]] = field(default_factory=list)

    def data(self, cap: int) -> dict[str, Any]:
        """``{"hotspots": …}`` to merge into the answer's data; nothing when there are none to show."""
        if not (self.files[:cap] or self.symbols[:cap]):
            return {}
        return {"hotspots": {"files": self.files[:cap], "symbols": self.symbols[:cap]}}


def _in(path: str, prefix: str | None) -> bool:
    return prefix is None or path == prefix or path.startswith(prefix + "/")


def hotspots(ctx: OperationContext, history: History | str, prefix: str | None, limit: int) -> Hotspots:
    if isinstance(history, str):
        return Hotspots(history)
    view = ctx.need_view()
    rows = {f.path: f for f in view.files() if f.status == "indexed" and _in(f.path, prefix)}
    count = min(limit, MAX_HOTSPOTS)
    churn = {p: c for p, c in file_churn(history.conn).items() if p in rows}
    out = Hotspots(
        history.note
        + "; hotspots = commits in the window x log2(lines), for files and definitions indexed now"
    )
    for spot in file_hotspots(churn, {p: rows[p].line_count for p in churn}, count):
        row = rows[spot.path]
        entry = {
            "path": spot.path,
            "commits": spot.commits,
            "lines": spot.size,
            "score": round(spot.score, 2),
        }
        out.files.append(entry)
        out.items.append(
            Item(
                kind="hotspot",
                text_kind=TEXT_DESCRIPTION,
                text=f"file {spot.path}: {spot.commits} commit(s) in the window, {spot.size} lines",
                anchor=Anchor(spot.path, row.sha256, 0, row.size, 1, max(1, row.line_count), view.generation),
                score=spot.score,
                extra={
                    "commits": spot.commits,
                    "lines": spot.size,
                    "last_commit": churn[spot.path].last_hash,
                },
            )
        )
    symbols = {(s.path, s.qualified_name): s for s in symbol_churn(history.conn) if s.path in rows}
    ranked = []
    for spot in symbol_hotspots(symbols.values(), count * 3):
        found = view.symbols_by_qualified(spot.qualified_name or "", spot.path)
        if not found:
            continue  # renamed or deleted since: not a hotspot of the code as it is
        row = found[0]
        size = row.end_line - row.start_line + 1
        ranked.append((hotspot_score(spot.commits, size), spot, row, size))
    ranked.sort(key=lambda r: (-r[0], r[2].path, r[2].start_byte))
    for score, spot, row, size in ranked[:count]:
        if score <= 0:
            continue
        last = symbols[(spot.path, spot.qualified_name or "")]
        out.symbols.append(
            {
                "path": spot.path,
                "symbol": spot.qualified_name,
                "commits": spot.commits,
                "lines": size,
                "score": round(score, 2),
                "last_commit": last.last_hash,
            }
        )
        out.items.append(
            Item(
                kind="hotspot",
                text_kind=TEXT_DESCRIPTION,
                text=f"{row.kind} {row.qualified_name} ({row.path}:{row.start_line}): {spot.commits} commit(s) "
                f"in the window, {size} lines; last changed in {last.last_hash[:12]} ({last.last_subject})",
                anchor=row_anchor(view, row),
                symbol=SymbolInfo(row.name, row.qualified_name, row.kind, row.lang),
                score=score,
                extra={"commits": spot.commits, "lines": size, "last_commit": last.last_hash},
            )
        )
    return out

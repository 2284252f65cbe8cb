"""Which index sites and live-server sites are the same use (pure).

An index site is the span of a graph edge's site (a whole call ``f(x)``, an import statement, a base
class name) or, for a declaration, the definition's name; a live site is the precise range a
language server reported (usually the name token). They are the same use when they are in the same
file and the live range lies inside the index span; a live range inside several index spans belongs
to the smallest (``f(f(x))``: the inner ``f`` is the inner call). An index span may hold several live
ranges (``from m import a, b`` when both name the target); a live range belongs to one index span.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Site:
    key: Hashable
    path: str
    start: int
    end: int


@dataclass(frozen=True)
class Matching:
    pairs: tuple[tuple[Hashable, Hashable], ...]  # (index key, live key)
    index_only: tuple[Hashable, ...]
    live_only: tuple[Hashable, ...]


def match_sites(index: Sequence[Site], live: Sequence[Site]) -> Matching:
    by_path: dict[str, list[Site]] = {}
    for site in index:
        by_path.setdefault(site.path, []).append(site)
    pairs: list[tuple[Hashable, Hashable]] = []
    matched: set[Hashable] = set()
    live_only: list[Hashable] = []
    for token in live:
        holders = [
            s
            for s in by_path.get(token.path, ())
            if s.start <= token.start and token.end <= s.end and s.start < s.end
        ]
        if not holders:
            live_only.append(token.key)
            continue
        best = min(holders, key=lambda s: (s.end - s.start, s.start))
        pairs.append((best.key, token.key))
        matched.add(best.key)
    index_only = tuple(s.key for s in index if s.key not in matched)
    return Matching(tuple(pairs), index_only, tuple(live_only))

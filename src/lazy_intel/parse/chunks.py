"""Symbol-level chunks: a partition of a file into non-overlapping, verbatim byte ranges.

- Every outermost callable (a function or method not nested in another callable) is one chunk; nested
  functions stay inside it.
- The rest of a class/struct/module body (header, docstring, fields, the gaps between methods) is a
  chunk owned by that container; top-level code outside any container is owned by no symbol.
- Whitespace-only remainders are dropped and remainders are trimmed to their non-blank extent, so an
  anchor always points at real content.
- A chunk longer than :data:`MAX_CHUNK_LINES` lines or :data:`MAX_CHUNK_BYTES` bytes is split on line
  boundaries into windows that keep their owner (``window`` counts from 0; ``-1`` means unsplit).
- Text files (Markdown, YAML, …) are windows of :data:`TEXT_WINDOW_LINES` lines.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from lazy_intel.lazy_import import lazy_module
from lazy_intel.parse.facts import CALLABLE_KINDS, CONTAINER_KINDS, SymbolFact

np = lazy_module("numpy")  # imported on first use: light paths import this module too

MAX_CHUNK_LINES = 150
MAX_CHUNK_BYTES = 8_000
WINDOW_LINES = 100
TEXT_WINDOW_LINES = 60
WHOLE = -1
NEWLINE_BYTE = 10


@dataclass(frozen=True)
class ChunkSpan:
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    symbol_index: int | None  # index into the file's symbols, or None for file-level code
    window: int = WHOLE


class LineIndex:
    """Byte offset -> 1-based line number for one source."""

    def __init__(self, source: bytes) -> None:
        newlines = np.flatnonzero(np.frombuffer(source, dtype=np.uint8) == NEWLINE_BYTE)
        self.starts: list[int] = [0, *(newlines + 1).tolist()]
        self.size = len(source)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def last_line_of(self, start: int, end: int) -> int:
        """Line of the last byte of ``[start, end)`` (the line of ``start`` for an empty range)."""
        return self.line_of(max(start, end - 1))

    @property
    def line_count(self) -> int:
        return len(self.starts) if self.size and self.starts[-1] < self.size else len(self.starts) - 1


def _trim(source: bytes, start: int, end: int) -> tuple[int, int]:
    while start < end and source[start] in b" \t\r\n\f\v":
        start += 1
    while end > start and source[end - 1] in b" \t\r\n\f\v":
        end -= 1
    return start, end


def _owners(symbols: Sequence[SymbolFact]) -> tuple[list[int], list[int]]:
    """Indices of outermost callables and of containers not nested in a callable."""
    order = sorted(range(len(symbols)), key=lambda i: (symbols[i].start_byte, -symbols[i].end_byte))
    stack: list[int] = []
    callables: list[int] = []
    containers: list[int] = []
    for i in order:
        s = symbols[i]
        while stack and symbols[stack[-1]].end_byte <= s.start_byte:
            stack.pop()
        inside_callable = any(symbols[j].kind in CALLABLE_KINDS for j in stack)
        if not inside_callable and s.end_byte > s.start_byte:
            if s.kind in CALLABLE_KINDS:
                callables.append(i)
            elif s.kind in CONTAINER_KINDS:
                containers.append(i)
        stack.append(i)
    return callables, containers


def _windows(source: bytes, lines: LineIndex, span: ChunkSpan) -> list[ChunkSpan]:
    if (
        span.end_line - span.start_line + 1 <= MAX_CHUNK_LINES
        and span.end_byte - span.start_byte <= MAX_CHUNK_BYTES
    ):
        return [span]
    out: list[ChunkSpan] = []
    line = span.start_line
    window = 0
    while line <= span.end_line:
        start = span.start_byte if line == span.start_line else lines.starts[line - 1]
        last = min(line + WINDOW_LINES - 1, span.end_line)
        end = span.end_byte if last == span.end_line else lines.starts[last]
        # a window that is still too large in bytes (very long lines) is cut at the byte limit
        while end - start > MAX_CHUNK_BYTES and last > line:
            last = line + max(1, (last - line) // 2) - 1
            end = lines.starts[last]
        a, b = _trim(source, start, end)
        if b > a:
            out.append(ChunkSpan(a, b, lines.line_of(a), lines.last_line_of(a, b), span.symbol_index, window))
            window += 1
        line = last + 1
    return out


def chunk_code(
    source: bytes, symbols: Sequence[SymbolFact], lines: LineIndex | None = None
) -> list[ChunkSpan]:
    """Partition ``source`` into symbol-owned chunks (see module docstring)."""
    lines = lines or LineIndex(source)
    callables, containers = _owners(symbols)
    pieces: list[ChunkSpan] = []
    callable_spans = sorted((symbols[i].start_byte, symbols[i].end_byte, i) for i in callables)
    for start, end, i in callable_spans:
        pieces.append(ChunkSpan(start, end, lines.line_of(start), lines.last_line_of(start, end), i))

    # the remainder, cut at container boundaries and owned by the innermost container
    points = {0, len(source)}
    for start, end, _ in callable_spans:
        points.update((start, end))
    for i in containers:
        points.update((symbols[i].start_byte, symbols[i].end_byte))
    cuts = sorted(p for p in points if 0 <= p <= len(source))
    container_spans = sorted(
        ((symbols[i].start_byte, symbols[i].end_byte, i) for i in containers), key=lambda t: (t[0], -t[1])
    )
    callable_starts = [s for s, _, _ in callable_spans]
    merged: list[list[int | None]] = []  # [start, end, owner]
    for a, b in itertools.pairwise(cuts):
        if b <= a:
            continue
        k = bisect.bisect_right(callable_starts, a) - 1
        if k >= 0 and callable_spans[k][0] <= a and b <= callable_spans[k][1]:
            continue  # inside a callable chunk
        owner: int | None = None
        for cs, ce, ci in container_spans:
            if cs <= a and b <= ce:
                owner = ci  # later (inner) containers overwrite outer ones
            elif cs > a:
                break
        if merged and merged[-1][1] == a and merged[-1][2] == owner:
            merged[-1][1] = b
        else:
            merged.append([a, b, owner])
    for a, b, owner in merged:
        assert a is not None and b is not None
        ta, tb = _trim(source, a, b)
        if tb > ta:
            pieces.append(ChunkSpan(ta, tb, lines.line_of(ta), lines.last_line_of(ta, tb), owner))
    pieces.sort(key=lambda c: c.start_byte)
    out: list[ChunkSpan] = []
    for piece in pieces:
        out.extend(_windows(source, lines, piece))
    return out


def chunk_text(source: bytes, lines: LineIndex | None = None) -> list[ChunkSpan]:
    """Windows of :data:`TEXT_WINDOW_LINES` lines for a file without symbols."""
    lines = lines or LineIndex(source)
    out: list[ChunkSpan] = []
    total = lines.line_count
    window = 0
    for first in range(1, total + 1, TEXT_WINDOW_LINES):
        last = min(first + TEXT_WINDOW_LINES - 1, total)
        start = lines.starts[first - 1]
        end = lines.starts[last] if last < len(lines.starts) else len(source)
        a, b = _trim(source, start, end)
        if b > a:
            for piece in _windows(
                source, lines, ChunkSpan(a, b, lines.line_of(a), lines.last_line_of(a, b), None)
            ):
                out.append(
                    ChunkSpan(
                        piece.start_byte, piece.end_byte, piece.start_line, piece.end_line, None, window
                    )
                )
                window += 1
    return out

"""Exact conversion between LSP positions and UTF-8 byte offsets of the observed bytes.

An LSP position is a zero-based line plus a character offset counted in the negotiated position
encoding: UTF-8 code units (bytes), UTF-16 code units (an astral character counts 2) or UTF-32 code
units (code points). Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (LSP's definition, narrower
than :meth:`str.splitlines`). Conversion always runs against the bytes the server was given, so a
CRLF file or a line of emoji maps to the exact byte span of the evidence.

Rules, from the specification: a character offset past the end of its line means the end of the
line; a position one line past the last line at character 0 is the end of the document. A position
inside a character (half of a surrogate pair, the middle of a UTF-8 sequence) is not exact and is
refused, as is a line past the end.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"
ENCODINGS: tuple[str, ...] = (UTF8, UTF16, UTF32)


class PositionError(ValueError):
    """A position or offset that does not denote an exact place in the observed bytes."""


def _units(char: str, encoding: str) -> int:
    code = ord(char)
    if encoding == UTF16:
        return 2 if code > 0xFFFF else 1
    if encoding == UTF8:
        if code < 0x80:
            return 1
        if code < 0x800:
            return 2
        return 3 if code < 0x10000 else 4
    return 1


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    i = 0
    size = len(data)
    while i < size:
        byte = data[i]
        if byte == 0x0A:
            starts.append(i + 1)
        elif byte == 0x0D:
            if i + 1 < size and data[i + 1] == 0x0A:
                i += 1
            starts.append(i + 1)
        i += 1
    return starts


@dataclass(frozen=True)
class TextCodec:
    """Position arithmetic over one observed document (UTF-8 bytes)."""

    data: bytes
    _starts: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.data.decode("utf-8")  # raises UnicodeDecodeError: positions need UTF-8 text
        object.__setattr__(self, "_starts", _line_starts(self.data))

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_bounds(self, line: int) -> tuple[int, int]:
        """Byte span of ``line``'s content, without its terminator."""
        if line < 0 or line >= len(self._starts):
            raise PositionError(f"line {line} is outside the document (0..{len(self._starts) - 1})")
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.data)
        if end > start and self.data[end - 1] == 0x0A:
            end -= 1
        if end > start and self.data[end - 1] == 0x0D:
            end -= 1
        return start, end

    def line_of(self, offset: int) -> int:
        """Zero-based line holding byte ``offset`` (the end of the document belongs to the last line)."""
        if offset < 0 or offset > len(self.data):
            raise PositionError(f"byte offset {offset} is outside the document (0..{len(self.data)})")
        return bisect_right(self._starts, offset) - 1

    def to_offset(self, line: int, character: int, encoding: str) -> int:
        """Byte offset of the LSP position ``(line, character)`` counted in ``encoding``."""
        if encoding not in ENCODINGS:
            raise PositionError(f"unknown position encoding {encoding!r}")
        if line < 0 or character < 0:
            raise PositionError(f"position {line}:{character} is negative")
        if line == len(self._starts) and character == 0:
            return len(self.data)
        start, end = self.line_bounds(line)
        if encoding == UTF8:
            offset = min(start + character, end)
            if offset < end and (self.data[offset] & 0xC0) == 0x80:
                raise PositionError(f"position {line}:{character} falls inside a UTF-8 sequence")
            return offset
        text = self.data[start:end].decode("utf-8")
        remaining = character
        offset = start
        for char in text:
            if remaining <= 0:
                break
            units = _units(char, encoding)
            if units > remaining:
                raise PositionError(f"position {line}:{character} falls inside a character ({encoding})")
            remaining -= units
            offset += _units(char, UTF8)
        return offset

    def to_position(self, offset: int, encoding: str) -> tuple[int, int]:
        """LSP position ``(line, character)`` in ``encoding`` of byte ``offset``."""
        if encoding not in ENCODINGS:
            raise PositionError(f"unknown position encoding {encoding!r}")
        line = self.line_of(offset)
        start, end = self.line_bounds(line)
        if offset > end:
            raise PositionError(f"byte offset {offset} falls inside a line terminator")
        if offset < len(self.data) and (self.data[offset] & 0xC0) == 0x80:
            raise PositionError(f"byte offset {offset} falls inside a UTF-8 sequence")
        if encoding == UTF8:
            return line, offset - start
        prefix = self.data[start:offset].decode("utf-8")
        return line, sum(_units(char, encoding) for char in prefix)

    def span_lines(self, start: int, end: int) -> tuple[int, int]:
        """1-based inclusive line span of the byte span ``[start, end)`` (an empty span: its line)."""
        first = self.line_of(start)
        last = self.line_of(max(start, end - 1)) if end > start else first
        return first + 1, last + 1

    def whole_lines(self, start: int, end: int) -> tuple[int, int]:
        """The byte span of the complete lines covering ``[start, end)``, terminators excluded."""
        first = self.line_of(start)
        last = self.line_of(max(start, end - 1)) if end > start else first
        return self.line_bounds(first)[0], self.line_bounds(last)[1]

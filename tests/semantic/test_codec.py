"""Position codec: exact UTF-8 byte <-> UTF-8/UTF-16/UTF-32 LSP positions, CRLF and astral safe."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lazy_intel.semantic.codec import UTF8, UTF16, UTF32, PositionError, TextCodec

PIECES = st.sampled_from(["a", "é", "中", "😀", "𝄞", "\r\n", "\n", "\r", " ", "\t", "z"])
TEXTS = st.lists(PIECES, max_size=40).map("".join)


def boundaries(text: str) -> list[int]:
    """Byte offsets of every code-point boundary that is not inside a CRLF pair."""
    out = [0]
    offset = 0
    for index, char in enumerate(text):
        offset += len(char.encode("utf-8"))
        if char == "\r" and text[index + 1 : index + 2] == "\n":
            continue
        out.append(offset)
    return out


def reference_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """An independent computation through Python's codecs."""
    prefix = text.encode("utf-8")[:offset].decode("utf-8")
    normalized = prefix.replace("\r\n", "\n").replace("\r", "\n")
    line = normalized.count("\n")
    column_text = normalized.rsplit("\n", 1)[-1]
    if encoding == UTF8:
        return line, len(column_text.encode("utf-8"))
    if encoding == UTF16:
        return line, len(column_text.encode("utf-16-le")) // 2
    return line, len(column_text)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.sampled_from([UTF8, UTF16, UTF32]))
def test_round_trip_matches_reference(text: str, encoding: str) -> None:
    codec = TextCodec(text.encode("utf-8"))
    for offset in boundaries(text):
        position = codec.to_position(offset, encoding)
        assert position == reference_position(text, offset, encoding)
        assert codec.to_offset(*position, encoding) == offset


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_utf16_and_utf8_positions_denote_the_same_bytes(text: str) -> None:
    codec = TextCodec(text.encode("utf-8"))
    for offset in boundaries(text):
        via16 = codec.to_offset(*codec.to_position(offset, UTF16), UTF16)
        via8 = codec.to_offset(*codec.to_position(offset, UTF8), UTF8)
        via32 = codec.to_offset(*codec.to_position(offset, UTF32), UTF32)
        assert via16 == via8 == via32 == offset


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_line_count_follows_lsp_terminators(text: str) -> None:
    codec = TextCodec(text.encode("utf-8"))
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    assert codec.line_count == normalized.count("\n") + 1


def test_astral_character_is_two_utf16_units_and_four_bytes() -> None:
    codec = TextCodec("x😀y\r\nz".encode())
    assert codec.to_offset(0, 3, UTF16) == 1 + 4
    assert codec.to_offset(0, 2, UTF32) == 1 + 4
    assert codec.to_offset(0, 5, UTF8) == 5
    assert codec.to_position(5, UTF16) == (0, 3)
    assert codec.to_offset(1, 0, UTF16) == 8  # after the CRLF
    with pytest.raises(PositionError, match="inside a character"):
        codec.to_offset(0, 2, UTF16)  # between the surrogates
    with pytest.raises(PositionError, match="inside a UTF-8 sequence"):
        codec.to_offset(0, 2, UTF8)


def test_out_of_range_rules() -> None:
    codec = TextCodec(b"ab\ncd")
    assert codec.to_offset(0, 99, UTF16) == 2  # past the line end means the line end
    assert codec.to_offset(2, 0, UTF16) == 5  # one past the last line, character 0: end of document
    with pytest.raises(PositionError):
        codec.to_offset(3, 0, UTF16)
    with pytest.raises(PositionError):
        codec.to_position(99, UTF16)
    with pytest.raises(PositionError, match="line terminator"):
        TextCodec(b"a\r\nb").to_position(2, UTF16)


def test_non_utf8_bytes_are_refused() -> None:
    with pytest.raises(UnicodeDecodeError):
        TextCodec(b"caf\xe9")


def test_whole_lines_and_spans() -> None:
    codec = TextCodec(b"one\r\ntwo\nthree")
    assert codec.whole_lines(6, 7) == (5, 8)
    assert codec.span_lines(6, 12) == (2, 3)
    assert codec.span_lines(5, 5) == (2, 2)

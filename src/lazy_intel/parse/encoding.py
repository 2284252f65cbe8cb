"""How the text of a source file is read for parsing and for names (issue 18, class 6).

Anchors always name bytes of the captured file. The grammars read UTF-8, so a file that is not UTF-8
is transcoded to UTF-8 for parsing (:func:`for_parsing`), and every byte offset the parse yields is
mapped back to the original bytes (:class:`Transcoded`). A file that is not UTF-8 keeps its names:

1. a UTF-8 byte-order mark means UTF-8;
2. an encoding declaration in the first two lines — PEP 263 (``# -*- coding: latin-1 -*-``), which
   Ruby's magic comment and Emacs/Vim modelines also match — names the codec, when Python knows it
   and it is ASCII-compatible (the grammars read ASCII syntax);
3. otherwise UTF-8.

A file is decoded with that codec; bytes that do not decode under it are read as Latin-1, which maps
every byte to one code point: nothing is lost, so an undeclared Latin-1 file still yields
``café_func`` and a UTF-8 file with one stray byte keeps every other name intact.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

import numpy as np

UTF8 = "utf-8"
FALLBACK = "latin-1"
# PEP 263: on the first or second line, a comment with coding[:=]<name>
CODING_RE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")

LATIN1_ERRORS = "lazy-intel-latin1"


def _latin1_fallback(error: UnicodeError) -> tuple[str, int]:
    """Decode error handler: the first undecodable byte as its Latin-1 character."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return chr(error.object[error.start]), error.start + 1


codecs.register_error(LATIN1_ERRORS, _latin1_fallback)


def declared_encoding(data: bytes) -> str | None:
    """The codec a BOM or an encoding declaration names (normalised), or ``None``."""
    if data.startswith(codecs.BOM_UTF8):
        return UTF8
    for line in data.split(b"\n", 2)[:2]:
        match = CODING_RE.match(line)
        if match is None:
            continue
        try:
            name = codecs.lookup(match.group(1).decode("ascii")).name
        except (LookupError, UnicodeDecodeError):
            return None
        try:
            ascii_compatible = "azAZ09 #:=()._-\n".encode(name) == b"azAZ09 #:=()._-\n"
        except (UnicodeEncodeError, LookupError):
            ascii_compatible = False
        return name if ascii_compatible else None
    return None


def source_codec(data: bytes) -> str:
    """The codec names of ``data`` are decoded with (see the module docstring)."""
    return declared_encoding(data) or UTF8


def decode_with(raw: bytes, codec: str) -> str:
    """``raw`` as text under ``codec``, undecodable bytes as Latin-1 (never lossy, never raises)."""
    return raw.decode(codec, LATIN1_ERRORS)


@dataclass(frozen=True)
class Transcoded:
    """A file as the grammars read it: UTF-8 bytes, and for each of their offsets the offset in the
    original bytes (``None``: the file is valid UTF-8 and is parsed as it is)."""

    utf8: bytes
    original: np.ndarray | None = None

    def offset(self, utf8_offset: int) -> int:
        if self.original is None:
            return utf8_offset
        return int(self.original[min(max(utf8_offset, 0), len(self.original) - 1)])


def _single_byte(codec: str) -> bool:
    """Whether ``codec`` maps every byte to exactly one character (Latin-1, cp1252, …)."""
    try:
        return (
            len(bytes(range(256)).decode(codec, LATIN1_ERRORS)) == 256
            and len(b"\xc3\xa9\xe4\xb8\xad".decode(codec, LATIN1_ERRORS)) == 5
        )
    except LookupError:
        return False


def _multi_byte(data: bytes, codec: str) -> tuple[str, np.ndarray, np.ndarray] | None:
    """(text, original start of each character, UTF-8 width of each), undecodable bytes read as
    Latin-1; ``None`` when the characters do not account for exactly the file's bytes."""
    starts: list[int] = []
    chars: list[str] = []
    cursor = 0
    for ch in data.decode(codec, "surrogateescape"):
        code = ord(ch)
        starts.append(cursor)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape): its Latin-1 char
            chars.append(chr(code - 0xDC00))
            cursor += 1
        else:
            chars.append(ch)
            try:
                cursor += len(ch.encode(codec))
            except UnicodeEncodeError:
                return None
    if cursor != len(data):
        return None
    widths = np.fromiter(
        (len(ch.encode(UTF8, "surrogatepass")) for ch in chars), dtype=np.int64, count=len(chars)
    )
    return "".join(chars), np.asarray(starts, dtype=np.int64), widths


def for_parsing_as(data: bytes, codec: str) -> Transcoded:
    """``data`` read with the single-byte ``codec``, as UTF-8 with the map back."""
    text = data.decode(codec, LATIN1_ERRORS)
    widths = np.fromiter(
        (len(ch.encode(UTF8, "surrogatepass")) for ch in text), dtype=np.int64, count=len(text)
    )
    utf8 = text.encode(UTF8, "surrogatepass")
    original = np.append(np.repeat(np.arange(len(data), dtype=np.int64), widths), np.int64(len(data)))
    return Transcoded(utf8, original)


def for_parsing(data: bytes) -> Transcoded:
    """``data`` as UTF-8 for the grammars, with the map back to its own offsets."""
    declared = declared_encoding(data)
    if declared in (None, UTF8):
        try:
            data.decode(UTF8)
            return Transcoded(data)
        except UnicodeDecodeError:
            pass
    codec = declared if declared not in (None, UTF8) else UTF8
    if _single_byte(codec):
        return for_parsing_as(data, codec)
    # UTF-8 with stray bytes, or a multi-byte codec: each character's own bytes
    decoded = _multi_byte(data, codec)
    if decoded is None:  # a codec whose characters do not re-encode to their bytes
        return for_parsing_as(data, FALLBACK)
    text, starts, widths = decoded
    utf8 = text.encode(UTF8, "surrogatepass")
    original = np.append(np.repeat(starts, widths), np.int64(len(data)))
    return Transcoded(utf8, original)


def remap_offsets(value: Any, readable: Transcoded) -> Any:
    """``value`` (facts: dataclasses, tuples, lists) with every ``*_byte`` field mapped from the
    transcoded bytes back to the original bytes."""
    if readable.original is None:
        return value
    if isinstance(value, tuple | list):
        return type(value)(remap_offsets(v, readable) for v in value)
    if is_dataclass(value) and not isinstance(value, type):
        changes: dict[str, Any] = {}
        for f in fields(value):
            current = getattr(value, f.name)
            if f.name.endswith("_byte") and isinstance(current, int):
                changes[f.name] = readable.offset(current)
            elif isinstance(current, tuple | list) or is_dataclass(current):
                changes[f.name] = remap_offsets(current, readable)
        return replace(value, **changes)
    return value

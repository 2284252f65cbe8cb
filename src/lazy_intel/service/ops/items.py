"""Building evidence items from store rows: verbatim text sliced from the captured bytes."""

from __future__ import annotations

from collections.abc import Mapping

from lazy_intel.evidence.model import TEXT_SOURCE, Anchor, Item, SymbolInfo
from lazy_intel.store.reader import ChunkRow, ReadView, SymbolRow


def slice_text(view: ReadView, sha256: str, start: int, end: int) -> tuple[str | None, bool]:
    """The captured bytes ``[start, end)`` as text, and whether decoding was lossy (invalid UTF-8)."""
    data = view.content(sha256)
    if data is None:
        return None, False
    raw = data[start:end]
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), True


def row_anchor(view: ReadView, row: ChunkRow | SymbolRow) -> Anchor:
    """The anchor of a chunk's or a symbol's bytes in the view's generation."""
    return Anchor(
        row.path, row.file_sha256, row.start_byte, row.end_byte, row.start_line, row.end_line, view.generation
    )


def _lossy_extra(lossy: bool, extra: Mapping[str, object] | None) -> Mapping[str, object] | None:
    if not lossy:
        return extra
    merged: dict[str, object] = dict(extra or {})
    merged["text_lossy"] = True  # the file is not valid UTF-8: U+FFFD replaces undecodable bytes
    return merged


def chunk_item(
    view: ReadView,
    row: ChunkRow,
    *,
    score: float | None = None,
    signals: Mapping[str, float] | None = None,
    extra: Mapping[str, object] | None = None,
) -> Item:
    text, lossy = slice_text(view, row.file_sha256, row.start_byte, row.end_byte)
    symbol = None
    if row.symbol_name is not None and row.qualified_name is not None and row.kind is not None:
        symbol = SymbolInfo(
            name=row.symbol_name,
            qualified_name=row.qualified_name,
            kind=row.kind,
            language=row.lang,
            signature=row.signature,
            parent=row.parent_name,
        )
    window_extra: dict[str, object] = dict(extra or {})
    if row.window >= 0:
        window_extra["window"] = row.window
    return Item(
        kind="chunk",
        text_kind=TEXT_SOURCE,
        text=text,
        anchor=row_anchor(view, row),
        symbol=symbol,
        score=score,
        signals=signals,
        extra=_lossy_extra(lossy, window_extra or None),
    )


def symbol_item(
    view: ReadView, row: SymbolRow, *, score: float | None = None, extra: Mapping[str, object] | None = None
) -> Item:
    text, lossy = slice_text(view, row.file_sha256, row.start_byte, row.end_byte)
    return Item(
        kind="symbol",
        text_kind=TEXT_SOURCE,
        text=text,
        anchor=row_anchor(view, row),
        symbol=SymbolInfo(
            name=row.name,
            qualified_name=row.qualified_name,
            kind=row.kind,
            language=row.lang,
            signature=row.signature,
            doc=row.doc,
            parent=row.parent_name,
        ),
        score=score,
        extra=_lossy_extra(lossy, extra),
    )

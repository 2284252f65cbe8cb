"""Turning typed LSP results into anchored evidence items.

Every range is converted in the server's position encoding against the bytes the server saw: the
document we opened (its synced bytes) or, for another file, its bytes on disk read now. A location
item's anchor covers the whole lines of the range and its ``text`` is exactly those bytes; the
precise span the server named is ``match``. A URI outside the workspace, a file that cannot be
read as UTF-8, or a range that is not an exact position is *dropped* with a reason — the caller
marks the answer ``partial``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from lazy_intel.errors import Unavailable
from lazy_intel.evidence.model import (
    TEXT_DESCRIPTION,
    TEXT_SOURCE,
    Anchor,
    Item,
    SemanticObservation,
    SymbolInfo,
)
from lazy_intel.semantic.codec import PositionError, TextCodec
from lazy_intel.semantic.scrub import scrub_markdown, scrub_text
from lazy_intel.semantic.session import ServerSession
from lazy_intel.semantic.uris import UriRejected, uri_to_relative
from lazy_intel.workspace.capture import read_regular_file, sha256_bytes

MAX_ITEM_LINES = 200
MAX_SYMBOLS = 5000
MAX_SITES = 32
_converter = get_converter()


def structure(result: Any, response_type: type, *, server: str, method: str) -> Any:
    """The typed ``result`` of ``method`` (lsprotocol), or ``UNAVAILABLE`` when it is malformed."""
    try:
        return _converter.structure({"jsonrpc": "2.0", "id": 0, "result": result}, response_type).result
    except Exception as exc:
        raise Unavailable(
            f"language server {server} returned a malformed {method} result ({exc.__class__.__name__})"
        ) from None


def kind_name(enum: type, value: Any) -> str:
    try:
        return enum(value).name.lower()
    except (ValueError, TypeError):
        return "unknown"


@dataclass
class FileView:
    relative_path: str
    data: bytes
    sha256: str
    codec: TextCodec
    version: int


@dataclass
class Anchoring:
    """Per-answer cache of the files results point into, plus what had to be dropped."""

    session: ServerSession
    encoding: str
    max_file_bytes: int
    generation: int = 0
    dropped: list[str] = field(default_factory=list)
    _files: dict[str, FileView | None] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.session.root

    def file_view(self, relative_path: str) -> FileView | None:
        if relative_path in self._files:
            return self._files[relative_path]
        view: FileView | None = None
        opened = self.session.open_document(relative_path)
        if opened is not None:
            view = FileView(relative_path, opened.codec.data, opened.sha256, opened.codec, opened.version)
        else:
            try:
                data = read_regular_file(self.root / relative_path)
                if len(data) <= self.max_file_bytes:
                    view = FileView(relative_path, data, sha256_bytes(data), TextCodec(data), 0)
                else:
                    self.dropped.append(f"{relative_path}: larger than {self.max_file_bytes} bytes")
            except (OSError, UnicodeDecodeError) as exc:
                self.dropped.append(f"{relative_path}: unreadable as UTF-8 text ({exc.__class__.__name__})")
        self._files[relative_path] = view
        return view

    def observation(self, view: FileView, diagnostics: str = "not_reported") -> SemanticObservation:
        negotiated = self.session.negotiated
        return SemanticObservation(
            server_id=self.session.server.id,
            session_epoch=negotiated.epoch if negotiated else self.session.epoch,
            document_version=view.version,
            observed_sha256=view.sha256,
            position_encoding=self.encoding,
            diagnostics=diagnostics,
        )

    def locate(self, uri: str, rng: types.Range) -> tuple[FileView, int, int] | None:
        """``(file, start_byte, end_byte)`` of an LSP range, or ``None`` (dropped, reason kept)."""
        try:
            relative = uri_to_relative(self.root, uri)
        except UriRejected as exc:
            self.dropped.append(f"{_short(uri)}: {exc}")
            return None
        view = self.file_view(relative)
        if view is None:
            return None
        try:
            start = view.codec.to_offset(rng.start.line, rng.start.character, self.encoding)
            end = view.codec.to_offset(rng.end.line, rng.end.character, self.encoding)
        except (PositionError, AttributeError, TypeError) as exc:
            self.dropped.append(f"{relative}: range is not an exact position ({exc})")
            return None
        if end < start:
            self.dropped.append(f"{relative}: range ends before it starts")
            return None
        return view, start, end

    def anchor(self, view: FileView, start: int, end: int) -> tuple[Anchor, str]:
        """Whole-line anchor of ``[start, end)`` (capped) and its verbatim text."""
        line_start, line_end = view.codec.whole_lines(start, end)
        first, last = view.codec.span_lines(line_start, line_end)
        if last - first + 1 > MAX_ITEM_LINES:
            line_start, line_end = view.codec.whole_lines(start, start)
            first, last = view.codec.span_lines(line_start, line_end)
        anchor = Anchor(view.relative_path, view.sha256, line_start, line_end, first, last, self.generation)
        return anchor, view.data[line_start:line_end].decode("utf-8")

    def site(self, view: FileView, start: int, end: int) -> dict[str, int]:
        first, last = view.codec.span_lines(start, end)
        return {"start_byte": start, "end_byte": end, "start_line": first, "end_line": last}

    # -- item builders --------------------------------------------------------------------------
    def source_item(
        self, kind: str, uri: str, body: types.Range, match: types.Range | None = None, **extra: Any
    ) -> Item | None:
        located = self.locate(uri, body)
        if located is None:
            return None
        view, start, end = located
        match_span = (start, end)
        if match is not None and match is not body:
            precise = self.locate(uri, match)
            if precise is None:
                return None
            match_span = (precise[1], precise[2])
        anchor, text = self.anchor(view, start, end)
        return Item(
            kind=kind,
            text_kind=TEXT_SOURCE,
            anchor=anchor,
            text=text,
            observation=self.observation(view),
            extra={"match": self.site(view, *match_span), **extra},
        )

    def description_item(
        self,
        kind: str,
        uri: str,
        rng: types.Range,
        text: str,
        *,
        symbol: SymbolInfo | None = None,
        diagnostics: str = "not_reported",
        **extra: Any,
    ) -> Item | None:
        located = self.locate(uri, rng)
        if located is None:
            return None
        view, start, end = located
        anchor, _ = self.anchor(view, start, end)
        return Item(
            kind=kind,
            text_kind=TEXT_DESCRIPTION,
            anchor=anchor,
            text=text,
            symbol=symbol,
            observation=self.observation(view, diagnostics),
            extra={"match": self.site(view, start, end), **extra},
        )


def _short(uri: str) -> str:
    return uri if len(uri) <= 120 else uri[:117] + "..."


def location_items(anchoring: Anchoring, kind: str, result: Any) -> list[Item]:
    """Items of a ``Location | Location[] | LocationLink[] | null`` result."""
    if result is None:
        return []
    entries = result if isinstance(result, Sequence) else [result]
    items: list[Item] = []
    for entry in entries:
        if isinstance(entry, types.LocationLink):
            item = anchoring.source_item(
                kind, entry.target_uri, entry.target_range, entry.target_selection_range
            )
        elif isinstance(entry, types.Location):
            item = anchoring.source_item(kind, entry.uri, entry.range)
        else:
            anchoring.dropped.append("an entry that is neither a Location nor a LocationLink")
            continue
        if item is not None:
            items.append(item)
    return items


def markup_text(contents: Any) -> str:
    """Plain text of hover/documentation contents (MarkupContent, MarkedString or a list)."""
    if contents is None:
        return ""
    if isinstance(contents, str):
        return contents
    if isinstance(contents, types.MarkupContent):
        return contents.value
    if isinstance(contents, types.MarkedStringWithLanguage):
        return f"```{contents.language}\n{contents.value}\n```"
    if isinstance(contents, Iterable):
        return "\n\n".join(markup_text(part) for part in contents)
    return ""


def hover_text(hover: types.Hover) -> str:
    return scrub_markdown(markup_text(hover.contents))


def signature_text(help_: types.SignatureHelp) -> tuple[str, dict[str, Any]]:
    lines: list[str] = []
    for index, signature in enumerate(help_.signatures[:16]):
        marker = "*" if index == (help_.active_signature or 0) else "-"
        lines.append(f"{marker} {scrub_text(signature.label, limit=1000)}")
        doc = scrub_markdown(markup_text(signature.documentation), limit=2000)
        if doc:
            lines.append("  " + doc.replace("\n", "\n  "))
    extra = {"active_signature": help_.active_signature, "active_parameter": help_.active_parameter}
    return "\n".join(lines), {k: v for k, v in extra.items() if v is not None}


@dataclass(frozen=True)
class _Symbol:
    name: str
    kind: Any
    uri: str
    range: Any
    selection: Any = None
    container: str | None = None
    detail: Any = None


def _symbol_item(anchoring: Anchoring, kind: str, symbol: _Symbol) -> Item | None:
    kind_text = kind_name(types.SymbolKind, symbol.kind)
    qualified = f"{symbol.container}.{symbol.name}" if symbol.container else symbol.name
    detail = f" {scrub_text(str(symbol.detail), limit=200)}" if symbol.detail else ""
    info = SymbolInfo(
        name=scrub_text(symbol.name, limit=200),
        qualified_name=scrub_text(qualified, limit=400),
        kind=kind_text,
        parent=symbol.container,
    )
    if symbol.range is None:
        anchoring.dropped.append(f"{symbol.name}: symbol without a range")
        return None
    item = anchoring.description_item(
        kind, symbol.uri, symbol.range, f"{kind_text} {qualified}{detail}", symbol=info
    )
    if item is not None and symbol.selection is not None and symbol.selection is not symbol.range:
        located = anchoring.locate(symbol.uri, symbol.selection)
        if located is not None:
            item = replace(item, extra={**(item.extra or {}), "name_span": anchoring.site(*located)})
    return item


def _flatten(result: Any, document_uri: str | None, anchoring: Anchoring) -> list[_Symbol]:
    out: list[_Symbol] = []

    def walk(symbol: types.DocumentSymbol, container: str | None, depth: int) -> None:
        assert document_uri is not None
        out.append(
            _Symbol(
                symbol.name,
                symbol.kind,
                document_uri,
                symbol.range,
                symbol.selection_range,
                container,
                symbol.detail,
            )
        )
        if depth < 32:
            qualified = f"{container}.{symbol.name}" if container else symbol.name
            for child in symbol.children or ():
                walk(child, qualified, depth + 1)

    for entry in result or ():
        if isinstance(entry, types.DocumentSymbol):
            walk(entry, None, 0)
        elif isinstance(entry, types.SymbolInformation):
            out.append(
                _Symbol(
                    entry.name,
                    entry.kind,
                    entry.location.uri,
                    entry.location.range,
                    container=entry.container_name,
                )
            )
        elif isinstance(entry, types.WorkspaceSymbol):
            rng = getattr(entry.location, "range", None) or types.Range(
                types.Position(0, 0), types.Position(0, 0)
            )
            out.append(
                _Symbol(entry.name, entry.kind, entry.location.uri, rng, container=entry.container_name)
            )
        else:
            anchoring.dropped.append("a symbol entry of an unknown shape")
    return out


def symbol_items(anchoring: Anchoring, kind: str, result: Any, document_uri: str | None) -> list[Item]:
    """Items of document symbols (hierarchical or flat) or workspace symbols."""
    items: list[Item] = []
    for symbol in _flatten(result, document_uri, anchoring)[:MAX_SYMBOLS]:
        item = _symbol_item(anchoring, kind, symbol)
        if item is not None:
            items.append(item)
    return items


def diagnostic_items(
    anchoring: Anchoring, uri: str, diagnostics: Iterable[Any], completion: str
) -> list[Item]:
    items: list[Item] = []
    for raw in diagnostics:
        diagnostic = raw if isinstance(raw, types.Diagnostic) else structure_diagnostic(raw)
        if diagnostic is None:
            anchoring.dropped.append("a malformed diagnostic")
            continue
        severity = (
            kind_name(types.DiagnosticSeverity, diagnostic.severity) if diagnostic.severity else "unknown"
        )
        message = scrub_text(diagnostic.message, limit=2000)
        extra: dict[str, Any] = {"severity": severity}
        if diagnostic.code is not None:
            extra["code"] = scrub_text(str(diagnostic.code), limit=100)
        if diagnostic.source:
            extra["source"] = scrub_text(diagnostic.source, limit=100)
        item = anchoring.description_item(
            "diagnostic", uri, diagnostic.range, f"{severity}: {message}", diagnostics=completion, **extra
        )
        if item is not None:
            items.append(item)
    return items


def structure_diagnostic(raw: Any) -> types.Diagnostic | None:
    try:
        diagnostic = _converter.structure(raw, types.Diagnostic)
    except Exception:
        return None
    if not isinstance(diagnostic.message, str) or not isinstance(diagnostic.range, types.Range):
        return None
    return diagnostic


def hierarchy_item(
    anchoring: Anchoring, kind: str, item: Any, sites: Sequence[types.Range], sites_uri: str, **extra: Any
) -> Item | None:
    """An item for a call/type hierarchy entry, with its call sites as byte spans."""
    kind_text = kind_name(types.SymbolKind, item.kind)
    detail = f" {scrub_text(item.detail, limit=200)}" if item.detail else ""
    info = SymbolInfo(
        name=scrub_text(item.name, limit=200), qualified_name=scrub_text(item.name, limit=200), kind=kind_text
    )
    spans: list[dict[str, Any]] = []
    for rng in list(sites)[:MAX_SITES]:
        located = anchoring.locate(sites_uri, rng)
        if located is not None:
            site = anchoring.site(located[0], located[1], located[2])
            spans.append({"path": located[0].relative_path, **site})
    built = anchoring.description_item(
        kind, item.uri, item.range, f"{kind_text} {item.name}{detail}", symbol=info, **extra
    )
    if built is None:
        return None
    if spans:
        built = replace(built, extra={**(built.extra or {}), "sites": spans})
    return built

"""Turn one captured path into a :class:`FileRecord` (read once, hash, classify, parse, chunk).

Runs in worker processes for large change sets, so it takes and returns only picklable values;
:func:`parse_many` owns that pool (see :mod:`lazy_intel.service.indexing.parse_pool`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

from lazy_intel.parse.chunks import LineIndex, chunk_code, chunk_text
from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.languages import (
    is_noise_path,
    is_parsed_language,
    language_for_content,
    language_for_path,
)
from lazy_intel.store.writer import FileRecord, with_fts_rows
from lazy_intel.workspace.capture import (
    ENCODING_INVALID,
    ENCODING_UTF8,
    STATUS_BINARY,
    STATUS_EXCLUDED,
    STATUS_INDEXED,
    STATUS_PARSE_ERROR,
    STATUS_TOO_LARGE,
    looks_binary,
    read_regular_file,
    sha256_bytes,
    sha256_file,
)


def read_path(root: str | Path, rel: str, max_bytes: int) -> FileRecord | tuple[bytes, int] | None:
    """What is on disk at ``root/rel`` now, before parsing: a record decided from the entry alone (a
    symlink, a file over the size limit), or its bytes and mtime, or ``None`` when it vanished."""
    full = Path(root) / rel
    try:
        info = os.lstat(full)
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        lang = language_for_path(rel)
        return FileRecord(rel, "", 0, info.st_mtime_ns, lang, STATUS_EXCLUDED, reason="symlink")
    if not stat.S_ISREG(info.st_mode):
        return None
    try:
        if info.st_size > max_bytes:
            return FileRecord(
                rel,
                sha256_file(full),
                info.st_size,
                info.st_mtime_ns,
                language_for_path(rel),
                STATUS_TOO_LARGE,
                reason=f"larger than {max_bytes} bytes",
            )
        return read_regular_file(full), info.st_mtime_ns
    except OSError:
        return None


def parse_path(root: str, rel: str, max_bytes: int) -> FileRecord | None:
    """The record for ``root/rel`` as it is on disk now; ``None`` when it vanished."""
    found = read_path(root, rel, max_bytes)
    if found is None or isinstance(found, FileRecord):
        return found
    data, mtime_ns = found
    return record_for_bytes(rel, data, mtime_ns, max_bytes)


def record_for_bytes(rel: str, data: bytes, mtime_ns: int, max_bytes: int) -> FileRecord:
    """Classify, parse and chunk ``data`` (the bytes of ``rel``)."""
    lang = language_for_content(rel, data)
    base = FileRecord(rel, sha256_bytes(data), len(data), mtime_ns, lang, STATUS_INDEXED)
    if len(data) > max_bytes:
        return replace(base, status=STATUS_TOO_LARGE, reason=f"larger than {max_bytes} bytes")
    if looks_binary(data):
        return replace(base, status=STATUS_BINARY)
    if is_noise_path(rel):
        return replace(base, lang=None, status=STATUS_EXCLUDED, reason="generated or data file")
    if lang is None:
        return replace(base, status=STATUS_EXCLUDED, reason="unknown file type")
    try:
        data.decode("utf-8")
        encoding = ENCODING_UTF8
    except UnicodeDecodeError:
        encoding = ENCODING_INVALID
    lines = LineIndex(data)
    text = replace(base, encoding=encoding, line_count=lines.line_count, data=data)
    if not is_parsed_language(lang):
        return with_fts_rows(replace(text, chunks=tuple(chunk_text(data, lines))))
    facts = extract_facts(rel, lang, data)
    if facts.error is not None:
        # still searchable as text windows; the error is recorded as the reason
        return with_fts_rows(
            replace(
                text, status=STATUS_PARSE_ERROR, reason=facts.error, chunks=tuple(chunk_text(data, lines))
            )
        )
    return with_fts_rows(
        replace(
            text,
            syntax_errors=facts.syntax_errors,
            facts=facts,
            chunks=tuple(chunk_code(data, facts.symbols, lines)),
        )
    )


def with_outline(record: FileRecord) -> FileRecord:
    """``record`` (as :func:`lazy_intel.store.writer.for_transfer` sends it) with its graph outline
    (nodes, interface record, definitions), computed from the rows it holds: what describing the
    file from the store would give, without reading its facts back (a full build's parse worker)."""
    if record.rows is None or record.lang is None or record.status != STATUS_INDEXED:
        return record
    from lazy_intel.graph.build import outline_of
    from lazy_intel.graph.model import model_from_rows

    model = model_from_rows(record.path, record.lang, record.sha256, record.rows)
    if model is None:
        return record
    return replace(record, outline=outline_of(model, record.size, record.line_count))

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
from lazy_intel.parse.languages import is_noise_path, is_parsed_language, language_for_path
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


def parse_path(root: str, rel: str, max_bytes: int) -> FileRecord | None:
    """The record for ``root/rel`` as it is on disk now; ``None`` when it vanished."""
    full = Path(root) / rel
    try:
        info = os.lstat(full)
    except OSError:
        return None
    lang = language_for_path(rel)
    if stat.S_ISLNK(info.st_mode):
        return FileRecord(rel, "", 0, info.st_mtime_ns, lang, STATUS_EXCLUDED, reason="symlink")
    if not stat.S_ISREG(info.st_mode):
        return None
    try:
        if info.st_size > max_bytes:
            sha = sha256_file(full)
            return FileRecord(
                rel,
                sha,
                info.st_size,
                info.st_mtime_ns,
                lang,
                STATUS_TOO_LARGE,
                reason=f"larger than {max_bytes} bytes",
            )
        data = read_regular_file(full)
    except OSError:
        return None
    return record_for_bytes(rel, data, info.st_mtime_ns, max_bytes)


def record_for_bytes(rel: str, data: bytes, mtime_ns: int, max_bytes: int) -> FileRecord:
    """Classify, parse and chunk ``data`` (the bytes of ``rel``)."""
    lang = language_for_path(rel)
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

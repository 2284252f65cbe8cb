"""Every store connection states its page cache and maps no file (real SQLite files)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lazy_intel.store.schema import BULK_CACHE_KIB, CACHE_KIB, connect, create_schema, finish_bulk


def pragma(conn: sqlite3.Connection, name: str) -> int:
    return conn.execute(f"PRAGMA {name}").fetchone()[0]


def test_readers_and_the_writer_have_the_stated_page_cache_and_no_mapping(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    writer = connect(str(path))
    try:
        create_schema(writer)
        assert pragma(writer, "cache_size") == -CACHE_KIB
        assert pragma(writer, "mmap_size") == 0
        reader = connect(str(path), readonly=True)
        try:
            assert pragma(reader, "cache_size") == -CACHE_KIB
            assert pragma(reader, "mmap_size") == 0
            assert reader.execute("SELECT value FROM meta WHERE key='generation'").fetchone() == ("0",)
        finally:
            reader.close()
    finally:
        writer.close()


def test_a_bulk_build_has_the_large_cache_for_its_length_only(tmp_path: Path) -> None:
    path = tmp_path / "fresh.sqlite"
    bulk = connect(str(path), bulk=True)
    try:
        create_schema(bulk)
        assert pragma(bulk, "cache_size") == -BULK_CACHE_KIB
        assert pragma(bulk, "auto_vacuum") == 2, "incremental: set before WAL wrote the first page"
        assert pragma(bulk, "journal_mode") == "wal", "each batch commit is atomic for a killed process"
        assert pragma(bulk, "mmap_size") == 0
        finish_bulk(bulk)
    finally:
        bulk.close()
    later = connect(str(path))
    try:
        assert pragma(later, "cache_size") == -CACHE_KIB
    finally:
        later.close()

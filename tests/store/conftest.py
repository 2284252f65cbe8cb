"""Fixtures of the store tests."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

import lazy_intel.service.indexing.sync as sync_module


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The SQL statements every store connection of a sync runs (real SQLite, traced)."""
    statements: list[str] = []
    real = sync_module.connect

    def tracing(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = real(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(sync_module, "connect", tracing)
    yield statements

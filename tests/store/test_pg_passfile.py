"""A PostgreSQL URL's password kept out of Ray task arguments: split off, written to a private libpq
password file that a real server accepts, and removed after."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from lazy_intel.service.indexing.ray_resolve import task_source
from lazy_intel.store.pg.build import PgFactSource, open_fact_reader
from lazy_intel.store.pg.passfile import passfile_line, private_passfile, without_password
from tests.conftest import PG_TEST_PASSWORD

psycopg = pytest.importorskip("psycopg", reason="the [postgres] extra (psycopg) is not installed")

from psycopg.conninfo import conninfo_to_dict  # noqa: E402


@pytest.mark.parametrize(
    ("dsn", "password"),
    [
        ("postgresql://ann:p%3Aw%5C%40%20x@db.example:6432/code?sslmode=require", "p:w\\@ x"),
        ("postgres://ann:secret@/code?host=/run/pg", "secret"),
        ("host=db.example port=6432 dbname=code user=ann password='a b\\'c' sslmode=require", "a b'c"),
    ],
)
def test_without_password_keeps_everything_else(dsn: str, password: str) -> None:
    bare, found = without_password(dsn)
    assert found == password
    assert password not in bare and "password" not in conninfo_to_dict(bare)
    expected = conninfo_to_dict(dsn)
    del expected["password"]
    assert conninfo_to_dict(bare) == expected


def test_without_password_leaves_a_dsn_without_one_alone() -> None:
    dsn = "postgresql://ann@db.example/code"
    assert without_password(dsn) == (dsn, None)


def test_passfile_line_escapes_what_libpq_reads_as_separators() -> None:
    assert passfile_line("a:b\\c") == "*:*:*:*:a\\:b\\\\c\n"


def test_task_source_carries_no_password() -> None:
    source = PgFactSource("postgresql://ann:hunter2@db/code", "li_x", None)
    sent = task_source(source, "/tmp/f.pgpass")
    assert "hunter2" not in repr(sent) and sent.schema == "li_x" and sent.passfile == "/tmp/f.pgpass"
    assert conninfo_to_dict(sent.dsn) == {"user": "ann", "host": "db", "dbname": "code"}
    assert task_source(source, None).passfile is None
    assert task_source("/state/store.sqlite", None) == "/state/store.sqlite"  # a SQLite store's path


def test_a_real_server_accepts_the_private_passfile(
    pg_password_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.pgpass of the machine's user
    bare, password = without_password(pg_password_dsn)
    assert password == PG_TEST_PASSWORD
    with pytest.raises(psycopg.OperationalError, match="password"):
        open_fact_reader(PgFactSource(bare, "public"))
    with private_passfile(password, tmp_path) as path:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        conn = open_fact_reader(PgFactSource(bare, "public", str(path)))
        try:
            assert conn.execute("SELECT current_user").fetchone() == ("lazy_intel_pw",)
        finally:
            conn.close()
    assert not path.exists()


def test_the_passfile_is_removed_when_the_phase_fails(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), private_passfile("x", tmp_path) as path:
        assert path.exists()
        raise RuntimeError("the phase failed")
    assert list(tmp_path.iterdir()) == []

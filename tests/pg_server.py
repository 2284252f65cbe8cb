"""A real PostgreSQL server for the tests: an ``initdb`` cluster in a temporary directory.

Debian's PostgreSQL binaries (``/usr/lib/postgresql/<major>/bin``) run as the ``postgres`` user when
the tests run as root (PostgreSQL refuses root), listening on a free loopback port and on a Unix
socket inside the cluster directory. The server is started and stopped by the test run; stop and
start again keep the data (the server-restart fault test uses that).

The pgvector tests run a second server the same way from the ``pgserver`` wheel's binaries
(PostgreSQL 16 with pgvector; :func:`pgvector_bindir`), since Debian bookworm has no pgvector
package.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

START_TIMEOUT_S = 60.0


def postgres_bindir() -> Path | None:
    """The newest Debian PostgreSQL bin directory with ``initdb``, or ``None``."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name)
    )
    return Path(found[-1]).parent if found else None


PGVECTOR_PACKAGE = "pgserver"  # PyPI: a self-contained PostgreSQL 16.2 with pgvector 0.6.2


def pgvector_bindir() -> Path | None:
    """The bin directory of the ``pgserver`` wheel's PostgreSQL when it has pgvector, or ``None``.

    Found without importing the package (its import needs dependencies the tests do not)."""
    import importlib.util

    spec = importlib.util.find_spec(PGVECTOR_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    install = Path(spec.origin).parent / "pginstall"
    has_vector = (install / "share" / "postgresql" / "extension" / "vector.control").is_file()
    return install / "bin" if has_vector and (install / "bin" / "initdb").is_file() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One cluster: :meth:`start` (initdb on first use), :meth:`stop`, :meth:`dsn`."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="lazy-intel-pg-"))
        self.data = self.base / "data"
        self.socket_dir = self.base / "socket"
        self.port = _free_port()
        self.log = self.base / "server.log"
        self._as_postgres = os.geteuid() == 0
        self.running = False

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_postgres else []
        return subprocess.run([*prefix, *args], capture_output=True, text=True, check=check, timeout=120)

    def _own(self) -> None:
        if self._as_postgres:
            shutil.chown(self.base, "postgres", "postgres")
            for sub in (self.socket_dir,):
                shutil.chown(sub, "postgres", "postgres")

    def init(self) -> None:
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        self.base.chmod(0o755)
        self._own()
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "--auth=trust",
            "--username=postgres",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as fh:
            fh.write(
                f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 200\nshared_buffers = 64MB\n"
            )

    def start(self) -> None:
        if not self.data.exists():
            self.init()
        self.running = True  # from here on stop() must run: a start that timed out may still come up
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "120", "start"
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            ready = self._run(
                str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), check=False
            )
            if ready.returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"PostgreSQL did not become ready; log: {self.log.read_text()[-2000:]}")

    def stop(self, mode: str = "fast") -> None:
        if not self.running and not (self.data / "postmaster.pid").exists():
            return
        done = self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-m",
            mode,
            "-w",
            "-t",
            "120",
            "stop",
            check=False,
        )
        if done.returncode != 0 and (self.data / "postmaster.pid").exists():
            # not down in time: stop it now rather than leave a server behind
            self._run(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                "immediate",
                "-w",
                "stop",
                check=False,
            )
        self.running = False

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

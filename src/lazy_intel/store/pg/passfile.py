"""A PostgreSQL store URL's password kept out of what travels to a Ray cluster.

A full build on Ray hands each resolve task a :class:`~lazy_intel.store.pg.build.PgFactSource`:
the task opens its own connection to the staging store. Ray keeps task arguments in its control
store (GCS), which has no authentication of its own and which anyone who reaches the head node's
port can read, and writes them to its logs on failure. So a task's source never carries the
password (decided for issue 15, the team deployment of ``docs/design/scale.md``):

- on a **local** Ray instance (``LAZY_INTEL_RAY_ADDRESS=local``: this process's own children, same
  user, same file system) the password goes into a private libpq password file (mode 0600, created
  for one phase and removed after it) and the tasks get only its path (libpq's ``passfile``);
- on a **cluster** the tasks get no credential: the nodes authenticate by libpq's own means
  (``PGPASSFILE`` or ``~/.pgpass``, ``PGPASSWORD`` in the nodes' environment, a certificate). A task
  that cannot connect stops the build with ``UNAVAILABLE`` saying so; the served generation stays.

Parsing the URL is pure; :func:`private_passfile` is the one piece of I/O.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

# libpq's password file: one line of host:port:database:user:password, each field possibly '*';
# a backslash escapes ':' and '\' (https://www.postgresql.org/docs/current/libpq-pgpass.html)
PASSFILE_ANY = "*"
PASSFILE_PREFIX = "lazy-intel-pg-"


def without_password(dsn: str) -> tuple[str, str | None]:
    """``dsn`` without its password (a libpq keyword string) and the password, if it had one.

    Both forms libpq takes are read (``postgresql://user:pw@host/db`` with percent-escapes, and
    ``host=… password=…``); a DSN without a password comes back as it was."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    params = conninfo_to_dict(dsn)
    password = params.pop("password", None)
    if password is None:
        return dsn, None
    return make_conninfo("", **params), str(password)


def passfile_line(password: str) -> str:
    """The password file line that gives ``password`` for any host, port, database and user (the
    file is made for one connection string, so nothing needs to be matched)."""
    escaped = password.replace("\\", "\\\\").replace(":", "\\:")
    return ":".join([PASSFILE_ANY] * 4 + [escaped]) + "\n"


@contextlib.contextmanager
def private_passfile(password: str, directory: Path | None = None) -> Iterator[Path]:
    """A password file readable by this user only, removed when the block ends (also on error;
    a process killed inside the block leaves it behind, as private as the user's ``~/.pgpass``)."""
    fd, name = tempfile.mkstemp(prefix=PASSFILE_PREFIX, suffix=".pgpass", dir=directory)
    path = Path(name)
    try:
        os.fchmod(fd, 0o600)  # libpq refuses a password file that others can read
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(passfile_line(password))
        yield path
    finally:
        path.unlink(missing_ok=True)

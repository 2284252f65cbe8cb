#!/usr/bin/env bash
# The PostgreSQL store backend's test dependencies: Debian's PostgreSQL server (the tests start their
# own initdb cluster from it, as the postgres user, on a loopback port) and pgvector where Debian
# carries it, plus the `[postgres]` extra (psycopg 3) in the test virtualenv. Idempotent.
# The pgvector tests do not need Debian's pgvector: they start a second cluster from the `pgserver`
# wheel (PostgreSQL 16 with pgvector, in the `[test]` extra that scripts/test.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
major_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
if [ -z "$(major_bin)" ] || [ ! -x "$(major_bin)/initdb" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
major="$(basename "$(dirname "$(major_bin)")")"
if [ ! -f "/usr/share/postgresql/$major/extension/vector.control" ]; then
    # pgvector: packaged as postgresql-<major>-pgvector where the Debian release carries it
    if ! apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
        apt-get update -qq || true
    fi
    if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$major-pgvector" >/dev/null
    else
        echo "postgres-install: postgresql-$major-pgvector is not in this machine's Debian sources; this server searches vectors in NumPy (the pgvector tests use the pgserver wheel's server)" >&2
    fi
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[postgres]"
echo "postgres-install: $("$(major_bin)/postgres" --version), psycopg $(.venv/bin/python -c 'import psycopg; print(psycopg.__version__)')"

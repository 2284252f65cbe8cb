#!/usr/bin/env bash
# The test command: installs what the tests need into .venv (idempotent), then runs the whole suite.
# Usage: scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
for extra in .ci/*-install.sh; do
  [ -x "$extra" ] && "$extra"
done
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
# one test process per core (pytest-xdist); tests marked xdist_group share a worker. Pass -n 0
# to run in one process.
exec .venv/bin/python -m pytest -q -n auto --dist loadgroup "$@"

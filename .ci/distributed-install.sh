#!/usr/bin/env bash
# The `[distributed]` extra (Ray 2.60, pinned) in the test virtualenv: the Ray executor's tests start a
# real local Ray instance inside the test process and stop it. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[distributed]"
echo "distributed-install: ray $(.venv/bin/python -c 'import ray; print(ray.__version__)')"

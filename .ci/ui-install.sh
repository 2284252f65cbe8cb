#!/usr/bin/env bash
# The browser the UI tests drive (tests/ui): Debian's chromium and its driver, run headless by
# Playwright (the `[test]` extra) through executable_path=/usr/bin/chromium. Playwright never
# downloads a browser here (`playwright install` is never run). Idempotent; nothing runs at query time.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    echo "ui-install: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "ui-install: chromium is missing; run as root: apt-get install -y chromium chromium-driver" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
echo "ui-install: $(/usr/bin/chromium --version 2>/dev/null | head -1)"

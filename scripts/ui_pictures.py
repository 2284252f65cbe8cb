"""Make the pictures in docs/images: the static SVG of a repository's architecture and screenshots of
``lazy-intel ui`` on it, taken in Debian's headless chromium (as the UI tests drive it).

Usage: .venv/bin/python scripts/ui_pictures.py ROOT OUT_DIR [--name NAME] [--symbol QUALIFIED_NAME]

ROOT is indexed if needed. Writes OUT_DIR/NAME-architecture.svg, OUT_DIR/NAME-ui-packages.png (the
package graph with the central symbols) and OUT_DIR/NAME-ui-symbol.png (the symbol's callers and
callees, its definition open in the source pane).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--name", default=None)
    parser.add_argument("--symbol", default=None, help="default: the most central symbol")
    args = parser.parse_args()
    exe = shutil.which("lazy-intel", path=str(Path(sys.executable).parent)) or "lazy-intel"
    name = args.name or args.root.resolve().name
    args.out.mkdir(parents=True, exist_ok=True)
    svg = subprocess.run(
        [exe, "architecture", "--root", str(args.root), "--format", "svg"], capture_output=True, check=True
    )
    (args.out / f"{name}-architecture.svg").write_bytes(svg.stdout)
    proc = subprocess.Popen(
        [exe, "ui", "--root", str(args.root), "--no-watch", "--json"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        shoot(url, args.out, name, args.symbol)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    for suffix in ("architecture.svg", "ui-packages.png", "ui-symbol.png"):
        print(args.out / f"{name}-{suffix}")
    return 0


def shoot(url: str, out: Path, name: str, symbol: str | None) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path="/usr/bin/chromium",
            headless=True,
            args=FLAGS,
            viewport={"width": 1600, "height": 1000},
        )
        page = context.new_page()
        page.goto(url)
        page.wait_for_function("() => window.lazyIntelUI && window.lazyIntelUI.packages !== null")
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / f"{name}-ui-packages.png"))
        link = (
            page.locator("#central-list a.sym").first
            if symbol is None
            else page.locator(f"#central-list a.sym:text-is('{symbol}')")
        )
        link.click()
        page.wait_for_function(
            "() => window.lazyIntelUI.symbols && window.lazyIntelUI.symbols.nodes.length > 0"
        )
        page.click("text=Show source")
        page.wait_for_function("() => window.lazyIntelUI.source !== null")
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / f"{name}-ui-symbol.png"))
        context.close()


if __name__ == "__main__":
    raise SystemExit(main())

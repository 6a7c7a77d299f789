"""docs/pictures/playground.png: the playground after a mention, a clarifying choice and the report.

    .venv/bin/python tools/playground_picture.py [OUT.png]      (`make playground-picture`)

Starts the playground on loopback, then in Debian's Chromium (Playwright) mentions the bot about
a Run:ai workload whose cluster is not given, clicks the cluster the bot offers, waits for the
report and its memory chart in the thread, and photographs the page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cli.bot import BUILTIN_BUNDLES
from playground.browser import launch_chromium
from playground.launch import running_playground

WORKLOAD = "9247ce9d-9a2a-5cad-a312-b248ff9a642a"
CLUSTER = "42c09db8-1493-5855-a4ce-5b14ecc2dab0"
WAIT_MS = 60_000


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    out = Path(argv[0] if argv else "docs/pictures/playground.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    with running_playground(bundles=BUILTIN_BUNDLES) as playground, sync_playwright() as driver:
        browser = launch_chromium(driver)
        page = browser.new_page(viewport={"width": 1500, "height": 980})
        page.goto(playground.page.url)
        page.wait_for_selector("#channel-list li.active")
        page.fill("#composer", "/diagnose help")
        page.press("#composer", "Enter")
        page.locator("#messages .message.ephemeral").first.wait_for(timeout=WAIT_MS)
        page.fill("#composer", f"@diagnose why did workload {WORKLOAD} fail?")
        page.press("#composer", "Enter")
        choice = page.locator("#thread-panel button[data-action]", has_text=CLUSTER)
        choice.wait_for(timeout=WAIT_MS)
        choice.click()
        chart = page.locator("#thread-panel img.file-image").first
        chart.wait_for(timeout=WAIT_MS)
        page.wait_for_function("() => [...document.images].every(image => image.complete)", timeout=WAIT_MS)
        # The thread shows the report's top and the chart: scroll the chart into view.
        chart.scroll_into_view_if_needed()
        page.screenshot(path=str(out))
        browser.close()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

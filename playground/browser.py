"""Debian's Chromium driven by Playwright (the playground's browser test and its picture).

Playwright's own browser downloads are never used: the browser is the system's `chromium`, with
every background network feature off (this machine, a developer's or CI's, may have no network).
"""

from __future__ import annotations

from typing import Any

from blocks.preview.chromium import find_chromium

CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
)


def launch_chromium(playwright: Any) -> Any:
    """A headless Chromium browser (Playwright's `Browser`) of the system's `chromium` binary."""
    return playwright.chromium.launch(
        executable_path=find_chromium(), args=list(CHROMIUM_ARGS), headless=True
    )

"""Debian's chromium driven through Playwright, for the tests that look at a page."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu"]
#: Mark for a test that needs chromium (skips without it; a skip fails in CI).
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed"
)


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched chromium (Playwright's ``Browser``), closed after the block."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def log_in(page: Any, url: str, pin: str, *, timeout: float = 5000) -> None:
    """Log in with the table's PIN, then open the table page and wait for its live feed."""
    page.goto(url + "/login")
    page.fill("input[name=pin]", pin)
    page.click("button[type=submit]")
    page.goto(url + "/")
    page.wait_for_selector(".status.live", timeout=timeout)

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

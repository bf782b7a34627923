"""Fixtures shared by the whole suite, and the hook that makes a skip in CI a failure.

Each fixture that needs something outside Python (Debian's chromium, mosquitto, ``../shared``)
skips when it is missing; ``tests/support/ci_skips.py`` turns such a skip into a failure in CI.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.ci_skips import pytest_make_collect_report, pytest_runtest_makereport
from tests.support.clock import HandClock
from tests.support.paths import SHARED

__all__ = ["pytest_make_collect_report", "pytest_runtest_makereport"]

#: Debian's chromium, the browser the Playwright tests drive.
CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu"]


@pytest.fixture
def clock() -> HandClock:
    """Monotonic time moved by hand (``clock.t += 5``)."""
    return HandClock()


@pytest.fixture
def shared() -> Path:
    """``../shared`` (real photos, games, rule sheets); skips where it is absent (fails in CI)."""
    if not SHARED.is_dir():
        pytest.skip(f"the shared data is not at {SHARED}")
    return SHARED


@pytest.fixture
def factory() -> Iterator[Any]:
    """gpiozero's MockFactory, also as the default pin factory (gpiozero 2.0.1's software SPI
    bus uses ``Device.pin_factory`` whatever it is given)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    saved = Device.pin_factory
    f = MockFactory()
    Device.pin_factory = f
    yield f
    gc.collect()  # finalise this test's gpiozero devices before the next factory (HallGrid.close)
    f.reset()
    Device.pin_factory = saved


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Any]:
    """Debian's mosquitto on a free loopback port, persisting in a temporary folder."""
    from companion.hub.broker import Mosquitto, find_mosquitto

    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (Debian package mosquitto; scripts/setup --dev)")
    with Mosquitto(tmp_path / "broker") as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium through Playwright, one per test module."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh 1280x800 page; a JavaScript error on it fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not errors, errors

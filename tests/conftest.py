"""Fixtures shared by the whole suite, and the hook that makes a skip in CI a failure.

Each fixture that needs something outside Python (Debian's chromium, mosquitto) skips when it
is missing (``tests.support.paths.shared_data`` does the same for ``../shared``);
``tests/support/ci_skips.py`` turns such a skip into a failure in CI.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.support.browsing import chromium
from tests.support.ci_skips import pytest_make_collect_report, pytest_runtest_makereport
from tests.support.clock import HandClock
from tests.support.serving import served_app

__all__ = ["pytest_make_collect_report", "pytest_runtest_makereport"]


@pytest.fixture
def clock() -> HandClock:
    """Monotonic time moved by hand (``clock.t += 5``)."""
    return HandClock()


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
    with chromium() as b:
        yield b


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


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    """``serve(app)`` serves a Flask app for real and gives its base URL; stopped after the test."""
    with ExitStack() as stack:
        yield lambda app, threads=8: stack.enter_context(served_app(app, threads))

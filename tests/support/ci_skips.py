"""In CI a skipped test is a failed test: the pytest hooks that say so (loaded by tests/conftest.py).

Tests that need Debian's chromium, mosquitto, an optional package or ``../shared`` skip cleanly on
a developer's machine that lacks them. In CI (``CI=true``) the project's own setup installs all of
them, so a skip there means something is missing and the run must go red rather than report an
untested green.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def _fail_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (CI=true), which counts as a failure: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None]:
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None]:
    outcome = yield
    _fail_skip(outcome.get_result())

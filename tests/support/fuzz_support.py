"""Runs tests/support/fuzzing.py in a fresh process and checks its reports (for the test_fuzz_*.py files).

A fresh process, so that the peak memory measured is the fuzzing's own; a timeout, so that a
hang fails the test instead of stopping the suite. :func:`fuzz_test` is the test such a file
holds, written once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
COUNT = 500  # mutated inputs per format per run (the seeds are tried as well)
PEAK_MB = 500
SLOWEST_S = 5.0


def fuzz(*formats: str, count: int = COUNT, seed: int = 1) -> dict[str, dict[str, Any]]:
    """The reports of one seeded run over ``formats``, by format name."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.fuzzing",
            "--json",
            "--count",
            str(count),
            "--seed",
            str(seed),
            *formats,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=REPO,
    )
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["name"] for r in reports] == list(formats), done.stderr[-2000:]
    return {r["name"]: r for r in reports}


def check(report: dict[str, Any], count: int = COUNT) -> None:
    """Only our errors, enough inputs, none slow, memory bounded."""
    shown = "\n".join(
        f"{f['error']} at {f['where']}\n  input {f['input']}" for f in report["failures"]
    )
    assert not report["failures"], f"{report['name']}: inputs that raised something else:\n{shown}"
    assert report["tried"] >= count
    assert report["refused"] > 0  # the mutations do reach the readers' refusals
    assert report["slowest"] < SLOWEST_S, report["slowest_input"]
    assert report["peak_mb"] < PEAK_MB


def fuzz_test(*formats: str) -> Callable[[str], None]:
    """A test with one case per format, over one fuzzing run made when the first case runs.

    A test file says ``test_mutated_inputs_raise_only_our_errors = fuzz_test("sgf", ...)``.
    """
    reports: dict[str, dict[str, Any]] = {}

    @pytest.mark.parametrize("name", formats)
    def test_mutated_inputs_raise_only_our_errors(name: str) -> None:
        if not reports:
            reports.update(fuzz(*formats))
        check(reports[name])

    return test_mutated_inputs_raise_only_our_errors

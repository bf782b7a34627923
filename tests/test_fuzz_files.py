"""Fuzzing the readers of map, profile, pinmap: only our own errors, bounded time and memory."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fuzz_support import check, fuzz

FORMATS = (
    "map",
    "profile",
    "pinmap",
)


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    return fuzz(*FORMATS)


@pytest.mark.parametrize("name", FORMATS)
def test_mutated_inputs_raise_only_our_errors(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    check(reports[name])

"""Fuzzing the record readers (SGF, JSON, chess records and setups): only our own errors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fuzz_support import check, fuzz

FORMATS = (
    "sgf",
    "json-record",
    "chess-record",
    "chess-setup",
)


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    return fuzz(*FORMATS)


@pytest.mark.parametrize("name", FORMATS)
def test_mutated_inputs_raise_only_our_errors(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    check(reports[name])

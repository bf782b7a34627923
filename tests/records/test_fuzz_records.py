"""Fuzzing the record readers (SGF, JSON, chess records and setups): only our own errors."""

from __future__ import annotations

from tests.support.fuzz_support import fuzz_test

test_mutated_inputs_raise_only_our_errors = fuzz_test(
    "sgf", "json-record", "chess-record", "chess-setup"
)

"""Fuzzing the readers of map, profile, pinmap: only our own errors, bounded time and memory."""

from __future__ import annotations

from tests.support.fuzz_support import fuzz_test

test_mutated_inputs_raise_only_our_errors = fuzz_test("map", "profile", "pinmap")

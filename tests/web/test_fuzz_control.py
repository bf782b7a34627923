"""Fuzzing the controls' bodies through the page: a seeded run of mutated bodies (1e400,
5,000-digit numbers, 5,000-deep nesting, wrong types, other controls' bodies) posted by a
logged-in client to a real table. Only refusals with a sentence (4xx), no 5xx, no fault behind
an answer, no input over 5 s, memory bounded."""

from __future__ import annotations

from tests.support.fuzz_support import check, fuzz


def test_mutated_control_bodies_are_refused_in_words() -> None:
    check(fuzz("control-body")["control-body"])

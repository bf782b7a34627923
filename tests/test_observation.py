"""Observations: the common currency of camera and sensor readers."""

import pytest

from companion.observation import Observation


def test_rows_round_trip() -> None:
    rows = [". B W", "? . .", "W W B"]
    obs = Observation.from_rows(rows)
    assert obs.rows(3) == rows
    assert obs.unknown == 1
    assert len(obs) == 9


def test_bad_token_refused() -> None:
    with pytest.raises(ValueError, match="token"):
        Observation(states=("X",), confidence=(1.0,))


def test_lengths_must_match() -> None:
    with pytest.raises(ValueError):
        Observation(states=(".", "B"), confidence=(1.0,))

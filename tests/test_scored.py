"""Scored positions kept beside the journal: stored and read back, photos bounded, the journal
itself untouched and still opening as one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion import events as ev
from companion.journal import Journal
from companion.scored import PHOTO_SIDE, ScoredPositions, bounded, bounded_jpeg

DATA = {"rules": "japanese", "size": 9, "komi": 6.5, "result": "B+2.5", "rows": ["."] * 9}


def test_photos_are_kept_no_bigger_than_the_bound() -> None:
    wide = np.zeros((1000, 4000, 3), np.uint8)
    assert bounded(wide).shape == (400, PHOTO_SIDE, 3)
    small = np.zeros((300, 200, 3), np.uint8)
    assert bounded(small) is small
    jpeg = bounded_jpeg(wide)
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (400, PHOTO_SIDE, 3)


def test_counts_are_stored_beside_the_journals_games(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        journal.append(ev.GameStarted(rules="chinese", topology="9", players=("A", "B")))
    times = iter([100.0, 200.0])
    with ScoredPositions(path, clock=lambda: next(times)) as store:
        first = store.add(DATA, b"\xff\xd8one")
        second = store.add({**DATA, "result": "W+0.5"}, b"\xff\xd8two")
        assert [(p.id, p.result, p.at) for p in store.list()] == [
            (second, "W+0.5", 200.0),
            (first, "B+2.5", 100.0),
        ]
        found = store.get(first)
        assert found is not None and found.data == DATA and found.komi == 6.5
        assert store.photo(second) == b"\xff\xd8two"
        assert store.get(99) is None and store.photo(99) is None
    with Journal(path) as journal:  # its own checks pass, its games are as they were
        assert [g.rules for g in journal.games()] == ["chinese"]
    with ScoredPositions(path) as again:  # opening again keeps what was saved
        assert len(again.list()) == 2

"""The journal: exact append/replay, WAL + synchronous FULL, foreign and corrupt files refused
and left byte-for-byte untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion import events as ev
from companion.errors import JournalError
from companion.journal import APPLICATION_ID, Journal
from companion.table.fold import replay


def _game(journal: Journal) -> None:
    journal.append(ev.GameStarted(rules="chinese", topology="9", players=("Ann", "Bob")))
    journal.append(ev.MovePlayed(player=0, spot=20))
    journal.append(ev.MovePlayed(player=1, spot=60))
    journal.append(ev.Passed(player=0))
    journal.append(ev.Undone(count=1))
    journal.append(ev.DiscrepancyRaised(kind="extra", spots=(3,), message="a white stone..."))


def test_append_assigns_seq_and_replays_exactly(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path, clock=lambda: 1000.0) as journal:
        first = journal.append(ev.GameStarted(rules="chinese", topology="9"))
        assert (first.seq, first.at) == (1, 1000.0)
        _game(journal)
        stored = journal.events()
    with Journal(path) as again:
        assert again.events(again.current_game) == stored
        state = replay(again)
    assert state.game is not None
    assert [(m.kind, m.player, m.spot) for m in state.game.moves] == [
        ("play", 0, 20),
        ("play", 1, 60),
    ]
    assert state.discrepancy is not None and state.discrepancy.spots == (3,)
    assert state.last_seq == stored[-1].seq


def test_events_round_trip_through_json() -> None:
    for event in (
        ev.MovePlayed(seq=3, at=1.5, player=1, spot=7, captured=(1, 2), clock={"states": [1]}),
        ev.Scored(points=(1.0, 8.5), winner=1, margin=7.5, method="area", detail=({"k": 1.0},)),
        ev.GameStarted(rules="club", topology="2x9x9", knobs={"komi": 0.5}),
    ):
        assert ev.from_json(event.to_json()) == event
    with pytest.raises(ValueError, match="unknown event type"):
        ev.from_dict({"type": "Nope"})
    with pytest.raises(ValueError, match="lacks"):
        ev.from_dict({"type": "MovePlayed", "spot": 3})


def test_wal_and_full_sync(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as journal:
        assert journal.pragma("journal_mode") == "wal"
        assert journal.pragma("synchronous") == 2  # FULL
        assert journal.pragma("application_id") == APPLICATION_ID


def test_games_are_archived(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as journal:
        _game(journal)
        journal.append(ev.GameEnded(result="B+R", winner=0, method="resign"))
        journal.append(ev.GameStarted(rules="club", topology="13"))
        games = journal.games()
        assert [g.id for g in games] == [2, 1]
        assert games[1].result == "B+R" and games[1].players == ("Ann", "Bob")
        assert games[1].moves == 3
        assert replay(journal, 1).ended is not None
        assert replay(journal).started is not None and replay(journal).started.rules == "club"


def test_append_before_any_game_is_refused(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as journal, pytest.raises(JournalError, match="no game"):
        journal.append(ev.Passed(player=0))


def test_text_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my precious notes\n" * 100)
    before = path.read_bytes()
    with pytest.raises(JournalError, match="not a companion journal"):
        Journal(path)
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists()


def test_foreign_sqlite_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE photos(id INTEGER)")
    con.execute("INSERT INTO photos VALUES (1)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(JournalError, match="another program"):
        Journal(path)
    assert path.read_bytes() == before


def test_corrupt_journal_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _game(journal)
        for i in range(60):
            journal.append(ev.DiscrepancyCleared(detail="x" * 50 + str(i)))
    # Checkpointed into the main file; now damage the pages after the header.
    data = bytearray(path.read_bytes())
    for i in range(4096, len(data), 7):
        data[i] = 0xA5
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(JournalError, match="corrupt"):
        Journal(path)
    assert path.read_bytes() == before


def test_events_that_do_not_replay_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        journal.append(ev.GameStarted(rules="chinese", topology="9"))
        journal.append(ev.MovePlayed(player=0, spot=20))
        journal.append(ev.MovePlayed(player=1, spot=20))  # occupied: a tampered journal
        with pytest.raises(JournalError, match=r"event 3 .MovePlayed. does not replay"):
            replay(journal)


def test_readonly_journal_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _game(journal)
    with Journal(path, readonly=True) as ro:
        assert len(ro.events()) == 6
        with pytest.raises(JournalError, match="read-only"):
            ro.append(ev.Passed(player=0))

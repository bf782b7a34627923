"""Damaged journals, on real SQLite files: a write-ahead log cut short, a changed byte in an
older game, a deleted event, a moved map file, a schema-1 journal, another program's files.
Each is reported by game and event, never written to, and repaired into a new file."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion import events as ev
from companion.cli import main
from companion.commands._startup import inline_map, open_table
from companion.errors import JournalDamaged, JournalError
from companion.games.topology import bundled_maps
from companion.journal import APPLICATION_ID, Journal
from companion.journal_file import check_file, head_path
from companion.table import intents as it
from companion.table.fold import replay
from companion.table.session import TableSession


def _moves(journal: Journal, count: int, black: int = 0, white: int = 60) -> None:
    """``count`` moves on a 9x9 that capture nothing: Black's in a row from ``black``,
    White's from ``white``."""
    for i in range(count):
        spot = black + i // 2 if i % 2 == 0 else white + i // 2
        journal.append(ev.MovePlayed(player=i % 2, spot=spot))


def _two_games(journal: Journal, moves: int = 12) -> None:
    journal.append(ev.GameStarted(rules="chinese", topology="9", players=("Ann", "Bob")))
    _moves(journal, 10)
    journal.append(ev.GameEnded(result="B+R", winner=0, method="resign"))
    journal.append(ev.GameStarted(rules="chinese", topology="9", players=("Cy", "Di")))
    _moves(journal, moves, black=18, white=45)


def _digest(*paths: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else "-" for p in paths]


def _files(path: Path) -> list[Path]:
    return [path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-head"))]


def _crash_image(tmp_path: Path) -> Path:
    """The files a table killed in the middle of game 2 leaves: game 1 checkpointed into the
    main file, game 2 only in the write-ahead log."""
    live = tmp_path / "live" / "journal.sqlite"
    live.parent.mkdir()
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    with Journal(live) as journal:
        _two_games(journal, moves=30)
        assert live.with_name("journal.sqlite-wal").stat().st_size > 0
        for path in _files(live):
            if path.exists():
                shutil.copy(path, crashed / path.name)
    return crashed / "journal.sqlite"


def test_a_cut_write_ahead_log_is_found_and_never_written_to(tmp_path: Path) -> None:
    path = _crash_image(tmp_path)
    assert check_file(path).status == "ok"
    wal = path.with_name(path.name + "-wal")
    with wal.open("r+b") as fh:
        fh.truncate(wal.stat().st_size - 20_000)
    before = _digest(path, wal)
    with pytest.raises(JournalDamaged, match=r"events \d+-43 were committed but are no longer"):
        Journal(path)
    with pytest.raises(Exception, match="companion journal repair"):
        open_table(path)
    assert _digest(path, wal) == before  # refused without writing, not even a checkpoint
    report = check_file(path)
    assert report.status == "damaged" and report.last_seq < 43


def test_a_changed_byte_in_an_older_game_is_named_by_game_and_event(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _two_games(journal)
    data = bytearray(path.read_bytes())
    # Game 1's fourth move (event 5) is stored as {"player": 1, "spot": 61, ...}: make it 62.
    at = data.index(b'"spot": 61')
    data[at + 9] = ord("2")
    path.write_bytes(bytes(data))
    with pytest.raises(JournalDamaged, match=r"game 1, event 5: MovePlayed: its bytes do not"):
        Journal(path)
    runner = CliRunner()
    checked = runner.invoke(main, ["journal", "check", str(path)])
    assert checked.exit_code == 1, checked.output
    assert "game 1, event 5" in checked.output
    repaired = tmp_path / "new.sqlite"
    before = _digest(path)
    result = runner.invoke(main, ["journal", "repair", str(path), "-o", str(repaired)])
    assert result.exit_code == 0, result.output
    assert "game 1: kept 4 events, dropped 8 (from game 1, event 5" in result.output
    assert _digest(path) == before
    with Journal(repaired) as new:
        assert [len(new.events(g.id)) for g in reversed(new.games())] == [4, 13]
        assert replay(new).game is not None and len(replay(new).game.moves) == 12  # type: ignore[union-attr]


def test_damage_met_by_a_read_stops_all_writing(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _two_games(journal)
        other = sqlite3.connect(path)
        other.execute("UPDATE events SET data = replace(data, '60', '70') WHERE seq = 3")
        other.commit()
        other.close()
        with pytest.raises(JournalDamaged, match="game 1, event 3"):
            journal.events(1)
        assert len(journal.events(2)) == 13  # the sound game still reads
        with pytest.raises(JournalDamaged, match="nothing more is written"):
            journal.append(ev.Passed(player=0))


def test_a_deleted_event_is_missing_by_number(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _two_games(journal)
    con = sqlite3.connect(path)
    con.execute("DELETE FROM events WHERE seq = 7")
    con.commit()
    con.close()
    report = check_file(path)
    assert [p.words() for p in report.problems][:2] == [
        "game 1: event 7 missing",
        "game 1, event 8: it does not follow the event before it",
    ] or "event 7 missing" in report.summary()
    with pytest.raises(JournalDamaged):
        Journal(path)


def test_a_game_keeps_its_map_when_the_file_moves(tmp_path: Path) -> None:
    board = tmp_path / "maps" / "our-hex.json"
    board.parent.mkdir()
    shutil.copy(bundled_maps()["hex-5"], board)
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        table = TableSession(journal, suggest=False)
        table.start_game("gobeyond", str(board), players=("A", "B", "C"))
        table.apply(it.PlayIntent(0, 0))
        table.close()
    board.rename(tmp_path / "elsewhere.json")
    journal, table = open_table(path)
    with journal:
        assert table.state.game is not None and table.state.game.moves
        started = journal.events()[0]
        assert isinstance(started, ev.GameStarted) and started.topology == str(board)
        table.close()


def _schema_1(path: Path, topology: str) -> None:
    """A journal as the builds before checksums wrote it."""
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE games (id INTEGER PRIMARY KEY, started REAL NOT NULL, rules TEXT NOT NULL,
            topology TEXT NOT NULL, players TEXT NOT NULL, ended REAL, result TEXT);
        CREATE TABLE events (seq INTEGER PRIMARY KEY, game INTEGER NOT NULL, type TEXT NOT NULL,
            at REAL NOT NULL, data TEXT NOT NULL);
        PRAGMA user_version = 1;
        """
    )
    con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    con.execute(
        'INSERT INTO games VALUES (1, 5.0, \'gobeyond\', ?, \'["A", "B", "C"]\', NULL, NULL)',
        (topology,),
    )
    start = f'{{"rules": "gobeyond", "topology": "{topology}", "players": ["A", "B", "C"]}}'
    con.execute("INSERT INTO events VALUES (1, 1, 'GameStarted', 5.0, ?)", (start,))
    con.execute(
        "INSERT INTO events VALUES (2, 1, 'MovePlayed', 6.0, ?)", ('{"player": 0, "spot": 3}',)
    )
    con.commit()
    con.close()


def test_a_schema_1_journal_is_unchecked_then_upgraded_with_its_map(tmp_path: Path) -> None:
    board = tmp_path / "m.json"
    shutil.copy(bundled_maps()["hex-5"], board)
    path = tmp_path / "old.sqlite"
    _schema_1(path, str(board))
    assert check_file(path).status == "unchecked"
    with Journal(path, upgrade=inline_map) as journal:
        assert (
            journal.upgraded is not None and "1 game starts now hold their map" in journal.upgraded
        )
        journal.append(ev.Passed(player=1))
    board.unlink()
    assert check_file(path).status == "ok"
    with Journal(path) as journal:
        state = replay(journal)
        assert state.game is not None and [m.spot for m in state.game.moves] == [3, None]


def test_the_log_is_checkpointed_at_every_game_end(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        journal.append(ev.GameStarted(rules="chinese", topology="9"))
        _moves(journal, 6)
        wal = path.with_name("j.sqlite-wal")
        assert wal.stat().st_size > 0
        journal.append(ev.GameEnded(result="W+R", winner=1, method="resign"))
        assert wal.stat().st_size == 0


def test_a_lagging_head_after_a_kill_is_fine_and_a_stale_one_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _two_games(journal)
    head = head_path(path)
    from companion.journal_file import head_record

    con = sqlite3.connect(path)
    seq, digest = con.execute("SELECT seq, hash FROM events WHERE seq = 20").fetchone()
    con.close()
    head.write_bytes(head_record(seq, digest))  # the kill came between commit and head
    assert check_file(path).status == "ok"
    head.write_bytes(head_record(seq, "f" * 64))
    assert "differs from the event the table committed" in check_file(path).summary()
    head.write_bytes(b"junk")
    assert check_file(path).status == "ok" and "cannot be read" in check_file(path).summary()


@pytest.mark.parametrize("wal_mode", [False, True])
def test_another_programs_database_gets_no_sidecar_files(tmp_path: Path, wal_mode: bool) -> None:
    path = tmp_path / "photos.db"
    con = sqlite3.connect(path)
    if wal_mode:
        con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE photos(id INTEGER)")
    con.execute("INSERT INTO photos VALUES (1)")
    con.commit()
    con.close()
    assert not path.with_name("photos.db-wal").exists()
    before = path.read_bytes()
    for attempt in (lambda: Journal(path), lambda: Journal(path, readonly=True)):
        with pytest.raises(JournalError, match="another program"):
            attempt()
    result = CliRunner().invoke(main, ["journal", "check", str(path)])
    assert result.exit_code == 2 and "another program" in result.output
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos.db"]


def test_repair_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        _two_games(journal)
    result = CliRunner().invoke(main, ["journal", "repair", str(path), "-o", str(path)])
    assert result.exit_code == 1 and "give the name of a new file" in result.output


def test_seeded_damage_of_every_kind_is_reported_never_lost_silently() -> None:
    from tests.support.journal_damage import KINDS, run

    out = run(2 * len(KINDS), seed=7)
    assert sum(out.tried.values()) == 14
    assert not out.silent and out.lost_events == 0, out.notes
    assert out.changed_files == 0, out.notes
    assert out.intact["moved-map"] == 2  # a moved map is no damage: the game still opens
    assert out.reported["cut-wal"] == out.reported["old-copy"] == 2

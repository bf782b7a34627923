"""Beyond Chess records: read/write pair, clocks, a short game replayed, illegal turns named."""

from __future__ import annotations

import pytest

from companion.errors import RecordError
from companion.games.beyond_chess import FixedBoardChess, traditional
from companion.games.beyond_chess_notation import parse_setup, parse_turn, position_text
from companion.records.chess_record import (
    ChessRecord,
    clock_text,
    read_record,
    replay,
    write_record,
)
from tests.support.paths import DATA

# A Beyond Chess fool's mate: the shifts happen at the edges and change nothing in the centre,
# and 2...d8h4 mates (no white piece move, and no Geret, can answer the check).
GAME = (DATA / "beyond-chess-game.txt").read_text(encoding="utf-8")


def test_read_a_record() -> None:
    record = read_record(GAME)
    assert record.tags["White"] == "Ann" and record.result == "0-1"
    assert record.turns[1] == parse_turn("e7e5/a6[-1,5]")
    assert record.clocks == [298.0, 295.0, 290.0, 291.5]
    assert record.comments == ["", "", "", "mate"]


def test_write_read_round_trip() -> None:
    record = read_record(GAME)
    text = write_record(record)
    assert read_record(text) == record
    assert write_record(read_record(text)) == text
    assert text.startswith('[Event "Club night"]\n[White "Ann"]\n[Black "Bo"]\n[Result "0-1"]')


def test_short_game_replayed_to_checkmate() -> None:
    played = replay(read_record(GAME))
    assert played.failure is None and played.played == 4
    assert played.outcome == ("0-1", "checkmate: black wins")
    assert position_text(played.position).startswith("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P1-1/")


def test_replay_names_the_first_illegal_turn() -> None:
    bad = GAME.replace("g2g4/h3i3", "g2g4/h3h2")
    played = replay(read_record(bad))
    assert played.played == 2 and played.failure is not None
    assert (played.failure.index, played.failure.number, played.failure.side) == (3, 2, "white")
    assert played.failure.reason == "shift blocked"  # h2 already holds a square
    assert str(played.failure).startswith("turn 3 (2. g2g4/h3h2): shift blocked")


def test_a_recorded_game_written_from_play_reads_back() -> None:
    position = traditional()
    record = ChessRecord(tags={"Event": 'A "quoted" \\ name', "Result": "*"})
    seconds = 300.0
    for turn in ["e2e4", "e7e5/h6i6", "Gh2i2", "d8h4/a6[-1,5]"]:
        t = parse_turn(turn)
        position.push(t)
        seconds -= 2.5  # the record keeps tenths
        record.add(t, seconds)
    again = read_record(write_record(record))
    assert again == record
    assert replay(again).failure is None


def test_fixed_board_variant_and_custom_start() -> None:
    record = ChessRecord(
        tags={
            "Variant": "fixed",
            "Position": "k7/8/8/8/8/8/8/K6R w - - 0 1",
            "Result": "*",
        }
    )
    record.add(parse_turn("h1h8"))
    played = replay(record)
    assert isinstance(played.position, FixedBoardChess)
    assert played.outcome is None and played.position.is_check()
    assert write_record(record).splitlines()[-1] == "1. h1h8 *"
    black_first = ChessRecord(tags={"Position": "k7/8/8/8/8/8/8/K6R b - - 0 9 first=0"})
    black_first.add(parse_turn("a8b7/a4[-1,3]"))
    assert write_record(black_first).splitlines()[-1] == "9... a8b7/a4[-1,3] *"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[Event "x"\n\n1. e2e4 *', "not a tag pair"),
        ("1. e2e4 {[%clk 0:04:58] *", "not closed"),
        ("1. e2e4", "no result"),
        ("1. e2e4 * e7e5", "after the result"),
        ("{hi} 1. e2e4 *", "before the first turn"),
        ("1. e2e9e4 *", "turn 1"),
        ("1. e2e4 {[%clk soon]} *", "unreadable clock"),
        ('[Result "1-0"]\n\n1. e2e4 0-1', "Result tag says 1-0"),
    ],
)
def test_bad_records_say_why(text: str, words: str) -> None:
    with pytest.raises(RecordError, match=words):
        read_record(text)


def test_bad_variant_or_start_position() -> None:
    with pytest.raises(RecordError, match="unknown variant"):
        ChessRecord(tags={"Variant": "go"}).start()
    with pytest.raises(RecordError, match="Position tag"):
        ChessRecord(tags={"Position": "junk"}).start()


def test_clock_text() -> None:
    assert clock_text(299) == "0:04:59"
    assert clock_text(3723.46) == "1:02:03.5"
    assert clock_text(59.97) == "0:01:00"


def test_record_for_a_game_names_variant_and_start() -> None:
    plain = ChessRecord.for_game(traditional(), White="Ann")
    assert plain.tags == {"Result": "*", "White": "Ann", "Variant": "Beyond Chess"}
    custom = parse_setup(SETUP)
    record = ChessRecord.for_game(custom)
    assert record.start().squares == custom.squares and record.start().first_turn
    fixed = ChessRecord.for_game(traditional(FixedBoardChess))
    assert fixed.variant() is FixedBoardChess and "Position" not in fixed.tags


SETUP = """\
black:
..rk....
.pppppp.
..nbb...
........
white:
.........-
..NBB...-.
.PPPPPP...
..-RK-----
"""

"""The demo games of every preset: the committed playouts are legal and are what the script
makes, and ``serve --demo --rules R`` plays each one through the loop into the journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.demo import DemoRecord
from companion.demo.playouts import (
    PRESET_BOARDS,
    bundled_path,
    demo_record,
    load_playout,
    playout,
    preset_board,
    record_from_json,
)
from companion.errors import InputError, RecordError
from companion.journal import Journal
from companion.runtime import ObservationLoop
from companion.runtime.demo import GoDemoInput, TableDemo, demo_input
from companion.runtime.inputs import InputOptions
from companion.table.session import TableSession
from tests.support.clock import until

PRESETS = ["club", "chinese", "japanese", "fridge", "first-capture", "stacked", "gobeyond"]


@pytest.mark.parametrize("rules", sorted(PRESET_BOARDS))
def test_each_committed_playout_is_legal_and_what_the_script_makes(rules: str) -> None:
    path = bundled_path(rules)
    record = load_playout(path)  # replays it: every move legal, and the game ends
    board, players = PRESET_BOARDS[rules]
    assert (record.rules, record.board, record.players) == (rules, board, players)
    assert len(record.moves) >= 10
    data = json.loads(path.read_text())
    made = data["made_by"].split()
    seed, moves = int(made[made.index("--seed") + 1]), int(made[made.index("--moves") + 1])
    assert playout(rules, board, players=players, seed=seed, moves=moves) == data


def test_the_first_capture_demo_ends_with_its_first_capture() -> None:
    record = demo_record("first-capture")
    game = record.replay()
    assert game.over and game.last_captured and sum(game.captures) == len(game.last_captured)
    assert record.moves[-1][1] is not None  # no passes: the capture ended it


def test_fridge_demo_keeps_to_forty_stones_each() -> None:
    game = demo_record("fridge").replay()
    assert game.over and all(n is not None and 0 <= n <= 40 for n in game.in_hand)


def test_an_illegal_record_is_refused_not_played() -> None:
    good = demo_record("fridge")
    twice = (good.moves[0], good.moves[0], *good.moves[1:])  # a stone on an occupied spot
    with pytest.raises(RecordError, match="move 2"):
        DemoRecord(good.rules, good.board, good.komi, good.names, twice).replay()


def test_a_broken_playout_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "playout-fridge.json"
    path.write_text('{"rules": "fridge", "moves": [[0, "x"]]}')
    with pytest.raises(RecordError, match="not a demo game"):
        load_playout(path)
    path.write_text("{")
    with pytest.raises(RecordError, match="cannot read"):
        load_playout(path)


def test_the_grid_rules_play_the_gnu_go_game_on_13x13() -> None:
    club = demo_record("club")
    assert club.board == "13" and club.replay().over
    assert club.moves[-1] == (1, None)  # club rules: White passes last
    assert demo_record("japanese").moves == demo_record("chinese").moves
    assert preset_board("stacked") == "2x9x9" and preset_board("jp") == "13"


def test_a_demo_on_a_board_that_is_none_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no demo game"):
        GoDemoInput(rules="fridge", board="banana")


@pytest.mark.parametrize("rules", PRESETS)
def test_each_preset_demo_plays_through_the_loop_into_the_journal(
    tmp_path: Path, rules: str
) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = demo_input(InputOptions(rules=rules, delay=0.01, rest=0.0))
    moves = lambda: sum(1 for e in table.journal.events() if e.type == "MovePlayed")  # noqa: E731
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: moves() >= 3)
    assert loop.error is None and loop.done  # and it stopped when asked
    started = table.state.started
    assert started is not None and started.rules == rules
    assert started.topology == preset_board(rules)
    assert table.state.discrepancy is None
    # the two-colour games go through the simulated sensor grid and the tracker
    assert (demo.spec == "sim") == (rules != "gobeyond")
    if rules == "gobeyond":
        assert len(started.players) == 3 and started.topology == "hex-5"


def test_the_beyond_chess_demo_plays_three_turns_through_frames(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    options = InputOptions(rules="beyond-chess", delay=0.3, rest=0.0, time_control="abs:5m")
    demo = demo_input(options)
    turns = lambda: sum(1 for e in table.journal.events() if e.type == "ChessTurnPlayed")  # noqa: E731
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: turns() >= 3, 60.0)
    assert loop.error is None and table.state.discrepancy is None


def test_a_new_game_of_the_other_kind_on_the_page_gets_its_demo(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    options = InputOptions(rules="fridge", delay=0.3, rest=0.0, time_control="abs:5m")
    demo = demo_input(options)

    def count(kind: str) -> int:
        return sum(1 for e in table.journal.events() if e.type == kind)

    with ObservationLoop(table, demo) as loop:
        assert until(lambda: count("MovePlayed") >= 1)
        table.control("new_game", rules="beyond-chess", topology="8x8")  # Setup -> Start
        assert until(lambda: count("ChessTurnPlayed") >= 1, 60.0)
        assert demo.spec == "demo" and table.state.discrepancy is None
        table.control("new_game", rules="stacked", topology="2x9x9")
        assert until(lambda: table.state.game_id == 3 and count("MovePlayed") >= 2)
        assert table.state.started is not None and table.state.started.rules == "stacked"
    assert loop.error is None


@pytest.mark.parametrize(
    ("rules", "board", "players"),
    [("chinese", "19", 2), ("gobeyond", "torus-9", 3), ("stacked", "2x7x7", 2), ("club", "9", 2)],
)
def test_another_board_gets_a_legal_playout_made_for_it(
    rules: str, board: str, players: int
) -> None:
    demo = demo_input(InputOptions(rules=rules, board=board))
    assert isinstance(demo, TableDemo) and isinstance(demo.part, GoDemoInput)
    record = demo.part.record
    assert (record.rules, record.board, record.players) == (rules, board, players)
    game = record.replay()
    assert game.over and len(record.moves) >= 10


@pytest.mark.parametrize(("board", "first_lines"), [("19", {3, 4}), ("9", {3, 4, 5})])
def test_a_playout_opens_on_the_third_and_fourth_lines_and_never_self_ataris(
    board: str, first_lines: set[int]
) -> None:
    """Real-looking demos: each player's first two stones where people open (the third and
    fourth lines; the centre too on 9x9), no stone on the first line in the first ten moves,
    and no move that leaves its own chain in atari without capturing."""
    size = int(board)
    for seed in range(1, 6):
        record = record_from_json(playout("chinese", board, seed=seed))
        game = record.start()
        for number, (_player, spot) in enumerate(record.moves):
            if spot is None:
                game.pass_()
                continue
            row, col = divmod(spot, size)
            line = 1 + min(row, col, size - 1 - row, size - 1 - col)
            if number < 4:
                assert line in first_lines, (seed, number, game.spot_name(spot))
            if number < 10:
                assert line > 1, (seed, number, game.spot_name(spot))
            captured = game.play(spot)
            assert captured or len(game.liberties(spot)) > 1, (seed, game.spot_name(spot))
        assert len(game.board) == size * size

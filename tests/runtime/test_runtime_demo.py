"""The demo inputs in the loop: a game started by hand during the demo is left alone (no crash,
no alert about the demo's stones), and the demo comes back once that game is over."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.journal import Journal
from companion.runtime import GameTable, ObservationLoop
from companion.runtime.demo import GoDemoInput
from companion.table import intents as it
from companion.table.session import TableSession
from tests.support.clock import until


def test_a_game_played_by_hand_pauses_the_demo_until_it_ends(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0.01, rest=0.0, feed="sensors")
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        with table.lock:  # a new game on another board, and a first stone entered by hand
            table.start_game("chinese", "9")
            table.apply(it.PlayIntent(40, 0))
        assert until(lambda: "entered by hand" in demo.note)
        time.sleep(0.3)
        state = table.state
        assert state.started is not None and state.started.topology == "9"
        assert state.game is not None and len(state.game.moves) == 1
        assert state.discrepancy is None and not loop.done and loop.error is None
        table.control("resign", player=0)
        assert until(lambda: table.state.game_id == 3 and table.state.started is not None)
        assert table.state.started is not None and table.state.started.topology == "13"
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 1)
    assert loop.error is None


@pytest.mark.parametrize(
    ("rules", "board"), [("chinese", "9"), ("japanese", "19"), ("gobeyond", "torus-9")]
)
def test_a_new_game_on_the_page_gets_a_demo_on_its_board(
    tmp_path: Path, rules: str, board: str
) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0.01, rest=0.0, feed="sensors")
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        table.start_game(rules, board)  # New game on the page: setup -> board -> Start
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        state = table.state
        assert state.game_id == 2 and state.started is not None
        assert (state.started.rules, state.started.topology) == (rules, board)
        assert state.discrepancy is None and table.alerts() == []
        assert demo.is_demo_game(table) and loop.error is None


def test_a_new_game_on_the_demos_board_gets_the_demo_from_its_start(tmp_path: Path) -> None:
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0.01, rest=0.0, feed="sensors")
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 16)
        table.start_game("chinese", "13")  # New game on the page, the demo's own board
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        state = table.state
        assert state.game_id == 2 and state.discrepancy is None and table.alerts() == []
        assert demo.is_demo_game(table) and not loop.done
    assert loop.error is None


@pytest.mark.parametrize("wait", [0.3, 0.7])
def test_a_chess_turn_entered_by_hand_leaves_no_alert(tmp_path: Path, wait: float) -> None:
    """The Beyond Chess demo, a turn typed on the page in the middle of it (at a few moments of
    the demo's drawing): the drawn board takes the game's position, so the reader ends up
    saying nothing and no "the board does not match the game" stays up."""
    from companion.runtime.demo import ChessDemoInput

    table = TableSession(Journal(tmp_path / "j.sqlite"), suggest=False)
    demo = ChessDemoInput(delay=0.3, rest=60.0, fps=10.0)
    with ObservationLoop(table, demo) as loop:

        def whites_turn() -> bool:
            game = table.state.game
            return game is not None and len(game.move_stack) >= 2 and game.turn >> 3 == 0

        assert until(whites_turn)
        time.sleep(wait)
        table.control("turn", text="a2a3/i6h6")
        assert until(lambda: "entered by hand" in demo.note)
        assert until(lambda: table.part.reader == "" and table.state.discrepancy is None), (
            table.part.reader
        )
        time.sleep(0.5)  # and it stays so
        assert table.part.reader == "" and table.state.discrepancy is None
        assert loop.error is None


@pytest.mark.parametrize("placement", ["fixed", "free"])
def test_a_handicap_game_on_the_page_is_left_to_the_players(tmp_path: Path, placement: str) -> None:
    """Issue 13: a handicap game started on the page while the demo ran was taken on by the
    demo, whose even game then stopped the loop ("the tracker did not accept B8"). The demo
    plays no handicap games: it waits, and the players tap the moves."""
    table = TableSession(Journal(tmp_path / "j.sqlite"))
    demo = GoDemoInput(delay=0.01, rest=0.0, feed="sensors")
    with ObservationLoop(table, demo) as loop:
        assert until(lambda: table.state.game is not None and len(table.state.game.moves) >= 3)
        table.start_game("chinese", "13", knobs={"handicap_stones": 3, "placement": placement})
        assert until(lambda: "demo waits" in demo.note)
        time.sleep(0.3)
        state = table.state
        assert state.game_id == 2 and state.game is not None and not state.game.moves
        assert state.discrepancy is None and not loop.done and loop.error is None
    assert loop.error is None


def test_a_demo_on_tracks_bare_game_is_refused_in_words() -> None:
    """A demo starts games and presses controls: it needs a session, not ``track``'s game."""
    bare = GameTable("chinese", lambda: None)
    loop = ObservationLoop(bare, GoDemoInput(delay=0.01, rest=0.0, feed="sensors"))
    with pytest.raises(InputError, match="a demo plays on a table with a journal"):
        loop.run()
    assert loop.source.note.startswith("the input stopped: a demo plays on a table")

"""The rule-set presets at a table: FridgeGo's self-capture and supply, First Capture's ends."""

from __future__ import annotations

import pytest

from companion.errors import IllegalMove
from companion.games.go import BLACK, WHITE
from companion.games.rules import new_game
from tests.support.boards import game_from, same

# White's two-stone chain has an eye at e and a liberty outside at a: playing in the eye is "no
# good, because you'd just capture yourself!" (fridgego.txt).
EYE = """
W W W B .
W e W B .
W W W B .
a B B . .
. . . . .
"""


def test_fridgego_lets_a_piece_capture_itself_and_gives_the_pieces_back() -> None:
    game, names = game_from(
        """
        . W W W .
        W B e W .
        W B W . .
        . W . . .
        . . . . .
        """,
        "fridge",
    )
    # Black at e joins the two black pieces, and the chain then has no liberty and captures
    # nothing: the sheet lets it be played, and all three pieces come off.
    assert game.in_hand == [38, 32]
    removed = game.play(names["e"])
    assert len(removed) == 3
    assert same(
        game,
        """
        . W W W .
        W . . W .
        W . W . .
        . W . . .
        . . . . .
        """,
    )
    # The placed piece and the two on the board go back to Black's supply of 40.
    assert game.in_hand == [40, 32]
    assert game.to_move == WHITE


def test_fridgego_a_lone_self_capture_repeats_the_position_so_ko_refuses_it() -> None:
    game, names = game_from(EYE, "fridge")
    # Black in White's eye: the lone piece would come straight off, leaving the board as it
    # was, and the ko rule forbids repeating a position.
    assert game.refusal(names["e"]) == "superko"
    game.play(names["a"])  # Black fills the outside liberty instead...
    game.pass_()
    captured = game.play(names["e"])  # ...and now the eye is the last liberty: a capture
    assert len(captured) == 8


def test_fridgego_setup_and_handicap_stones_come_out_of_the_forty() -> None:
    game = new_game("fridge")
    t = game.topology
    handicap = {t.spot(2, 2): BLACK, t.spot(6, 6): BLACK, t.spot(2, 6): BLACK}
    game.setup(handicap, to_move=WHITE)
    assert game.in_hand == [37, 40]
    game.setup({t.spot(2, 2): -1})  # a setup stone taken back goes home
    assert game.in_hand == [38, 40]


def test_fridgego_a_setup_larger_than_the_supply_is_refused_and_changes_nothing() -> None:
    game = new_game("fridge", stones=2)
    t = game.topology
    before = (game.board, list(game.in_hand), game.hash)
    with pytest.raises(IllegalMove) as refused:
        game.setup({t.spot(0, 0): BLACK, t.spot(0, 2): BLACK, t.spot(0, 4): BLACK})
    assert refused.value.reason == "no stones left"
    assert (game.board, list(game.in_hand), game.hash) == before
    assert game.steps == ()


def test_first_capture_two_passes_are_a_draw_not_a_count() -> None:
    game, _ = game_from(
        """
        B B B . .
        B . B . .
        B B B . .
        . . . . .
        . . . . .
        """,
        "first-capture",
    )
    game.pass_()
    game.pass_()
    assert game.over
    assert game.result is not None
    assert (game.result.winner, game.result.method, game.result.text()) == (None, "draw", "0")
    with pytest.raises(IllegalMove):
        game.resume()  # a drawn game is over: only a game waiting for its count plays on


def test_first_capture_the_first_capture_wins() -> None:
    game, names = game_from(
        """
        . B . . .
        B W a . .
        . B . . .
        . . . . .
        . . . . .
        """,
        "first-capture",
    )
    game.play(names["a"])
    assert game.result is not None
    assert (game.result.winner, game.result.method, game.result.text()) == (
        BLACK,
        "first capture",
        "B+",  # SGF: a win with no score
    )


def test_first_capture_a_self_capture_hands_the_opponent_the_win() -> None:
    game, names = game_from(
        """
        . W W W .
        W B e W .
        W B W . .
        . W . . .
        . . . . .
        """,
        "first-capture",
    )
    game.play(names["e"])  # Black's three pieces come off: White's pieces captured them
    assert game.over and game.result is not None
    assert (game.result.winner, game.result.method) == (WHITE, "first capture")


def test_first_capture_setup_stones_come_out_of_the_forty_too() -> None:
    game = new_game("first-capture")
    game.setup({game.topology.spot(4, 4): BLACK})
    assert game.in_hand == [39, 40]

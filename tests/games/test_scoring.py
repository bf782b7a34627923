"""Scoring on hand-checked boards: area, territory + prisoners, dead stones, no-man's-land."""

from __future__ import annotations

import pytest

from companion.games.go import BLACK, WHITE
from tests.support.boards import game_from

# Black owns the left, White the right; the middle column is dame.
SPLIT = """
. B . W .
. B . W .
. B . W .
"""


def test_area_scoring_counts_stones_and_territory() -> None:
    game, _ = game_from(SPLIT, "chinese", komi=0.5)
    score = game.score()
    assert score.points == (3 + 3, 3 + 3 + 0.5)
    assert score.winner == WHITE
    assert score.margin == 0.5
    assert score.text() == "W+0.5"


def test_dead_stone_becomes_territory_and_a_prisoner() -> None:
    game, _ = game_from(
        """
        . B . W W
        . B . W .
        . B . W .
        """,
        "japanese",
        komi=0.0,
    )
    t = game.topology
    dead = {t.spot(0, 4)}  # the players agree the corner stone is dead (scoring trusts them)
    with pytest.raises(ValueError):
        game.score(dead={t.spot(1, 4)})  # an empty point cannot be dead
    score = game.score(dead=dead)
    # White: territory (1,4), (2,4) and the freed (0,4) = 3; Black: territory 3 + 1 prisoner.
    assert score.points == (4.0, 3.0)
    assert score.winner == BLACK


def test_territory_counts_prisoners_and_pass_stones() -> None:
    game, _ = game_from(SPLIT, "club", komi=0.0)
    game.pass_()  # Black passes: White gets a prisoner
    game.pass_()  # White passes: Black gets one back; White passed last, game over
    assert game.over
    score = game.score()
    assert score.method == "territory"
    assert score.points == (3 + 1, 3 + 1)
    assert score.winner is None  # a draw
    assert score.text() == "0"


def test_no_mans_land_splits_a_region() -> None:
    # One empty region touches both colours (disputed). Marking its middle spot as
    # no-man's-land leaves each side with a region bordered by one colour only.
    game, _ = game_from(
        """
        B . . . W
        B . . . W
        """,
        "chinese",
        komi=0.0,
    )
    t = game.topology
    assert game.score().points == (2.0, 2.0)
    score = game.score(no_mans_land={t.spot(0, 2), t.spot(1, 2)})
    assert score.points == (4.0, 4.0)


def test_area_totals_add_up_to_the_board() -> None:
    game, _ = game_from(SPLIT, "chinese", komi=0.0)
    score = game.score()
    neutral = 3  # the middle column
    assert sum(score.points) + neutral == len(game.topology)


def test_fridge_counts_stones_on_board_plus_surrounded_points() -> None:
    game, _ = game_from(SPLIT, "fridge")
    assert game.score().points == (6.0, 6.0)

"""The Go engine on hand-checked ASCII boards: captures, suicide, every ko rule, passes, ends."""

from __future__ import annotations

import pytest

from companion.errors import IllegalMove
from companion.games.go import BLACK, EMPTY, WHITE, KoRule
from companion.games.rules import find_rules, new_game
from companion.games.topology import grid, stacked
from tests.support.boards import game_from, same

# A single-stone ko: Black to take at k (capturing the white stone at t).
KO = """
. B W . .
B W t W .
. B W . .
. . . . .
. . . . .
"""
# Black's capture at t removes the white stone at (1, 1); White's retake is at (1, 1).


def test_capture_a_single_stone() -> None:
    game, names = game_from(
        """
        . B .
        B W a
        . B .
        """
    )
    captured = game.play(names["a"])
    assert captured == (game.topology.spot(1, 1),)
    assert game.captures == [1, 0]
    assert same(
        game,
        """
        . B .
        B . B
        . B .
        """,
    )


def test_capture_a_chain_in_the_corner() -> None:
    game, names = game_from(
        """
        W W B .
        W B . .
        a . . .
        . . . .
        """
    )
    game.play(names["a"])
    assert game.captures[BLACK] == 3
    assert game[game.topology.spot(0, 0)] == EMPTY


def test_occupied_is_refused_and_nothing_changes() -> None:
    game, _ = game_from(
        """
        B . .
        . . .
        . . .
        """
    )
    before = (game.board, game.hash, game.to_move)
    with pytest.raises(IllegalMove) as info:
        game.play(0)
    assert info.value.reason == "occupied"
    assert (game.board, game.hash, game.to_move) == before


def test_suicide_is_refused_unless_it_captures() -> None:
    # Club sheet, 8 and 9: a play with no liberties is refused, unless it captures.
    game, names = game_from(
        """
        . W a W .
        . . W . .
        . . . . .
        """,
        "club",
    )
    with pytest.raises(IllegalMove) as info:
        game.play(names["a"])
    assert info.value.reason == "suicide"

    game, names = game_from(
        """
        . W B W .
        W B a B W
        . W B W .
        """,
        "club",
        to_move=WHITE,
    )
    # White at a has no liberty of its own but takes the four black stones around it.
    captured = game.play(names["a"])
    assert len(captured) == 4
    assert game[names["a"]] == WHITE
    assert len(game.liberties(names["a"])) == 4
    assert game.captures == [0, 4]


def test_suicide_knob_removes_the_suicidal_chain() -> None:
    game, names = game_from(
        """
        . W a W .
        . B W . .
        . . . . .
        """,
        "chinese",
        suicide=True,
    )
    # A lone suicide recreates the position it was played in: positional superko refuses it.
    assert game.refusal(names["a"]) == "superko"
    game, names = game_from(
        """
        . W a W .
        . B W . .
        . . . . .
        """,
        "chinese",
        suicide=True,
        ko="simple",
    )
    # Black at a joins nothing and has no liberty: with suicide allowed the stone comes off.
    captured = game.play(names["a"])
    assert captured == (names["a"],)
    assert game[names["a"]] == EMPTY
    assert game.captures[WHITE] == 1
    assert game.to_move == WHITE


def test_simple_ko_forbids_the_immediate_retake_only() -> None:
    game, names = game_from(KO, "japanese")
    k = names["t"]
    captured = game.play(k)  # Black takes the ko
    assert captured == (game.topology.spot(1, 1),)
    retake = game.topology.spot(1, 1)
    assert game.refusal(retake) == "ko"
    game.play(game.topology.spot(4, 4))  # White threat elsewhere
    game.play(game.topology.spot(4, 3))  # Black answers
    game.play(retake)  # now White may retake
    assert game[k] == EMPTY


@pytest.mark.parametrize("rules", ["chinese", "stacked-like", "club", "fridge"])
def test_every_preset_forbids_the_immediate_ko_retake(rules: str) -> None:
    if rules == "stacked-like":
        game, names = game_from(KO, "chinese", ko="situational")
    else:
        game, names = game_from(KO, rules)
    # club: Black's own earlier position (the setup) does not count, but White's retake would
    # recreate the setup... which is no one's play: see the natural-superko test below.
    game.play(game.topology.spot(4, 4))  # Black makes the setup position "after Black's play"
    game.play(game.topology.spot(4, 0))  # White elsewhere
    game.play(names["t"])  # Black takes the ko
    retake = game.topology.spot(1, 1)
    assert game.refusal(retake) in ("ko", "superko")


def test_natural_superko_ignores_the_setup_position() -> None:
    # After the setup nobody has played, so a retake that recreates the setup is not a repeat of
    # the retaker's own earlier position; the retake after that is.
    game, names = game_from(KO, "club")
    game.play(names["t"])  # Black takes: position P1 after Black's play
    retake = game.topology.spot(1, 1)
    game.play(retake)  # White retakes: recreates the setup position, allowed
    assert game.refusal(names["t"]) == "superko"  # Black would recreate P1, its own position


def test_positional_superko_counts_the_setup_position() -> None:
    game, names = game_from(KO, "chinese")
    game.play(names["t"])
    assert game.refusal(game.topology.spot(1, 1)) == "superko"


AFTER_KO = """
. B W . .
B . B W .
. B W . .
. . . . .
. . . . .
"""


@pytest.mark.parametrize(
    ("ko", "expect"),
    [("positional", "superko"), ("situational", None), ("simple", None), ("natural", None)],
)
def test_superko_flavours_differ_on_who_is_to_move(ko: str, expect: str | None) -> None:
    # Board X (Black has just taken the ko) exists first with BLACK to move. A second setup step
    # turns it into the ko shape; Black's capture then recreates X with WHITE to move: an old
    # board (refused under positional superko) but a new situation (allowed under situational),
    # and no earlier play by Black made it (allowed under natural).
    game, _ = game_from(AFTER_KO, "chinese", ko=ko)
    t = game.topology
    game.setup({t.spot(1, 1): WHITE, t.spot(1, 2): EMPTY}, to_move=BLACK)
    assert game.refusal(t.spot(1, 2)) == expect


def test_pass_stones_and_white_passes_last() -> None:
    game = new_game("club", grid(5))
    game.play(0)
    game.pass_()  # White passes: Black gets a prisoner
    assert game.pass_prisoners == [1, 0]
    game.pass_()  # Black passes: two passes in a row, but Black passed last
    assert not game.over
    assert game.pass_prisoners == [1, 1]
    game.pass_()  # White's third pass ends it
    assert game.over
    assert game.pass_prisoners == [2, 1]


def test_white_passing_second_ends_a_club_game_at_once() -> None:
    game = new_game("club", grid(5))
    game.pass_()
    game.pass_()
    assert game.over


def test_two_passes_end_a_chinese_game_and_moves_are_refused_after() -> None:
    game = new_game("chinese", grid(5))
    game.play(12)
    game.pass_()
    game.pass_()
    assert game.over
    with pytest.raises(IllegalMove) as info:
        game.play(0)
    assert info.value.reason == "game over"


def test_not_your_turn() -> None:
    game = new_game("chinese", grid(5))
    with pytest.raises(IllegalMove) as info:
        game.play(3, WHITE)
    assert info.value.reason == "not your turn"


def test_skip_is_not_a_pass_and_breaks_a_run() -> None:
    game = new_game("chinese", grid(5))
    game.pass_()
    game.skip()
    game.pass_()
    assert not game.over
    game.pass_()
    assert game.over


def test_resign() -> None:
    game = new_game("chinese", grid(5))
    game.play(3)
    game.resign(BLACK)  # out of turn is fine
    assert game.over
    assert game.result is not None
    assert game.result.text() == "W+R"


def test_undo_restores_position_hash_and_turn() -> None:
    game, names = game_from(KO, "chinese")
    before = (game.board, game.hash, game.to_move, list(game.captures))
    game.play(names["t"])
    assert game.hash != before[1]
    assert game.undo() is not None
    assert (game.board, game.hash, game.to_move, list(game.captures)) == before
    with pytest.raises(IllegalMove):
        new_game("chinese", grid(3)).undo()


def test_fridge_supply_and_returned_captures() -> None:
    game = new_game("fridge", stones=2)
    assert game.topology.shape == (1, 9, 9)
    t = game.topology
    game.play(t.spot(0, 1))  # B
    game.play(t.spot(0, 0))  # W in the corner
    game.play(t.spot(1, 0))  # B captures the corner stone, which goes back to White
    assert game.in_hand == [0, 2]
    game.play(t.spot(5, 5))  # W
    assert game.in_hand == [0, 1]
    with pytest.raises(IllegalMove) as info:
        game.play(t.spot(6, 6))  # Black has nothing in hand
    assert info.value.reason == "no stones left"
    game.pass_()  # Black can only pass
    assert game.to_move == WHITE


def test_fridge_default_is_forty_stones_and_no_komi() -> None:
    game = new_game("fridge")
    assert game.in_hand == [40, 40]
    assert game.knobs.komi == 0


def test_first_capture_wins() -> None:
    game, names = game_from(
        """
        . B .
        B W a
        . B .
        """,
        "first-capture",
    )
    game.play(names["a"])
    assert game.over
    assert game.result is not None and game.result.winner == BLACK


def test_stacked_board_captures_through_the_layers() -> None:
    game = new_game("stacked")
    t = game.topology
    assert t.shape == (2, 9, 9)
    centre = t.spot(4, 4, layer=1)
    around = (t.spot(3, 4, 1), t.spot(5, 4, 1), t.spot(4, 3, 1), t.spot(4, 5, 1))
    for n, spot in enumerate(around):
        game.play(spot)  # Black surrounds the upper centre
        game.play(t.spot(0, n, 0))  # White elsewhere
    game.pass_()
    game.play(centre)  # White between four black stones: one liberty left, straight down
    assert game.liberties(centre) == {t.spot(4, 4, 0)}
    captured = game.play(t.spot(4, 4, 0))  # Black fills it from the lower layer
    assert captured == (centre,)
    assert game.captures[BLACK] == 1


def test_stacked_groups_connect_between_layers() -> None:
    game = new_game("stacked")
    t = game.topology
    game.play(t.spot(4, 4, 0))
    game.pass_()
    game.play(t.spot(4, 4, 1))
    assert game.chain(t.spot(4, 4, 0)) == {t.spot(4, 4, 0), t.spot(4, 4, 1)}
    assert len(game.liberties(t.spot(4, 4, 0))) == 8


def test_presets_are_found_by_name_and_alias() -> None:
    assert find_rules("Chinese").name == "chinese"
    assert find_rules("2.5d").name == "stacked"
    with pytest.raises(ValueError, match="choose one of"):
        find_rules("calvinball")


def test_knobs_override_preset_defaults() -> None:
    game = new_game("club", grid(9), komi=0.5, ko="positional")
    assert game.knobs.komi == 0.5
    assert game.knobs.ko is KoRule.POSITIONAL


def test_spot_names() -> None:
    game = new_game("chinese", grid(19))
    assert game.spot_name(game.topology.spot(15, 3)) == "D4"
    assert game.parse_spot("q16") == game.topology.spot(3, 15)
    assert new_game("stacked").spot_name(stacked().spot(8, 0, 1)) == "L2 A1"


def test_resume_after_passes_is_logged_and_survives_undo() -> None:
    game = new_game("japanese", grid(5))
    game.play(12)
    game.pass_()
    game.pass_()
    assert game.over
    game.resume()
    assert not game.over
    game.play(0)  # White plays on
    assert [s.resume for s in game.steps] == [False, False, False, True, False]
    game.undo()
    assert not game.over  # the resumption is still in the log
    game.undo()
    assert game.over


def test_resume_refused_after_resignation() -> None:
    game = new_game("chinese", grid(5))
    game.resign(BLACK)
    with pytest.raises(IllegalMove):
        game.resume()


def test_setup_lifts_a_simple_ko_ban() -> None:
    game, names = game_from(KO, "japanese")
    game.play(names["t"])
    retake = game.topology.spot(1, 1)
    assert game.refusal(retake) == "ko"
    game.setup({}, to_move=WHITE)
    assert game.refusal(retake) is None

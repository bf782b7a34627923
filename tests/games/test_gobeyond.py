"""GoBeyond: the economy, reserved spots, the end, cleanup and undo, on ASCII boards.

Boards are written top row first; ``B W R`` are players 0, 1, 2 and ``.`` is empty. Every
expected figure is worked out by hand in the comment above it.
"""

from __future__ import annotations

import json
import random
import textwrap
from typing import Any

import pytest

from companion.errors import IllegalMove, RecordError
from companion.games.go import LETTERS, KoRule, Score
from companion.games.gobeyond import Economy, GoBeyond, decide_economy
from companion.games.rules import find_rules, new_game
from companion.games.topology import grid, parse_map


def position(rows: str, *, players: int = 2, to_move: int = 0, **options: Any) -> GoBeyond:
    """A game on a grid set up from ASCII rows (the setup costs and pays nothing)."""
    lines = [line.split() for line in textwrap.dedent(rows).strip().splitlines()]
    height, width = len(lines), len(lines[0])
    game = GoBeyond(grid(width, height), players=players, **options)
    stones = {
        r * width + c: LETTERS.index(token)
        for r, line in enumerate(lines)
        for c, token in enumerate(line)
        if token != "."
    }
    game.setup(stones, to_move=to_move)
    return game


def at(game: GoBeyond, row: int, col: int) -> int:
    return game.topology.spot(row, col)


def passes(game: GoBeyond, count: int) -> None:
    for _ in range(count):
        game.pass_()


# ---------------------------------------------------------------------------------- economy

CAPTURE = """
    . B . .
    B W . .
    . B . .
    . . . .
"""


def test_economy_stone_cost_dividend_and_capture_bounty() -> None:
    game = position(CAPTURE)
    assert game.points == [200, 200]
    # B's turn starts: B claims only the corner (0,0) (the big region touches W) -> +1.
    assert game.dividend_due() == 1
    # B places (-10) and captures the white stone (+10): 200 + 1 - 10 + 10.
    assert game.play(at(game, 1, 2)) == (at(game, 1, 1),)
    assert game.points == [201, 200]
    # W claims nothing: 200 - 10.
    game.play(at(game, 3, 3))
    assert game.points == [201, 190]
    # B now claims (0,0) and the captured spot (1,1): 201 + 2 - 10.
    assert game.dividend_due() == 2
    game.play(at(game, 0, 3))
    assert game.points == [193, 190]
    # A pass costs nothing; W still claims nothing.
    game.pass_()
    assert game.points == [193, 190]
    assert game.history == [
        (0, (200, 200)),
        (1, (201, 200)),
        (2, (201, 190)),
        (3, (193, 190)),
        (4, (193, 190)),
    ]


def test_economy_parameters_are_used() -> None:
    game = position(CAPTURE, starting=50, handicap=5, stone_cost=3, dividend=2, capture_bounty=7)
    # The handicap goes to the first player.
    assert game.points == [55, 50]
    game.play(at(game, 1, 2))  # 55 + 2*1 - 3 + 7
    game.play(at(game, 3, 3))  # 50 - 3
    game.play(at(game, 0, 3))  # 61 + 2*2 - 3
    assert game.points == [62, 47]


def test_dividend_is_paid_on_pass_and_skip_turns() -> None:
    game = position(
        """
        . B . W
        B . . .
        """
    )
    # B claims (0,0) only; W claims nothing. Each of B's turns pays 1, whatever B does.
    game.pass_()
    game.skip()  # W's turn times out
    game.skip()  # so does B's
    game.pass_()
    assert game.points == [202, 200]


def test_debt_is_allowed_by_default_and_can_be_refused() -> None:
    game = GoBeyond(grid(3), starting=15)
    game.play(0)
    game.play(8)
    game.play(4)  # 5 - 10: the score goes below zero
    assert game.points == [-5, 5]
    strict = GoBeyond(grid(3), starting=15, allow_debt=False)
    strict.play(0)
    strict.play(8)
    assert strict.refusal(4) == "not allowed"
    strict.pass_()  # passing is always possible
    assert strict.points == [5, 5]


def test_debt_check_counts_the_dividend_due() -> None:
    # B has 9 points, a stone costs 10, but B's turn pays 1 for the corner (0,0).
    game = position(
        """
        . B . W
        B . . .
        """,
        starting=9,
        allow_debt=False,
    )
    assert game.refusal(at(game, 1, 2)) is None
    game.play(at(game, 1, 2))
    assert game.points == [0, 9]


# ---------------------------------------------------------------------------- reserved spots

KO = """
    . B W .
    B W . W
    . B W .
    . . . .
"""


def test_ko_capture_reserves_the_spot_until_the_owners_next_turn() -> None:
    game = position(KO)
    game.play(at(game, 1, 2))  # captures W (1,1): one stone, alone, one lifeline, B's claim
    assert game.reserved == {at(game, 1, 1): 0}
    assert game.refusal(at(game, 1, 1)) == "reserved"
    assert at(game, 1, 1) not in game.legal_plays()
    with pytest.raises(IllegalMove) as refused:
        game.play(at(game, 1, 1))
    assert refused.value.reason == "reserved"
    game.play(at(game, 3, 3))  # W waits one turn
    # B's turn starts: B's reservation lapses.
    assert game.reserved == {}
    game.play(at(game, 3, 0))
    # Now W may capture B, which reserves (1,2) for W in turn.
    assert game.play(at(game, 1, 1)) == (at(game, 1, 2),)
    assert game.reserved == {at(game, 1, 2): 1}
    assert game.refusal(at(game, 1, 2)) == "reserved"


def test_owner_may_fill_their_own_reserved_spot_on_their_next_turn() -> None:
    game = position(KO)
    game.play(at(game, 1, 2))
    game.play(at(game, 3, 3))
    assert game.refusal(at(game, 1, 1)) is None
    game.play(at(game, 1, 1))
    assert game.reserved == {}


def test_no_reservation_when_two_stones_are_captured() -> None:
    game = position(
        """
        . W W
        W B B
        . . .
        """
    )
    corner = at(game, 0, 0)
    assert game.play(corner) == (at(game, 0, 1), at(game, 0, 2))
    # Every other condition holds: a group of one with one lifeline in B's claimed region.
    assert game.chain(corner) == {corner}
    assert game.liberties(corner) == {at(game, 0, 1)}
    assert {at(game, 0, 1), at(game, 0, 2)} <= game.claimed()[0]
    assert game.reserved == {}
    assert game.refusal(at(game, 0, 1)) is None


def test_no_reservation_when_the_placed_stone_has_two_lifelines() -> None:
    game = position(
        """
        . B W .
        B W . .
        . B W .
        . . . .
        """
    )
    game.play(at(game, 1, 2))
    assert game.liberties(at(game, 1, 2)) == {at(game, 1, 1), at(game, 1, 3)}
    assert at(game, 1, 1) in game.claimed()[0]
    assert game.reserved == {}
    # W may not play there, but for the ordinary reason: it would be suicide.
    assert game.refusal(at(game, 1, 1)) == "suicide"


def test_no_reservation_when_the_lifeline_is_not_claimed_by_the_placer() -> None:
    # Red borders the captured spot, so the region is disputed.
    game = position(
        """
        . B W .
        R W . W
        . B W .
        . . . .
        """,
        players=3,
    )
    game.play(at(game, 1, 2))
    assert game.liberties(at(game, 1, 2)) == {at(game, 1, 1)}
    assert game.reserved == {}
    # W retakes at once; W's new stone fulfils every condition (the spot (1,2) is W's claim).
    assert game.play(at(game, 1, 1)) == (at(game, 1, 2),)
    assert game.reserved == {at(game, 1, 2): 1}
    # The reservation binds every other player until W's next turn.
    assert game.refusal(at(game, 1, 2)) == "reserved"  # Red
    game.play(at(game, 3, 3))
    assert game.refusal(at(game, 1, 2)) == "reserved"  # Black
    game.play(at(game, 3, 0))
    assert game.reserved == {}  # W's turn: lapsed


def test_resigning_drops_the_players_reservations() -> None:
    game = position(KO, players=3)
    game.play(at(game, 1, 2))
    assert game.reserved == {at(game, 1, 1): 0}
    game.resign(0)  # out of turn: B will have no next turn for it to lapse
    assert game.reserved == {}
    assert game.refusal(at(game, 1, 1)) is None


def test_a_ko_rule_set_by_the_user_applies_in_addition() -> None:
    rows = """
        . B W .
        R W . W
        . B W .
        . . . .
    """
    game = position(rows, players=3, ko="simple")
    assert game.knobs.ko is KoRule.SIMPLE
    game.play(at(game, 1, 2))
    assert game.reserved == {}
    assert game.refusal(at(game, 1, 1)) == "ko"


def test_reserved_spot_on_a_map() -> None:
    # x (white) touches three black stones and k; black plays k, whose other links are white.
    text = json.dumps(
        {
            "format": "companion-map",
            "version": 1,
            "spots": [{"id": s} for s in ("a", "b", "c", "x", "k", "w1", "w2", "e1", "e2")],
            "links": [
                ["x", "a"],
                ["x", "b"],
                ["x", "c"],
                ["x", "k"],
                ["k", "w1"],
                ["k", "w2"],
                ["w1", "e1"],
                ["w2", "e2"],
                ["a", "e1"],
                ["b", "e2"],
                ["c", "e2"],
            ],
        }
    )
    board = parse_map(text, name="ko-map")
    game = GoBeyond(board)
    spot = board.index
    game.setup({spot("a"): 0, spot("b"): 0, spot("c"): 0, spot("x"): 1, spot("w1"): 1})
    game.setup({spot("w2"): 1}, to_move=0)
    assert game.play(spot("k")) == (spot("x"),)
    assert game.reserved == {spot("x"): 0}
    assert game.refusal(spot("x")) == "reserved"


# ------------------------------------------------------------------ rotation and resignation


def test_three_player_rotation_with_resignation() -> None:
    game = GoBeyond(grid(5), players=3)
    game.play(at(game, 0, 0))
    game.play(at(game, 4, 4))
    game.play(at(game, 2, 2))
    assert game.points == [190, 190, 190]
    game.play(at(game, 0, 1))
    assert game.to_move == 1
    game.resign(1)  # W resigns in turn and leaves the rotation
    assert game.active_players == [0, 2]
    assert game.to_move == 2
    assert game[at(game, 4, 4)] == 1  # W's stone stays
    game.play(at(game, 2, 3))
    assert game.to_move == 0
    game.play(at(game, 0, 2))
    assert game.to_move == 2
    assert game.points == [170, 190, 180]  # W's points are frozen
    game.resign(0)  # B resigns out of turn: Red is the last player
    assert game.over
    assert game.result is not None
    assert (game.result.winner, game.result.method) == (2, "resign")


def test_dividend_on_the_resignation_turn_and_bounty_for_a_resigned_players_stones() -> None:
    game = position(
        """
        W . W B .
        W W W B R
        """,
        players=3,
        to_move=1,
    )
    game.resign(1)  # W's turn starts (W claims (0,1): +1), then W resigns
    assert game.points == [200, 201, 200]
    game.pass_()  # Red
    # B fills W's last lifeline: 5 stones x 10, minus the stone; B claimed nothing.
    assert len(game.play(at(game, 0, 1))) == 5
    assert game.points == [240, 201, 200]


def test_a_resignation_does_not_break_the_run_of_passes() -> None:
    game = GoBeyond(grid(3), players=3)
    game.pass_()
    game.pass_()
    game.resign(2)  # Red leaves; B and W have both passed
    assert not game.over
    game.pass_()  # B confirms
    assert game.in_cleanup


def test_resigned_stones_still_dispute_claims_but_claim_nothing() -> None:
    game = position(
        """
        B . . W
        B . . W
        """,
        players=3,
    )
    game.resign(1)
    # The middle is bordered by B and the resigned W: disputed, so no dividend for B.
    assert game.dividend_due(0) == 0
    game.pass_()
    game.pass_()  # Red
    game.pass_()  # B confirms
    assert game.in_cleanup
    game.mark_no_mans_land([at(game, 0, 1), at(game, 1, 1)])
    score = game.score()
    # The right-hand region is bordered only by W's stones, but W has resigned: nobody's.
    assert [d["territory"] for d in score.detail] == [0, 0, 0]


# --------------------------------------------------------------------------------- the end


def test_end_after_every_player_passed_plus_one_confirming_pass() -> None:
    game = GoBeyond(grid(3))
    passes(game, 2)
    assert not game.over
    game.pass_()
    assert game.over and game.in_cleanup and game.result is None
    with pytest.raises(IllegalMove) as refused:
        game.play(0)
    assert refused.value.reason == "game over"
    three = GoBeyond(grid(3), players=3)
    passes(three, 3)
    assert not three.over
    three.pass_()
    assert three.in_cleanup


def test_a_skip_breaks_the_run_of_passes() -> None:
    game = GoBeyond(grid(3))
    game.pass_()
    game.skip()
    game.pass_()
    game.pass_()
    assert not game.over  # only two passes in a row
    game.pass_()
    assert game.in_cleanup


# ---------------------------------------------------------------------------------- cleanup

CLEANUP = """
    . W B . W
    B B B . .
    . . B . W
"""


def test_surrender_bounty_goes_to_the_opponent_even_when_the_region_is_disputed() -> None:
    game = position(CLEANUP)
    passes(game, 3)
    # B claims (2,0) and (2,1) at the start of each of its two turns; W claims nothing.
    assert game.points == [204, 200]
    game.surrender([at(game, 0, 1), at(game, 0, 4)])
    # (0,1) leaves {(0,0), (0,1)}, claimed by B: +10 to B. (0,4) leaves the right-hand region,
    # still bordered by B and the white stone (2,4): disputed, but with two players B is the
    # only one who could have captured it: +10 to B as well.
    score = game.score()
    assert score.detail[0] == {
        "points": 204,
        "surrender bounty": 20,
        "territory": 4,
        "territory bounty": 40,
        "komi": 0.0,
    }
    assert score.detail[1]["surrender bounty"] == 0
    assert score.points == (264.0, 200.0)
    assert game.claimed()[0] == {at(game, r, c) for r, c in ((0, 0), (0, 1), (2, 0), (2, 1))}
    game.agree(0)
    assert game.result is None
    game.agree(1)
    assert game.result == score
    assert (game.result.winner, game.result.margin, game.result.method) == (0, 64.0, "economy")
    with pytest.raises(IllegalMove):
        game.surrender([at(game, 2, 4)])


def test_a_stone_surrendered_inside_its_own_colours_region_pays_the_opponent() -> None:
    game = position(
        """
        B . B . W
        . . B . W
        """
    )
    passes(game, 3)
    game.surrender([at(game, 0, 0)])
    # The region left, columns 0-1, borders only black stones: B's territory. The bounty is
    # "awarded when your opponent's stone is surrendered": W's, the only opponent.
    score = game.score()
    assert score.detail[0]["territory"] == 4
    assert [d["surrender bounty"] for d in score.detail] == [0, 10]


def test_surrender_takes_the_whole_chain_and_changes_clear_agreement() -> None:
    game = position(CLEANUP)
    passes(game, 3)
    game.agree(1)
    game.surrender([at(game, 1, 0)])
    assert game.surrendered == {
        at(game, 0, 2),
        at(game, 1, 0),
        at(game, 1, 1),
        at(game, 1, 2),
        at(game, 2, 2),
    }
    assert game.agreed == set()
    game.agree(0)
    game.unmark([at(game, 2, 2)])
    assert game.surrendered == set()
    assert game.agreed == set()


def test_cleanup_refusals() -> None:
    game = position(CLEANUP)
    with pytest.raises(IllegalMove) as refused:
        game.surrender([at(game, 0, 1)])
    assert refused.value.reason == "not allowed"  # play has not ended
    passes(game, 3)
    with pytest.raises(IllegalMove):
        game.surrender([at(game, 0, 0)])  # empty
    with pytest.raises(IllegalMove):
        game.mark_no_mans_land([at(game, 0, 1)])  # a stone
    with pytest.raises(IllegalMove) as refused:
        game.mark_no_mans_land([99])
    assert refused.value.reason == "off board"
    with pytest.raises(IllegalMove):
        game.agree(5)
    assert game.cleanup_log == ()


def test_no_mans_land_changes_a_claim_and_ties_go_to_the_later_player() -> None:
    game = position(
        """
        B . . . W
        B . . . W
        """
    )
    passes(game, 3)  # the middle is disputed: no dividends
    assert game.points == [200, 200]
    tie = game.score()
    assert tie.points == (200.0, 200.0)
    assert (tie.winner, tie.margin) == (1, 0.0)  # the earlier player (B) loses the tie
    game.mark_no_mans_land([at(game, 0, 1), at(game, 1, 1)])
    # Columns 2-3 now border only W: 4 spots x 10.
    assert game.score().points == (200.0, 240.0)
    game.unmark([at(game, 0, 1), at(game, 1, 1)])
    game.mark_no_mans_land([at(game, 0, 3), at(game, 1, 3)])
    assert game.score().points == (240.0, 200.0)
    game.agree(0)
    game.agree(1)
    assert game.result is not None and game.result.winner == 0


def test_komi_knob_goes_to_the_second_player() -> None:
    game = position(
        """
        B . . . W
        B . . . W
        """,
        komi=0.5,
    )
    passes(game, 3)
    score = game.score()
    assert score.points == (200.0, 200.5)
    assert score.winner == 1


def test_tie_rule_with_three_players() -> None:
    assert decide_economy([5, 5, 3], [0, 1, 2]) == (1, 0.0)
    assert decide_economy([5, 3, 5], [0, 1, 2]) == (2, 0.0)
    assert decide_economy([5, 5, 5], [0, 1, 2]) == (None, 0.0)  # no single earlier player
    assert decide_economy([5, 5, 5, 5], [0, 1, 2, 3]) == (None, 0.0)
    assert decide_economy([5, 5, 5, 6], [0, 1, 2, 3]) == (3, 1.0)
    assert decide_economy([7, 5, 5], [0, 1, 2]) == (0, 2.0)
    assert decide_economy([9, 5, 5], [1, 2]) == (2, 0.0)  # a resigned player cannot win


def test_resigning_during_cleanup() -> None:
    game = position(CLEANUP)
    passes(game, 3)
    game.resign(1)  # W cannot agree with B's surrenders: the sheet says resign
    assert game.result is not None
    assert (game.result.winner, game.result.method) == (0, "resign")
    three = GoBeyond(grid(3), players=3)
    passes(three, 4)
    three.agree(0)
    three.resign(0)  # a change: clears agreement
    assert three.agreed == set()
    three.agree(1)
    three.agree(2)
    assert three.result is not None and three.result.winner == 2  # tie: the later player


# ------------------------------------------------------------------------------------ undo


def snapshot(game: GoBeyond) -> tuple[object, ...]:
    return (
        game.board,
        tuple(game.points),
        tuple(game.history),
        tuple(sorted(game.reserved.items())),
        game.to_move,
        tuple(game.moves),
        game.over,
        game.passes_in_row,
        frozenset(game.resigned),
        game.result,
        game.surrendered,
        game.no_mans_land,
        game.agreed,
    )


def test_undo_restores_points_and_reservations() -> None:
    game = position(KO)
    before = snapshot(game)
    game.play(at(game, 1, 2))
    reserved = snapshot(game)
    game.play(at(game, 3, 3))
    game.undo()
    assert snapshot(game) == reserved
    assert game.reserved == {at(game, 1, 1): 0}
    assert game.refusal(at(game, 1, 1)) == "reserved"
    game.undo()
    assert snapshot(game) == before


def test_undo_takes_back_cleanup_steps_then_moves() -> None:
    game = position(CLEANUP)
    passes(game, 3)
    in_cleanup = snapshot(game)
    game.surrender([at(game, 0, 1)])
    marked = snapshot(game)
    game.agree(0)
    game.agree(1)
    assert game.result is not None
    copy = game.copy()
    assert snapshot(copy) == snapshot(game)
    assert game.undo() is None
    assert game.result is None and game.agreed == {0}
    game.undo()
    assert snapshot(game) == marked
    game.undo()
    assert snapshot(game) == in_cleanup
    game.undo()  # the confirming pass: play resumes
    assert not game.over
    assert snapshot(copy)[9] is not None  # the copy is independent


def test_random_games_undo_and_copy_restore_everything() -> None:
    rng = random.Random(7)
    for _ in range(12):
        game = GoBeyond(grid(4), players=rng.choice((2, 3)))
        states = [snapshot(game)]
        for _ in range(60):
            if game.over:
                break
            roll = rng.random()
            legal = game.legal_plays()
            if roll < 0.04 and len(game.active_players) > 2:
                game.resign(game.to_move)
            elif roll < 0.1:
                game.skip()
            elif roll < 0.16 or not legal:
                game.pass_()
            else:
                game.play(rng.choice(legal))
            states.append(snapshot(game))
            assert snapshot(game.copy()) == states[-1]
        while len(states) > 1:
            states.pop()
            game.undo()
            assert snapshot(game) == states[-1]


# --------------------------------------------------------------------- preset and knobs


def test_preset_defaults_and_registry() -> None:
    assert find_rules("gobeyond") is GoBeyond
    game = new_game("gobeyond")
    assert isinstance(game, GoBeyond)
    assert game.topology.name == "hex-5"
    assert game.knobs.ko is KoRule.NONE and game.knobs.suicide is False
    assert game.economy == Economy(
        starting=200, stone_cost=10, dividend=1, capture_bounty=10, territory_bounty=10
    )
    assert game.turn_seconds is None
    assert new_game("gobeyond", players=8, turn_seconds=30).turn_seconds == 30
    with pytest.raises(ValueError):
        new_game("gobeyond", players=9)
    with pytest.raises(ValueError):
        GoBeyond(stone_cost=-1)
    with pytest.raises(ValueError):
        GoBeyond(turn_seconds=0)
    assert "points 200/200" in repr(game)


def test_knobs_can_be_overridden() -> None:
    game = new_game("gobeyond", grid(3), ko="positional", komi=1.5, stones=1, suicide=True)
    assert game.knobs.ko is KoRule.POSITIONAL
    assert game.knobs.komi == 1.5
    game.play(0)
    game.play(8)
    assert game.refusal(4) == "no stones left"


def test_suicide_when_allowed_costs_the_stone_and_pays_no_bounty() -> None:
    game = position(
        """
        . W .
        W . .
        . . .
        """,
        suicide=True,
    )
    assert game.play(0) == (0,)
    assert game.points == [190, 200]


def test_score_is_a_score() -> None:
    game = GoBeyond(grid(3))
    assert isinstance(game.score(), Score)
    with pytest.raises(ValueError):
        game.score(dead=[0])
    with pytest.raises(ValueError):
        game.score(dead=[-1])
    with pytest.raises(ValueError):
        game.score(no_mans_land=[9])


# ----------------------------------------------------------- issue 13: ends and economy


def test_with_three_players_a_surrender_into_a_disputed_region_pays_nobody() -> None:
    game = position(
        """
        B W . R
        B . . R
        """,
        players=3,
    )
    passes(game, 4)  # three passes and the confirming one; the middle is disputed throughout
    assert game.points == [200, 200, 200]
    game.surrender([at(game, 0, 1)])
    # W's stone leaves a region bordered by B and R: neither alone would have taken it.
    assert [d["surrender bounty"] for d in game.score().detail] == [0, 0, 0]
    game.surrender([at(game, 0, 3)])
    # With R's chain (two stones) gone too, columns 1-3 border only B: B claims 6 spots and
    # is paid for the three opponents' stones it now surrounds.
    score = game.score()
    assert [d["surrender bounty"] for d in score.detail] == [30, 0, 0]
    assert score.points == (290.0, 200.0, 200.0)


def test_a_three_way_tie_is_a_tie_not_a_win_by_zero() -> None:
    game = GoBeyond(grid(3), players=3)
    passes(game, 4)
    for player in (0, 1, 2):
        game.agree(player)
    assert game.result is not None
    assert game.result.points == (200.0, 200.0, 200.0)
    assert (game.result.winner, game.result.text()) == (None, "0")


def test_a_two_player_resignation_in_cleanup_ends_the_game_with_a_result() -> None:
    game = position(CLEANUP)
    passes(game, 3)
    game.surrender([at(game, 0, 4)])
    game.resign(0)  # B cannot agree and resigns, as the sheet advises
    assert game.over and game.result is not None
    assert game.result.text() == "W+R"
    with pytest.raises(IllegalMove):
        game.agree(1)  # decided: cleanup is closed


def test_a_voluntary_skip_collects_the_dividend_places_nothing_and_pays_nothing() -> None:
    game = position(
        """
        B . B . W
        B B B . W
        """
    )
    assert GoBeyond.voluntary_skip and not find_rules("chinese").voluntary_skip
    game.skip(0)  # B chooses to skip: its turn starts (claims (0,1): +1), no stone, no cost
    assert game.points == [201, 200]
    assert game.moves[-1].kind == "skip" and game.to_move == 1
    assert game.board.count(0) == 5


def test_turn_seconds_is_part_of_the_agreed_economy_for_the_clock() -> None:
    assert GoBeyond(grid(3), turn_seconds=30).turn_seconds == 30
    assert GoBeyond(grid(3)).turn_seconds is None
    assert new_game("chinese", grid(3)).turn_seconds is None  # Go sets no turn limit itself


def test_the_json_record_keeps_the_agreed_economy_so_a_replay_scores_the_same_game() -> None:
    from companion.records.json_record import read_json_record, write_json_record
    from companion.records.record import record_from_game

    game = position(
        """
        B . B . W
        B B B . W
        """,
        starting=44,
        handicap=3,
        stone_cost=2,
        dividend=0,
        capture_bounty=5,
        territory_bounty=1,
        turn_seconds=30,
    )
    game.play(at(game, 0, 3))  # B: 47 - 2
    passes(game, 3)
    game.agree(0)
    game.agree(1)
    assert game.result is not None
    text = write_json_record(record_from_game(game))
    assert '"starting": 44' in text and '"turn_seconds": 30' in text
    replayed, problems = read_json_record(text).to_game()
    assert problems == []
    assert isinstance(replayed, GoBeyond)
    assert replayed.economy == game.economy
    assert replayed.points == game.points == [45, 44]
    assert replayed.score() == game.score()  # not a count with the default 200 points each
    with pytest.raises(RecordError, match=r"rules\.economy\.stone_cost"):
        read_json_record(text.replace('"stone_cost": 2', '"stone_cost": 2.5'))
    with pytest.raises(RecordError, match="unknown key 'bonus'"):
        read_json_record(text.replace('"dividend": 0', '"dividend": 0, "bonus": 1'))

"""The words for each event type (companion.words): one test per type, plus the context."""

from __future__ import annotations

import pytest

from companion import events as ev
from companion.games.go import GoGame
from companion.games.topology import from_spec
from companion.table.state import TableState
from companion.words import (
    Context,
    chess_turn_words,
    clock_faces,
    move_words,
    result_words,
    words,
    words_of_dict,
)

NAMES = ("Ann", "Bob")
# A 9x9 board names its spots A9..J1 (no I), row 0 at the top.
NINE = GoGame(from_spec("9"))
CTX = Context(players=NAMES, spot_name=NINE.spot_name)


def spot(name: str) -> int:
    return next(s for s in range(81) if NINE.spot_name(s) == name)


SNAP = {
    "states": [
        {"main": 299.4, "overtime": False},
        {"main": 0.0, "period": 28.6, "overtime": True, "periods": 3},
    ]
}


def test_game_started() -> None:
    e = ev.GameStarted(rules="club", topology="9", players=NAMES, time_control="10m+3x30s")
    assert words(e, CTX) == "a new game started: club on 9, clock 10m+3x30s"
    e = ev.GameStarted(rules="chinese", topology="19")
    assert words(e, Context(game_id=4)) == "game 4 started: chinese on 19"


def test_game_ended() -> None:
    e = ev.GameEnded(result="B+R", winner=0, method="resignation")
    assert words(e, CTX) == "game over: Ann wins by resignation"
    e = ev.GameEnded(result="W+3.5", winner=1, method="area")
    assert words(e, CTX) == "game over: Bob wins by 3.5 points (area)"


@pytest.mark.parametrize(
    ("result", "players", "said"),
    [
        ("B+3.5", ("Ann", "Bob"), "Ann wins by 3.5 points"),
        ("W+1", ("Ann", "Bob"), "Bob wins by 1 point"),
        ("W+T", (), "White wins on time"),
        ("R+0", ("Red", "Green", "Blue"), "Blue wins on the tie-break"),
        ("G+R", ("A", "B", "C", "D"), "D wins by resignation"),
        ("0", ("Ann", "Bob"), "a tie"),
        ("1-0", ("Ann", "Bob"), "Ann wins"),
        ("1/2-1/2", ("Ann", "Bob"), "a draw"),
        ("Void", ("Ann", "Bob"), "Void"),
    ],
)
def test_results_read_as_people_say_them(result: str, players: tuple[str, ...], said: str) -> None:
    """Issue 14: "R+0" is SGF, not words."""
    assert result_words(result, players) == said


def test_move_played_names_the_player_the_point_and_the_captures() -> None:
    e = ev.MovePlayed(player=1, spot=spot("E5"), captured=(spot("D5"), spot("E4")))
    assert words(e, CTX) == "Bob played E5, capturing D5, E4"
    assert words(ev.MovePlayed(player=0, spot=spot("A9")), CTX) == "Ann played A9"


def test_chess_turn_played() -> None:
    assert words(ev.ChessTurnPlayed(player=0, turn="e2e4/d3d2"), CTX) == "Ann played e2e4/d3d2"


def test_promotion_asked() -> None:
    e = ev.PromotionAsked(player=1, turns=("e2e1=Q/a1a2", "e2e1=N/a1a2"))
    assert words(e, CTX) == "Bob's pawn promoted: which piece did it become?"


def test_passed() -> None:
    assert words(ev.Passed(player=0), CTX) == "Ann passed"


def test_skipped() -> None:
    # one event for both: a skip chosen (GoBeyond's Skip) and a turn limit run out
    assert words(ev.Skipped(player=1), CTX) == "Bob skipped a turn"


def test_resigned() -> None:
    assert words(ev.Resigned(player=1), CTX) == "Bob resigned"


def test_undone_counts_moves() -> None:
    assert words(ev.Undone(count=1), CTX) == "took back 1 move"
    assert words(ev.Undone(count=3), CTX) == "took back 3 moves"


def test_clock_switched() -> None:
    assert words(ev.ClockSwitched(player=0), CTX) == "Ann pressed the clock without a move"


def test_flag_fell() -> None:
    assert words(ev.FlagFell(player=0), CTX) == "Ann's time ran out"


def test_clock_snapshot_shows_each_face() -> None:
    e = ev.ClockSnapshot(clock=SNAP)
    assert words(e, CTX) == "clocks (Ann 4:59, Bob 0:29 (3 periods))"


def test_clock_paused() -> None:
    assert words(ev.ClockPaused(clock=SNAP), CTX).startswith("clocks paused (Ann 4:59")
    assert words(ev.ClockPaused(), CTX) == "clocks paused"


def test_clock_resumed() -> None:
    assert words(ev.ClockResumed(), CTX) == "clocks running"


def test_discrepancy_raised_says_its_message() -> None:
    e = ev.DiscrepancyRaised(kind="extra", spots=(3,), message="a stone appeared on D9")
    assert words(e, CTX) == "a stone appeared on D9"


def test_discrepancy_cleared() -> None:
    assert words(ev.DiscrepancyCleared(), CTX) == "the board matches the game again"


def test_removal_requested_says_its_message() -> None:
    e = ev.RemovalRequested(spots=(4,), message="take the captured stone off E9")
    assert words(e, CTX) == "take the captured stone off E9"


def test_cleanup_started() -> None:
    assert words(ev.CleanupStarted(), CTX) == (
        "the game is over: mark the dead stones, then every player agrees"
    )


def test_cleanup_suggested() -> None:
    e = ev.CleanupSuggested(dead=(1, 2, 3), no_mans_land=(9,), unsure=(1,), result="W+4.5")
    assert words(e, CTX) == (
        "the estimate suggested 3 dead and 1 dame (Bob wins by 4.5 points if confirmed), "
        "unsure of 1 stone"
    )
    assert words(ev.CleanupSuggested(result="B+1"), CTX) == (
        "the estimate suggested 0 dead and 0 dame (Ann wins by 1 point if confirmed)"
    )


def test_cleanup_marked() -> None:
    e = ev.CleanupMarked(spots=(spot("C3"), spot("C4")), mark="dead")
    assert words(e, CTX) == "C3, C4 marked dead"
    assert words(ev.CleanupMarked(spots=(spot("E5"),), mark="nml"), CTX) == (
        "E5 marked no-man's-land"
    )
    assert words(ev.CleanupMarked(spots=(spot("E5"),), mark="alive"), CTX) == (
        "E5 marked alive again"
    )


def test_cleanup_cancelled() -> None:
    assert words(ev.CleanupCancelled(), CTX) == "counting cancelled: play goes on"


def test_play_resumed() -> None:
    assert words(ev.PlayResumed(), CTX) == (
        "the players did not agree on the dead stones: play goes on, passes and prisoners kept"
    )


def test_handicap_placed() -> None:
    said = words(ev.HandicapPlaced(spots=(spot("A9"), spot("B9"))), CTX)
    assert said == "handicap: 2 black stones at A9, B9"  # maybe not all: one per tap


def test_player_agreed() -> None:
    assert words(ev.PlayerAgreed(player=1), CTX) == "Bob agreed to the count"


def test_scored() -> None:
    e = ev.Scored(points=(40.0, 47.5), winner=1, margin=7.5, method="area", result="W+7.5")
    assert words(e, CTX) == "counted by area: Bob wins by 7.5 points"


def test_a_tie_reads_as_a_tie_not_a_score() -> None:
    """Issue 13: a three-way GoBeyond tie showed "R+0"; its result text is SGF's "0"."""
    e = ev.Scored(points=(44.0, 44.0, 44.0), winner=None, margin=0.0, method="area", result="0")
    assert words(e, CTX) == "counted by area: a tie"
    assert (
        words(ev.GameEnded(result="0", winner=None, method="area"), CTX)
        == "game over: a tie (area)"
    )


def test_every_event_type_has_its_own_words() -> None:
    """A new event type must get words here, not the fallback of its split type name."""
    samples = {
        "GameStarted": ev.GameStarted(rules="club", topology="9"),
        "GameEnded": ev.GameEnded(result="B+R", winner=0, method="resignation"),
        "MovePlayed": ev.MovePlayed(player=0, spot=0),
        "ChessTurnPlayed": ev.ChessTurnPlayed(player=0, turn="e2e4/d3d2"),
        "PromotionAsked": ev.PromotionAsked(player=0, turns=()),
        "Passed": ev.Passed(player=0),
        "Skipped": ev.Skipped(player=0),
        "Resigned": ev.Resigned(player=0),
        "Undone": ev.Undone(),
        "ClockSwitched": ev.ClockSwitched(player=0),
        "ClockPaused": ev.ClockPaused(),
        "ClockResumed": ev.ClockResumed(),
        "ClockSnapshot": ev.ClockSnapshot(),
        "FlagFell": ev.FlagFell(player=0),
        "DiscrepancyRaised": ev.DiscrepancyRaised(kind="x", spots=(), message="m"),
        "DiscrepancyCleared": ev.DiscrepancyCleared(),
        "RemovalRequested": ev.RemovalRequested(spots=(), message="m"),
        "CleanupStarted": ev.CleanupStarted(),
        "CleanupSuggested": ev.CleanupSuggested(),
        "CleanupMarked": ev.CleanupMarked(spots=(0,), mark="dead"),
        "CleanupCancelled": ev.CleanupCancelled(),
        "PlayResumed": ev.PlayResumed(),
        "HandicapPlaced": ev.HandicapPlaced(spots=(0, 1)),
        "PlayerAgreed": ev.PlayerAgreed(player=0),
        "Scored": ev.Scored(points=(1.0, 0.0), winner=0, margin=1.0, method="area"),
    }
    assert set(samples) == set(ev.EVENT_TYPES), "an event type has no sample (and no test) here"
    for name, event in samples.items():
        split = "".join(" " + c.lower() if c.isupper() else c for c in name).strip()
        assert words(event, CTX) not in ("", split), name


def test_without_context_players_and_spots_are_numbered() -> None:
    assert words(ev.MovePlayed(player=2, spot=7)) == "player 3 played spot 7"
    assert words(ev.FlagFell(player=0), Context(players=NAMES)) == "Ann's time ran out"


def test_context_of_a_table_state_names_players_and_points() -> None:
    state = TableState(game_id=1)
    state.apply(ev.GameStarted(seq=1, rules="club", topology="9", players=NAMES))
    ctx = Context.of(state)
    assert ctx.game_id == 1 and ctx.players == NAMES
    assert words(ev.MovePlayed(player=0, spot=spot("C7")), ctx) == "Ann played C7"
    assert Context.of(TableState()) == Context()


@pytest.mark.parametrize(
    "data",
    [
        {"type": "NoSuchEvent", "x": 1},
        {"type": "MovePlayed"},  # lacks its fields
        {"type": "Passed", "player": "first"},  # junk field from a broker
        {},
    ],
)
def test_words_of_junk_json_is_a_plain_name_not_a_traceback(data: dict[str, object]) -> None:
    text = words_of_dict(data, CTX)
    assert text and "Traceback" not in text


def test_words_of_json_is_the_events_words() -> None:
    data = ev.MovePlayed(player=1, spot=spot("E5")).to_dict()
    assert words_of_dict(data, CTX) == "Bob played E5"
    assert words_of_dict({"type": "NoSuchEvent"}) == "no such event"


def test_clock_faces_skips_junk() -> None:
    assert clock_faces({"states": [{"main": "x"}, 3]}, CTX) == "Ann ?"
    assert clock_faces(None) == ""


def test_a_record_move_reads_as_its_event() -> None:
    """The last move on a page reads as the feed's line for the event that journaled it."""
    e5 = spot("E5")
    assert move_words("play", 1, e5, CTX, captured=(spot("D5"),)) == words(
        ev.MovePlayed(player=1, spot=e5, captured=(spot("D5"),)), CTX
    )
    assert move_words("skip", 0, None, CTX) == "Ann skipped a turn"
    assert move_words("resign", 1, None, CTX) == "Bob resigned"
    assert chess_turn_words(0, "f2f3", CTX) == "Ann played f2f3"

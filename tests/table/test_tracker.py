"""The tracker, fed ASCII boards over simulated time (30 frames a second), with a tiny session."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.go import BLACK, EMPTY, WHITE, GoGame
from companion.games.playout import random_move
from companion.games.rules import new_game
from companion.games.topology import grid
from companion.observation import Observation
from companion.table.handsim import hand_frames
from companion.table.intents import (
    BoardMatches,
    Discrepancy,
    Intent,
    PassIntent,
    PlayIntent,
    RemoveStones,
    UndoIntent,
)
from companion.table.labels import read_labels
from companion.table.tracker import Tracker, apply_intent
from tests.support.paths import shared_data

FPS = 30
STILL = 0.2


class Table:
    """A game, a tracker and a clock; ``show`` holds a board in front of the camera."""

    def __init__(self, game: GoGame, **options: object) -> None:
        self.game = game
        self.tracker = Tracker(game, still_time=STILL, **options)  # type: ignore[arg-type]
        self.now = 0.0
        self.log: list[Intent] = []

    def frame(self, rows: list[str]) -> list[Intent]:
        out = self.tracker.update(Observation.from_rows(rows), self.now)
        self.now += 1 / FPS
        for intent in out:
            apply_intent(self.game, intent)
        self.log.extend(out)
        return out

    def show(self, rows: list[str], seconds: float = 0.5) -> list[Intent]:
        out: list[Intent] = []
        for _ in range(round(seconds * FPS)):
            out += self.frame(rows)
        return out


def board(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines()]


def start(text: str, rules: str = "chinese", to_move: int = BLACK, **options: object) -> Table:
    """A table whose game starts from the position ``text`` (set up, not played)."""
    rows = board(text)
    game = new_game(rules, grid(len(rows)))
    stones = {
        i: {"B": BLACK, "W": WHITE}[t]
        for i, t in enumerate(t for row in rows for t in row.split())
        if t in "BW"
    }
    if stones:
        game.setup(stones, to_move=to_move)
    table = Table(game, **options)
    assert table.show(rows) == []
    return table


def spot(game: GoGame, name: str) -> int:
    return game.parse_spot(name)


EMPTY5 = """
. . . . .
. . . . .
. . . . .
. . . . .
. . . . .
"""


def test_a_normal_move_is_accepted_after_still_time() -> None:
    table = start(EMPTY5)
    rows = board("""
        . . . . .
        . . . . .
        . . B . .
        . . . . .
        . . . . .
    """)
    frames = 0
    while not table.log:
        table.frame(rows)
        frames += 1
    assert table.log == [PlayIntent(spot(table.game, "C3"), BLACK)]
    # Accepted on the first frame at least still_time after the board settled, not before.
    assert frames == round(STILL * FPS) + 1
    assert table.show(rows) == []


def test_a_hand_passing_over_never_becomes_a_move() -> None:
    table = start(EMPTY5)
    hand = [
        board(". . . . .\n. . . . .\n? ? ? . .\n? ? ? . .\n? ? ? . ."),
        board(". . . . .\n. ? ? ? .\n. ? ? ? .\n. ? ? ? .\n. . . . ."),
        # The reader briefly takes a knuckle for a stone, for two frames.
        board(". . . . .\n. . W . .\n. ? ? ? .\n. . . . .\n. . . . ."),
        board(". . . . .\n. . W . .\n. ? ? ? .\n. . . . .\n. . . . ."),
        board(". . . . .\n. . . . .\n. . ? ? .\n. . ? ? .\n. . . . ."),
    ]
    for _ in range(3):
        for rows in hand:
            assert table.frame(rows) == []
    assert table.show(board(EMPTY5)) == []
    assert table.tracker.status().stable
    assert table.game.moves == []


def test_unknown_spots_never_confirm_a_change() -> None:
    table = start(EMPTY5)
    # One unknown spot (within max_unknown), held still: nothing is read there.
    rows = board(". . . . .\n. . . . .\n. . ? . .\n. . . . .\n. . . . .")
    assert table.show(rows, 1.0) == []
    # A hand leaves a stone: unknown -> B restarts the wait, then the move is read.
    played = board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . .")
    first = table.frame(played)
    assert first == []
    assert table.show(played) == [PlayIntent(spot(table.game, "C3"), BLACK)]


def test_a_glitch_frame_does_nothing() -> None:
    table = start(
        """
        . . . . .
        . B . . .
        . . . . .
        . . . W .
        . . . . .
        """
    )
    glitch = board(". . . . .\n. B . . .\n. . . . .\n. . . B .\n. . . . .")
    steady = board(". . . . .\n. B . . .\n. . . . .\n. . . W .\n. . . . .")
    assert table.frame(glitch) == []
    assert table.show(steady) == []
    assert table.game.moves == []


def test_capture_with_stones_left_on_then_taken_off() -> None:
    table = start(
        """
        . . . . .
        . . B . .
        . B W B .
        . . . . .
        . . . . .
        """
    )
    game = table.game
    played = board(". . . . .\n. . B . .\n. B W B .\n. . B . .\n. . . . .")
    out = table.show(played)
    assert out[0] == PlayIntent(spot(game, "C2"), BLACK)
    assert out[1] == RemoveStones(
        (spot(game, "C3"),), "the white stone at C3 was captured: take it off"
    )
    assert game[spot(game, "C3")] == EMPTY
    assert table.tracker.status().pending_removal == (spot(game, "C3"),)
    # White plays before taking the stone off: held, the move is not accepted.
    early = board(". . . . .\n. . B . .\n. B W B .\n. . B . .\n. . . . W")
    out = table.show(early)
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].kind == "captured left on"
    assert "the white stone at C3 was captured: take it off" in out[0].message
    assert len(game.moves) == 1
    # Taken off: the waiting move is accepted.
    out = table.show(board(". . . . .\n. . B . .\n. B . B .\n. . B . .\n. . . . W"))
    assert out == [BoardMatches(out[0].detail), PlayIntent(spot(game, "E1"), WHITE)]  # type: ignore[union-attr]
    # The freed spot can be played again later.
    assert table.show(board(". . . . .\n. . B . .\n. B B B .\n. . B . .\n. . . . W")) == [
        PlayIntent(spot(game, "C3"), BLACK)
    ]


def test_removal_done_gives_board_matches() -> None:
    table = start(
        """
        . . . . .
        . . B . .
        . B W B .
        . . . . .
        . . . . .
        """
    )
    table.show(board(". . . . .\n. . B . .\n. B W B .\n. . B . .\n. . . . ."))
    out = table.show(board(". . . . .\n. . B . .\n. B . B .\n. . B . .\n. . . . ."))
    assert out == [BoardMatches("the board matches the game")]
    assert table.tracker.status().pending_removal == ()


def test_wrong_colour_stone_is_held_until_taken_off() -> None:
    table = start(EMPTY5)
    out = table.show(board(". . . . .\n. . . . .\n. . W . .\n. . . . .\n. . . . ."))
    assert out == [
        Discrepancy(
            "wrong colour",
            (spot(table.game, "C3"),),
            "a white stone appeared at C3 but Black is to move",
        )
    ]
    assert table.tracker.status().held == out[0]
    assert table.show(board(EMPTY5)) == [BoardMatches("the board matches the game")]
    assert table.game.moves == []


def test_a_stone_turning_colour_is_wrong_colour() -> None:
    table = start(". . .\n. B .\n. . .", to_move=WHITE)
    out = table.show(board(". . .\n. W .\n. . ."))
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].kind == "wrong colour"
    assert out[0].message == "the black stone at B2 now reads white"


def test_a_moved_stone_is_named() -> None:
    table = start(
        """
        . . . . .
        . . . B .
        . . . . .
        . W . . .
        . . . . .
        """
    )
    out = table.show(board(". . . B .\n. . . . .\n. . . . .\n. W . . .\n. . . . ."))
    assert out == [
        Discrepancy(
            "moved",
            (spot(table.game, "D5"), spot(table.game, "D4")),
            "the stone at D4 moved to D5",
        )
    ]
    assert table.game.moves == []


def test_a_missing_stone_is_named() -> None:
    table = start(
        """
        . . . . .
        . . . B .
        . . . . .
        . W . . .
        . . . . .
        """
    )
    out = table.show(board(". . . . .\n. . . B .\n. . . . .\n. . . . .\n. . . . ."))
    assert out == [
        Discrepancy("missing", (spot(table.game, "B2"),), "a white stone is missing at B2")
    ]
    # Put back: play resumes.
    out = table.show(board(". . . . .\n. . . B .\n. . . . .\n. W . . .\n. . . . ."))
    assert out == [BoardMatches("the board matches the game")]


def test_suicide_is_forbidden() -> None:
    table = start(
        """
        . W . . .
        W . . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    out = table.show(board("B W . . .\nW . . . .\n. . . . .\n. . . . .\n. . . . ."))
    assert out == [
        Discrepancy(
            "forbidden",
            (spot(table.game, "A5"),),
            "a black stone at A5 is not allowed: it would be suicide",
        )
    ]
    assert table.game.moves == []


KO = """
. B W . .
B W . W .
. B W . .
. . . . .
. . . . .
"""


@pytest.mark.parametrize(
    ("rules", "reason"),
    [("japanese", "it retakes the ko at once"), ("chinese", "it repeats an earlier position")],
)
def test_ko_retake_is_forbidden(rules: str, reason: str) -> None:
    table = start(KO, rules=rules, to_move=BLACK)
    game = table.game
    # Black takes the ko, the white stone still on; then it is taken off.
    out = table.show(board(". B W . .\nB W B W .\n. B W . .\n. . . . .\n. . . . ."))
    assert out == [
        PlayIntent(spot(game, "C4"), BLACK),
        RemoveStones((spot(game, "B4"),), "the white stone at B4 was captured: take it off"),
    ]
    assert table.show(board(". B W . .\nB . B W .\n. B W . .\n. . . . .\n. . . . .")) == [
        BoardMatches("the board matches the game")
    ]
    # White retakes at once (the black stone still on): refused.
    out = table.show(board(". B W . .\nB W B W .\n. B W . .\n. . . . .\n. . . . ."))
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].kind == "forbidden"
    assert out[0].message == f"a white stone at B4 is not allowed: {reason}"
    assert out[0].spots == (spot(game, "B4"),)
    assert len(game.moves) == 1
    # The black stone taken off too: that is the earlier position itself, offered as an undo.
    out = table.show(board(". B W . .\nB W . W .\n. B W . .\n. . . . .\n. . . . ."))
    assert out[0] == UndoIntent(1)


def test_going_back_is_offered_as_undo() -> None:
    table = start(EMPTY5)
    game = table.game
    one = board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . .")
    two = board(". . . . .\n. . . . .\n. . B W .\n. . . . .\n. . . . .")
    table.show(one)
    table.show(two)
    assert len(game.moves) == 2
    out = table.show(one)
    # The tiny session takes the undo at once; the tracker then sees a matching board.
    assert out == [UndoIntent(1), BoardMatches("the board matches the game")]
    assert len(game.moves) == 1
    # Back to the empty board: two moves.
    table.show(two)
    assert table.show(board(EMPTY5))[0] == UndoIntent(2)
    assert game.moves == []


def test_the_last_stone_moved_is_an_undo_then_the_new_move() -> None:
    table = start(EMPTY5)
    game = table.game
    table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . ."))
    table.show(board(". . . . .\n. . . . .\n. . B W .\n. . . . .\n. . . . ."))
    # White slides the stone from D3 to D2: offered as an undo, then read as White's move.
    out = table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . W .\n. . . . ."))
    assert out == [
        UndoIntent(1),
        BoardMatches("the board can be read as the next move(s)"),
        PlayIntent(spot(game, "D2"), WHITE),
    ]
    assert [m.spot for m in game.moves] == [spot(game, "C3"), spot(game, "D2")]


def test_an_older_stone_moved_is_a_discrepancy_not_an_undo() -> None:
    table = start(EMPTY5)
    table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . ."))
    table.show(board(". . . . .\n. . . . .\n. . B W .\n. . . . .\n. . . . ."))
    table.show(board(". . . . .\n. . . . .\n. . B W .\n. B . . .\n. . . . ."))
    out = table.show(board(". . . . .\n. . B . .\n. . . W .\n. B . . .\n. . . . ."))
    assert out == [
        Discrepancy(
            "moved",
            (spot(table.game, "C4"), spot(table.game, "C3")),
            "the stone at C3 moved to C4",
        )
    ]
    assert len(table.game.moves) == 3


def test_undo_of_a_capture_with_the_stone_still_on() -> None:
    table = start(". B .\nB W .\n. B .")
    game = table.game
    captured = table.show(board(". B .\nB W B\n. B ."))
    assert isinstance(captured[-1], RemoveStones)
    # The capturing stone is lifted instead: the board is the earlier position.
    assert table.show(board(". B .\nB W .\n. B ."))[0] == UndoIntent(1)
    assert game.board[game.parse_spot("B2")] == WHITE


def test_three_moves_at_once_are_recovered() -> None:
    table = start(EMPTY5)
    game = table.game
    out = table.show(board(". . . . .\n. B . . .\n. . . . .\n. . . W .\n. . . . B"))
    assert out == [
        PlayIntent(spot(game, "B4"), BLACK),
        PlayIntent(spot(game, "D2"), WHITE),
        PlayIntent(spot(game, "E1"), BLACK),
    ]
    assert game.to_move == WHITE


def test_two_moves_at_once_alternate_from_the_player_to_move() -> None:
    table = start(". W .\n. . .\n. . .")
    game = table.game
    out = table.show(board(". W .\nW . .\n. . B"))
    assert out == [PlayIntent(spot(game, "C1"), BLACK), PlayIntent(spot(game, "A2"), WHITE)]


def test_capture_inside_a_batch_with_the_stone_left_on() -> None:
    table = start(". W .\n. . .\n. . .")
    game = table.game
    # Black A3 (corner, one liberty left), White A2 captures it, Black C1 - seen at once,
    # the captured black stone still on the board.
    out = table.show(board("B W .\nW . .\n. . B"))
    assert out[:3] == [
        PlayIntent(spot(game, "A3"), BLACK),
        PlayIntent(spot(game, "A2"), WHITE),
        PlayIntent(spot(game, "C1"), BLACK),
    ]
    assert out[3] == RemoveStones(
        (spot(game, "A3"),), "the black stone at A3 was captured: take it off"
    )


def test_an_ambiguous_multi_move_is_held() -> None:
    table = start(KO.replace("B W . W", "B . . W"), to_move=BLACK)
    # Black at C4 and White at B4 (either captures the other, depending on the order), and a
    # black stone far away: the order changes who captured what.
    out = table.show(board(". B W . .\nB W B W .\n. B W . .\n. . . . .\n. . . . B"))
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].kind == "ambiguous"
    assert "one at a time" in out[0].message
    assert table.game.moves == []


def test_two_stones_of_one_colour_without_passes_are_extra() -> None:
    table = start(EMPTY5)
    out = table.show(board("B . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . B"))
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].kind == "extra"
    assert out[0].message == "2 black stones appeared at A5 and E1 but Black plays one stone a turn"


def test_stones_of_one_colour_with_passes_inferred() -> None:
    table = start(EMPTY5, infer_passes=True)
    game = table.game
    out = table.show(board("B . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . B"))
    assert out == [
        PlayIntent(spot(game, "A5"), BLACK),
        PassIntent(WHITE),
        PlayIntent(spot(game, "E1"), BLACK),
    ]
    out = table.show(board("B . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . B B"))
    assert out == [PassIntent(WHITE), PlayIntent(spot(game, "D1"), BLACK)]


def test_no_pass_is_inferred_while_an_empty_spot_cannot_be_read() -> None:
    table = start(EMPTY5, infer_passes=True, max_unknown=1)
    table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . ."))
    # White's stone at A1 is read as unknown; Black then plays: no pass is made up for White.
    out = table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . B\n? . . . ."))
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].kind == "wrong colour"
    assert out[0].message.endswith("A1 cannot be read (a stone there would change the reading)")
    # Once read, both moves are recovered in order.
    out = table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . B\nW . . . ."))
    game = table.game
    assert out == [
        BoardMatches(out[0].detail),  # type: ignore[union-attr]
        PlayIntent(spot(game, "A1"), WHITE),
        PlayIntent(spot(game, "E2"), BLACK),
    ]


def test_long_spot_lists_are_shortened() -> None:
    table = start(EMPTY5)
    out = table.show(board("W W W W W\nW W W W W\n. . . . .\n. . . . .\n. . . . ."))
    assert isinstance(out[0], Discrepancy)
    assert out[0].message == (
        "10 white stones appeared at A5, B5, C5, D5, E5, A4, B4 and 3 more but Black is to move"
    )
    assert len(out[0].spots) == 10


def test_too_many_unknowns_for_long_is_unreadable() -> None:
    table = start(EMPTY5, unreadable_time=1.0)
    covered = board("? ? ? ? ?\n? ? ? ? ?\n. . . . .\n. . . . .\n. . . . .")
    out = table.show(covered, 1.5)
    assert len(out) == 1 and isinstance(out[0], Discrepancy) and out[0].kind == "unreadable"
    assert table.show(board(EMPTY5)) == [BoardMatches("the board matches the game")]


def test_low_confidence_tokens_count_as_unknown() -> None:
    table = start(EMPTY5, min_confidence=0.6, max_unknown=1)
    rows = board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . .")
    unsure = Observation.from_rows(rows)
    unsure = Observation(unsure.states, tuple(0.5 if t == "B" else 1.0 for t in unsure.states))
    for _ in range(15):
        assert table.tracker.update(unsure, table.now) == []
        table.now += 1 / FPS
    assert table.show(rows) == [PlayIntent(spot(table.game, "C3"), BLACK)]


def test_bad_options_are_refused() -> None:
    game = new_game("chinese", grid(5))
    with pytest.raises(ValueError, match="negative"):
        Tracker(game, still_time=-1)
    with pytest.raises(ValueError, match="max_batch"):
        Tracker(game, max_batch=0)


def test_observation_of_the_wrong_size_is_refused() -> None:
    table = start(EMPTY5)
    with pytest.raises(ValueError, match="spots"):
        table.tracker.update(Observation.from_rows([". . .", ". . .", ". . ."]), 10.0)


# ---------------------------------------------------------------------- the real label files


@pytest.mark.parametrize("folder", ["data/photos/gomrade/testing_sequence", "data/photos/imago/t1"])
def test_label_sequences_give_the_moves_the_labels_imply(folder: str) -> None:
    """Each label file held for 0.5 s as a perfect observation: after each file the game's
    board is the labelled board, the plays of that step are exactly the new stones, and the
    stones captured are exactly the stones that vanished."""
    path = shared_data(folder)
    labels = read_labels(path)
    size = round(len(labels[0][1]) ** 0.5)
    game = new_game("chinese", grid(size))
    table = Table(game, infer_passes=True)
    before = [EMPTY] * len(game.topology)
    owner = {".": EMPTY, "B": BLACK, "W": WHITE}
    total_plays = 0
    captures = 0
    for name, observation in labels:
        out = table.show(observation.rows(size))
        seen = [owner[t] for t in observation.states]
        assert list(game.board) == seen, name
        plays = {(i.spot, i.player) for i in out if isinstance(i, PlayIntent)}
        added = {(s, o) for s, o in enumerate(seen) if o != EMPTY and before[s] != o}
        vanished = {s for s, o in enumerate(seen) if o == EMPTY and before[s] != EMPTY}
        assert plays == added, name
        assert not [i for i in out if isinstance(i, (Discrepancy, UndoIntent))], name
        # The engine took off exactly the stones that vanished (the boards are equal), as
        # captures of these plays.
        assert sum(game.captures) - captures == len(vanished), name
        captures = sum(game.captures)
        total_plays += len(plays)
        before = seen
    assert total_plays == sum(1 for m in game.moves if m.kind == "play")


# ---------------------------------------------------------------------- random games
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), glitches=st.booleans())
def test_random_games_seen_through_hands_are_recorded_exactly(seed: int, glitches: bool) -> None:
    """A random legal 9x9 game, each move made by a simulated hand (unknown spots and misread
    shadows around it, captured stones taken off under the hand), with one-frame glitches:
    the tracker's record is the game's, in order, passes included."""
    rng = random.Random(seed)
    source = new_game("chinese", grid(9))
    empties = [s for s, c in enumerate(source.board) if c == EMPTY]
    tokens = {EMPTY: ".", BLACK: "B", WHITE: "W"}
    boards = [[tokens[c] for c in source.board]]
    while len(source.moves) < 40 and not source.over:
        random_move(source, rng, empties)
        if source.moves[-1].kind == "play":
            boards.append([tokens[c] for c in source.board])
    game = new_game("chinese", grid(9))
    tracker = Tracker(game, still_time=STILL, infer_passes=True)
    frame = 0

    def feed(seen: list[str]) -> None:
        nonlocal frame
        for intent in tracker.update(Observation(tuple(seen), (1.0,) * len(seen)), frame / FPS):
            apply_intent(game, intent)
        frame += 1

    for before, after in itertools.pairwise(boards):
        for seen in hand_frames(before, after, 9, rng):
            feed(seen)
        # Still for 14 frames; a glitch (one spot misread for one frame) early on restarts the
        # wait but leaves time for the move to be accepted.
        glitch_at = rng.randrange(5) if glitches else -1
        for i in range(14):
            if i == glitch_at:
                flipped = list(after)
                flipped[rng.randrange(len(flipped))] = rng.choice(".BW?")
                feed(flipped)
            feed(after)
    plays = [m for m in source.moves if m.kind == "play"]
    # A trailing pass of the source is invisible on the board; everything before it is not.
    last_play = max(i for i, m in enumerate(source.moves) if m.kind == "play") if plays else -1
    assert game.moves == source.moves[: last_play + 1]
    assert tracker.status().held is None


def test_a_simulated_sensor_grid_with_hovering_hands() -> None:
    """Integration with the hardware branch's simulated Hall grid (noise, a hand carrying a
    magnet at a random height over the spot for a third of a second) at 20 scans a second: the
    record is exact, the capture included. (The stillness gate itself is tested above.)"""
    from companion.sensors.simulated import SimulatedGrid, Step

    topology = grid(5)
    game = new_game("chinese", topology)
    names = ["C3", "C4", "B4", "D3", "D4", "B3", "E4", "C2"]  # White's C2 captures C3
    # The positions (captured stones taken off under the hand) from a scratch game.
    scratch = new_game("chinese", topology)
    steps = [Step(tuple(scratch.rows()), scans=10)]
    for name in names:
        spot = game.parse_spot(name)
        hover = (spot, *topology.neighbours[spot])
        steps.append(Step(tuple(scratch.rows()), 7, hover, "BW"[scratch.to_move]))
        scratch.play(spot)
        steps.append(Step(tuple(scratch.rows()), scans=10))
    assert sum(scratch.captures) > 0  # the script has a capture in it
    ticks = iter(range(10**6))
    sensor = SimulatedGrid(topology, steps, seed=3, clock=lambda: next(ticks) / 20)
    tracker = Tracker(game, still_time=STILL)
    while not sensor.done:
        for intent in tracker.update(sensor.scan()):
            apply_intent(game, intent)
    for intent in tracker.update(sensor.scan()):
        apply_intent(game, intent)
    assert game.moves == scratch.moves


def test_a_stone_undone_on_the_page_is_asked_off_not_read_again() -> None:
    """Issue 13: after Undo on the page, the stone still on the board was read again as a
    new move a second later. White plays D3, the players press Undo; D3 is still there:

        . . . . .
        . . . . .
        . . B W .     <- W at D3 was taken back: take it off
        . . . . .
        . . . . .
    """
    table = start(EMPTY5)
    game = table.game
    one = board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . . .")
    two = board(". . . . .\n. . . . .\n. . B W .\n. . . . .\n. . . . .")
    table.show(one)
    table.show(two)
    table.game.undo()  # the page's Undo (the session takes back D3)
    out = table.show(two, seconds=2.0)
    d3 = spot(game, "D3")
    assert out == [RemoveStones((d3,), "the white stone at D3 was taken back: take it off")]
    assert len(game.moves) == 1
    # Taken off: the board matches; then White plays elsewhere and it is read as a move.
    assert table.show(one) == [BoardMatches("the board matches the game")]
    table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . W ."))
    assert [m.spot for m in game.moves] == [spot(game, "C3"), spot(game, "D1")]
    # A second Undo asks again for the stone it took back.
    table.game.undo()
    out = table.show(board(". . . . .\n. . . . .\n. . B . .\n. . . . .\n. . . W ."))
    assert isinstance(out[0], RemoveStones)


def test_a_move_entered_by_hand_is_asked_for_never_undone() -> None:
    """Issue 14: a stone tapped on the page is in the game but not yet on the board. The
    tracker asks for it (never an undo, never "missing" to take back), and once it is put
    down reads nothing new; the next stone is read as the next move."""
    table = start(EMPTY5)
    table.game.play(spot(table.game, "C3"))  # Black, tapped on the page
    out = table.show(board(EMPTY5))
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].message == "put the black stone at C3 on the board (entered by hand)"
    assert out[0].spots == (spot(table.game, "C3"),)
    assert not any(isinstance(i, UndoIntent) for i in table.log)
    placed = board("""
        . . . . .
        . . . . .
        . . B . .
        . . . . .
        . . . . .
    """)
    assert table.show(placed) == [BoardMatches("the board matches the game")]
    assert len(table.game.moves) == 1
    # The next stone on the board is read as the next move, as usual.
    after = board("""
        . . . . .
        . . . . .
        . . B W .
        . . . . .
        . . . . .
    """)
    assert table.show(after) == [PlayIntent(spot(table.game, "D3"), WHITE)]


def test_a_capture_entered_by_hand_asks_for_the_stone_and_the_prisoners() -> None:
    """White taps B3, capturing the black stone at A3: put B3 down and take A3 off, in any
    order; the board matching again clears the alert, no move is read."""
    table = start(
        """
        W . . . .
        B . . . .
        W . . . .
        . . . . .
        . . . . .
        """,
        to_move=WHITE,
    )
    game = table.game
    game.play(spot(game, "B4"))  # White, tapped on the page: captures A4
    assert set(game.last_captured) == {spot(game, "A4")}
    before = board("W . . . .\nB . . . .\nW . . . .\n. . . . .\n. . . . .")
    out = table.show(before)
    assert len(out) == 1 and isinstance(out[0], Discrepancy)
    assert out[0].message == (
        "put the white stone at B4 on the board (entered by hand); take the black stone at A4 off"
    )
    placed = board("W . . . .\nB W . . .\nW . . . .\n. . . . .\n. . . . .")
    out = table.show(placed)
    assert len(out) == 1 and isinstance(out[0], RemoveStones)
    done = board("W . . . .\n. W . . .\nW . . . .\n. . . . .\n. . . . .")
    assert table.show(done) == [BoardMatches("the board matches the game")]
    assert len(game.moves) == 1
